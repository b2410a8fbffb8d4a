"""The command line imports only what the asked command needs (issue 13: every command starts
faster): `--version` imports no command and no trimesh, a command imports its own module only,
and help without a command still lists them all."""

from __future__ import annotations

import subprocess
import sys

import battlesight.scenes as scenes

from battlesight.cli.main import COMMANDS, build_parser, main, requested_command


def _modules_after(code: str) -> set[str]:
    line = f"import sys; {code}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", line], capture_output=True, text=True,
                         check=True).stdout
    return set(out.split())


def test_version_imports_no_command_and_no_trimesh():
    loaded = _modules_after("from battlesight.cli.main import main\n"
                            "try:\n    main(['--version'])\nexcept SystemExit:\n    pass")
    assert "trimesh" not in loaded and "scipy" not in loaded
    assert not any(m.startswith("battlesight.cli.commands.") and not m.endswith(
        ("arguments",)) for m in loaded), sorted(m for m in loaded if "commands." in m)


def test_a_command_imports_its_own_module_only():
    loaded = _modules_after("from battlesight.cli.main import build_parser; "
                            "build_parser(['validate', 'x.yaml'])")
    assert "battlesight.cli.commands.validate" in loaded
    assert "battlesight.cli.commands.render" not in loaded
    assert "battlesight.cli.commands.los" not in loaded


def test_requested_command():
    assert requested_command(["los", "a.yaml", "--all"]) == "los"
    assert requested_command(["--version"]) is None
    assert requested_command(["-h", "los"]) is None
    assert requested_command(["nosuch"]) is None


def test_help_lists_every_command(capsys):
    try:
        main(["--help"])
    except SystemExit as stop:
        assert stop.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)
    assert "line of sight from one model" in out  # the help strings of the modules


def test_misspelt_command_is_refused_with_the_list(capsys):
    try:
        build_parser(["lso"]).parse_args(["lso"])
    except SystemExit as stop:
        assert stop.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'lso'" in err and "'render'" in err


def test_scenes_names_are_lazy_and_complete():
    for name in scenes.__all__:
        assert getattr(scenes, name) is not None


#: what `los --from` on a scene without mesh files never imports: the game's action handlers and
#: turn sequence, the phase engine, the set-up data, the roster importers (zip, XML), the
#: temporary files of the writers, the mesh cache's digests, the registry's entry points
NOT_ON_THE_LOS_PATH = (
    "battlesight.rulesets.core.game",
    "battlesight.rulesets.wh40k6.actions",
    "battlesight.rulesets.wh40k6.turns",
    "battlesight.rulesets.wh40k6.shooting",
    "battlesight.rulesets.wh40k6.powers",
    "battlesight.rulesets.wh40k6.setup",  # set-up data (read by the Ruleset on first use)
    "battlesight.rulesets.core.report",  # shooting reports' labels
    "battlesight.rulesets.core.unit_matrix",  # los --all's unit table
    "battlesight.scenes.importers",
    "zipfile",
    "xml.etree.ElementTree",
    "tempfile",
    "hashlib",
    "difflib",  # close-name hints of a refusal
    "importlib.metadata",  # installed systems' entry points: a built-in id never reads them
)


def test_los_imports_no_game_importers_or_writers(tmp_path):
    """The verdicts of `los` need the board, the sight and the cover rules only (issue 13:
    each of these cost milliseconds of every `los` command's start)."""
    from tests.helpers import MINIMAL, write_scene

    scene = write_scene(tmp_path, MINIMAL)  # no forest: numpy.random imports hashlib
    loaded = _modules_after("import io; from battlesight.cli.main import main; "
                            "out, sys.stdout = sys.stdout, io.StringIO(); "
                            f"code = main(['los', {str(scene)!r}, '--from', 'sgt', '--json']); "
                            "sys.stdout = out; assert code == 0")
    assert "battlesight.rulesets.wh40k6.judge" in loaded  # the probe ran the judgement
    assert [m for m in NOT_ON_THE_LOS_PATH if m in loaded] == []


def test_every_system_finds_its_game_hooks_in_its_own_package():
    """The game hooks are functions of the system's hook modules (`Ruleset.hook_modules`),
    imported at the first hook; every system acts and starts a game through them."""
    from battlesight.rulesets.core.ruleset import get_ruleset
    from battlesight.scenes.systems import system_ids, system_package

    for rid in system_ids():
        rs = get_ruleset(rid)
        for name in ("start_game", "phase_start", "legal", "apply"):
            hook = rs.hook(name)
            assert hook is not None and hook.__module__.startswith(f"{system_package(rid)}.")


def test_rules_data_read_by_libyaml_are_safe_load_s():
    """`package_data` (libyaml's safe loader) gives yaml.safe_load's data for every table."""
    import yaml
    from battlesight.scenes.yamlread import package_data

    from tests.helpers import ROOT

    tables = sorted((ROOT / "rulesets").glob("*/data/*.yaml"))
    assert len(tables) >= 8
    for path in tables:
        text = path.read_text(encoding="utf-8")
        assert package_data(text) == yaml.safe_load(text), path.name
