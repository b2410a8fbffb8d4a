"""Readings of ambiguous rules (`core.readings`): the values and their checks, the API's
`readings=` on judge, judge_many, who_sees_whom and shoot, the memo that never reuses an
answer across readings, the command line's `--reading` refusals, `shoot --readings all`, and
for every declared alternative a case where it changes what the code decides."""

from __future__ import annotations

import json

import pytest
import yaml
from battlesight.rulesets.core.readings import (
    Alternative,
    Reading,
    Readings,
    current_readings,
    parse_assignments,
    use,
)
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.scenes.systems import system_ids

import battlesight
from battlesight.cli.main import main
from tests.schema_helpers import assert_valid

CITY = battlesight.example("wh40k6_city_ruins")


def field(ruleset: str, terrain: list[dict] = (), models: list[dict] = (), **top):
    return battlesight.load({"format": 1, "name": "t", "ruleset": ruleset, "table": [48, 48],
                             "terrain": list(terrain), "models": list(models), **top})


def model(mid: str, player: int, at, **kw) -> dict:
    return {"id": mid, "player": player, "at": list(at), **kw}


# ---- the values ---------------------------------------------------------------------------


def test_readings_fill_in_defaults_and_refuse_what_is_not_declared():
    rs = get_ruleset("wh40k6")
    chosen = rs.choose_readings({"wh40k6.A2": "seen-only"})
    assert chosen["wh40k6.A2"] == "seen-only" and chosen["wh40k6.A6"] == "5+"
    assert len(chosen) == len(rs.readings) and chosen.changed() == {"wh40k6.A2": "seen-only"}
    assert chosen == rs.choose_readings({"wh40k6.A2": "seen-only"}) != rs.choose_readings()
    assert hash(chosen) == hash(rs.choose_readings({"wh40k6.A2": "seen-only"}))
    with pytest.raises(ValueError, match=r"no reading 'wh40k6.A99'; readings: wh40k6.A1, "):
        rs.choose_readings({"wh40k6.A99": "x"})
    with pytest.raises(ValueError, match="has no value 'maybe'; values: blind-counts, "
                                         "seen-only"):
        rs.choose_readings({"wh40k6.A2": "maybe"})
    with pytest.raises(ValueError, match="no reading 'wh40k6.A2'; readings: wmh2.A1"):
        get_ruleset("wmh2").choose_readings({"wh40k6.A2": "seen-only"})
    with pytest.raises(TypeError):
        chosen["wh40k6.A2"] = "blind-counts"  # type: ignore[index]


def test_variants_are_every_other_value_within_the_scopes():
    rs = get_ruleset("wh40k6")
    base = rs.choose_readings({"wh40k6.A6": "6+"})
    sight = base.variants(("sight",))
    assert ("wh40k6.A6", "5+") in {(r.id, v) for r, v, _ in sight}
    assert all(r.scope == "sight" for r, _, _ in sight)
    assert all(chosen[r.id] == v and chosen["wh40k6.A6"] == ("5+" if r.id == "wh40k6.A6"
                                                             else "6+")
               for r, v, chosen in sight)
    shoot = {r.id for r, _, _ in base.variants(("sight", "shoot"))}
    assert {"wh40k6.A2", "wh40k6.A21", "wh40k6.A15"} <= shoot


def test_a_reading_needs_an_alternative_and_its_systems_id():
    alt = Alternative("a", "one way")
    with pytest.raises(ValueError, match="at least one alternative"):
        Reading("toy.1", "toy §1", "which?", alt, ())
    with pytest.raises(ValueError, match="value names repeat"):
        Reading("toy.1", "toy §1", "which?", alt, (Alternative("a", "again"),))
    with pytest.raises(ValueError, match="the rule cites that system"):
        Reading("toy.1", "other §1", "which?", alt, (Alternative("b", "another"),))
    with pytest.raises(ValueError, match="scope"):
        Reading("toy.1", "toy §1", "which?", alt, (Alternative("b", "x"),), scope="layout")
    reading = Reading("toy.1", "toy §1", "which?", alt, (Alternative("b", "another"),))
    assert reading.current() == "a" and not reading.means("b")
    with pytest.raises(ValueError, match="no value 'c'"):
        reading.means("c")  # a decision point that names a value the reading lacks


