"""Edit mode of the viewer and its layout heatmap, driven without a display (software renderer)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.scenes import load_scene  # noqa: E402
from battlesight.scenes.build import build_world  # noqa: E402
from battlesight.scenes.piece_edits import piece_centre
from battlesight.viewer.edit_mode import EDIT_HELP, KINDS  # noqa: E402
from battlesight.viewer.heatmap import EYES  # noqa: E402
from battlesight.viewer.interact import Controller  # noqa: E402
from battlesight.viewer.render import OffscreenRenderer, RenderSettings, apply_settings  # noqa: E402

from battlesight.analysis import analyze_scene  # noqa: E402
from tests import worlds  # noqa: E402
from tests.helpers import write_scene  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GRID = 4.0  # analysis grid: 12 x 12 cells, milliseconds

# Two zones along the short edges; a tall slab by the left edge, out of the way; a low wall.
SCENE = """
format: 1
name: edit test
ruleset: wh40k6
table: [48, 48]
terrain:
  - {id: slab, type: box, at: [4, 24], size: [2, 16, 8], rotation: 0}
  - {id: wall-1, type: wall, from: [30, 30], to: [36, 30], height: 2.5, thickness: 0.5}
models:
  - {id: sgt, player: 1, at: [24, 6], base: 32, height: 1.6}
  - {id: boy, player: 2, at: [24, 42], facing: 180, base: 32, height: 1.7}
deployment:
  1: [[0, 0], [48, 0], [48, 12], [0, 12]]
  2: [[0, 36], [48, 36], [48, 48], [0, 48]]
