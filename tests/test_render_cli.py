"""`battlesight render` and `battlesight view` on the command line: files, sizes, errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d")

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scenes" / "examples" / "demo.yaml"
ENV = dict(os.environ, BATTLESIGHT_RENDERER="tiny")


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "battlesight", *args], capture_output=True,
                          text=True, cwd=ROOT, env=ENV, timeout=300)


def test_render_writes_a_png_of_the_size_asked(tmp_path):
    from PIL import Image

    out = tmp_path / "top.png"
    result = cli("render", str(DEMO), "--out", str(out), "--view", "top", "--size", "400x250",
                 "--los", "sgt", "--labels")
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout and "tiny" in result.stdout
    with Image.open(out) as im:
        assert im.size == (400, 250)
        assert np.asarray(im.convert("RGB")).reshape(-1, 3).std(axis=0).max() > 20


def test_render_eye_view_heatmap_ruler_and_turntable(tmp_path):
    from PIL import Image

    eye = tmp_path / "eye.png"
    assert cli("render", str(DEMO), "--out", str(eye), "--view", "eye:sgt:nob",
               "--size", "200x120").returncode == 0
    heat = tmp_path / "heat.png"
    result = cli("render", str(DEMO), "--out", str(heat), "--view", "top", "--heatmap",
                 "--grid", "2", "--ruler", "sgt", "nob", "--size", "200x120")
    assert result.returncode == 0, result.stderr
    gif = tmp_path / "spin.gif"
    result = cli("render", str(DEMO), "--out", str(gif), "--turntable", "3", "--size", "96x64")
    assert result.returncode == 0, result.stderr
    with Image.open(gif) as im:
        assert im.n_frames == 3
    field = tmp_path / "field.npy"
    np.save(field, np.random.default_rng(1).random((24, 36)))
    assert cli("render", str(DEMO), "--out", str(tmp_path / "f.png"), "--heatmap-field",
               str(field), "--size", "96x64").returncode == 0


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
    result = cli("render", str(DEMO), *args)
    assert result.returncode == 2, result.stdout + result.stderr
    assert words in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
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
    result = cli("render", str(DEMO), "--out", str(video), "--turntable", "4", "--size",
                 "97x64")
    assert result.returncode == 0, result.stderr
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
    drawn = cli("render", str(DEMO), "--out", str(out), "--view", "eye:sgt:boy-3",
                "--size", "160x90", "--json")
    assert drawn.returncode == 0, drawn.stderr
    lines = {d["target"]: d for d in json.loads(drawn.stdout)["lines"]}
    los = cli("los", str(DEMO), "--from", "sgt", "--json")
    verdicts = {r["target"]: r["verdict"] for r in json.loads(los.stdout)}
    assert lines and set(lines) <= set(verdicts)
    for target, line in lines.items():
        assert line["observer"] == "sgt"
        assert (line["status"], line["label"]) == (verdicts[target]["status"],
                                                   verdicts[target]["label"])
    itself = cli("render", str(DEMO), "--out", str(tmp_path / "x.png"), "--view", "eye:sgt:sgt")
    assert itself.returncode == 2 and "Traceback" not in itself.stderr
    assert not (tmp_path / "x.png").exists()
