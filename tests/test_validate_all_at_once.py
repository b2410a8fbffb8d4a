"""`validate` lists every problem of a scene in one run: a number the reader refuses (NaN) does
not hide the rules data's problems behind it."""

from __future__ import annotations

from battlesight.cli.main import main

SCENE = """format: 1
name: stats
ruleset: wh40k6
table: [24, 24]
models:
  - {id: a, unit: ua, player: 1, at: [4, 12], base: 32, height: 1.6, stats: {BS: four, Sv: -3},
     weapons: [{name: x, range: .nan, type: assault 1, S: 3, AP: 5}]}
  - {id: b, unit: ub, player: 2, at: [20, 12], base: 32, height: 1.6, profile: lasgunn}
  - {id: c, unit: ub, player: 2, at: [20, 14], base: 32, height: 1.6, stats: "BS4"}
"""


def test_every_problem_is_listed_at_once(tmp_path, capsys):
    path = tmp_path / "stats.yaml"
    path.write_text(SCENE)
    assert main(["validate", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    keys = [line.split(": ")[1] for line in lines[:-1]]
    assert keys == ["models[a].stats.BS", "models[a].stats.Sv", "models[a].weapons[0].range",
                    "models[b].profile", "models[c].stats"]  # by line
    assert all(line.startswith(f"{path}:") for line in lines)
    assert lines[-1] == f"{path}: 5 problem(s)"
    # every command's load step refuses the same scene, in one line per problem, exit 2
    assert main(["los", str(path), "--from", "a"]) == 2
    assert "Traceback" not in capsys.readouterr().err


def test_a_number_yaml_reads_as_text_gets_a_hint(tmp_path, capsys):
    path = tmp_path / "n.yaml"
    path.write_text("format: 1\nname: x\nruleset: wh40k6\ntable: [24, 24]\nterrain: [{id: s, "
                    "type: mesh, file: terrain/statue.glb, at: [5, 5], scale: 1e6}]\n")
    assert main(["validate", str(path)]) == 2
    first = capsys.readouterr().err.splitlines()[0]
    assert first.startswith(f"{path}:5: terrain[s].scale: must be a number, got '1e6'")
    assert "1.0e+6" in first


def test_a_mesh_file_that_is_a_fifo_or_a_folder_says_so(tmp_path, capsys):
    import os

    os.mkfifo(tmp_path / "m.glb")
    (tmp_path / "d.glb").mkdir()
    for name, kind in (("m.glb", "a FIFO"), ("d.glb", "a directory")):
        path = tmp_path / f"{name}.yaml"
        path.write_text("format: 1\nname: x\nruleset: wh40k6\ntable: [24, 24]\nterrain: "
                        f"[{{id: s, type: mesh, file: {name}, at: [5, 5]}}]\n")
        assert main(["validate", str(path)]) == 2
        first = capsys.readouterr().err.splitlines()[0]
        assert first.startswith(f"{path}:5: terrain[s].file: mesh file '{name}' is {kind}")
