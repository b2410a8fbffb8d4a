"""QA of `play --log` / `replay` with a wh40k6 vehicle wrecked: the log journals the wreck the
game puts on the table, the replay draws it from that beat on (it drew the vehicle fading into
nothing, while the game's sight lines were blocked by the wreck), and a casualty's shadow goes
with it on its beat's last frame (it stayed on the ground into the next beat)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from battlesight.rulesets.wh40k6.damage import apply_vehicle_hit
from battlesight.viewer.replay_timeline import frame_count, timeline
from PIL import Image

from battlesight.cli.main import main
from tests.helpers import write_scene
from tests.rules_helpers import ScriptedRoller, Table

SCENE = """\
format: 1
ruleset: wh40k6
table: [24, 24]
models:
  - {id: d1, player: 1, at: [4, 4]}
  - {id: rhino, player: 2, profile: rhino, at: [12, 12], base: [120, 70], height: 2.5}
"""
WRECK = {"type": "box", "at": [12.0, 12.0], "size": [2.76, 4.72, 2.0], "rotation": 0.0,
         "feature": "vehicle wreck", "cover": 5, "difficult": True, "dangerous": True}


def test_the_wreck_is_a_journalled_change():
    t = Table()
    t.model("rhino", "rhino", 2, (30, 24), "rhino", base=(120, 90), height=2.5, hull=True)
    board = t.board()
    board.take_changes()  # the journal starts, as a Game starts it
    for _ in range(3):
        apply_vehicle_hit(board, ScriptedRoller([]), "rhino", "glancing", 2)
    changes = board.take_changes()
    assert changes[0] == {"model": "rhino", "removed": True}
    assert changes[1]["terrain"] == "wreck-rhino"
    added = changes[1]["added"]
    assert added["type"] == "box" and added["cover"] == 5 and added["at"] == [30.0, 24.0]
    assert json.loads(json.dumps(changes)) == changes  # plain JSON, as the log writes it
    assert [p.id for p in board.scene.terrain] == ["wreck-rhino"]


def _log(tmp_path, wreck: dict) -> str:
    events = [
        {"seq": 1, "game_turn": 1, "player": 1, "phase": "movement", "step": "move",
         "kind": "game_start", "unit": None, "data": {}, "rolls": [], "changes": []},
        {"seq": 2, "game_turn": 1, "player": 1, "phase": "shooting", "step": "shoot",
         "kind": "shoot", "unit": "d1", "data": {"target": "rhino", "outcome": {
             "shots": 1, "hits": 1, "casualties": ["rhino"]}}, "rolls": [],
         "changes": [{"model": "rhino", "removed": True},
                     {"terrain": "wreck-rhino", "added": wreck}]},
        {"seq": 3, "game_turn": 1, "player": 2, "phase": "movement", "step": "move",
         "kind": "morale", "unit": None, "data": {}, "rolls": [], "changes": []},
    ]
    path = tmp_path / "log.json"
    path.write_text(json.dumps({"scene": "scene.yaml", "seed": 1, "ruleset": "wh40k6",
                                "results": [], "events": events}))
    return str(path)


def test_the_timeline_carries_the_added_piece(tmp_path):
    log = json.loads(open(_log(tmp_path, WRECK)).read())
    beats = timeline(log, {})
    shoot = next(b for b in beats if b.kind == "shoot")
    assert shoot.removed == ["rhino"] and shoot.added == {"wreck-rhino": WRECK}


def _grey(path) -> float:
    """Share of the frame's centre patch (where the rhino stands) in the wreck's concrete grey
    (lighter than the flat table's green-grey, not the rhino's blue)."""
    image = np.asarray(Image.open(path).convert("RGB")).astype(int)
    h, w = image.shape[:2]
    patch = image[h // 2 - 8:h // 2 + 8, w // 2 - 8:w // 2 + 8]
    r, g, b = patch[..., 0], patch[..., 1], patch[..., 2]
    return float(np.mean((abs(r - g) < 25) & (abs(g - b) < 25) & (r > 110)))


def test_replay_draws_the_wreck_from_its_beat_on(tmp_path):
    pytest.importorskip("panda3d")
    scene = write_scene(tmp_path, SCENE)
    log = _log(tmp_path, WRECK)
    out = tmp_path / "frames"
    assert main(["replay", str(scene), "--log", log, "--out", f"{out}/", "--size", "160x160",
                 "--fps", "4", "--camera", "top", "--flat"]) == 0
    frames = sorted(out.glob("frame_*.png"))
    beats = timeline(json.loads(open(log).read()), {})
    assert len(frames) == frame_count(beats, 4)
    before = beats[0].frames(4)  # the first frame of the shot: the rhino, no wreck yet
    assert _grey(frames[before]) < 0.2
    assert _grey(frames[-1]) > 0.8  # the morale beat after it: the wreck stands there


def test_a_wreck_the_builders_refuse_is_one_line(tmp_path, capsys):
    pytest.importorskip("panda3d")
    scene = write_scene(tmp_path, SCENE)
    log = _log(tmp_path, {**WRECK, "size": [2.0, -1.0, 2.0]})
    assert main(["replay", str(scene), "--log", log, "--out", f"{tmp_path}/frames/"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "terrain piece 'wreck-rhino' the game added" in err[0], err
    assert not (tmp_path / "frames").exists()


def test_a_casualty_is_gone_with_its_shadow_on_its_beat_s_last_frame(tmp_path, monkeypatch):
    pytest.importorskip("panda3d")
    from battlesight.viewer import replay

    from battlesight.cli.common import load

    scene, world = load(str(write_scene(tmp_path, SCENE)))
    beats = timeline({"events": [
        {"seq": 1, "kind": "shoot", "unit": "d1", "player": 1, "phase": "shooting",
         "data": {"target": "rhino", "outcome": {"shots": 1, "hits": 1}},
         "changes": [{"model": "rhino", "removed": True}]}]}, {})
    seen = []
    grab = replay.ReplayStage.grab

    def spy(stage, shadows=True):
        seen.append((stage.pivots["rhino"].is_hidden(), shadows))
        return grab(stage, shadows)

    monkeypatch.setattr(replay.ReplayStage, "grab", spy)
    frames = list(replay.replay_frames(world, scene, beats, fps=4, width=64, height=64))
    assert len(frames) == beats[0].frames(4) == len(seen) + 1  # the first frame: render()
    assert seen[-1] == (True, True)  # hidden when the shadow map the next beat keeps is drawn
    assert not any(hidden for hidden, _ in seen[:-1])


def test_a_wreck_leaves_a_field_s_mat_green():
    pytest.importorskip("panda3d")
    from battlesight.viewer.materials import auto_mat

    t = Table()
    t.model("rhino", "rhino", 2, (30, 24), "rhino", base=(120, 90), height=2.5, hull=True)
    board = t.board()
    assert auto_mat(board.world, "wh40k6") == "grass"
    for _ in range(3):
        apply_vehicle_hit(board, ScriptedRoller([]), "rhino", "glancing", 2)
    assert "wreck-rhino" in board.world.terrain
    assert auto_mat(board.world, "wh40k6") == "grass"  # was city: the wreck is a box
    t.box("bunker", (10, 10), (4, 4, 3))
    assert auto_mat(t.board().world, "wh40k6") == "city"


def test_a_wreck_on_a_plateau_stands_as_high_in_the_saved_scene(tmp_path):
    from battlesight.scenes.build import terrain_geometry

    import battlesight

    scene = write_scene(tmp_path, SCENE.replace("models:", (
        "terrain:\n  - {id: plateau, type: box, at: [12, 12], size: [10, 10, 2]}\nmodels:")))
    board = battlesight.load(scene).board
    assert board.world.models["rhino"].position[2] == 2.0
    for _ in range(3):
        apply_vehicle_hit(board, ScriptedRoller([]), "rhino", "glancing", 2)
    in_game = board.world.terrain["wreck-rhino"].geometry
    saved = next(p for p in board.scene.terrain if p.id == "wreck-rhino")
    rebuilt = terrain_geometry(saved, None)
    assert in_game.solid.bounds[1][2] == rebuilt.solid.bounds[1][2] == 4.0  # 2 + 0.8 * 2.5
    np.testing.assert_allclose(in_game.solid.vertices, rebuilt.solid.vertices)
    assert in_game.stand is not None  # models may stand on it, as on the saved box
