"""`battlesight analyze` and `battlesight generate`: output shapes, files, errors, no Panda3D."""

import json
import subprocess
import sys

import numpy as np
import pytest
from battlesight.scenes import load_scene
from PIL import Image

from battlesight.cli.commands.analyze import format_comparison
from battlesight.cli.main import main
from tests.helpers import ROOT, RULESET_EXAMPLES

CITY = str(RULESET_EXAMPLES["wh40k6"])
HILLS = str(RULESET_EXAMPLES["wmh2"])


def test_analyze_json_has_the_issue_keys(capsys):
    assert main(["analyze", CITY, "--grid", "2", "--json"]) == 0
    f = json.loads(capsys.readouterr().out)
    for key in ("zone_to_zone_exposure", "visible_share", "fairness", "longest_lane",
                "terrain_area", "blocking_area", "checks", "grid", "seconds"):
        assert key in f
    assert set(f["visible_share"]) == {"1", "2"} and f["grid"] == 2.0
    assert 0 <= f["zone_to_zone_exposure"] <= 1 and f["longest_lane"] > 0
    assert {c["rule"] for c in f["checks"]} >= {"wh40k6 §6.8", "wh40k6 §2.3"}
    assert f["deployment"]["source"] == "dawn-of-war"


def test_analyze_report_and_comparison_table(capsys):
    assert main(["analyze", HILLS, "--grid", "3"]) == 0
    out = capsys.readouterr().out
    assert "zone-to-zone exposure" in out and "fairness" in out and "wmh2 §13" in out
    assert main(["analyze", CITY, HILLS, "--grid", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:4] == ["layout", "ruleset", "zones", "z2z"]
    assert len(out) == 4 and "wh40k6_city_ruins.yaml" in out[2]
    assert main(["analyze", CITY, HILLS, "--grid", "4", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["layouts"]) == 2


def test_analyze_heatmap_png_and_saved_field(tmp_path, capsys):
    png, npy = tmp_path / "city.png", tmp_path / "city.npy"
    assert main(["analyze", CITY, "--grid", "2", "--heatmap", str(png),
                 "--save-field", str(npy), "--field", "seen_from_2"]) == 0
    image = Image.open(png)
    assert image.format == "PNG" and image.size[0] > 800 and image.size[1] > 600
    field = np.load(npy)
    assert field.shape == (24, 36) and np.nanmax(field) <= 1.0
    assert not list(tmp_path.glob(".*"))  # no temporary file left
    # several scenes: one picture each
    assert main(["analyze", CITY, HILLS, "--grid", "4", "--heatmap", str(png)]) == 0
    assert sorted(p.name for p in tmp_path.glob("city-*.png")) == [
        "city-wh40k6_city_ruins.png", "city-wmh2_hills_forest.png"]
    capsys.readouterr()


@pytest.mark.parametrize("args, message", [
    ([], "SCENE"),
    ([CITY, "--grid", "0"], "--grid"),
    ([CITY, "--deployment", "spearhead"], "Dawn of War"),
    ([CITY, "--workers", "2", "--heatmap", "x.png"], "--heatmap"),
    ([CITY, "--heatmap", "/no/such/folder/x.png"], "folder"),
    (["no-such-scene.yaml"], "no-such-scene"),
])
def test_analyze_bad_input_exits_2(args, message, capsys):
    assert main(["analyze", *args]) == 2
    assert message in capsys.readouterr().err


def test_generate_writes_valid_layouts(tmp_path, capsys):
    assert main(["generate", "--ruleset", "aos2", "--seed", "4"]) == 0
    text = capsys.readouterr().out
    (tmp_path / "one.yaml").write_text(text)
    assert load_scene(tmp_path / "one.yaml").ruleset == "aos2"
    out = tmp_path / "layout.yaml"
    assert main(["generate", "--ruleset", "wh40k6", "--seed", "10", "--count", "3",
                 "--out", str(out)]) == 0
    files = sorted(tmp_path.glob("layout-*.yaml"))
    assert [f.name for f in files] == ["layout-10.yaml", "layout-11.yaml", "layout-12.yaml"]
    assert all(load_scene(f).terrain for f in files)
    assert "wrote" in capsys.readouterr().out
    assert main(["generate", "--ruleset", "wmh2", "--seed", "2", "--out", str(out)]) == 0
    assert load_scene(out).table == (48.0, 48.0)


def test_generate_analyze_json_and_errors(capsys):
    assert main(["generate", "--ruleset", "whfb6", "--seed", "1", "--count", "2", "--analyze",
                 "--grid", "4", "--json"]) == 0
    layouts = json.loads(capsys.readouterr().out)["layouts"]
    assert [f["seed"] for f in layouts] == [1, 2]
    assert "seed 1" in format_comparison(layouts)
    assert main(["generate", "--ruleset", "whfb6", "--count", "2"]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["generate", "--ruleset", "wh40k6", "--deployment", "spearhead"]) == 2


def test_analyze_bench_and_no_panda3d(tmp_path):
    """The layout commands, the editor and the PNG writer run without importing Panda3D."""
    code = (
        "import sys; from battlesight.cli.main import main; "
        "import battlesight.viewer.editing, battlesight.viewer.heatmap_png; "
        f"assert main(['analyze', {CITY!r}, '--grid', '4', '--heatmap', "
        f"{str(tmp_path / 'h.png')!r}]) == 0; "
        "assert main(['analyze', '--bench', '--grid', '4', '--layouts', '2']) == 0; "
        "assert not [m for m in sys.modules if m.startswith(('panda3d', 'direct'))], 'panda3d'"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "one full analysis" in run.stdout and "layouts/min" in run.stdout
