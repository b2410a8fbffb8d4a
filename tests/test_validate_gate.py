"""`validate` is the gate: what it refuses, it refuses in one line per problem with exit code 2
(and so does every command's load step); what it accepts, every command handles.

Each scene is written by the test: a small base scene per system with one change, the
examples of issue 11 (rules data, mesh files, geometry the builders cannot make, empty scenes,
absurd numbers, misspelt keys).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from battlesight.scenes import ASSETS_DIR, load_scene
from battlesight.scenes.build import build_world

from tests.helpers import run_cli

BASES = {
    "wh40k6": """\
format: 1
name: gate
ruleset: wh40k6
table: [48, 48]
terrain:
  - {id: ruin-1, type: ruin, at: [14, 10], size: [8, 6], floors: [3], height: 6,
     walls: [north, east]}
  - {id: wall-1, type: wall, from: [20, 22], to: [28, 22], height: 2}
  - {id: wood-1, type: forest, polygon: [[30, 28], [40, 27], [42, 35], [31, 37]], height: 5}
  - {id: block-1, type: box, at: [8, 32], size: [5, 5, 4]}
units:
  - {id: tac-1, player: 1, profile: tactical-squad}
  - {id: boyz-1, player: 2, profile: ork-boyz}
models:
  - {id: sgt, unit: tac-1, at: [14, 10], floor: 1, profile: space-marine-sergeant}
  - {id: marine-1, unit: tac-1, at: [22, 20.5], profile: tactical-marine}
  - {id: nob, unit: boyz-1, at: [24, 30], facing: 180, profile: ork-nob}
  - {id: boy-1, unit: boyz-1, at: [20, 33], facing: 180, profile: ork-boy}
""",
    "whfb6": """\
format: 1
ruleset: whfb6
table: [48, 48]
terrain:
  - {id: hill-1, type: hill, at: [24, 24], size: [8, 6], height: 1.5}
units:
  - {id: halberdiers, player: 1, profile: halberdiers}
  - {id: orc-boyz, player: 2, profile: orc-boyz}
models:
  - {id: halb-1, unit: halberdiers, at: [20, 10], base: 20, profile: halberdier}
  - {id: orc-1, unit: orc-boyz, at: [20, 38], facing: 180, base: 25, profile: orc-boy}
""",
    "wmh2": """\
format: 1
ruleset: wmh2
table: [48, 48]
terrain:
  - {id: wall-1, type: wall, from: [20, 24], to: [28, 24], height: 0.9}
units:
  - {id: long-gunners, player: 1, profile: long-gunner-infantry}
  - {id: winter-guard, player: 2, profile: winter-guard-infantry}
models:
  - {id: lg-1, unit: long-gunners, at: [24, 10], base: 30, profile: trooper, leader: true}
  - {id: wg-1, unit: winter-guard, at: [24, 38], facing: 180, base: 30, profile: trooper}
