"""whfb6 psychology in play (whfb6 §11, §7 compulsory moves) and pursuit / overrun moves into
new enemies (whfb6 §7, W-27, W-28), with scripted dice and a replayable scripted game."""

from __future__ import annotations

from fractions import Fraction

from battlesight.rulesets.whfb6 import pursuit, tables

from tests.rules_helpers import ScriptedRoller
from tests.test_whfb6_scenes import block, game, scene

N = {"do": "next"}
END = {"do": "end_phase"}
STATS = {"M": 4, "WS": 3, "BS": 3, "S": 3, "T": 3, "W": 1, "I": 3, "A": 1, "Ld": 7}


def _unit(uid: str, player: int, front: tuple[float, float], facing: float, files: int = 5,
          ranks: int = 2, rules: list[str] | None = None, **stats: int):
    entry, models = block(uid, player, "archers", front, facing, files, ranks)
    entry["stats"] = {**STATS, **stats}
    entry["rules"] = list(rules or [])
    return entry, models


def _game(*units, faces: list[int] | None = None, seed: int = 3):
    s = scene("whfb6", units=[u for u, _ in units], models=[m for _, ms in units for m in ms])
    g = game(s, seed=seed)
    if faces is not None:
        g.roller = ScriptedRoller(faces, seed)
    return g


def _kinds(g, kind: str) -> list:
    return [e for e in g.log if e.kind == kind]


def _front_y(g, unit: str) -> float:
    return g.unit(unit).status["formation"]["front"][1]


# ---- stupidity -----------------------------------------------------------------------------


def test_stupidity_test_probability_is_a_leadership_test():
    assert tables.p_leadership_test(7) == Fraction(21, 36)
    assert tables.p_leadership_test(10) == Fraction(33, 36)


def _stupid_game(faces: list[int], wizard: bool = False):
    """Player 2's stupid block 20" from player 1's; player 1's turn passes first."""
    t = _unit("t", 1, (20, 10), 0)
    s = _unit("s", 2, (20, 30), 180, rules=["stupidity"] + ["wizard 1"] * wizard, M=5)
    g = _game(t, s)
    g.roller = ScriptedRoller(faces, 3)
    g.play([END] * 5)  # player 1's turn; player 2's start of turn tests
    return g


def test_failed_stupidity_moves_half_m_in_compulsory_moves_and_blocks_charge_and_shoot():
    g = _stupid_game([6, 5])  # 11 > Ld 7: failed
    ev = _kinds(g, "stupidity")[0]
    assert ev.unit == "s" and not ev.data["passed"] and ev.data["rule"] == "whfb6 §11"
    g.apply(N)  # -> declare
    r = g.apply({"do": "charge", "unit": "s", "target": "t"})
    assert not r.ok and "stupidity" in r.reason
    g.play([N, N])  # -> compulsory
    move = _kinds(g, "compulsory_move")[0]
    assert move.step == "compulsory" and move.data["distance"] == 2.5  # half of M 5
    assert abs(_front_y(g, "s") - 27.5) < 1e-6
    g.play([N, N])  # -> remaining
    r = g.apply({"do": "move", "unit": "s", "forward": 1})
    assert not r.ok and "already moved" in r.reason
    g.play([N, N])  # -> shooting
    r = g.apply({"do": "shoot", "unit": "s", "target": "t"})
    assert not r.ok and "stupidity" in r.reason and "[GK]" in r.reason


def test_failed_stupidity_blocks_casting():
    g = _stupid_game([6, 6], wizard=True)
    g.play([{"do": "end_phase"}] * 2)  # -> magic
    r = g.apply({"do": "cast", "unit": "s", "spell": "fireball", "dice": 1, "target": "t"})
    assert not r.ok and "stupidity" in r.reason


def test_passed_stupidity_leaves_the_unit_free():
    g = _stupid_game([3, 3])
    assert _kinds(g, "stupidity")[0].data["passed"]
    g.play([N] * 5)  # -> remaining
    assert not _kinds(g, "compulsory_move")
    assert g.apply({"do": "move", "unit": "s", "forward": 4}).ok


# ---- frenzy --------------------------------------------------------------------------------


def test_frenzied_unit_declares_and_charges_in_compulsory_moves():
    g = _game(_unit("f", 1, (20, 10), 0, rules=["frenzy"]), _unit("t", 2, (20, 16), 180))
    g.apply(N)  # -> movement: the frenzied charge is declared by itself
    ev = _kinds(g, "frenzy")[0]
    assert ev.data["compelled"] and ev.data["target"] == "t"
    assert _kinds(g, "declare_charge")[0].unit == "f"
    assert g.apply({"do": "react", "unit": "t", "reaction": "hold"}).ok
    g.play([N, N])  # -> compulsory
    charge = _kinds(g, "charge")[0]
    assert charge.step == "compulsory" and charge.data["success"]
    assert g.unit("f").status["engaged"] == ["t"]


