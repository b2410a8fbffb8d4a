"""What the command tables, notes and captions say: shares under 1% read <1%, no save odds for
attacks that cannot hit, cover as a save and only for seen models, whose view counts under A2,
no blank rules or half numbers, captions with unit names."""

from __future__ import annotations

import json
import re

import pytest
from battlesight.scenes import EXAMPLES_DIR

from tests.helpers import one_line_error, run_cli

DEMO = str(EXAMPLES_DIR / "demo.yaml")
CITY = str(EXAMPLES_DIR / "wh40k6_city_ruins.yaml")
AOS = str(EXAMPLES_DIR / "aos2_ruins_obstacles.yaml")


@pytest.mark.parametrize("name", ["../geometry", "wh40k6.profile", "a/b", ""])
def test_phases_of_a_name_that_is_no_package(name):
    code, _, err = run_cli("phases", name)
    assert code == 2
    assert f"no ruleset {name!r}" in one_line_error(err)


def test_phases_says_when_a_step_takes_no_actions():
    code, out, _ = run_cli("phases", "wmh2")
    assert code == 0 and "- maintenance: automatic, no actions" in out
    assert not any(line.rstrip().endswith(": actions") for line in out.splitlines())


@pytest.mark.parametrize("scene,unit,target", [
    (DEMO, "tac-1", "boyz-1"),
    (str(EXAMPLES_DIR / "wmh2_hills_forest.yaml"), "long-gunners", "winter-guard"),
    (str(EXAMPLES_DIR / "whfb6_village.yaml"), "handgunners", "orc-boyz"),
    (AOS, "judicators", "bloodreavers"),
])
def test_shoot_with_a_weapon_the_unit_does_not_carry(scene, unit, target):
    code, out, err = run_cli("shoot", scene, "--unit", unit, "--target", target,
                             "--weapon", "zap", "--samples", "40")
    assert code == 2 and out == ""
    assert f"no weapon 'zap' in unit {unit}; its weapons: " in one_line_error(err)


def test_aos2_weapon_choice_is_judged_not_filtered_afterwards():
    """--weapon used to drop the other weapons' lines after the unit had been judged with
    them: the verdict and the odds still spoke of the bow."""
    code, out, _ = run_cli("shoot", AOS, "--unit", "judicators", "--target",
                           "bloodreavers", "--weapon", "storm gladius", "--json")
    data = json.loads(out)
    assert code == 0 and data["firers"] == [] and not data["eligible"]
    assert data["reason"] == "judicators has no missile weapon 'storm gladius'"
    assert all(t["p_hit"] == 0.0 for t in data["targets"])


def test_shoot_table_never_cuts_a_number_in_half():
    code, out, _ = run_cli("shoot", CITY, "--unit", "captain", "--target", "warboss")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("captain  "))
    assert 'bolter range 24"' in line and not line.rstrip().endswith("range 2")


def test_shoot_at_a_friendly_unit_prints_no_empty_tables():
    code, out, _ = run_cli("shoot", DEMO, "--unit", "tac-1", "--target", "tac-1")
    assert code == 0
    assert out.strip() == "tac-1 -> tac-1: cannot shoot: cannot shoot at a friendly unit"


def test_aos2_targets_table_has_no_blank_rule():
    code, out, _ = run_cli("shoot", AOS, "--unit", "judicators", "--target",
                           "bloodreavers")
    assert code == 0
    rows = [re.split(r"\s{2,}", x.strip()) for x in out.splitlines() if x.startswith("reaver-")]
    assert rows and all(len(r) == 10 for r in rows)  # p_save_fail is a column
    assert all(r[5].startswith("aos2 §") for r in rows)  # the cover verdict's rule


def test_los_table_writes_40k_cover_as_a_save_and_only_for_seen_models():
    code, out, _ = run_cli("los", DEMO, "--from", "sgt")
    assert code == 0
    rows = {x.split()[0]: x for x in out.splitlines()[3:]}
    assert "cover 4+ (ruin-1)" in rows["boy-3"]
    assert "cover" not in rows["nob"]  # not seen: no cover to speak of
    assert "cover 4 " not in out


def test_40k_forest_cover_note_says_seen_through_not_hidden():
    """boy-4 is seen whole (by the rules) through wood-1: the note said '100% hidden by'."""
    code, out, _ = run_cli("los", DEMO, "--from", "sgt", "--to", "boy-4", "--json")
    ruling = json.loads(out)["verdict"]
    assert code == 0 and ruling["visible"] and ruling["cover"]["source"] == "wood-1"
    assert ruling["cover"]["notes"] == ["100% seen through wood-1"]