""",
}
#: per system: (a model, its enemy, a unit, the enemy unit)
IDS = {"wh40k6": ("marine-1", "nob", "tac-1", "boyz-1"),
       "whfb6": ("halb-1", "orc-1", "halberdiers", "orc-boyz"),
       "wmh2": ("lg-1", "wg-1", "long-gunners", "winter-guard")}
PROBLEM = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?P<key>[^:]+): (?P<message>.+)$")


def scene(tmp_path: Path, system: str, old: str = "", new: str = "",
          name: str = "scene.yaml") -> tuple[Path, int]:
    """The base scene of a system with `old` replaced by `new`; (path, first changed line)."""
    text = BASES[system]
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    if not old:
        return path, 1
    olds, news = old.split("\n"), new.split("\n")
    changed = next(i for i, n in enumerate(news) if i >= len(olds) or n != olds[i])
    return path, text[:text.index(new)].count("\n") + 1 + changed


def assert_refused(argv: list[str], path: Path, line: int | None, key: str, fragment: str,
                   summary: bool) -> None:
    """One problem line and nothing else: a refused scene prints its refusal alone, no
    warning found on the way (validate and every command's load step alike)."""
    code, _, err = run_cli(*argv)
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.splitlines()
    assert not [w for w in lines if ": warning: " in w], err
    if summary:
        assert lines[-1] == f"{path}: 1 problem(s)"
        lines = lines[:-1]
    assert len(lines) == 1, err
    m = PROBLEM.match(lines[0])
    assert m, lines[0]
    assert (m["file"], m["key"]) == (str(path), key), lines[0]
    if line is not None:
        assert int(m["line"]) == line, lines[0]
    assert fragment in m["message"], lines[0]


def refused(tmp_path: Path, path: Path, line: int | None, key: str, fragment: str) -> None:
    """Refused by validate (problem line + count) and by a command's load step (the line)."""
    assert_refused(["validate", path], path, line, key, fragment, summary=True)
    assert_refused(["export", path, tmp_path / "out.glb"], path, line, key, fragment,
                   summary=False)
    assert not (tmp_path / "out.glb").exists()


# -- rules data ------------------------------------------------------------------------------

RULES_CASES = [
    ("wh40k6", "profile: ork-nob}", "profile: no-such-profile}", "models[nob].profile",
     "unknown wh40k6 profile 'no-such-profile'"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nobb}", "models[nob].profile",
     "did you mean 'ork-nob'"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, stats: {WS: x}}", "models[nob].stats.WS",
     "must be a whole number"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, stats: [1, 2]}", "models[nob].stats",
     "must be a mapping"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, weapons: -1}", "models[nob].weapons",
     "must be a list"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, weapons: [slugaa]}",
     "models[nob].weapons[0]", "did you mean 'slugga'"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, powers: 7}", "models[nob].powers",
     "power name"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, powers: [smiet]}",
     "models[nob].powers[0]", "did you mean 'smite'"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, wounds_left: 0}",
     "models[nob].wounds_left", "from 1"),
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, stats: {W: 1000}}", "models[nob].stats.W",
     "from 0 to 100"),
    ("whfb6", "profile: halberdier}", "profile: halberdier, stats: {X: 1}}",
     "models[halb-1].stats.X", "not a whfb6 characteristic"),
    ("whfb6", "profile: halberdiers}",
     "profile: halberdiers, formation: {front: [20, 11], facing: 0}}",
     "units[halberdiers].formation", "missing required key 'files'"),
    ("whfb6", "profile: halberdier}", "profile: halberdier, role: captain}",
     "models[halb-1].role", "champion, standard, musician"),
    ("wmh2", "ruleset: wmh2", "ruleset: wmh2\nclouds: x", "clouds", "must be a list"),
    ("wmh2", "ruleset: wmh2", "ruleset: wmh2\nclouds: [{id: c1, radius: 1.5}]", "clouds[0].at",
     "missing required key 'at'"),
    ("wmh2", "ruleset: wmh2", "ruleset: wmh2\nclouds: [{id: c1, at: [5, x]}]", "clouds[0].at",
     "must be [x, y]"),
]


@pytest.mark.parametrize("system, old, new, key, fragment", RULES_CASES)
def test_rules_data_refused(tmp_path, system, old, new, key, fragment):
    path, line = scene(tmp_path, system, old, new)
    refused(tmp_path, path, line, key, fragment)


@pytest.mark.parametrize("system, old, new, key", [
    ("wh40k6", "profile: ork-nob}", "profile: ork-nob, rules: .nan}", "models[nob].rules"),
    ("whfb6", "profile: halberdier}", "profile: halberdier, stats: {W: .inf}}",
     "models[halb-1].stats.W"),
])
def test_nan_and_inf_in_rules_data_refused(tmp_path, system, old, new, key):
    """Refused at the YAML level (not a finite number) or by the rules checks: one line."""
    path, line = scene(tmp_path, system, old, new)
    code, _, err = run_cli("validate", path)
    assert code == 2 and "Traceback" not in err
    first = PROBLEM.match(err.splitlines()[0])
    assert first and first["key"] == key and int(first["line"]) == line


# -- geometry the builders cannot make -------------------------------------------------------