def test_use_sets_the_readings_for_a_block_and_restores_them():
    rs = get_ruleset("wh40k6")
    a2 = next(r for r in rs.readings if r.id == "wh40k6.A2")
    with use(rs.choose_readings({"wh40k6.A2": "seen-only"})):
        assert a2.means("seen-only")
        with use(rs.choose_readings()):
            assert a2.current() == "blind-counts"
        assert current_readings().changed() == {"wh40k6.A2": "seen-only"}
    assert a2.current() == "blind-counts"


def test_parse_assignments():
    assert parse_assignments(["wh40k6.A2=seen-only", " wh40k6.A6 = 6+ "]) == {
        "wh40k6.A2": "seen-only", "wh40k6.A6": "6+"}
    for bad in ("wh40k6.A2", "=x", "wh40k6.A2="):
        with pytest.raises(ValueError, match="expected ID=VALUE"):
            parse_assignments([bad])
    with pytest.raises(ValueError, match="given twice"):
        parse_assignments(["wh40k6.A2=seen-only", "wh40k6.A2=blind-counts"])


@pytest.mark.parametrize("sid", system_ids())
def test_every_system_declares_readings_apart_from_its_fixed_rows(sid):
    rs = get_ruleset(sid)
    ids = [r.id for r in rs.readings]
    assert ids and len(set(ids)) == len(ids) and all(i.startswith(f"{sid}.") for i in ids)
    fixed = {f"{sid}.{a.id}" for a in rs.ambiguities}
    assert not fixed & set(ids) and all(a.because for a in rs.ambiguities)
    assert all(r.code and r.question and r.default.text for r in rs.readings)


# ---- the API --------------------------------------------------------------------------------


def test_api_judge_under_a_reading_and_the_memo_keyed_by_it():
    bf = battlesight.load(CITY)
    default = bf.judge("warboss", "sergeant")
    whole = bf.judge("warboss", "sergeant", readings={"wh40k6.A5": "whole-model"})
    assert not default.visible and whole.visible  # the sergeant's gear shows over the ruin
    assert bf.judge("warboss", "sergeant").to_dict() == default.to_dict()  # no stale reuse
    pairs = [("warboss", "sergeant"), ("loota-5", "boy-1")]
    many = bf.judge_many(pairs, readings={"wh40k6.A5": "whole-model"})
    assert many[0].to_dict() == whole.to_dict()
    block = bf.judge("loota-5", "boy-1", readings={"wh40k6.A4": "block"})
    assert block.cover_text == "cover 5+ (boyz-1)" and not bf.judge("loota-5", "boy-1").in_cover
    everyone = bf.who_sees_whom(["warboss"], readings={"wh40k6.A5": "whole-model"})
    assert "sergeant" in everyone.seen_by("warboss")
    assert "sergeant" not in bf.who_sees_whom(["warboss"]).seen_by("warboss")
    with pytest.raises(ValueError, match="no reading 'wh40k6.A0'; readings: wh40k6.A1"):
        bf.judge("warboss", "sergeant", readings={"wh40k6.A0": "x"})
    with pytest.raises(ValueError, match="values: body-only, whole-model"):
        bf.who_sees_whom(readings={"wh40k6.A5": "all"})


def test_api_judge_readings_lists_only_what_changes_a_verdict():
    bf = battlesight.load(CITY)
    verdicts, others = bf.judge_readings([("warboss", "sergeant"), ("warboss", "loota-2")])
    assert [v.to_dict() for v in verdicts] == [
        v.to_dict() for v in bf.judge_many([("warboss", "sergeant"), ("warboss", "loota-2")])]
    first = {(e["reading"], e["value"]): e for e in others[0]}
    assert first[("wh40k6.A5", "whole-model")]["verdict"].visible
    assert all(e["verdict"].outcome() != verdicts[0].outcome() for e in others[0])
    assert all(r.scope == "sight" for r in get_ruleset("wh40k6").readings
               if r.id in {e["reading"] for e in others[0] + others[1]})


def blind_firer_table():
    """Two firers; the second sees the target unit's t2 but not t1, behind a box (A2)."""
    return field("wh40k6", [{"id": "box", "type": "box", "at": [30, 14], "size": [8, 2, 4]}],
                 [model("f1", 1, (10, 24), unit="dev", profile="tactical-marine"),
                  model("f2", 1, (30, 4), unit="dev", profile="tactical-marine"),
                  model("t1", 2, (30, 24), unit="t", profile="ork-boy"),
                  model("t2", 2, (40, 24), unit="t", profile="ork-boy")],
                 units=[{"id": "dev", "player": 1}, {"id": "t", "player": 2}])


