"""A command line that pipes (issue 26): `-` for standard input wherever a file is read and
for standard output where one is written, run as a shell runs them (real pipes, a separate
process); `validate --json` on several files; every `--json` output against its schema."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from battlesight.cli.main import main
from tests.helpers import DEMO, EXAMPLE_FILES, MINIMAL, ROOT, write_scene
from tests.schema_helpers import assert_valid, errors
from tests.test_importers import GODOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def piped(*argv: str, stdin: bytes = b"", cwd: Path | None = None) -> subprocess.CompletedProcess:
    """`battlesight ARGV` in its own process, stdin fed from bytes, stdout kept as bytes."""
    return subprocess.run([sys.executable, "-m", "battlesight", *argv], input=stdin,
                          capture_output=True, env=ENV, cwd=cwd, timeout=300)


def fed(monkeypatch, data: bytes) -> None:
    """Standard input holding data, for a command run in this process."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


# -- reading standard input ---------------------------------------------------------------------

def test_validate_reads_a_scene_from_standard_input_and_names_it(monkeypatch, capsys, tmp_path):
    broken = MINIMAL.replace("height: 2.5", "height: -1")
    fed(monkeypatch, broken.encode())
    assert main(["validate", "-"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("<stdin>:6: terrain[wall-1].height: ") and err[-1] == (
        "<stdin>: 1 problem(s)")
    fed(monkeypatch, MINIMAL.encode())
    assert main(["validate", "-"]) == 0
    assert capsys.readouterr().out == "<stdin>: ok\n"


def test_los_from_standard_input_is_los_of_the_file(monkeypatch, capsys):
    assert main(["los", str(DEMO), "--from", "sgt", "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    fed(monkeypatch, DEMO.read_bytes())
    monkeypatch.chdir(DEMO.parent)  # a piped scene's mesh files resolve from here
    assert main(["los", "-", "--from", "sgt", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == from_file


def test_standard_input_is_read_once(tmp_path, capsys):
    assert main(["play", "-", "--actions", "-"]) == 2
    assert capsys.readouterr().err == ("battlesight play: standard input (-) is given for scene "
                                       "and actions: it can be read once\n")
    assert main(["validate", "-", str(DEMO), "-"]) == 2
    assert capsys.readouterr().err == ("battlesight validate: standard input (-) is given for "
                                       "scenes 2 times: it can be read once\n")


def test_import_reads_standard_input_and_writes_the_scene_to_standard_output(tmp_path):
    layout = json.dumps(GODOT).encode()
    run = piped("import", "-", "--format", "godot40k", "--out", "-", stdin=layout)
    assert run.returncode == 0, run.stderr
    assert run.stderr.decode().startswith("wrote <stdout> (")
    (tmp_path / "layout.json").write_bytes(layout)
    assert main(["import", str(tmp_path / "layout.json"), "--format", "godot40k", "--out",
                 str(tmp_path / "file.yaml")]) == 0
    from_pipe, from_file = (yaml.safe_load(text) for text in (run.stdout, (
        tmp_path / "file.yaml").read_bytes()))
    assert from_pipe["x-source"].pop("file") == "<stdin>"
    assert from_file["x-source"].pop("file") == "layout.json"
    assert from_pipe == from_file  # the same scene
    bad = piped("import", "-", "--format", "godot40k", "--out", "-",
                stdin=b'{"pieces": [\n 1e999]}')
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr.decode() == ("<stdin>:2: json: 1e999: number too large (not finite)\n")


# -- writing standard output --------------------------------------------------------------------

def test_export_writes_the_glb_to_standard_output(tmp_path):
    run = piped("export", str(DEMO), "-")
    assert run.returncode == 0, run.stderr
    assert run.stderr.decode().startswith("wrote <stdout> (5 terrain pieces, 12 models")
    assert main(["export", str(DEMO), str(tmp_path / "demo.glb")]) == 0
    assert run.stdout == (tmp_path / "demo.glb").read_bytes() and run.stdout[:4] == b"glTF"


def test_render_writes_the_png_to_standard_output(tmp_path):
    pytest.importorskip("panda3d")
    from PIL import Image

    run = piped("render", str(DEMO), "--out", "-", "--size", "96x64", "--flat", "--view", "top")
    assert run.returncode == 0, run.stderr
    assert run.stderr.decode().startswith("wrote <stdout> (96x64")
    image = np.asarray(Image.open(io.BytesIO(run.stdout)).convert("RGB"))
    assert image.shape == (64, 96, 3) and len(np.unique(image.reshape(-1, 3), axis=0)) > 8
    for argv, why in ((["--json"], "--out - and --json both print to standard output"),
                      (["--turntable", "3"], "a turntable needs a file")):
        refused = piped("render", str(DEMO), "--out", "-", *argv)
        assert refused.returncode == 2 and refused.stdout == b""
        assert why in refused.stderr.decode()


def test_an_import_with_mesh_files_cannot_go_to_standard_output(tmp_path, capsys):
    from tests.test_importers import tts_save

    save, mods = tts_save(tmp_path)
    assert main(["import", str(save), "--format", "tts", "--mods", str(mods), "--out", "-"]) == 2
    assert capsys.readouterr().err == ("battlesight import: --out -: the import converted 2 mesh "
                                       "files, which are written beside the scene: give --out "
                                       "SCENE.yaml\n")


# -- validate --json ----------------------------------------------------------------------------

def test_validate_json_lists_every_files_problems_as_data(tmp_path, capsys):
    broken = write_scene(tmp_path, MINIMAL.replace("height: 2.5", "height: -1"), "broken.yaml")
    typo = write_scene(tmp_path, MINIMAL + "hieght: 3\n", "typo.yaml")
    assert main(["validate", "--json", str(DEMO), str(broken), str(typo)]) == 2
    report = json.loads(capsys.readouterr().out)
    assert_valid("validate", report)
    assert report["ok"] is False and [f["ok"] for f in report["files"]] == [True, False, True]
    assert [(p["file"], p["line"], p["key"], p["level"]) for p in report["problems"]] == [
        (str(broken), 6, "terrain[wall-1].height", "error"), (str(typo), 14, "hieght", "warning")]
    assert main(["validate", "--json", "--strict", str(typo)]) == 2
    strict = json.loads(capsys.readouterr().out)
    assert [p["level"] for p in strict["problems"]] == ["error"] and not strict["ok"]
    assert main(["validate", "--json", *map(str, EXAMPLE_FILES)]) == 0
    clean = json.loads(capsys.readouterr().out)
    assert clean["ok"] and clean["problems"] == [] and len(clean["files"]) == len(EXAMPLE_FILES)
    # the schema holds the shape: a problem without its level is not one
    del report["problems"][0]["level"]
    assert errors("validate", report) == ["problems/0: 'level' is a required property"]


def test_validate_text_takes_several_files(tmp_path, capsys):
    broken = write_scene(tmp_path, MINIMAL + "deployment: nowhere\n", "broken.yaml")
    assert main(["validate", str(DEMO), str(broken)]) == 2
    out, err = capsys.readouterr()
    assert out == f"{DEMO}: ok\n" and err.splitlines()[-1] == f"{broken}: 1 problem(s)"


# -- schemas of every --json output -------------------------------------------------------------

def run_json(capsys, *argv) -> dict:
    assert main([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("ruleset", ["wh40k6", "wmh2", "whfb6", "aos2"])
def test_phases_json_follows_its_schema(capsys, ruleset):
    assert_valid("phases", run_json(capsys, "phases", ruleset, "--json"))


def test_play_json_follows_its_schema(capsys):
    played = run_json(capsys, "play", ROOT / "scenes/examples/wh40k6_city_ruins.yaml",
                      "--actions", ROOT / "tests/data/wh40k6_city_ruins_actions.yaml",
                      "--seed", "3", "--json")
    assert_valid("play", played)
    assert played["refused"] == sum(not r["ok"] for r in played["results"]) >= 1


def test_generate_json_follows_its_schema(tmp_path, capsys):
    one = run_json(capsys, "generate", "--ruleset", "aos2", "--seed", "2", "--json")
    assert_valid("generate", one)
    (layout,) = one["layouts"]
    assert layout["file"] is None and layout["scene"]["ruleset"] == "aos2"
    assert all(c["passed"] for c in layout["checks"] if c["kind"] == "set-up")
    written = run_json(capsys, "generate", "--ruleset", "wh40k6", "--seed", "4", "--count", "2",
                       "--out", tmp_path / "layout.yaml", "--json")
    assert_valid("generate", written)
    assert [Path(x["file"]).name for x in written["layouts"]] == ["layout-4.yaml",
                                                                  "layout-5.yaml"]
    assert "scene" not in written["layouts"][0]
    analysed = run_json(capsys, "generate", "--ruleset", "wmh2", "--seed", "1", "--analyze",
                        "--grid", "4", "--json")
    assert_valid("generate", analysed)
    # a layout entry without its checks is neither an analysis nor a layout list
    del one["layouts"][0]["checks"]
    assert errors("generate", one)
    assert main(["generate", "--ruleset", "aos2", "--out", "-"]) == 2  # it would read it back
    assert "leave --out out to print one layout" in capsys.readouterr().err


def test_bench_json_follows_its_schema(capsys):
    figures = run_json(capsys, "bench", "--only", "rays", "--rays", "2000", "--models", "4",
                       "--pieces", "2", "--mesh-faces", "2000", "--json")
    assert_valid("bench", figures)
    assert figures["big_mesh"]["faces"] > 0 and figures["throughput"]["los"]["segments"] == 2000
    figures["throughput"]["los"]["agreement"] = 1.5
    assert errors("bench", figures) == ["throughput/los/agreement: 1.5 is greater than the "
                                        "maximum of 1"]


def test_every_bundled_schema_is_a_valid_draft_2020_12_schema():
    from tests.schema_helpers import schema

    names = sorted(p.name.removesuffix(".schema.json")
                   for p in (ROOT / "battlesight" / "schemas").glob("*.schema.json"))
    assert {"validate", "phases", "play", "generate", "bench"} <= set(names)
    for name in names:
        assert schema(name)["$id"].endswith(f"/{name}.schema.json")


def test_play_writes_its_log_to_standard_output_and_reports_on_standard_error(tmp_path,
                                                                             capsys):
    actions = tmp_path / "actions.yaml"
    actions.write_text("seed: 1\nactions:\n  - {do: move, unit: tac-1, by: [0, 6]}\n")
    assert main(["play", str(DEMO), "--actions", str(actions), "--log", "-"]) == 0
    out, err = capsys.readouterr()
    log = json.loads(out)
    assert (log["seed"], log["ruleset"], len(log["results"])) == (1, "wh40k6", 1)
    assert err.endswith("1 actions, 1 refused; now game turn 1, player 1, movement phase, "
                        "move step\n")
    assert main(["play", str(DEMO), "--actions", str(actions), "--log", "-", "--json"]) == 2
    assert "--log - and --json both print to standard output" in capsys.readouterr().err


def test_binary_output_is_refused_on_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["export", str(DEMO), "-"]) == 2
    assert capsys.readouterr().err == ("battlesight export: <stdout>: is a terminal: pipe the "
                                       "output into a file or a program, or give a file name\n")
