"""Bad arguments on the command line: one line naming the command, exit code 2, never a traceback,
and nothing written half-way (outputs that are folders, a write that fails, a play whose mesh
files would not be found from its --out)."""

from __future__ import annotations

from pathlib import Path

import pytest
from battlesight.scenes import EXAMPLES_DIR

from battlesight.cli.main import main
from tests.helpers import one_line_error, run_cli

DEMO = str(EXAMPLES_DIR / "demo.yaml")
CITY = str(EXAMPLES_DIR / "wh40k6_city_ruins.yaml")
DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("argv", [
    ["export", DEMO, "{dir}/x.glb"],
    ["generate", "--ruleset", "wh40k6", "--seed", "1", "--out", "{dir}/x.glb"],
    ["analyze", DEMO, "--heatmap", "{dir}/x.png"],
    ["play", DEMO, "--actions", str(DATA / "wh40k6_city_ruins_actions.yaml"),
     "--out", "{dir}/x.glb"],
    ["play", DEMO, "--actions", str(DATA / "wh40k6_city_ruins_actions.yaml"),
     "--log", "{dir}/x.glb"],
])
def test_an_output_path_that_is_a_folder_is_a_bad_argument(tmp_path, argv):
    folder = next(a for a in argv if "{dir}" in a).replace("{dir}/", "")
    (tmp_path / folder).mkdir()
    code, _, err = run_cli(*[a.replace("{dir}", str(tmp_path)) for a in argv])
    assert code == 2
    assert "it is a folder" in one_line_error(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == [folder]  # no temporary left


def test_play_writes_neither_output_when_one_cannot_be_written(tmp_path):
    out = tmp_path / "after.yaml"
    (tmp_path / "log.json").mkdir()
    code, _, err = run_cli("play", CITY, "--actions",
                           str(DATA / "wh40k6_city_ruins_actions.yaml"), "--out", str(out),
                           "--log", str(tmp_path / "log.json"))
    assert code == 2 and "--log" in one_line_error(err)
    assert not out.exists()


def test_an_os_error_while_writing_is_one_line(monkeypatch, tmp_path):
    import battlesight.cli.commands.export as export

    def fail(*_args, **_kw):
        raise OSError(28, "No space left on device", str(tmp_path / "x.glb"))

    monkeypatch.setattr(export, "export_world", fail)
    code, _, err = run_cli("export", DEMO, str(tmp_path / "x.glb"))
    assert code == 2
    expected = f"battlesight export: {tmp_path / 'x.glb'}: No space left on device"
    assert one_line_error(err) == expected


def test_demo_checks_its_arguments_before_printing(tmp_path):
    code, out, err = run_cli("demo", "--from", "nobody", "--no-render")
    assert code == 2 and out == "" and "no model 'nobody'" in one_line_error(err)
    afile = tmp_path / "pictures"
    afile.write_text("")
    code, out, err = run_cli("demo", "--out", str(afile))
    assert code == 2 and out == "" and "is a file" in one_line_error(err)


def test_los_from_a_model_to_itself_is_a_bad_argument():
    code, out, err = run_cli("los", DEMO, "--from", "sgt", "--to", "sgt")
    assert code == 2 and out == ""
    assert "--to sgt is the observer itself" in one_line_error(err)


@pytest.mark.parametrize("argv, command", [
    (["play", DEMO, "--actions", "a.yaml", "--readings", "all"], "play"),
    (["validate", DEMO, "--no-such-flag"], "validate"),
])
def test_unknown_arguments_are_refused_by_their_command(capsys, argv, command):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"battlesight {command}: unrecognized arguments: "), err


def test_play_out_where_the_scene_s_mesh_files_are_not_found_is_refused(tmp_path, capsys):
    from battlesight.cli.main import main
    from tests.helpers import ROOT, minimal_with, write_scene

    here = tmp_path / "table"
    here.mkdir()
    (here / "stone.glb").write_bytes((ROOT / "assets" / "terrain" / "statue.glb").read_bytes())
    scene = write_scene(here, minimal_with(
        terrain="- {id: stone, type: mesh, file: stone.glb, at: [40, 10]}\n"
                "- {id: statue, type: mesh, file: assets/terrain/statue.glb, at: [40, 30]}"))
    actions = tmp_path / "actions.yaml"
    actions.write_text("actions:\n  - {do: next}\n")
    elsewhere = tmp_path / "saves" / "turn2.yaml"
    elsewhere.parent.mkdir()
    assert main(["play", str(scene), "--actions", str(actions), "--out", str(elsewhere)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "mesh files (stone.glb) are found from its own folder" in err[0]
    assert not elsewhere.exists()  # the bundled statue is found from anywhere: not named
    beside = here / "turn2.yaml"
    assert main(["play", str(scene), "--actions", str(actions), "--out", str(beside)]) == 0
    assert main(["validate", "--strict", str(beside)]) == 0
