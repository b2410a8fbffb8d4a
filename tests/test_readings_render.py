"""`render --readings all`: a sight line whose verdict another reading changes is drawn with a
marker and its label names the readings; `render --reading` draws the verdicts under one."""

from __future__ import annotations

import json

import battlesight
from battlesight.cli.main import main
from tests.schema_helpers import assert_valid

CITY = battlesight.example("wh40k6_city_ruins")


def drawn(capsys, tmp_path, *extra: str) -> dict:
    """The sight lines drawn by target (a line per model), each with the text of its label in
    the picture (None where the label layout found no room for it)."""
    out = tmp_path / "lines.png"
    assert main(["render", str(CITY), "--los", "loota-5", "--view", "top", "--size", "1280x800",
                 "--out", str(out), "--json", "--per-model", *extra]) == 0
    data = json.loads(capsys.readouterr().out)
    assert_valid("render", data)
    texts = {label["model"]: label["text"] for label in data["labels"]
             if label.get("kind") == "sight"}
    return {line["target"]: {**line, "drawn": texts.get(line["target"])} for line in data["lines"]}


def test_lines_another_reading_changes_are_marked_and_say_so(tmp_path, capsys):
    plain = drawn(capsys, tmp_path)
    every = drawn(capsys, tmp_path, "--readings", "all")
    assert not any("readings" in line for line in plain.values())
    marked = {t: line for t, line in every.items() if "readings" in line}
    assert "marine-8" in marked  # clear by default, 4+ under wh40k6.A1=any-part
    assert "differs under wh40k6.A1" in marked["marine-8"]["drawn"]
    bf = battlesight.load(CITY)
    for target, line in every.items():
        default = bf.judge("loota-5", target)
        assert line["status"] == default.status == plain[target]["status"]
        if target in marked:
            ids = [e["reading"] for e in line["readings"]]
            assert line["label"] == default.label  # the verdict's own label in the JSON
            assert line["drawn"] in (None, f"{target} {default.label} [differs under "
                                           f"{', '.join(ids)}]")
            for e in line["readings"]:
                other = bf.judge("loota-5", target, readings={e["reading"]: e["value"]})
                assert (e["status"], e["label"]) == (other.status, other.label)
                assert other.outcome() != default.outcome()
        else:
            assert line["drawn"] in (None, f"{target} {default.label}")


def test_a_unit_line_says_which_readings_change_its_models(tmp_path, capsys):
    """By default (a line per unit) a unit whose models another reading judges otherwise
    says so on its line's label, naming the readings."""
    out = tmp_path / "units.png"
    assert main(["render", str(CITY), "--los", "loota-5", "--view", "top", "--size", "1280x800",
                 "--out", str(out), "--json", "--readings", "all"]) == 0
    data = json.loads(capsys.readouterr().out)
    unit_of = {m.id: m.unit for m in battlesight.load(CITY).scene.models}
    changed = {unit_of[line["target"]] for line in data["lines"] if "readings" in line}
    labels = [lab["text"] for lab in data["labels"] if lab["kind"] == "sight"]
    assert "tac-1" in changed
    for unit in changed:
        assert any(t.startswith(f"{unit}: ") and "[differs under wh40k6." in t for t in labels)


def test_render_draws_the_verdicts_under_a_reading(tmp_path, capsys):
    under = drawn(capsys, tmp_path, "--reading", "wh40k6.A1=any-part")
    bf = battlesight.load(CITY)
    assert under["marine-8"]["label"] == bf.judge(
        "loota-5", "marine-8", readings={"wh40k6.A1": "any-part"}).label
    assert under["marine-8"]["status"] == "cover"


def test_readings_all_without_sight_lines_is_refused(tmp_path, capsys):
    """--readings all marks sight lines: with nothing drawing them (no --los, no eye view, or
    the --matrix grid) it is refused in one line before any work, nothing written."""
    out = tmp_path / "x.png"
    for extra in ([], ["--matrix"]):
        assert main(["render", str(CITY), "--out", str(out), "--readings", "all", *extra]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == ["battlesight render: --readings all marks the sight lines another "
                       "reading changes: give --los MODEL or an eye view (not --matrix)"]
        assert not out.exists()
