"""A terrain piece's `cover:` is read by each system's own parser, and `validate` refuses what
that parser refuses (one line, the piece and the key), so no accepted value crashes a ruling."""

from __future__ import annotations

import pytest

from battlesight.cli.main import main

SCENE = """format: 1
name: cover
ruleset: {ruleset}
table: [24, 24]
terrain:
  - {{id: wall-1, type: wall, from: [12, 6], to: [12, 18], height: 1, cover: {cover}}}
models:
  - {{id: a, unit: ua, player: 1, at: [4, 12], base: 32, height: 1.6}}
  - {{id: b, unit: ub, player: 2, at: [13, 12], base: 32, height: 1.6}}
"""

GOOD = {"wh40k6": ["4", "'5+'", "none", "false"], "wmh2": ["cover", "concealment", "true", "none"],
        "whfb6": ["soft", "hard", "none"], "aos2": ["true", "1", "0", "false"]}
BAD = {"wh40k6": ["4.5", "x", "[1]", "true", "7", "5.0e+300"],
       "wmh2": ["x", "4", "[cover]"], "whfb6": ["x", "2", "true"], "aos2": ["2", "x", "1.5"]}


def _scene(tmp_path, ruleset: str, cover: str):
    path = tmp_path / f"{ruleset}.yaml"
    path.write_text(SCENE.format(ruleset=ruleset, cover=cover))
    return str(path)


@pytest.mark.parametrize("ruleset,cover", [(r, c) for r, cs in BAD.items() for c in cs])
def test_a_cover_value_the_system_cannot_read_is_refused(tmp_path, capsys, ruleset, cover):
    path = _scene(tmp_path, ruleset, cover)
    assert main(["validate", path]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith(f"{path}:6: terrain[wall-1].cover: must be") and len(err) == 2
    assert main(["los", path, "--from", "a"]) == 2
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("ruleset,cover", [(r, c) for r, cs in GOOD.items() for c in cs])
def test_every_cover_value_the_system_reads_works_everywhere(tmp_path, capsys, ruleset, cover):
    path = _scene(tmp_path, ruleset, cover)
    assert main(["validate", "--strict", path]) == 0
    assert main(["los", path, "--from", "a", "--json"]) == 0
    assert main(["shoot", path, "--unit", "ua", "--target", "ub", "--json"]) == 0
    capsys.readouterr()
