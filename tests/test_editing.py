"""viewer.editing: the layout editor behind the window (no Panda3D)."""

import numpy as np
import pytest
from battlesight.scenes import load_scene
from battlesight.scenes.piece_edits import piece_centre
from battlesight.viewer.editing import DEFAULTS, LayoutEditor, LiveAnalysis

from tests.helpers import RULESET_EXAMPLES


@pytest.fixture
def editor():
    return LayoutEditor(load_scene(RULESET_EXAMPLES["wh40k6"]), grid=1.0)


def test_pick_prefers_the_smallest_piece_and_thin_walls(editor):
    assert editor.pick((14, 8)) == "ruin-a"
    assert editor.pick((31, 14.2)) == "barricade-1"  # 0.2" off a 0.5" wall: still picked
    assert editor.pick((70, 2)) is None
    editor.add("crater", (14, 8), radius=1.5)  # a crater inside the ruin is smaller
    assert editor.pick((14, 8)) == "crater-3"


def test_move_rotate_snap_each_key_kind(editor):
    editor.move("ruin-a", 2, -1)
    assert editor.piece("ruin-a").data["at"] == [16, 7]
    editor.move("barricade-1", 1.5, 0.5)
    assert editor.piece("barricade-1").data["from"] == [29.5, 14.5]
    assert editor.piece("barricade-1").data["to"] == [35.5, 14.5]
    editor.add("forest", (20, 40))
    before = np.array(editor.piece("forest-1").data["polygon"])
    editor.move("forest-1", -1, 2)
    assert np.allclose(editor.piece("forest-1").data["polygon"], before + [-1, 2])
    editor.rotate("barricade-1", 90)  # a wall turns its end points about its middle
    assert editor.piece("barricade-1").data["from"] == [32.5, 11.5]
    assert editor.piece("barricade-1").data["to"] == [32.5, 17.5]
    editor.rotate("ruin-a", 200)
    assert editor.piece("ruin-a").data["rotation"] == -160
    editor.rotate("ruin-a", 7)
    editor.move("ruin-a", 0.4, 0.3)
    editor.snap("ruin-a")
    assert editor.piece("ruin-a").data["at"] == [16, 7]
    assert editor.piece("ruin-a").data["rotation"] == -150  # -153 to the 15 degree step
    editor.move_to("hab-block", (10, 30))
    assert piece_centre(editor.piece("hab-block")).tolist() == [10, 30]


def test_drag_is_one_undo_step_and_snaps_on_drop(editor):
    changes = []
    editor.on_change(changes.append)
    editor.begin_drag("ruin-b", (58, 40))
    for x in np.linspace(58, 50.3, 5):
        editor.drag_to((x, 40.2))
    assert editor.piece("ruin-b").data["at"] == [50.3, 40.2]
    editor.end_drag()
    assert editor.piece("ruin-b").data["at"] == [50, 40]
    assert [c.final for c in changes] == [False] * 5 + [True]
    assert changes[-1].action == "move" and changes[-1].piece == "ruin-b"
    assert editor.undo() and editor.piece("ruin-b").data["at"] == [58, 40]
    assert not editor.can_undo
    editor.begin_drag("ruin-b", (58, 40))
    editor.drag_to((40, 40))
    editor.cancel_drag()
    assert editor.piece("ruin-b").data["at"] == [58, 40]


def test_add_every_kind_delete_undo_redo(editor):
    n = len(editor.pieces)
    ids = [editor.add(kind, (20 + 4 * i, 20)) for i, kind in enumerate(DEFAULTS)]
    assert len(editor.pieces) == n + len(DEFAULTS) and ids[0] == "wall-2"
    assert editor.piece("forest-1").data["cover"] == 5  # the ruleset's usual rules data
    assert editor.piece(ids[2]).data["at"] == [28, 20]
    editor.delete("ruin-c")
    with pytest.raises(KeyError):
        editor.piece("ruin-c")
    for _ in range(len(DEFAULTS) + 1):
        assert editor.undo()
    assert len(editor.pieces) == n and not editor.undo()
    assert editor.redo() and editor.piece("wall-2")
    editor.set("wall-2", height=4, cover=None)
    assert editor.piece("wall-2").data["height"] == 4 and "cover" not in editor.piece("wall-2").data
    assert not editor.can_redo  # a new edit clears the redo stack


def test_bad_edits_raise_and_change_nothing(editor):
    before = [p.data for p in editor.pieces]
    with pytest.raises(ValueError, match="height"):
        editor.set("wall-1", height=-1)
    with pytest.raises(ValueError, match="unknown terrain type"):
        editor.add("lava", (10, 10))
    with pytest.raises(ValueError, match="taken"):
        editor.add("box", (10, 10), piece_id="ruin-a")
    with pytest.raises(KeyError):
        editor.move("nope", 1, 1)
    assert [p.data for p in editor.pieces] == before and not editor.can_undo


def test_save_round_trips_through_the_scene_format(editor, tmp_path):
    editor.move("ruin-a", 1, 1)
    editor.add("hill", (40, 10))
    editor.rotate("statue-1", 45)
    path = editor.save(tmp_path / "edited.yaml")
    back = load_scene(path)
    assert back.terrain == editor.scene.terrain and back.models == editor.scene.models
    assert back.units == editor.scene.units and back.deployment == editor.scene.deployment
    assert not editor.dirty
    again = LayoutEditor(back)
    again.save()
    assert load_scene(path).terrain == back.terrain
    with pytest.raises(ValueError):
        LayoutEditor(load_scene(path).__class__("x", "wh40k6", (24, 24))).save()


def test_live_analysis_refreshes_after_final_changes(editor):
    seen = []
    live = LiveAnalysis(editor, grid=6.0, on_update=seen.append)
    assert len(seen) == 1 and "exposure" in live.analysis.fields
    editor.begin_drag("hab-block", (6, 26))
    editor.drag_to((30, 26))
    assert len(seen) == 1  # not while dragging
    editor.end_drag()
    assert len(seen) == 2 and seen[-1].scene.piece("hab-block").data["at"] == [30, 26]
    live.unsubscribe()
    editor.undo()
    assert len(seen) == 2


def test_models_on_a_ruin_move_and_turn_with_it(editor):
    editor.move("ruin-a", 2, 1)
    dev = editor.scene.model("dev-1")
    assert dev.at == (14, 10.2) and dev.floor == 1
    editor.rotate("ruin-a", 90)  # about the ruin's centre (16, 9)
    dev = editor.scene.model("dev-1")
    assert np.allclose(dev.at, (14.8, 7)) and dev.facing == 90
    assert editor.scene.model("boy-1").at == load_scene(RULESET_EXAMPLES["wh40k6"]).model(
        "boy-1").at  # others stay
    editor.undo()
    editor.undo()
    assert editor.scene.model("dev-1").at == (12, 9.2)