def test_frenzy_out_of_reach_or_immune_moves_normally():
    g = _game(_unit("f", 1, (20, 10), 0, rules=["frenzy"]), _unit("t", 2, (20, 20), 180))
    g.apply(N)
    assert not _kinds(g, "frenzy")[0].data["compelled"] and not _kinds(g, "declare_charge")
    for rule in ("immune to psychology", "unbreakable"):
        g = _game(_unit("f", 1, (20, 10), 0, rules=["frenzy", rule]),
                  _unit("t", 2, (20, 16), 180))
        g.apply(N)
        ev = _kinds(g, "frenzy")[0]
        assert not ev.data["compelled"] and "immune" in ev.data["reason"].lower()


# ---- pursuit and overrun into new enemies (W-27, W-28) -------------------------------------

# a's 5 attacks all hit and wound (b has no save); b's 5 attacks all miss; b's break test
# (c is over 6" away: no panic test); b flees 2D6 = 6; a pursues 2D6 = 7 and catches it.
PURSUIT_FACES = [6] * 5 + [6] * 5 + [1] * 5 + [6, 6] + [3, 3] + [4, 3]


def _pursuit_game():
    """Turn 1: frenzied a charges b (compulsory move), breaks it, pursues into fresh c."""
    g = _game(_unit("a", 1, (20, 10), 0, rules=["frenzy"]), _unit("b", 2, (20, 16), 180),
              _unit("c", 2, (20, 23), 180), faces=list(PURSUIT_FACES))
    results = g.play([N, {"do": "react", "unit": "b", "reaction": "hold"}, *[N] * 7,
                      {"do": "fight", "unit": "a"}])
    return g, results


def test_w27_pursuit_into_a_new_enemy_is_a_charge_fought_next_turn():
    g, results = _pursuit_game()
    assert all(r.ok for r in results), [r.reason for r in results if not r.ok]
    assert _kinds(g, "break_test")[0].data["broken"]
    pursue = _kinds(g, "pursue")[0]
    assert pursue.data["caught"] and pursue.data["contact"] == "c"
    contact = _kinds(g, "contact_charge")[0]
    assert contact.unit == "a" and contact.data["by"] == "pursuit"
    assert contact.data["fear_test"] is False and "no fear or terror test" in contact.data["note"]
    assert g.unit("a").status["engaged"] == ["c"] and g.unit("c").status["engaged"] == ["a"]
    assert not g.board.unit_models("b")
    fights = len(_kinds(g, "combat_result"))
    g.play([N])  # end of player 1's close combat phase: the new combat waits
    assert len(_kinds(g, "combat_result")) == fights
    g.play([END] * 4)  # player 2's turn to its close combat phase
    r = g.apply({"do": "fight", "unit": "c"})
    assert r.ok
    result = _kinds(g, "combat_result")[-1]
    assert result.data["units"] == ["c", "a"] and result.data["order"][0] == "a"


def test_w28_overrun_into_a_new_unit_that_may_only_hold():
    b = _unit("b", 2, (20, 16), 180, ranks=1)
    faces = [6] * 5 + [6] * 5 + [4, 4] + [1, 1]  # wipe out b; overrun 2D6 = 8; c's panic test
    g = _game(_unit("a", 1, (20, 10), 0, rules=["frenzy"]), b, _unit("c", 2, (20, 22), 180),
              faces=faces)
    g.play([N, {"do": "react", "unit": "b", "reaction": "hold"}, *[N] * 7])
    assert g.apply({"do": "fight", "unit": "a"}).ok
    assert not g.board.unit_models("b")
    over = _kinds(g, "overrun")[0]
    assert over.data["dice"] == [4, 4] and over.data["contact"] == "c"
    contact = _kinds(g, "contact_charge")[0]
    assert contact.data["reactions_allowed"] == ["hold"] and contact.data["reaction"] == "hold"
    assert g.unit("a").status["charged"] is not None


def test_overrun_without_contact_moves_the_full_roll():
    b = _unit("b", 2, (20, 16), 180, ranks=1)
    g = _game(_unit("a", 1, (20, 10), 0, rules=["frenzy"]), b,
              faces=[6] * 5 + [6] * 5 + [2, 3])
    g.play([N, {"do": "react", "unit": "b", "reaction": "hold"}, *[N] * 7])
    front = _front_y(g, "a")
    assert g.apply({"do": "fight", "unit": "a"}).ok
    over = _kinds(g, "overrun")[0]
    assert over.data["contact"] is None and over.data["moved"] == 5.0
    assert abs(_front_y(g, "a") - front - 5.0) < 1e-6
    assert "engaged" not in g.unit("a").status


def test_scripted_psychology_game_replays():
    g1, _ = _pursuit_game()
    g2, _ = _pursuit_game()
    assert g1.log_dicts() == g2.log_dicts()
    assert pursuit.NO_FEAR_TEST.endswith("(whfb6 §7, §11)")