GEOMETRY_CASES = [
    ("[[30, 28], [40, 27], [42, 35], [31, 37]]", "[[30, 28], [40, 37], [40, 27], [30, 37]]",
     "terrain[wood-1].polygon", "not a simple polygon: its edges cross near"),
    # a bow tie: no signed area, but its edges cross (not 'collinear')
    ("[[30, 28], [40, 27], [42, 35], [31, 37]]", "[[30, 28], [40, 38], [40, 28], [30, 38]]",
     "terrain[wood-1].polygon", "its edges cross near (35, 33)"),
    ("at: [8, 32], size: [5, 5, 4]", "at: [1.0e+300, 32], size: [5, 5, 4]",
     "terrain[block-1].at", "between -10000 and 10000"),
    ("at: [8, 32], size: [5, 5, 4]", "at: [8, 32], size: [1.0e-9, 1.0e-9, 1.0e-9]",
     "terrain[block-1].size", "at least 0.01"),
    ("floors: [3], height: 6", "floors: [0.5], height: 2", "terrain[ruin-1].floors",
     "ground slab's top is at 0.2"),
    ("floors: [3], height: 6,\n     walls: [north, east]}", "height: 0.15}",
     "terrain[ruin-1].height", "taller than its 0.2\" ground slab"),
    ("size: [8, 6], floors: [3], height: 6,\n     walls: [north, east]}",
     "size: [0.45, 6], floors: [3], height: 6,\n     walls: [east, west]}",
     "terrain[ruin-1].size", "leaves no room"),
    # a ruin's flags are true or false ("no" would read as true: windows)
    ("walls: [north, east]}", "walls: [north, east], windows: 'no'}",
     "terrain[ruin-1].windows", "must be true or false, got 'no'"),
    ("at: [14, 10], size: [8, 6], floors: [3], height: 6,\n     walls: [north, east]}",
     "polygon: [[10, 7], [18, 7], [18, 13], [10, 13]], floors: [3], height: 6, broken: 1}",
     "terrain[ruin-1].broken", "must be true or false, got 1"),
    ("height: 5}", "height: 5, trunks: many}", "terrain[wood-1].trunks", "whole number"),
    ("height: 5}", "height: 5, trunks: [[1, 2, 3]]}", "terrain[wood-1].trunks", "[x, y] points"),
    ("height: 5}", "height: 5, trunks: 10000000}", "terrain[wood-1].trunks", "at most 1000"),
    ("at: [8, 32], size: [5, 5, 4]", "at: [108, 32], size: [5, 5, 4]", "terrain[block-1].at",
     "wholly off the 48x48 table"),
    ("table: [48, 48]", "table: [1000000000, 1000000000]", "table", "between"),
    ("table: [48, 48]", "table: [2000, 1500]", "table", "a table side is at most 1000"),
    ("facing: 180, profile: ork-nob", "facing: 1.8e+302, profile: ork-nob", "models[nob].facing",
     "between -10000 and 10000"),
]


@pytest.mark.parametrize("old, new, key, fragment", GEOMETRY_CASES)
def test_geometry_refused(tmp_path, old, new, key, fragment):
    path, line = scene(tmp_path, "wh40k6", old, new)
    refused(tmp_path, path, line, key, fragment)


@pytest.mark.parametrize("old, new, fragment", [
    # over the wall band: refused by the build, and the physical warnings it would also meet
    # (inside the wall, hanging off floor 1) are not printed beside the refusal
    ("id: sgt, unit: tac-1, at: [14, 10]", "id: sgt, unit: tac-1, at: [17.8, 10]",
     "no ruin beneath"),
    ("  - {id: block-1, type: box, at: [8, 32], size: [5, 5, 4]}",
     "  - {id: block-1, type: box, at: [8, 32], size: [5, 5, 4]}\n"
     "  - {id: tall, type: box, at: [14, 10], size: [2, 2, 8]}", "tall has no floors"),
])
def test_standing_points_resolve(tmp_path, old, new, fragment):
    """A model on floor 1 over the ruin's wall band, or over a taller box inside the ruin."""
    path, _ = scene(tmp_path, "wh40k6", old, new)
    text = path.read_text()
    line = text[:text.index("{id: sgt")].count("\n") + 1
    refused(tmp_path, path, line, "models[sgt].floor", fragment)


# -- mesh files ------------------------------------------------------------------------------

STATUE = ASSETS_DIR / "terrain" / "statue.glb"
MESH_FILES = [
    ("text.glb", b"this is not a mesh\n", "no 'glTF' header"),
    ("empty.glb", b"", "the file is empty"),
    ("cut.glb", STATUE.read_bytes()[:300], "truncated"),
    ("junk.stl", bytes(range(256)) * 3, "neither an ASCII STL nor a whole binary STL"),
    ("lfs.glb", b"version https://git-lfs.github.com/spec/v1\noid sha256:0123\nsize 9\n",
     "Git LFS pointer"),
]


@pytest.mark.parametrize("name, data, fragment", MESH_FILES)
def test_mesh_file_that_is_not_a_mesh(tmp_path, name, data, fragment):
    (tmp_path / name).write_bytes(data)
    path, line = scene(tmp_path, "wh40k6", "  - {id: block-1",
                       f"  - {{id: stone, type: mesh, file: {name}, at: [36, 10]}}\n"
                       "  - {id: block-1")
    refused(tmp_path, path, line, "terrain[stone].file", fragment)
    path, line = scene(tmp_path, "wh40k6", "profile: ork-boy}",
                       f"profile: ork-boy, shape: {name}}}", name="shape.yaml")
    refused(tmp_path, path, line, "models[boy-1].shape", fragment)


