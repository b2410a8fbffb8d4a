"""wh40k6 shooting and allocation: S02 (instant death), S12 (allocation, range to the closest
visible model, Look Out Sir), S16 (hull points), exact expected wounds."""

from __future__ import annotations

from fractions import Fraction

from battlesight.rulesets.core.dice import binomial
from battlesight.rulesets.wh40k6.damage import apply_vehicle_hit
from battlesight.rulesets.wh40k6.profile import parse_weapon
from battlesight.rulesets.wh40k6.resolve import Outcome, Wound, _allocate, resolve_shooting
from battlesight.rulesets.wh40k6.shooting import ShotContext, analyse

from tests.rules_helpers import ScriptedRoller, Table

CTX = ShotContext(samples=300)
LASGUN = parse_weapon({"name": "lasgun", "range": 24, "S": 3, "AP": "-", "type": "Rapid Fire"})


def s12_table() -> Table:
    """Firer at x = 10; targets A 10", B 8" (behind a building), C 12", D 14", E 15" (hidden)."""
    t = Table()
    t.model("firer", "tac", 1, (10, 24), "tactical-marine")
    r = 32 / 25.4
    x0 = 10 + r  # distances are base edge to base edge
    t.model("A", "guard", 2, (x0 + 10, 24), "imperial-guardsman")
    t.model("B", "guard", 2, (x0 + 8, 30), "imperial-guardsman")
    t.model("C", "guard", 2, (x0 + 12, 22), "imperial-guardsman")
    t.model("D", "guard", 2, (x0 + 14, 24), "imperial-guardsman")
    t.model("E", "guard", 2, (x0 + 15, 31), "imperial-guardsman")
    t.box("building", (17.5, 29.5), (2.0, 5.0, 6.0))
    t.box("block", (27, 30), (2.0, 4.0, 6.0))
    return t


def test_s12_allocation_skips_models_nobody_sees():
    board = s12_table().board()
    report = analyse(board, "tac", "guard", CTX)
    seen = {t.model for t in report.targets if t.visible}
    assert seen == {"A", "C", "D"}
    assert report.order() == ["A", "C", "D"]
    pool = [Wound(LASGUN, 3, None, "firer") for _ in range(3)]
    out = Outcome()
    _allocate(board, ScriptedRoller([1] * 10), report, pool, out, False)
    assert out.casualties == ["A", "C", "D"] and out.lost == 0
    board = s12_table().board()
    out = Outcome()
    pool = [Wound(LASGUN, 3, None, "firer") for _ in range(5)]
    _allocate(board, ScriptedRoller([1] * 10), analyse(board, "tac", "guard", CTX), pool, out,
              False)
    assert out.casualties == ["A", "C", "D"] and out.lost == 2
    assert board.model("B").alive and board.model("E").alive


def test_s12_range_is_measured_to_the_closest_visible_model():
    t = Table()
    t.model("firer", "tac", 1, (10, 24), "tactical-marine")
    r = 32 / 25.4
    t.model("near", "guard", 2, (10 + r + 20, 30), "imperial-guardsman")  # 20", hidden
    t.model("far", "guard", 2, (10 + r + 26, 24), "imperial-guardsman")  # 26", visible
    t.box("building", (28, 29.5), (2.0, 4.0, 6.0))
    report = analyse(t.board(), "tac", "guard", CTX)
    line = report.firers[0]
    assert line.sees == ["far"] and not line.in_range and not line.can_fire
    assert "its shots miss" in line.reason and not report.eligible


def test_s12_look_out_sir():
    t = Table()
    t.model("firer", "tac", 1, (10, 24), "tactical-marine")
    t.model("captain", "cmd", 2, (20, 24), "space-marine-captain")
    t.model("vet", "cmd", 2, (20, 29), "tactical-marine")  # 5" away
    board = t.board()
    report = analyse(board, "tac", "cmd", CTX)
    assert report.order()[0] == "captain"
    out = Outcome()
    roller = ScriptedRoller([2, 1])  # look out sir 2+ passes (IC), then the vet's save fails
    _allocate(board, roller, report, [Wound(LASGUN, 3, None, "firer")], out, False)
    assert out.casualties == ["vet"] and board.model("captain").wounds == 3
    assert any(s.get("look_out_sir") == "captain" and s["need"] == 2 for s in out.steps)


