"""`los --all`: every ordered pair judged in one batch; its entries are exactly what
`los --from` gives for the same pairs (on the examples with two models a unit, every unit and
piece kept), and the text is a unit-by-unit table."""

from __future__ import annotations

import json

import pytest

from battlesight.cli.main import main
from tests.helpers import EXAMPLES, thinned_file


def _json(capsys, *argv) -> list | dict:
    assert main([str(a) for a in argv]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", ["demo", "wmh2_hills_forest", "whfb6_village",
                                  "aos2_ruins_obstacles"])
def test_all_pairs_equal_the_entries_of_los_from(capsys, tmp_path, name):
    path = thinned_file(EXAMPLES / f"{name}.yaml", tmp_path)
    every = _json(capsys, "los", path, "--all", "--json")
    observers = list(dict.fromkeys(r["observer"] for r in every))
    assert len(every) == len(observers) * (len(observers) - 1)
    for observer in observers[:3]:
        one = _json(capsys, "los", path, "--from", observer, "--json")
        assert one == [r for r in every if r["observer"] == observer]


def test_the_text_is_a_unit_table(capsys):
    assert main(["los", str(EXAMPLES / "demo.yaml"), "--all"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "who sees whom (wh40k6, 132 ordered pairs judged)"
    assert out[1].split()[:3] == ["observer", "\\", "target"]
    rows = {line.split()[0]: line for line in out[3:5]}
    assert set(rows) == {"tac-1", "boyz-1"}
    assert "/6" in rows["tac-1"] and "/6" in rows["boyz-1"]


def test_all_refuses_a_target(capsys):
    assert main(["los", str(EXAMPLES / "demo.yaml"), "--all", "--to", "sgt"]) == 2
    assert "--to goes with --from" in capsys.readouterr().err


def test_a_tie_of_cover_texts_goes_to_the_first_target():
    from types import SimpleNamespace

    from battlesight.rulesets.core.unit_matrix import unit_matrix

    models = [SimpleNamespace(id="a1", unit="A"), SimpleNamespace(id="b1", unit="B"),
              SimpleNamespace(id="b2", unit="B")]
    scene = SimpleNamespace(models=models)

    def verdict(target, text):
        return {"observer": "a1", "target": target, "visible": True, "cover_text": text,
                "status": "cover"}

    for first, second in (("4+ (ruin-1)", "5+ (wood-1)"), ("5+ (wood-1)", "4+ (ruin-1)")):
        back = {"observer": "b1", "target": "a1", "visible": False, "cover_text": "",
                "status": "hidden"}  # B observes too: a unit of the table
        _, cells = unit_matrix(scene, [verdict("b1", first), verdict("b2", second), back])
        assert cells[("A", "B")].cover == first and cells[("A", "B")].seen == 2
