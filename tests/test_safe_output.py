"""Outputs are written safely: beside and renamed, never through a link, a FIFO or a device,
with the user's umask, and nothing at all when the command fails (JSON included)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from battlesight.scenes import load_scene, save_scene
from battlesight.scenes.output import (
    TEMP_MARK,
    NotJSON,
    UnsafeOutput,
    to_json,
    write_output,
    write_outputs,
)

from battlesight.cli.commands import play as play_command
from tests.helpers import DEMO, EXAMPLES, ROOT, run_cli

CITY = EXAMPLES / "wh40k6_city_ruins.yaml"
CITY_ACTIONS = ROOT / "tests" / "data" / "wh40k6_city_ruins_actions.yaml"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if TEMP_MARK in p.name)


@pytest.fixture()
def umask_027():
    old = os.umask(0o027)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture()
def targets(tmp_path: Path) -> dict[str, Path]:
    """A symlink (to a file that must stay as it is), a FIFO and, as root, a device node."""
    real = tmp_path / "real.txt"
    real.write_text("keep me\n")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    out = {"link": link, "fifo": fifo}
    device = tmp_path / "null-device"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        out["device"] = device
    except (PermissionError, OSError):
        pass
    return out


def assert_untouched(targets: dict[str, Path]) -> None:
    assert targets["link"].is_symlink() and targets["link"].read_text() == "keep me\n"
    assert stat.S_ISFIFO(os.lstat(targets["fifo"]).st_mode)
    if "device" in targets:
        assert stat.S_ISCHR(os.lstat(targets["device"]).st_mode)
    assert not leftovers(targets["link"].parent)


def test_write_output_refuses_links_fifos_devices_and_folders(targets, tmp_path):
    for path in [*targets.values(), tmp_path]:
        with pytest.raises(UnsafeOutput) as info:
            write_output(path, b"x")
        assert info.value.filename == str(path) and "\n" not in str(info.value)
    assert_untouched(targets)


def test_write_outputs_is_all_or_nothing(targets, tmp_path):
    with pytest.raises(UnsafeOutput):
        write_outputs({tmp_path / "a.txt": "a", targets["link"]: "b"})
    assert not (tmp_path / "a.txt").exists()

    def broken(path: Path) -> None:
        path.write_bytes(b"half")
        raise RuntimeError("encoder died")

    with pytest.raises(RuntimeError):
        write_outputs({tmp_path / "a.txt": "a", tmp_path / "b.bin": broken})
    assert not (tmp_path / "a.txt").exists() and not (tmp_path / "b.bin").exists()
    assert_untouched(targets)


def test_new_files_follow_the_umask_and_replaced_files_keep_their_mode(tmp_path, umask_027):
    path = write_output(tmp_path / "new.txt", "x")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    path.chmod(0o600)
    write_output(path, "y")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and path.read_text() == "y"


def test_export_and_heatmap_follow_the_umask(tmp_path, umask_027):
    glb, png, npy = tmp_path / "w.glb", tmp_path / "h.png", tmp_path / "f.npy"
    assert run_cli("export", DEMO, glb)[0] == 0
    assert run_cli("analyze", CITY, "--grid", "4", "--heatmap", png, "--save-field", npy)[0] == 0
    for path in (glb, png, npy):
        assert stat.S_IMODE(path.stat().st_mode) == 0o640, path
    assert np.load(npy).ndim == 2
    assert save_scene(load_scene(DEMO), tmp_path / "s.yaml").stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("kind", ["link", "fifo", "device"])
def test_commands_refuse_unsafe_targets(targets, kind, tmp_path):
    if kind not in targets:
        pytest.skip("making a device node needs root")
    target = targets[kind]
    runs = [
        ["play", DEMO, "--actions", ROOT / "tests/data/wh40k6_city_ruins_actions.yaml",
         "--log", target],
        ["play", CITY, "--actions", CITY_ACTIONS, "--out", target],
        ["analyze", CITY, "--grid", "4", "--heatmap", target],
        ["generate", "--ruleset", "aos2", "--out", target],
    ]
    if kind == "link":
        glb = tmp_path / "link.glb"
        glb.symlink_to(tmp_path / "real.txt")
        runs.append(["export", DEMO, glb])
    for args in runs:
        code, out, err = run_cli(*args)
        assert code == 2, (args, out, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert_untouched(targets)


def test_a_fifo_output_never_blocks(tmp_path):
    fifo = tmp_path / "out.glb"
    os.mkfifo(fifo)
    proc = subprocess.run([sys.executable, "-m", "battlesight", "export", str(DEMO), str(fifo)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "FIFO" in proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_json_failure_writes_nothing_and_prints_nothing(tmp_path, monkeypatch):
    real = play_command.play

    def nan_results(*args, **kwargs):
        game, results = real(*args, **kwargs)
        results[0]["odd"] = float("nan")
        return game, results

    monkeypatch.setattr(play_command, "play", nan_results)
    out, log = tmp_path / "after.yaml", tmp_path / "log.json"
    code, stdout, err = run_cli("play", CITY, "--actions", CITY_ACTIONS, "--out", out, "--log", log,
                                "--json")
    assert code == 2 and stdout == "" and "nothing written" in err
    assert not out.exists() and not log.exists() and not leftovers(tmp_path)


def test_dates_in_actions_make_strict_json_logs(tmp_path):
    actions = tmp_path / "acts.yaml"
    # a date where an id goes (a key no action reads is refused before play: test_action_keys)
    actions.write_text("seed: 3\nactions:\n  - {do: shoot, unit: dev-1, target: 2024-05-01}\n")
    log = tmp_path / "log.json"
    code, stdout, err = run_cli("play", CITY, "--actions", actions, "--log", log, "--json")
    assert code == 0, err

    def no_constants(name):
        raise AssertionError(f"{name} in JSON")

    data = json.loads(log.read_text(), parse_constant=no_constants)
    assert data["results"][0]["action"]["target"] == "2024-05-01"
    assert json.loads(stdout, parse_constant=no_constants)["results"][0]["ok"] in (True, False)


def test_to_json_is_strict():
    assert json.loads(to_json({"a": np.float32(1.5), "b": np.arange(3)})) == {
        "a": 1.5, "b": [0, 1, 2]}
    for bad in (float("nan"), float("inf"), object()):
        with pytest.raises(NotJSON):
            to_json({"x": bad})


def test_frames_are_written_all_or_none(tmp_path):
    from battlesight.viewer.render import save_frames

    frames = [np.full((16, 16, 3), i * 40, dtype=np.uint8) for i in range(3)]
    (tmp_path / "spin_001.png").symlink_to(tmp_path / "elsewhere.png")
    with pytest.raises(UnsafeOutput):
        save_frames(frames, tmp_path / "spin.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spin_001.png"]
    (tmp_path / "spin_001.png").unlink()
    assert [p.name for p in save_frames(frames, tmp_path / "spin.png")] == [
        "spin_000.png", "spin_001.png", "spin_002.png"]
    assert [p.name for p in save_frames(frames, tmp_path / "spin.gif")] == ["spin.gif"]
    assert not leftovers(tmp_path)


def test_the_viewers_save_is_safe(targets, tmp_path):
    from battlesight.viewer.editing import LayoutEditor

    editor = LayoutEditor(load_scene(DEMO), grid=1.0)
    with pytest.raises(UnsafeOutput):
        editor.save(targets["link"])
    assert_untouched(targets)
    path = editor.save(tmp_path / "saved.yaml")
    assert len(load_scene(path).models) == len(editor.scene.models)