def test_api_shoot_under_a_reading_and_every_reading():
    bf = blind_firer_table()
    default = bf.shoot("dev", "t")
    seen_only = bf.shoot("dev", "t", readings={"wh40k6.A2": "seen-only"})
    assert default["targets"][0]["model"] == "t1"
    assert default["targets"][0]["cover"]["in_cover"]  # the blind firer counts (A2)
    assert not seen_only["targets"][0]["cover"]["in_cover"]
    assert seen_only["expected_unsaved"] > default["expected_unsaved"]
    every = bf.shoot("dev", "t", all_readings=True)
    entry = next(e for e in every["readings"] if e["reading"] == "wh40k6.A2")
    assert entry == {"reading": "wh40k6.A2", "value": "seen-only", "rule": "wh40k6 §5.1",
                     "text": "only firers that see the model count", "verdict": seen_only}
    assert {k: v for k, v in every.items() if k != "readings"} == default


def test_cli_shoot_readings_all(tmp_path, capsys):
    path = tmp_path / "blind.yaml"
    path.write_text(yaml.safe_dump({
        "format": 1, "name": "blind", "ruleset": "wh40k6", "table": [48, 48],
        "terrain": [{"id": "box", "type": "box", "at": [30, 14], "size": [8, 2, 4]}],
        "units": [{"id": "dev", "player": 1}, {"id": "t", "player": 2}],
        "models": [model("f1", 1, (10, 24), unit="dev", profile="tactical-marine"),
                   model("f2", 1, (30, 4), unit="dev", profile="tactical-marine"),
                   model("t1", 2, (30, 24), unit="t", profile="ork-boy"),
                   model("t2", 2, (40, 24), unit="t", profile="ork-boy")]}),
                    encoding="utf-8")
    assert main(["shoot", str(path), "--unit", "dev", "--target", "t", "--readings", "all",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert_valid("shoot", report)
    assert "wh40k6.A2" in {e["reading"] for e in report["readings"]}
    assert main(["shoot", str(path), "--unit", "dev", "--target", "t", "--readings", "all"]) == 0
    text = capsys.readouterr().out
    assert "readings that change the attack" in text
    assert any("wh40k6.A2=seen-only" in line and "t1 cover 4+ -> -" in line
               for line in text.splitlines())


def test_los_readings_all_json_matches_its_schema(capsys):
    assert main(["los", str(CITY), "--from", "warboss", "--readings", "all", "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert_valid("los", reports)
    assert any(r["readings"] for r in reports) and all("readings" in r for r in reports)


@pytest.mark.parametrize("argv, message", [
    (["los", "{city}", "--from", "warboss", "--reading", "wh40k6.A99=x"],
     "battlesight los: --reading: no reading 'wh40k6.A99'; readings: wh40k6.A1"),
    (["los", "{city}", "--all", "--reading", "wh40k6.A2"],
     "battlesight los: --reading: expected ID=VALUE"),
    (["shoot", "{city}", "--unit", "dev-1", "--target", "boyz-1", "--reading",
      "wh40k6.A2=maybe"],
     "battlesight shoot: --reading: reading wh40k6.A2 has no value 'maybe'; values: "),
    (["los", "{wmh2}", "--from", "stryker", "--reading", "wh40k6.A2=seen-only"],
     "battlesight los: --reading: no reading 'wh40k6.A2'; readings: wmh2.A1"),
    (["play", "{city}", "--actions", "{actions}", "--seed", "1", "--reading", "x=y"],
     "battlesight play: --reading: no reading 'x'"),
    (["render", "{city}", "--out", "{out}", "--reading", "wh40k6.A2=seen-only,x"],
     "battlesight render: --reading: reading wh40k6.A2 has no value"),
])
def test_cli_refuses_a_bad_reading_in_one_line(argv, message, tmp_path, capsys):
    actions = tmp_path / "actions.yaml"
    actions.write_text("actions:\n  - {do: next}\n", encoding="utf-8")
    names = {"city": str(CITY), "wmh2": str(battlesight.example("wmh2_hills_forest")),
             "actions": str(actions), "out": str(tmp_path / "x.png")}
    assert main([a.format(**names) for a in argv]) == 2
    out = capsys.readouterr()
    assert out.err.startswith(message) and len(out.err.strip().splitlines()) == 1
    assert "Traceback" not in out.err and not (tmp_path / "x.png").exists()


# ---- every declared alternative changes what the code decides -------------------------------


def _under(reading_id: str, value: str, sid: str | None = None):
    return use(get_ruleset(sid or reading_id.split(".")[0]).choose_readings({reading_id: value}))


def _both(reading_id: str, value: str, decide):
    """decide() under the defaults and under reading_id=value."""
    before = decide()
    with _under(reading_id, value):
        after = decide()
    return before, after


def _walls_board():
    return field("wh40k6", [
        {"id": "w1", "type": "wall", "from": [2, 40], "to": [6, 40], "height": 2},
        {"id": "w2", "type": "wall", "from": [2, 44], "to": [6, 44], "height": 2},
        {"id": "fort", "type": "wall", "from": [40, 2], "to": [44, 2], "height": 2,
         "feature": "fortification"},
        {"id": "ruin", "type": "ruin", "at": [30, 30], "size": [8, 8], "floors": [3],
         "height": 6, "walls": []}],
        [model("a", 1, (10, 10), profile="tactical-marine"),
         model("b", 2, (30, 30), profile="tactical-marine")]).board


def _decide(*views):
    from battlesight.rulesets.wh40k6.cover import decide

    board = _walls_board()
    return lambda: decide(board, "b", list(views)).in_cover


def _fv(visible, obscured, **hiders):
    from battlesight.rulesets.wh40k6.cover import FirerView

    return FirerView("a", visible, obscured, hiders)


def _facing_views():
    from battlesight.rulesets.wh40k6.vehicles import FacingView, vehicle_cover

    board = _walls_board()
    views = [FacingView("a", "front", 0.4, {"w1": 0.4}, True, None),
             FacingView("a", "front", 0.0, {}, True, None)]
    return lambda: vehicle_cover(board, "b", views).in_cover


def _arc_points():
    import numpy as np
    from battlesight.rulesets.wh40k6.profile import parse_weapon
    from battlesight.rulesets.wh40k6.vehicles import weapon_can_bear

    board = field("wh40k6", [], [model("v", 1, (24, 24), profile="predator", facing=0)]).board
    gun = parse_weapon({"name": "hull gun", "range": 48, "S": 9, "AP": 2, "type": "heavy 1",
                        "mount": "hull"})
    eye = board.eye("v")
    points = [np.array([24 + 10 * np.cos(t), 24 + 10 * np.sin(t), eye[2]])
              for t in np.radians(np.arange(0, 360, 5))]
    return lambda: sum(weapon_can_bear(board, "v", gun, p).ok for p in points)


def _verdict(bf, a, b):
    return lambda: bf.judge(a, b).to_dict()


def _city(a, b):
    return _verdict(battlesight.load(CITY), a, b)


def _hedge():
    from tests.test_readings_systems import CHANGING

    terrain, models, *_ = CHANGING["wh40k6"]
    return _verdict(field("wh40k6", terrain, models), "a", "b")


def _ruin_area():
    from battlesight.rulesets.wh40k6.terrain import area_cover

    board = _walls_board()
    return lambda: area_cover(board, "b")


def _fort_value():
    from battlesight.rulesets.wh40k6.terrain import cover_value

    board = _walls_board()
    return lambda: cover_value(board.world.terrain["fort"])


def _over_forest():
    """A firer on a ruin's 6" floor shoots over a low wood near it at a model in the open."""
    bf = field("wh40k6", [
        {"id": "tower", "type": "ruin", "at": [8, 24], "size": [4, 4], "floors": [6],
         "height": 7, "walls": []},
        {"id": "wood", "type": "forest", "polygon": [[13, 20], [17, 20], [17, 28], [13, 28]],
         "height": 2}],
        [model("a", 1, (8, 24), profile="tactical-marine", floor=1, facing=90),
         model("b", 2, (40, 24), profile="tactical-marine", facing=270)])
    return _verdict(bf, "a", "b")


def _gaps():
    return _verdict(field("wh40k6", [], [
        model("a", 1, (10, 24), profile="tactical-marine"),
        model("c1", 1, (20, 21.5), unit="c", profile="tactical-marine"),
        model("c2", 1, (20, 26.5), unit="c", profile="tactical-marine"),
        model("b", 2, (30, 24), profile="tactical-marine")], units=[{"id": "c", "player": 1}]),
        "a", "b")


def _vehicle_in_the_way():
    return _verdict(field("wh40k6", [], [
        model("a", 1, (10, 24), profile="tactical-marine", facing=90),
        model("rhino", 1, (20, 24), profile="rhino", facing=90),
        model("b", 2, (30, 24), profile="tactical-marine", facing=270)]), "a", "b")


def _whfb6_cover():
    from tests.test_readings_systems import CHANGING

    terrain, models, *_ = CHANGING["whfb6"]
    return _verdict(field("whfb6", terrain, models), "s", "t")


def _ward_save():
    from battlesight.rulesets.whfb6.shooting import save_needs

    board = field("whfb6", [], [model("w", 1, (10, 10), profile="archer", ward=5,
                                      stats={"Sv": 5})]).board
    return lambda: save_needs(board.profile("w"), 3, False)


def _great_weapon_charges():
    from battlesight.rulesets.whfb6 import combat

    from tests.test_whfb6_scenes import game, loose, scene

    models = loose("a", 1, "archer", [(10, 10)], weapons=["great weapon"]) + \
        loose("b", 2, "archer", [(10, 11.5)])
    g = game(scene("whfb6", models=models))
    g.unit("a").status["charged"] = "b"
    return lambda: combat._strike_order(g, ["a", "b"], True)


def _panic():
    from battlesight.rulesets.whfb6.tables import shooting_panic

    return lambda: shooting_panic(20, 5)


def _big_monster():
    from battlesight.rulesets.aos2.rules import cover_excluded

    return lambda: cover_excluded({"monster"}, 8)


def _two_craters():
    from battlesight.rulesets.aos2.cover import terrain_cover

    board = field("aos2", [{"id": "c1", "type": "crater", "at": [20, 24], "size": [6, 6]},
                           {"id": "c2", "type": "crater", "at": [30, 24], "size": [6, 6]}],
                  [model("u1", 2, (20, 24), unit="u", base=32),
                   model("u2", 2, (30, 24), unit="u", base=32)],
                  units=[{"id": "u", "player": 2}]).board
    return lambda: terrain_cover(board, "u").in_cover


def _aos2_edge():
    from tests.test_readings_systems import CHANGING

    terrain, models, *_ = CHANGING["aos2"]
    return _verdict(field("aos2", terrain, models), "a", "b")


def _monster_behind_obstacle():
    from battlesight.rulesets.aos2.cover import obstacle_cover

    board = field("aos2", [{"id": "wall", "type": "wall", "from": [24, 18], "to": [24, 30],
                            "height": 1, "obstacle": True}],
                  [model("a", 1, (10, 24), base=32),
                   model("m", 2, (27, 24), base=100, height=4,
                         stats={"wounds": 12}, keywords=["monster"])]).board
    return lambda: obstacle_cover(board, "a", "m").in_cover


def _own_unit_in_front():
    return _verdict(field("aos2", [], [
        model("a1", 1, (10, 24), unit="a", base=32, height=1.5),
        model("a2", 1, (12, 24), unit="a", base=60, height=3),
        model("b", 2, (30, 24), base=32, height=1.5)], units=[{"id": "a", "player": 1}]),
        "a1", "b")


def _pair_of_large_bases():
    return _verdict(field("wmh2", [], [
        model("a", 1, (20, 10), base=30, height=1.75, facing=0),
        model("m1", 1, (19.2, 15), base=50, height=2.75),
        model("m2", 1, (20.8, 15), base=50, height=2.75),
        model("b", 2, (20, 20), base=30, height=1.75, facing=180)]), "a", "b")


def _wmh2_higher():
    from battlesight.rulesets.wmh2.rules import higher

    return lambda: higher(1.0)


def _wmh2_stealth():
    from battlesight.rulesets.wmh2.rules import beyond_stealth

    return lambda: beyond_stealth(5.0)


def _wmh2_stack():
    from tests.test_readings_systems import CHANGING

    terrain, models, top, *_ = CHANGING["wmh2"]
    return _verdict(field("wmh2", terrain, models, **top), "a", "b")


def _half_range():
    from battlesight.rulesets.wh40k6.profile import parse_weapon

    gun = parse_weapon({"name": "bolter", "range": 24, "S": 4, "AP": 5, "type": "rapid fire"})
    return lambda: gun.within_half(12.0)


#: reading=value -> what it decides (called under the default, then under the reading)
CHECKS = {
    "wh40k6.A1=any-part": lambda: _decide(_fv(True, 0.1, w1=0.1)),
    "wh40k6.A2=seen-only": lambda: _decide(_fv(False, 0.0, w1=1.0)),
    "wh40k6.A3=largest-one": lambda: _decide(_fv(True, 0.3, w1=0.15, w2=0.15)),
    "wh40k6.A4=block": lambda: _city("loota-5", "boy-1"),
    "wh40k6.A5=whole-model": lambda: _city("warboss", "sergeant"),
    "wh40k6.A6=6+": _hedge,
    "wh40k6.A7=4+": _fort_value,
    "wh40k6.A8=always-5+": _ruin_area,
    "wh40k6.A10=canopy": _over_forest,
    "wh40k6.A11=hidden-only": _gaps,
    "wh40k6.A12=45-each-side": _arc_points,
    "wh40k6.A15=half-or-more": _facing_views,
    "wh40k6.A21=exclusive": _half_range,
    "wh40k6.A29=non-vehicles-only": _vehicle_in_the_way,
    "whfb6.4=quarter-or-more": _panic,
    "whfb6.6=ward-only": _ward_save,
    "whfb6.8=always-last": _great_weapon_charges,
    "whfb6.9=soft-plus-hard": _whfb6_cover,
    "aos2.2=8-or-more": _big_monster,
    "aos2.4=same-feature": _two_craters,
    "aos2.5=nearest-edge": _aos2_edge,
    "aos2.6=obstacles-count": _monster_behind_obstacle,
    "aos2.12=all-block": _own_unit_in_front,
    "wmh2.A1=every-line": _pair_of_large_bases,
    "wmh2.A2=more-than-1": _wmh2_higher,
    "wmh2.A11=stack": _wmh2_stack,
    "wmh2.A13=5-or-more": _wmh2_stealth,
}


def test_every_declared_alternative_has_a_check():
    declared = {f"{r.id}={v}" for sid in system_ids() for r in get_ruleset(sid).readings
                for v in r.values[1:]}
    assert declared == set(CHECKS)


@pytest.mark.parametrize("assignment", sorted(CHECKS))
def test_the_alternative_changes_what_the_code_decides(assignment):
    reading_id, value = assignment.split("=")
    before, after = _both(reading_id, value, CHECKS[assignment]())
    assert before != after, assignment


def test_readings_default_is_a_plain_mapping():
    chosen = Readings()
    assert dict(chosen) == {} and chosen.key() == ()


def test_shoot_readings_text_names_what_changes_in_sight():
    """A reading that changes only what firers see and how much of a model is seen says so,
    instead of the vague 'the odds of a model'."""
    from battlesight.cli.commands.shoot import _changes

    def report(sees, share):
        return {"eligible": False, "reason": "out of range", "expected_unsaved": 0.0,
                "firers": [{"model": "f1", "weapon": "boltgun", "can_fire": False,
                            "shots": 0, "sees": sees}],
                "targets": [{"model": "t1", "visible": True, "visible_fraction": share,
                             "cover": {"in_cover": False, "value": None, "kind": "none"}}]}

    text = _changes(report(["t1", "t2"], 0.70), report(["t1"], 0.48))
    assert text == "f1 sees 2 -> 1; t1 70% -> 48% seen"


def test_los_readings_all_under_a_chosen_reading_names_it(capsys):
    """With --reading, the verdicts compared against are the chosen reading's, and the
    table's column says so instead of 'default'."""
    demo = str(battlesight.example("demo"))
    assert main(["los", demo, "--from", "sgt", "--readings", "all"]) == 0
    plain = capsys.readouterr().out
    assert main(["los", demo, "--from", "sgt", "--readings", "all", "--reading",
                 "wh40k6.A5=whole-model"]) == 0
    chosen = capsys.readouterr().out
    head = next(ln for ln in plain.splitlines() if ln.startswith("pair "))
    assert " default " in head
    head = next(ln for ln in chosen.splitlines() if ln.startswith("pair "))
    assert "under wh40k6.A5=whole-model" in head and " default " not in head
    assert "wh40k6.A5=body-only" in chosen