@pytest.mark.parametrize("share, text", [(0.003, "<1% seen"), (0.0, "0% seen"), (0.62, "62% seen"),
                                         (0.997, ">99% seen"), (1.0, "100% seen")])
def test_verdict_label_never_reads_0_percent_for_a_seen_model(share, text):
    from battlesight.rulesets.core.verdict import Verdict

    verdict = Verdict("a", "b", True, share, share, "why", "rule")
    assert verdict.label == f"{text}, clear"


def test_aos2_melee_targets_show_the_share_sight_gives():
    """A melee attack needs no sight, but its table showed 'seen yes, 0%': the share is the
    sight verdict's, as for missiles."""
    from battlesight.rulesets.aos2 import attacks

    from tests.test_whfb6_scenes import board, loose, scene

    models = loose("u", 2, "archer", [(20.0, 18.0), (22.0, 18.0)])
    models += loose("w", 1, "blood-warrior", [(20.0, 16.5)])
    b = board(scene("aos2", [], models=models))
    report = attacks.analyse(b, "w", "u", attacks.Context(missile=False)).to_dict()
    verdicts = b.ruleset.judge(b, [("w-1", "u-1"), ("w-1", "u-2")])
    shares = {t["model"]: t["visible_fraction"] for t in report["targets"]}
    assert all(t["visible"] for t in report["targets"])
    assert shares == {v.target: round(v.seen_share, 4) for v in verdicts}
    assert shares["u-1"] > 0.5


def test_shoot_table_shows_no_save_odds_for_attacks_that_cannot_hit():
    aos = str(EXAMPLES_DIR / "aos2_ruins_obstacles.yaml")
    code, out, _ = run_cli("shoot", aos, "--unit", "judicators", "--target",
                           "bloodreavers", "--weapon", "storm gladius")
    rows = [x.split() for x in out.splitlines() if x.startswith("reaver-")]
    assert code == 0 and rows
    assert all(r[-4:] == ["0.000", "-", "-", "0.000"] for r in rows), rows
    code, out, _ = run_cli("shoot", aos, "--unit", "judicators", "--target",
                           "bloodreavers", "--weapon", "storm gladius", "--json")
    import json

    assert all(t["p_save_fail"] == 1.0 for t in json.loads(out)["targets"])  # the schema's


def test_wh40k6_cover_note_says_whose_view_counts_under_a2():
    """dev-2 cannot see boy-3 but its view counts toward the cover (A2): the note said '100%
    hidden by ruin-d' next to 'visible' as if the model were hidden."""
    import json

    city = str(EXAMPLES_DIR / "wh40k6_city_ruins.yaml")
    code, out, _ = run_cli("shoot", city, "--unit", "dev-1", "--target", "boyz-1",
                           "--json")
    data = json.loads(out)
    sees = {f["model"]: set(f["sees"]) for f in data["firers"]}
    blind = [t for t in data["targets"] if t["model"] not in sees[t["cover"]["firer"]]]
    assert code == 0 and blind
    for t in blind:
        firer = t["cover"]["firer"]
        assert t["cover"]["notes"][0].startswith(f"from {firer}, which cannot see it (A2): ")
    assert all(not t["cover"]["notes"][0].startswith("from ") for t in data["targets"]
               if t["model"] in sees[t["cover"]["firer"]])


@pytest.mark.parametrize("event, names, text", [
    ({"kind": "move", "unit": "judicators", "data": {"distance": 4.5}}, {},
     'judicators: move 4.5"'),
    ({"kind": "move", "unit": "judicators", "data": {"distance": 4.5}},
     {"judicators": "Judicators of Hammerhal"}, 'Judicators of Hammerhal: move 4.5"'),
    ({"kind": "pile_in", "unit": "liberators", "data": {}}, {}, "liberators: pile in"),
    ({"kind": "charge", "unit": "liberators", "data": {"target": "reavers", "distance": 7,
                                                       "needed": 5.2}},
     {"reavers": "Bloodreavers"}, 'liberators: charge Bloodreavers (7" rolled, 5.2" needed)'),
    ({"kind": "fight", "unit": "liberators", "data": {"target": "reavers"}}, {},
     "liberators: fight reavers"),
    ({"kind": "shoot", "unit": "dev-1", "data": {"target": "boyz-1", "outcome": {
        "shots": 6, "hits": 2, "wounds": 1}}}, {"dev-1": "Devastators"},
     "Devastators: fire at boyz-1 (6 shots, 2 hits, 1 wound, 1 slain)"),
])
def test_replay_captions_read_with_any_unit(event, names, text):
    from battlesight.viewer.replay_timeline import caption

    assert caption(event, 1 if event["kind"] == "shoot" else 0, names) == text