"""


@pytest.fixture
def app(tmp_path):
    """A controller in top view on an offscreen copy of SCENE (its file in tmp_path)."""
    path = write_scene(tmp_path, SCENE)

    def loader():
        scene = load_scene(path)
        return build_world(scene), scene

    world, scene = loader()
    renderer = OffscreenRenderer(world, scene, 480, 360, backend="tiny")
    controller = Controller(renderer.view, loader, grid=GRID)
    renderer.view.set_view("top")
    yield controller, renderer, path
    controller.analyser.close()
    renderer.close()


def pixel(controller: Controller, x: float, y: float, z: float = 0.0) -> tuple[float, float]:
    """Where a world point is drawn."""
    pixels, ok = controller.view.stage.project(np.array([[x, y, z]]))
    assert ok[0]
    return float(pixels[0, 0]), float(pixels[0, 1])


def z2z(controller: Controller) -> float:
    return controller.analysis.figures["zone_to_zone_exposure"]


def drawn_pieces(controller: Controller) -> set[str]:
    """Ids of the terrain nodes in the drawn scene graph."""
    found = controller.view.graph.root.find_all_matches("terrain-*")
    return {n.get_name().removeprefix("terrain-") for n in found}


def test_edit_mode_key_help_figures_and_click_picks_a_piece(app):
    controller, _, _ = app
    assert controller.click(*pixel(controller, 4, 24)) is None  # not in edit mode: no piece
    assert controller.key("t") and controller.editing
    controller.key("f1")  # the help unfolds with edit mode's keys
    assert controller.view.help[-len(EDIT_HELP):] == EDIT_HELP
    assert any(line.startswith("t edit terrain") for line in controller.view.help)
    figures = "\n".join(controller.view.figures)
    assert "zone-to-zone exposure 0.784" in figures and "fairness" in figures
    assert "longest lane" in figures
    assert controller.click(*pixel(controller, 4.5, 28)) == "slab"
    assert controller.edit.selected == "slab" and controller.view.highlight is not None
    assert controller.view.node("outline") is not None
    assert controller.click(*pixel(controller, 33, 30)) == "wall-1"
    assert controller.click(*pixel(controller, 20, 40)) is None  # open table
    assert controller.edit.selected is None and controller.view.highlight is None
    controller.view.set_view("iso")  # the ray meets the slab's top before the table
    x, y = pixel(controller, 4, 24, 8.0)
    assert controller.view.table_point(x, y)[0] > 6  # the table point lies off the slab
    assert controller.click(x, y) == "slab"
    assert controller.key("t") and not controller.editing and controller.view.figures == []
    assert controller.view.highlight is None


def test_drag_moves_the_piece_snapped_and_lowers_the_exposure(app):
    controller, _, _ = app
    controller.key("t")
    controller.key("h")
    before, heat_before = z2z(controller), controller.view.heatmap.copy()
    wall_node = controller.view.graph.terrain["wall-1"]
    slab_node = controller.view.graph.terrain["slab"]
    delivered = []
    controller.edit.live.analyser.on_done = lambda *a: (delivered.append(a),
                                                         controller._analysed(*a))
    assert controller.press(*pixel(controller, 4, 24))
    for x in (8.0, 15.0, 24.3):
        controller.drag(*pixel(controller, x, 24.4))
    assert not delivered  # no analysis during the preview
    assert np.allclose(tuple(slab_node.get_pos())[:2], (20.3, 0.4), atol=0.05)
    assert controller.release(*pixel(controller, 24.3, 24.4)) == "slab"
    assert controller.edit.editor.piece("slab").data["at"] == [24, 24]  # snapped to 1"
    assert len(delivered) == 1 and delivered[0][1].scene.piece("slab").data["at"] == [24, 24]
    nodes = controller.view.graph
    assert nodes.terrain["wall-1"] == wall_node  # untouched pieces keep their nodes
    assert nodes.terrain["slab"] != slab_node and tuple(nodes.terrain["slab"].get_pos()) == (
        0, 0, 0)
    lo, hi = nodes.terrain["slab"].get_tight_bounds()
    assert abs((lo.x + hi.x) / 2 - 24) < 0.01
    assert controller.view.world.terrain["slab"].geometry.footprint[:, 0].mean() == \
        pytest.approx(24)
    after = z2z(controller)
    assert after < before - 0.2  # a tall slab between the zones blocks lanes
    assert f"zone-to-zone exposure {after:.3f}" in controller.view.figures
    assert not np.array_equal(np.nan_to_num(controller.view.heatmap, nan=-1),
                              np.nan_to_num(heat_before, nan=-1))
    assert controller.key("[")  # turned across the table: lower still
    assert controller.edit.editor.piece("slab").data["rotation"] == 15
    controller.key("[")
    for _ in range(4):
        controller.key("[")
    assert controller.edit.editor.piece("slab").data["rotation"] == 90
    assert z2z(controller) < after - 0.1
    assert controller.key("]") and controller.edit.editor.piece("slab").data["rotation"] == 75


def test_cancelled_drag_puts_the_piece_back(app):
    controller, _, _ = app
    controller.key("t")
    controller.press(*pixel(controller, 33, 30))
    controller.drag(*pixel(controller, 20, 20))
    assert controller.key("escape")  # drops the drag
    assert controller.edit.editor.piece("wall-1").data["from"] == [30, 30]
    assert tuple(controller.view.graph.terrain["wall-1"].get_pos()) == (0, 0, 0)
    assert controller.release(*pixel(controller, 20, 20)) is None
    assert not controller.edit.editor.can_undo
    controller.press(*pixel(controller, 33, 30))  # a press without a drag selects
    assert controller.release(*pixel(controller, 33, 30)) == "wall-1"
    assert controller.edit.editor.piece("wall-1").data["from"] == [30, 30]


def test_snap_add_every_kind_delete_undo_redo_and_the_drawn_nodes_follow(app):
    controller, _, _ = app
    controller.key("t")
    editor = controller.edit.editor
    controller.click(*pixel(controller, 33, 30))
    editor.move("wall-1", 0.4, 0.3)
    assert controller.key("g") and editor.piece("wall-1").data["from"] == [30, 30]
    added = []
    for i, kind in enumerate(KINDS):
        while KINDS[controller.edit.kind] != kind:
            controller.key("k")
        controller.pointer = pixel(controller, 8 + 6 * i, 18.3)
        assert controller.key("a")
        added.append(controller.edit.selected)
        assert editor.piece(added[-1]).type == kind
        assert tuple(piece_centre(editor.piece(added[-1]))) == pytest.approx((8 + 6 * i, 18))
    assert drawn_pieces(controller) == {p.id for p in editor.pieces}
    assert set(controller.view.world.terrain) == {p.id for p in editor.pieces}
    assert controller.key("x") and added[-1] not in drawn_pieces(controller)
    assert controller.edit.selected is None and not controller.key("x")  # nothing selected
    assert controller.key("z") and added[-1] in drawn_pieces(controller)
    assert controller.key("control-z") and added[-1] not in drawn_pieces(controller)
    assert controller.key("y") and added[-1] in drawn_pieces(controller)
    for _ in KINDS:
        controller.key("z")
    assert drawn_pieces(controller) == {"slab", "wall-1"}
    assert controller.key("shift-z") and drawn_pieces(controller) == {"slab", "wall-1", added[0]}
    while controller.edit.editor.can_undo:
        controller.key("z")
    assert not controller.key("z") and controller.message == "nothing to undo"
    assert editor.piece("wall-1").data["from"] == [30, 30]  # the file's, before move and snap
    assert drawn_pieces(controller) == {"slab", "wall-1"}


def test_save_writes_yaml_that_loads_back_equal(app):
    controller, _, path = app
    assert not controller.key("control-s")  # no edit mode yet: nothing to save
    controller.key("t")
    editor = controller.edit.editor
    controller.press(*pixel(controller, 4, 24))
    controller.drag(*pixel(controller, 40.2, 24))
    controller.release(*pixel(controller, 40.2, 24))
    controller.pointer = pixel(controller, 20, 20)
    controller.key("a")
    controller.key("]")
    assert any("unsaved" in line for line in controller.view.figures)
    assert controller.key("control-s") and controller.message == f"saved {path}"
    back = load_scene(path)
    assert back.terrain == editor.scene.terrain and back.models == editor.scene.models
    assert back.deployment == editor.scene.deployment
    assert back.piece("slab").data["at"] == [40, 24]
    assert not editor.dirty and not any("unsaved" in line for line in controller.view.figures)
    controller.key("z")
    assert controller.key("r") is False and "unsaved edits" in controller.message
    assert controller.key("r") and controller.message == "reloaded"  # the saved file
    assert controller.editing and controller.edit.editor.piece("slab").data["at"] == [40, 24]
    assert controller.view.scene.piece("slab").data["at"] == [40, 24]


def test_heatmap_keys_show_the_layout_analysis_fields(app):
    controller, _, _ = app
    controller.key("h")
    expected = analyze_scene(controller.view.scene, GRID).fields["exposure"]
    assert np.array_equal(controller.view.heatmap, expected, equal_nan=True)
    assert "layout analysis" in " ".join(controller.view.heatmap_notes)
    texts = [n.node().get_text() for n in controller.view.hud.find_all_matches("**/+TextNode")]
    assert "Exposure (both zones)" in texts
    names = []
    for _ in range(5):
        controller.key("j")
        names.append(controller.heat_name)
    assert names == ["seen_from_1", "sees_1", "seen_from_2", "sees_2", EYES]
    assert controller.view.heatmap.shape == (48, 48)  # the model-eyes field, 1" cells
    assert "model eyes" in " ".join(controller.view.heatmap_notes)
    controller.key("h")
    assert controller.view.heatmap is None


def test_render_heatmap_draws_the_same_field_as_the_view(app):
    controller, renderer, _ = app
    scene, world = controller.view.scene, controller.view.world
    with OffscreenRenderer(world, scene, 160, 120, backend="tiny") as other:
        apply_settings(other.view, RenderSettings(heatmap="exposure", heatmap_grid=GRID))
        controller.key("h")
        assert np.array_equal(other.view.heatmap, controller.view.heatmap, equal_nan=True)
        assert other.view.heatmap_title == controller.view.heatmap_title
        assert other.view.heatmap_notes == controller.view.heatmap_notes
    no_zones = OffscreenRenderer(worlds.skirmish_world(), None, 160, 120, backend="tiny")
    with no_zones:
        apply_settings(no_zones.view, RenderSettings(heatmap="exposure"))
        assert no_zones.view.heatmap.shape == (48, 72)
        assert "no layout analysis: no scene file" in no_zones.view.heatmap_notes[-1]


def test_threaded_analysis_reaches_the_figures_on_a_later_poll(app):
    controller, renderer, _ = app
    threaded = Controller(renderer.view, controller.loader, grid=GRID, threaded=True)
    threaded.key("t")
    assert any("analysing" in line for line in threaded.view.figures)
    threaded.finish()
    assert any("zone-to-zone exposure" in line for line in threaded.view.figures)
    threaded.edit.editor.move("slab", 20, 0)
    assert threaded.analyser.pending
    threaded.finish()
    assert threaded.analysis.scene.piece("slab").data["at"] == [24, 24]
    assert not threaded.poll()
    threaded.analyser.close()


def test_edit_mode_needs_a_scene():
    world = worlds.skirmish_world()
    with OffscreenRenderer(world, None, 160, 120, backend="tiny") as renderer:
        controller = Controller(renderer.view)
        assert controller.key("t") is False and "needs a scene file" in controller.message
        assert not controller.editing


def test_view_command_screenshot_in_edit_mode(tmp_path):
    path = write_scene(tmp_path, SCENE)
    shot = tmp_path / "edit.png"
    env = dict(os.environ, BATTLESIGHT_RENDERER="tiny")
    env.pop("DISPLAY", None)
    result = subprocess.run(
        [sys.executable, "-m", "battlesight", "view", str(path), "--frames", "2", "--edit",
         "--heatmap", "--grid", "4", "--size", "320x200", "--screenshot", str(shot)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    from PIL import Image

    with Image.open(shot) as im:
        pixels = np.asarray(im.convert("RGB"))
    assert pixels.shape == (200, 320, 3) and pixels.reshape(-1, 3).std(axis=0).max() > 10
