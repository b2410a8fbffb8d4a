"""`battlesight replay`: a play log as a video or PNG frames, checked on real renders."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.scenes.loader import load_scene  # noqa: E402
from battlesight.viewer.replay_timeline import (  # noqa: E402
    frame_count,
    read_log,
    timeline,
)
from PIL import Image  # noqa: E402

from battlesight.cli.main import main  # noqa: E402
from tests.helpers import MINIMAL, ROOT, RULESET_EXAMPLES, write_scene  # noqa: E402

ACTIONS = "seed: 1\nactions:\n  - {do: move, unit: tac-1, by: [0, 6]}\n"


def played(tmp_path, scene, actions: str):
    """(scene path, log path) of a game played with the command line."""
    actions_file = tmp_path / "actions.yaml"
    actions_file.write_text(actions)
    log = tmp_path / "log.json"
    assert main(["play", str(scene), "--actions", str(actions_file), "--log", str(log)]) == 0
    return scene, log


def beats_of(scene_path, log_path):
    scene = load_scene(scene_path)
    return timeline(read_log(log_path), {m.id: m.unit for m in scene.models if m.unit})


def red_centre(path) -> np.ndarray:
    """(x, y) mean pixel of the strongly red pixels (player 1's model) of a frame, below the
    header panel (whose swatch is red too)."""
    image = np.asarray(Image.open(path).convert("RGB")).astype(int)
    r, g, b = image[..., 0], image[..., 1], image[..., 2]
    red = (r > 120) & (r > 2 * g) & (r > 2 * b)
    red[: image.shape[0] // 5] = False
    ys, xs = np.nonzero(red)
    assert len(xs) > 10, f"no red model in {path}"
    return np.array([xs.mean(), ys.mean()])


def test_the_log_records_every_move_as_a_change(tmp_path):
    scene, log = played(tmp_path, write_scene(tmp_path, MINIMAL), ACTIONS)
    events = json.loads(log.read_text())["events"]
    move = next(e for e in events if e["kind"] == "move")
    assert move["changes"] == [{"model": "sgt", "at": [12.0, 12.0], "z": 0.0, "facing": 0.0}]


def test_a_moved_model_moves_between_the_first_and_last_frame_of_its_move(tmp_path):
    scene, log = played(tmp_path, write_scene(tmp_path, MINIMAL), ACTIONS)
    out = tmp_path / "frames"
    assert main(["replay", str(scene), "--log", str(log), "--out", f"{out}/",
                 "--size", "320x320", "--fps", "10", "--camera", "top"]) == 0
    beats = beats_of(scene, log)
    frames = sorted(out.glob("frame_*.png"))
    assert len(frames) == frame_count(beats, 10)
    start = sum(b.frames(10) for b in beats[:[b.kind for b in beats].index("move")])
    move = next(b for b in beats if b.kind == "move")
    first, last = red_centre(frames[start]), red_centre(frames[start + move.frames(10) - 1])
    # the top view puts +y up the image: 6" north on a 48" table ~ 6/48 of the frame height
    shift = first - last
    assert abs(shift[0]) < 3 and 20 < shift[1] < 60, shift


def test_the_video_decodes_with_every_frame(tmp_path):
    import imageio_ffmpeg

    scene = RULESET_EXAMPLES["wh40k6"]
    actions = (ROOT / "docs" / "examples" / "wh40k6_actions.yaml").read_text()
    scene, log = played(tmp_path, scene, actions)
    video = tmp_path / "battle.mp4"
    assert main(["replay", str(scene), "--log", str(log), "--out", str(video),
                 "--size", "256x144", "--fps", "4"]) == 0
    beats = beats_of(scene, log)
    reader = imageio_ffmpeg.read_frames(str(video))
    meta = next(reader)
    assert tuple(meta["size"]) == (256, 144)
    frames = [np.frombuffer(f, np.uint8).reshape(144, 256, 3) for f in reader]
    assert len(frames) == frame_count(beats, 4)
    assert all(f.std() > 5 for f in frames)  # pictures, not blank frames
    kinds = [b.kind for b in beats]
    assert {"move", "shoot", "charge", "fight"} <= set(kinds)
    shoot = next(b for b in beats if b.kind == "shoot" and b.removed)
    assert "slain" in shoot.caption and sum(s.hit for s in shoot.shots) > 0


def test_captions_say_what_happened(tmp_path):
    scene = RULESET_EXAMPLES["wh40k6"]
    actions = (ROOT / "docs" / "examples" / "wh40k6_actions.yaml").read_text()
    scene, log = played(tmp_path, scene, actions)
    beats = beats_of(scene, log)
    data = json.loads(log.read_text())
    shots = [e for e in data["events"] if e["kind"] == "shoot"]
    outcome = shots[-1]["data"]["outcome"]
    caption = next(b.caption for b in beats if b.seq == shots[-1]["seq"])
    assert caption == (f"dev-1: fire at boyz-1 ({outcome['shots']} shots, {outcome['hits']} "
                       f"hits, {outcome['wounds']} wounds, {len(outcome['casualties'])} slain)")
    assert beats[0].header.startswith("Game turn 1, player 1")


@pytest.mark.parametrize("log_text, message", [
    ("not json", "line 1: Expecting value (a play --log file is JSON)"),
    ('{"events": [], "seq": ' + "9" * 4301 + "}", "line 1: 99999"),  # no int-string traceback
    ('{"events": 3}', "'events' list"),
    ('{"events": [{"kind": "move", "changes": [{"model": "ghost", "at": [1, 1]}]}]}',
     "ghost"),
])
def test_bad_logs_are_refused_in_one_line(tmp_path, capsys, log_text, message):
    scene = write_scene(tmp_path, MINIMAL)
    log = tmp_path / "log.json"
    log.write_text(log_text)
    out = tmp_path / "x.mp4"
    assert main(["replay", str(scene), "--log", str(log), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("battlesight replay: ") and message in err and "\n" not in err
    assert not out.exists()


def test_out_must_be_mp4_or_a_folder(tmp_path, capsys):
    scene, log = played(tmp_path, write_scene(tmp_path, MINIMAL), ACTIONS)
    assert main(["replay", str(scene), "--log", str(log), "--out", str(tmp_path / "x.gif")]) == 2
    assert "mp4" in capsys.readouterr().err


def test_an_odd_size_says_the_video_is_padded(tmp_path, capsys):
    """H.264 needs even sides: the video is a pixel wider or taller than --size, and the
    command says so instead of claiming the size asked for."""
    import imageio_ffmpeg

    scene, log = played(tmp_path, write_scene(tmp_path, MINIMAL), ACTIONS)
    capsys.readouterr()
    video = tmp_path / "odd.mp4"
    assert main(["replay", str(scene), "--log", str(log), "--out", str(video),
                 "--size", "97x55", "--fps", "2"]) == 0
    assert "97x55, padded to 98x56 for H.264)" in capsys.readouterr().out
    assert tuple(next(imageio_ffmpeg.read_frames(str(video)))["size"]) == (98, 56)


def test_wmh2_aoe_and_spray_attacks_are_drawn_and_captioned():
    """A wmh2 AOE or spray attack (aoe_attack / spray_attack events) is a shot beat: a line per
    attack roll, and a caption that says what hit, not 'flame aoe attack'."""
    from battlesight.viewer.replay_timeline import caption, shots_of

    aoe = {"kind": "aoe_attack", "unit": "flame", "data": {
        "attacker": "pyro", "target": "s1", "weapon": "mortar", "aoe": 4.0, "hit": False,
        "deviation": {"direction": 2, "rolled": 5, "distance": 1.2},
        "blasts": [{"model": "s2", "points": 0, "damage": None}]}}
    spray = {"kind": "spray_attack", "unit": "flame", "data": {
        "attacker": "pyro", "target": "s3", "weapon": "flamer", "attacks": [
            {"model": "s3", "hit": True, "damage": {"destroyed": True}},
            {"model": "s4", "hit": False, "damage": None}]}}
    assert caption(aoe, 0) == 'pyro fires mortar (AOE 4) at s1: miss, deviates 1.2"; blast on s2'
    assert caption(spray, 1) == "pyro sprays flamer at s3: 1 of 2 hit, 1 destroyed"
    alive = {"pyro", "s1", "s2", "s3", "s4"}
    assert [(s.firer, s.target, s.hit) for s in shots_of(aoe, {}, alive)] == [
        ("pyro", "s1", False)]
    assert [(s.firer, s.target, s.hit) for s in shots_of(spray, {}, alive)] == [
        ("pyro", "s3", True), ("pyro", "s4", False)]


def test_the_bench_row_times_the_lit_and_the_flat_replay():
    from battlesight.bench.replay import format_replay_bench, replay_bench

    figures = replay_bench(size="96x54", fps=2)
    assert figures["frames"] > 10 and figures["lit_command_s"] > 0
    assert figures["flat_command_s"] > 0 and figures["lit_vs_flat"] > 0
    assert "target 60 s" in format_replay_bench(figures)


def test_flat_replay_frames_differ_from_lit(tmp_path):
    scene, log = played(tmp_path, write_scene(tmp_path, MINIMAL), ACTIONS)
    frames = {}
    for look, extra in (("lit", []), ("flat", ["--flat"])):
        out = tmp_path / look
        assert main(["replay", str(scene), "--log", str(log), "--out", f"{out}/",
                     "--size", "160x90", "--fps", "2", *extra]) == 0
        frames[look] = np.asarray(Image.open(sorted(out.glob("*.png"))[0]).convert("RGB"))
    assert frames["lit"].shape == frames["flat"].shape
    assert np.abs(frames["lit"].astype(int) - frames["flat"].astype(int)).mean() > 1.5


def test_only_a_logged_board_journals_its_changes(tmp_path):
    """A board nobody logs (the viewer's, the API's) keeps no journal; a Game's does."""
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.ruleset import get_ruleset
    from battlesight.scenes.build import build_world

    scene = load_scene(write_scene(tmp_path, MINIMAL))
    board = Board(scene, build_world(scene), get_ruleset(scene.ruleset))
    board.move("sgt", (12.0, 8.0))
    assert board.take_changes() == []  # nothing kept before anyone asked
    board.move("sgt", (12.0, 9.0))
    assert board.take_changes() == [{"model": "sgt", "at": [12.0, 9.0], "z": 0.0,
                                      "facing": 0.0}]