def test_s02_instant_death_and_eternal_warrior():
    krak = parse_weapon({"name": "krak", "range": 48, "S": 8, "AP": 3, "type": "Heavy 1"})
    t = Table()
    t.model("firer", "tac", 1, (10, 24), "devastator-marine")
    t.model("captain", "cmd", 2, (20, 24), "space-marine-captain")
    t.model("ew", "cmd2", 2, (20, 30), "space-marine-captain", keywords=["Eternal Warrior"])
    board = t.board()
    out = Outcome()
    _allocate(board, ScriptedRoller([1]), analyse(board, "tac", "cmd", CTX),
              [Wound(krak, 8, 3, "firer")], out, False)
    assert out.casualties == ["captain"]  # S8 >= 2 x T4: removed despite 3 wounds
    out = Outcome()
    _allocate(board, ScriptedRoller([1]), analyse(board, "tac", "cmd2", CTX),
              [Wound(krak, 8, 3, "firer")], out, False)
    assert out.casualties == [] and board.model("ew").wounds == 2


def test_s16_rhino_wrecked_by_three_glancing_hits():
    t = Table()
    t.model("rhino", "rhino", 2, (30, 24), "rhino", base=(120, 90), height=2.5, hull=True)
    board = t.board()
    roller = ScriptedRoller([])
    for _ in range(3):
        step = apply_vehicle_hit(board, roller, "rhino", "glancing", 2)
    assert step["wrecked"] and not board.model("rhino").alive
    wreck = board.world.terrain["wreck-rhino"]
    assert wreck.data["cover"] == 5 and wreck.data["dangerous"] and wreck.data["difficult"]
    t2 = Table()
    t2.model("rhino", "rhino", 2, (30, 24), "rhino", base=(120, 90), height=2.5, hull=True)
    board = t2.board()
    apply_vehicle_hit(board, ScriptedRoller([5]), "rhino", "penetrating", None)
    step = apply_vehicle_hit(board, ScriptedRoller([5]), "rhino", "penetrating", None)
    assert step["effect"] == "immobilised" and board.model("rhino").status["immobilised"]
    assert board.model("rhino").wounds == 0  # 3 HP - 1 - (1 + 1 for immobilised again)


def test_expected_unsaved_is_exact():
    """Two boltgun marines at 13" (1 shot each) on Orks in the open: each shot 2/3 to hit,
    1/2 to wound, no save (Sv6 vs AP5): E = 2 x 1/3; allocation never runs out of models."""
    t = Table()
    t.model("m1", "tac", 1, (10, 24), "tactical-marine")
    t.model("m2", "tac", 1, (10, 25.5), "tactical-marine")
    r = 32 / 25.4
    for i in range(3):
        t.model(f"o{i}", "boyz", 2, (10 + r + 13, 22 + 1.5 * i), "ork-boy")
    report = analyse(t.board(), "tac", "boyz", CTX)
    assert all(line.shots == 1 for line in report.firing)
    line = report.targets[0]
    assert (line.p_hit, line.p_wound, line.p_unsaved) == (Fraction(2, 3), Fraction(1, 2),
                                                          Fraction(1, 3))
    assert report.expected_unsaved == Fraction(2, 3)
    # one nob (2 wounds) alone: unsaved wounds beyond its 2 are lost
    t2 = Table()
    for i in range(4):
        t2.model(f"m{i}", "tac", 1, (10, 22 + 1.5 * i), "tactical-marine")
    t2.model("nob", "nobz", 2, (10 + r + 13, 24), "ork-nob")
    report = analyse(t2.board(), "tac", "nobz", CTX)
    dist = binomial(4, Fraction(1, 3))
    assert report.expected_unsaved == sum(p * min(k, 2) for k, p in dist)


def test_resolve_is_deterministic_and_removes_casualties():
    results = []
    for _ in range(2):
        board = s12_table().board()
        from battlesight.rulesets.core.dice import Roller

        out = resolve_shooting(board, analyse(board, "tac", "guard", CTX), Roller(11))
        results.append((out.to_dict(), sorted(m for m, s in board.models.items() if s.alive)))
    assert results[0] == results[1]
    out, alive = results[0]
    assert set(out["casualties"]).isdisjoint(alive)


def test_s29_night_fighting_in_the_analysis():
    t = Table()
    t.model("firer", "tac", 1, (5, 24), "devastator-marine", weapons=["lascannon"])
    r = 32 / 25.4
    t.model("near", "a", 2, (5 + r + 10, 24), "tactical-marine")
    t.model("mid", "b", 2, (5 + r + 20, 30), "tactical-marine")
    t.model("far", "c", 2, (5 + r + 30, 18), "tactical-marine")
    t.model("out", "d", 2, (5 + r + 40, 12), "tactical-marine")
    board = t.board()
    night = ShotContext(night=True, samples=200)
    cover = {u: analyse(board, "tac", u, night).targets[0].cover.value for u in "abc"}
    assert cover == {"a": None, "b": 6, "c": 5}
    report = analyse(board, "tac", "d", night)
    assert not report.eligible and "36" in report.reason
    assert analyse(board, "tac", "d", CTX).eligible
