"""`battlesight render` and `battlesight view` on the command line: files, sizes, errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import run_cli

pytest.importorskip("panda3d")

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scenes" / "examples" / "demo.yaml"


@pytest.fixture(autouse=True)
def _tiny_renderer(monkeypatch):
    """The software back end for every command here (`render` reads it when it draws)."""
    monkeypatch.setenv("BATTLESIGHT_RENDERER", "tiny")


def test_render_writes_a_png_of_the_size_asked(tmp_path):
    from PIL import Image

    out = tmp_path / "top.png"
    result = run_cli("render", str(DEMO), "--out", str(out), "--view", "top", "--size", "400x250",
                     "--los", "sgt", "--labels")
    assert result.code == 0, result.err
    assert "wrote" in result.out and "tiny" in result.out
    with Image.open(out) as im:
        assert im.size == (400, 250)
        assert np.asarray(im.convert("RGB")).reshape(-1, 3).std(axis=0).max() > 20


def test_render_eye_view_heatmap_ruler_and_turntable(tmp_path):
    from PIL import Image

    eye = tmp_path / "eye.png"
    assert run_cli("render", str(DEMO), "--out", str(eye), "--view", "eye:sgt:nob",
                   "--size", "200x120").code == 0
    heat = tmp_path / "heat.png"
    result = run_cli("render", str(DEMO), "--out", str(heat), "--view", "top", "--heatmap",
                     "--grid", "2", "--ruler", "sgt", "nob", "--size", "200x120")
    assert result.code == 0, result.err
    gif = tmp_path / "spin.gif"
    result = run_cli("render", str(DEMO), "--out", str(gif), "--turntable", "3", "--size",
                     "96x64")
    assert result.code == 0, result.err
    with Image.open(gif) as im:
        assert im.n_frames == 3
    field = tmp_path / "field.npy"
    np.save(field, np.random.default_rng(1).random((24, 36)))
    assert run_cli("render", str(DEMO), "--out", str(tmp_path / "f.png"), "--heatmap-field",
                   str(field), "--size", "96x64").code == 0


@pytest.mark.parametrize("args, words", [
    (["--los", "nobody"], "nobody"),
    (["--view", "eye:ghost"], "ghost"),
    (["--view", "sideways"], "unknown view"),
    (["--size", "big"], "--size"),
    (["--out", "/no/such/dir/x.png"], "does not exist"),
    (["--out", "{tmp}/x.mp4"], ".png"),
    (["--out", "{tmp}/x.jpg"], ".png"),
    (["--target", "nob"], "--los"),
    (["--heatmap", "--grid", "0"], "--grid"),
])
def test_render_refuses_bad_arguments_in_one_line(tmp_path, args, words):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "x.png")]
    result = run_cli("render", str(DEMO), *args)
    assert result.code == 2, result.out + result.err
    assert words in result.err and "Traceback" not in result.err
    assert len(result.err.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


def test_parser_does_not_import_panda3d():
    code = ("import sys; from battlesight.cli.main import build_parser; build_parser(); "
            "assert 'panda3d' not in sys.modules")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_turntable_as_mp4_is_a_real_video(tmp_path):
    import imageio_ffmpeg
    import numpy as np

    video = tmp_path / "spin.mp4"
    result = run_cli("render", str(DEMO), "--out", str(video), "--turntable", "4", "--size",
                     "97x64")
    assert result.code == 0, result.err
    assert [p.name for p in tmp_path.iterdir()] == ["spin.mp4"]
    reader = imageio_ffmpeg.read_frames(str(video))
    meta = reader.__next__()
    frames = [np.frombuffer(f, np.uint8).reshape(meta["size"][1], meta["size"][0], 3)
              for f in reader]
    assert meta["size"] == (98, 64)  # padded to even sides for H.264
    assert len(frames) == 4
    assert frames[0].std() > 10 and not np.array_equal(frames[0], frames[2])


def test_an_eye_view_draws_its_models_verdicts(tmp_path):
    """`--view eye:M:T` draws M's sight lines (M's verdicts, as `los --from M` gives them);
    an eye looking at itself is refused."""
    import json

    out = tmp_path / "eye.png"
    drawn = run_cli("render", str(DEMO), "--out", str(out), "--view", "eye:sgt:boy-3",
                    "--size", "160x90", "--json")
    assert drawn.code == 0, drawn.err
    lines = {d["target"]: d for d in json.loads(drawn.out)["lines"]}
    los = run_cli("los", str(DEMO), "--from", "sgt", "--json")
    verdicts = {r["target"]: r["verdict"] for r in json.loads(los.out)}
    assert lines and set(lines) <= set(verdicts)
    for target, line in lines.items():
        assert line["observer"] == "sgt"
        assert (line["status"], line["label"]) == (verdicts[target]["status"],
                                                   verdicts[target]["label"])
    itself = run_cli("render", str(DEMO), "--out", str(tmp_path / "x.png"), "--view",
                     "eye:sgt:sgt")
    assert itself.code == 2 and "Traceback" not in itself.err
    assert not (tmp_path / "x.png").exists()