def test_mesh_is_parsed_once_for_validation_and_the_command(tmp_path, monkeypatch):
    (tmp_path / "stone.glb").write_bytes(STATUE.read_bytes())
    path, _ = scene(tmp_path, "wh40k6", "  - {id: block-1",
                    "  - {id: stone, type: mesh, file: stone.glb, at: [36, 10]}\n  - {id: block-1")
    calls = []
    import trimesh  # meshfile imports it where it reads a file

    real = trimesh.load
    monkeypatch.setattr(trimesh, "load", lambda *a, **k: calls.append(a) or real(*a, **k))
    world = build_world(load_scene(path))
    assert len(calls) == 1 and "stone" in world.terrain
    (tmp_path / "stone.glb").write_bytes(STATUE.read_bytes() + b"")  # same bytes, new mtime
    import os
    os.utime(tmp_path / "stone.glb", ns=(1, 1))
    build_world(load_scene(path))
    assert len(calls) == 2  # a changed file is read again


# -- keys are known --------------------------------------------------------------------------

WARNED = [
    ("profile: ork-nob}", "hieght: 1.7, profile: ork-nob}", "models[nob].hieght",
     "unknown key; did you mean 'height'?"),
    ("profile: ork-nob}", "profile: ork-nob, colour: red}", "models[nob].colour",
     "unknown key"),
    ("  - {id: block-1", "  - {id: stone, type: mesh, file: terrain/statue.glb, at: [36, 10], "
                         "scael: 0.03937}\n  - {id: block-1",
     "terrain[stone].scael", "unknown key; did you mean 'scale'?"),
    ("height: 2}", "height: 2, colour: grey}", "terrain[wall-1].colour", "unknown key"),
]


@pytest.mark.parametrize("old, new, key, message", WARNED)
def test_unknown_key_warns_and_strict_refuses(tmp_path, old, new, key, message):
    path, line = scene(tmp_path, "wh40k6", old, new)
    warning = f"{path}:{line}: {key}: warning: {message}"  # tagged: not taken for an error
    code, out, err = run_cli("validate", path)
    assert code == 0 and out == f"{path}: ok (1 warning(s))\n"
    assert err.splitlines()[0].startswith(warning)
    code, _, err = run_cli("export", path, tmp_path / "out.glb")  # every load step warns too
    assert code == 0 and err.splitlines()[0].startswith(warning)
    code, _, err = run_cli("validate", "--strict", path)
    assert code == 2 and err.splitlines() == [err.splitlines()[0], f"{path}: 1 problem(s)"]
    assert err.startswith(f"{path}:{line}: {key}: {message}")  # an error under --strict


def test_keys_of_ones_own_are_silent(tmp_path):
    path, _ = scene(tmp_path, "wh40k6", "profile: ork-nob}",
                    "profile: ork-nob, x-colour: red, extra: {painted: true}}")
    code, out, err = run_cli("validate", "--strict", path)
    assert (code, out, err) == (0, f"{path}: ok\n", "")


def test_bundled_examples_validate_strictly():
    from tests.helpers import EXAMPLE_FILES

    for path in EXAMPLE_FILES:
        assert run_cli("validate", "--strict", path) == (0, f"{path}: ok\n", "")


# -- accepted scenes: every command works ----------------------------------------------------

def every_command(tmp_path: Path, path: Path, system: str = "wh40k6") -> dict[str, int]:
    """Exit code of each command on the scene (no tracebacks: main raises on a bug)."""
    me, enemy, unit, target = IDS[system]
    actions = tmp_path / "actions.yaml"
    actions.write_text("- {do: next}\n- {do: next}\n", encoding="utf-8")
    argvs = {
        "los": ["los", path, "--from", me, "--to", enemy],
        "shoot": ["shoot", path, "--unit", unit, "--target", target, "--samples", 32],
        "render": ["render", path, "--out", tmp_path / "r.png", "--size", "64x48"],
        "export": ["export", path, tmp_path / "e.glb"],
        "analyze": ["analyze", path, "--grid", 6],
        "play": ["play", path, "--actions", actions],
    }
    codes = {}
    for name, argv in argvs.items():
        code, _, err = run_cli(*argv)
        assert "Traceback" not in err
        codes[name] = code
    return codes


