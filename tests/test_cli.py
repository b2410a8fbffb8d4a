"""The command line: exit codes, one-line errors, JSON shapes, files written whole."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import trimesh
from battlesight.scenes import EXAMPLES_DIR

from battlesight.cli.main import main
from tests.helpers import run_cli

EXAMPLES = sorted(EXAMPLES_DIR.glob("*.yaml"))
ROOT = Path(__file__).resolve().parent.parent


BAD_SCENES = {
    "not-a-mapping": ("- 1\n- 2\n", "mapping"),
    "unknown-type": (
        "format: 1\nname: x\nruleset: wh40k6\ntable: [24, 24]\nterrain:\n"
        "  - {id: t1, type: lava, at: [5, 5]}\nmodels: []\n", "lava"),
    "duplicate-id": (
        "format: 1\nname: x\nruleset: wh40k6\ntable: [24, 24]\nmodels:\n"
        "  - {id: a, player: 1, at: [5, 5]}\n  - {id: a, player: 2, at: [9, 9]}\n", "duplicate"),
    "off-table": (
        "format: 1\nname: x\nruleset: wh40k6\ntable: [24, 24]\nmodels:\n"
        "  - {id: a, player: 1, at: [30, 5]}\n", "table"),
    "python-tag": (
        "format: 1\nname: !!python/object/apply:os.system ['echo hi']\nruleset: wh40k6\n"
        "table: [24, 24]\n", "line"),
    "negative-height": (
        "format: 1\nname: x\nruleset: wh40k6\ntable: [24, 24]\nterrain:\n"
        "  - {id: w, type: wall, from: [1, 1], to: [5, 1], height: -2}\n", "height"),
}


@pytest.mark.parametrize("scene", EXAMPLES, ids=lambda p: p.stem)
def test_examples_validate_and_los_runs_on_each(scene, capsys):
    assert main(["validate", str(scene)]) == 0
    from battlesight.scenes import load_scene

    loaded = load_scene(scene)
    models = loaded.models
    capsys.readouterr()
    assert main(["los", str(scene), "--from", models[0].id, "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert len(reports) == len(models) - 1
    for report in reports:
        assert {"observer", "target", "visible", "visible_fraction", "blockers", "distance",
                "rays"} <= set(report)
        assert 0.0 <= report["visible_fraction"] <= 1.0
        assert report["distance"] >= 0.0
        verdict = report["verdict"]  # every ruleset's own verdict
        assert verdict["system"] == loaded.ruleset
        assert verdict["rule"].startswith(loaded.ruleset + " §")
        assert isinstance(verdict["visible"], bool)
        assert verdict["geometric_share"] == report["visible_fraction"]


@pytest.mark.parametrize("name", sorted(BAD_SCENES))
def test_bad_scene_is_one_line_exit_2_without_traceback(name, tmp_path):
    text, needle = BAD_SCENES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    for command in (["validate", str(path)], ["los", str(path), "--from", "a"]):
        result = run_cli(*command)
        assert result.code == 2, result.err
        assert "Traceback" not in result.err
        first = result.err.splitlines()[0]
        assert first.startswith(str(path)) and needle in first.lower()


def test_validate_reports_every_problem(tmp_path):
    path = tmp_path / "many.yaml"
    path.write_text(
        "format: 1\nname: x\nruleset: chess\ntable: [24, 24]\nterrain:\n"
        "  - {id: t1, type: lava, at: [5, 5]}\nmodels:\n  - {id: a, player: 1, at: [30, 5]}\n"
    )
    result = run_cli("validate", str(path))
    lines = [ln for ln in result.err.splitlines() if ln.startswith(str(path) + ":")]
    assert result.code == 2
    assert len(lines) >= 3
    assert any(":3:" in ln and "ruleset" in ln for ln in lines)


def test_los_pair_json_and_unknown_model(capsys):
    scene = str(EXAMPLES_DIR / "demo.yaml")
    assert main(["los", scene, "--from", "sgt", "--to", "nob", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["observer"] == "sgt" and report["target"] == "nob"
    # nob is wholly hidden: the first pass of the sight sample settles it (visibility.py)
    assert not report["visible"] and report["rays"] > report["samples"] > 50
    result = run_cli("los", scene, "--from", "sgt", "--to", "nobody")
    assert result.code == 2 and "nobody" in result.err
    assert "Traceback" not in result.err


def test_los_does_not_import_panda3d():
    code = (
        "import sys; from battlesight.cli.main import main; "
        f"main(['los', r'{EXAMPLES_DIR / 'demo.yaml'}', '--from', 'sgt', '--to', 'nob']); "
        "assert 'panda3d' not in sys.modules, 'panda3d imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_export_writes_one_node_per_owner(tmp_path):
    out = tmp_path / "demo.glb"
    assert main(["export", str(EXAMPLES_DIR / "demo.yaml"), str(out), "--units", "in"]) == 0
    loaded = trimesh.load(out)
    from battlesight.scenes import load_scene

    scene = load_scene(EXAMPLES_DIR / "demo.yaml")
    names = set(loaded.graph.nodes_geometry)
    assert {m.id for m in scene.models} <= names
    assert {p.id for p in scene.terrain} <= names
    assert list(tmp_path.iterdir()) == [out]
    # glTF is y-up: read back through the mesh loader, the table is z-up again (in inches)
    from battlesight.geometry.meshfile import load_mesh_file
    from battlesight.scenes.build import build_world

    mesh, _, _ = load_mesh_file(out)
    world = build_world(scene)
    top = max(e.geometry.solid.bounds[1][2] for e in world.terrain.values())
    assert mesh.bounds[1][2] == pytest.approx(top, abs=1e-6)


def test_export_refuses_other_formats(tmp_path):
    result = run_cli("export", str(EXAMPLES_DIR / "demo.yaml"), str(tmp_path / "x.obj"))
    assert result.code == 2 and not (tmp_path / "x.obj").exists()


def test_bench_prints_its_figures(capsys):
    assert main(["bench", "--rays", "20000", "--models", "16", "--pieces", "8", "--json",
                 "--only", "rays", "--mesh-faces", "0"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["all_pairs"] == 16 * 15
    for workload in figures["throughput"].values():
        assert workload["agreement"] == 1.0
        assert workload["project_rays_per_s"] > 0


def test_demo_prints_a_summary_and_renders_two_pictures(capsys, tmp_path):
    import numpy as np
    from PIL import Image

    assert main(["demo", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "enemies seen" in out and "rays" in out
    pictures = sorted(tmp_path.glob("*.png"))
    assert [p.name for p in pictures] == ["demo_los_sgt.png", "demo_overview.png"]
    for picture in pictures:
        assert str(picture) in out
        pixels = np.asarray(Image.open(picture).convert("RGB"))
        assert pixels.shape == (1080, 1920, 3)
        assert pixels.std() > 20  # a real picture, not a blank frame


def test_a_reader_that_stops_early_is_no_error():
    """`battlesight los ... | head -1`: the command stops quietly, exit 0, no traceback."""
    cmd = (f"{sys.executable} -m battlesight los {EXAMPLES_DIR / 'whfb6_village.yaml'} "
           "--from hg-1 --json | head -c 10; exit ${PIPESTATUS[0]}")  # 80 KB: past a pipe's buffer
    result = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, cwd=ROOT,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_rulings_bench_rows_on_a_small_table():
    from battlesight.bench.rulings import format_rulings_bench, rulings_bench

    f = rulings_bench(5e6, seed=1, models=8, pieces=4, repeat=1)
    assert f["targets"] == 7 and f["pairs"] == 56 and f["los_all_processes"] == 1
    assert 0 < f["los_one_target_command_s"] <= f["los_from_command_s"] * 1.5
    assert f["libraries_start_s"] > 0  # timed once: no order asserted between timings
    text = format_rulings_bench(f)
    for label in ("scene load", "los --from, per target (whole command)", "of which the start",
                  "the libraries' own start",
                  "and each further target", "los --all, 56 pairs (whole command)",
                  "geometry all pairs"):
        assert label in text, label
