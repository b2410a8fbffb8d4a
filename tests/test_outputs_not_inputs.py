"""No command writes over one of its own input files, and outputs are the kind of file their
option names: refused before any work, exit 2, the input untouched."""

from __future__ import annotations

import shutil

import pytest

from battlesight.cli.main import main
from tests.helpers import EXAMPLES, ROOT

ACTIONS = ROOT / "tests" / "data" / "wh40k6_city_ruins_actions.yaml"


@pytest.fixture()
def inputs(tmp_path):
    scene = tmp_path / "scene.yaml"
    actions = tmp_path / "actions.yaml"
    shutil.copy(EXAMPLES / "wh40k6_city_ruins.yaml", scene)
    shutil.copy(ACTIONS, actions)
    return scene, actions


def _refused(capsys, argv: list[str], *files) -> str:
    before = [f.read_bytes() for f in files]
    assert main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert [f.read_bytes() for f in files] == before
    return err


@pytest.mark.parametrize("option", ["--log", "--out"])
@pytest.mark.parametrize("which", [0, 1])
def test_play_never_writes_over_its_scene_or_actions(capsys, inputs, option, which):
    scene, actions = inputs
    argv = ["play", scene, "--actions", actions, "--seed", "1", option, inputs[which]]
    assert "is an input file of this command" in _refused(capsys, argv, scene, actions)


@pytest.mark.parametrize("option", ["--heatmap", "--save-field"])
def test_analyze_never_writes_over_its_scene(capsys, inputs, option):
    scene, _ = inputs
    assert "must end in" in _refused(capsys, ["analyze", scene, "--grid", "4", option, scene],
                                     scene)


def test_analyze_refuses_an_output_of_the_wrong_kind(capsys, inputs, tmp_path):
    scene, _ = inputs
    err = _refused(capsys, ["analyze", scene, "--grid", "4", "--heatmap", tmp_path / "h.yaml"],
                   scene)
    assert "--heatmap" in err and ".png" in err
    assert not (tmp_path / "h.yaml").exists()


def test_export_never_writes_over_its_scene(capsys, inputs, tmp_path):
    scene, _ = inputs
    link = tmp_path / "scene.glb"
    link.symlink_to(scene)  # the same file under an output's name
    assert _refused(capsys, ["export", scene, link], scene)


def test_an_output_beside_the_inputs_is_written(capsys, inputs, tmp_path):
    scene, actions = inputs
    log = tmp_path / "log.json"
    assert main([str(a) for a in ["play", scene, "--actions", actions, "--seed", "1",
                                  "--log", log]]) == 0
    assert log.read_text().startswith("{") or log.read_text().startswith("[")


def test_export_never_writes_over_a_mesh_file_the_scene_reads(capsys, tmp_path):
    """The scene's own mesh files are inputs too: `export` onto the statue it places is
    refused when it would write, and the mesh is untouched."""
    scene = tmp_path / "city.yaml"
    shutil.copy(EXAMPLES / "wh40k6_city_ruins.yaml", scene)
    mesh = tmp_path / "assets" / "terrain" / "statue.glb"
    mesh.parent.mkdir(parents=True)
    shutil.copy(ROOT / "assets" / "terrain" / "statue.glb", mesh)
    err = _refused(capsys, ["export", scene, mesh], scene, mesh)
    assert "is a file this command reads" in err
    assert main(["export", str(scene), str(tmp_path / "out.glb")]) == 0  # elsewhere: written


def test_the_window_may_save_its_layout_back_to_its_own_file(inputs):
    """`view` is the one command whose output is its input: the edit mode saves the layout
    to the scene file it opened; every other command refuses (above)."""
    from battlesight.scenes.output import UnsafeOutput, check_target, forget_inputs

    from battlesight.cli.commands.view import load_editable
    from battlesight.cli.common import load

    scene, _ = inputs
    forget_inputs()
    load(str(scene))
    with pytest.raises(UnsafeOutput):
        check_target(scene)
    load_editable(str(scene))
    assert check_target(scene) == scene