@pytest.mark.parametrize("system", sorted(BASES))
def test_base_scenes_work_with_every_command(tmp_path, system):
    path, _ = scene(tmp_path, system)
    assert run_cli("validate", "--strict", path)[0] == 0
    assert every_command(tmp_path, path, system) == dict.fromkeys(
        ("los", "shoot", "render", "export", "analyze", "play"), 0)


def test_large_facing_is_a_turn(tmp_path):
    path, _ = scene(tmp_path, "wh40k6", "facing: 180, profile: ork-nob",
                    "facing: 9900.5, profile: ork-nob")
    assert load_scene(path).model("nob").facing == pytest.approx(9900.5 % 360)
    assert set(every_command(tmp_path, path).values()) == {0}
    assert (tmp_path / "r.png").stat().st_size > 0


def test_misspelt_key_is_warned_and_every_command_works(tmp_path):
    path, _ = scene(tmp_path, "wh40k6", "profile: ork-nob}", "hieght: 1.7, profile: ork-nob}")
    assert set(every_command(tmp_path, path).values()) == {0}


def test_scene_without_models(tmp_path):
    """Sight commands have nothing to look at (one line each), play refuses in one line; the
    rest work."""
    text = BASES["wh40k6"].split("units:")[0]
    path = tmp_path / "empty.yaml"
    path.write_text(text, encoding="utf-8")
    codes = every_command(tmp_path, path)
    assert codes == {"los": 2, "shoot": 2, "render": 0, "export": 0, "analyze": 0, "play": 2}
    code, _, err = run_cli("play", path, "--actions", tmp_path / "actions.yaml")
    assert err.splitlines() == [
        f"{path}: models: a game needs the models of at least one player; the scene has none"]


def test_scene_with_nothing_at_all(tmp_path):
    path = tmp_path / "nothing.yaml"
    path.write_text("format: 1\nruleset: aos2\ntable: [24, 24]\n", encoding="utf-8")
    assert run_cli("validate", "--strict", path) == (0, f"{path}: ok\n", "")
    code, _, err = run_cli("export", path, tmp_path / "e.glb")
    assert code == 0 and err == ""
    assert (tmp_path / "e.glb").read_bytes()[:4] == b"glTF"
    code, _, _ = run_cli("render", path, "--out", tmp_path / "r.png", "--size", "64x48")
    assert code == 0


# -- the builders' own preconditions ---------------------------------------------------------

@pytest.mark.parametrize("kwargs, param", [
    ({"size": (8, 6), "height": 2, "floors": (0.5,)}, "floors"),
    ({"size": (8, 6), "height": 0.15}, "height"),
    ({"size": (0.45, 6), "height": 6, "walls": ("east", "west")}, "size"),
    ({"size": (8, 6), "height": 6, "walls": ("up",)}, "walls"),
])
def test_ruin_builder_and_scene_check_share_one_precondition(kwargs, param):
    from battlesight.geometry import ruins
    from battlesight.geometry.primitives import BuildInputError

    with pytest.raises(BuildInputError) as checked:
        ruins.check_ruin(**kwargs)
    with pytest.raises(BuildInputError) as built:
        ruins.ruin((10, 10), **kwargs)
    assert checked.value.param == built.value.param == param
    assert str(checked.value) == str(built.value)


def test_unit_keys_of_another_system_warn(tmp_path):
    path, line = scene(tmp_path, "wh40k6", "profile: tactical-squad}",
                       "profile: tactical-squad, formation: {front: [1, 1], files: 5}}")
    code, _, err = run_cli("validate", path)
    assert code == 0
    assert err.splitlines() == [f"{path}:{line}: units[tac-1].formation: warning: unknown key "
                                "(nothing reads it; keep your own data under 'extra:' or name "
                                "it 'x-...')"]


@pytest.mark.parametrize("old, new, key, fragment", [
    ("profile: tactical-squad}", "profile: tactical-squad, powers: [smite, 3]}",
     "units[tac-1].powers[1]", "a power is a name"),
    ("profile: tactical-squad}", "profile: tactical-squad, reserve: soon}",
     "units[tac-1].reserve", "true or false"),
    ("profile: tactical-squad}", "profile: tactical-squd}", "units[tac-1].profile",
     "did you mean 'tactical-squad'"),
])
def test_unit_rules_data_refused(tmp_path, old, new, key, fragment):
    path, line = scene(tmp_path, "wh40k6", old, new)
    refused(tmp_path, path, line, key, fragment)
