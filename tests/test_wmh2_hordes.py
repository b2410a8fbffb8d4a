"""HORDES MK II on the core's Game (wmh2 §12): fury on warlocks and warbeasts, forcing,
leaching, threshold checks and frenzy, damage transfer, reaving, healing."""

from __future__ import annotations

from battlesight.rulesets.wmh2.damage import apply_damage
from battlesight.rulesets.wmh2.resolve import _damage

from tests.tables import Wmh2Table


def horde(beast_stats: dict | None = None, beast_at=(13, 10)) -> Wmh2Table:
    return (Wmh2Table().model("lock", (10, 10), profile="warlock", facing=0)
            .model("beast", beast_at, 50, profile="warbeast-heavy", controller="lock", facing=0,
                   **({"stats": beast_stats} if beast_stats else {}))
            .model("enemy", (13, 30), player=2, facing=180))


def to_phase(game, name: str) -> None:
    while game.phase.name != name:
        assert game.apply({"do": "next"}).ok


def test_fury_at_the_start():
    game = horde().game()
    assert game.board.model("lock").status["fury"] == 6
    assert game.board.model("beast").status["fury"] == 0
    assert game.board.profile("lock").control_range == 12.0


def test_forcing_a_warbeast_to_run_adds_fury():
    game = horde().game()
    to_phase(game, "activation")
    assert game.apply({"do": "run", "unit": "beast", "to": [13, 19]}).ok
    assert game.board.model("beast").status["fury"] == 1


def test_no_forcing_outside_the_control_area_or_at_max_fury():
    game = horde(beast_at=(30, 10)).game()
    to_phase(game, "activation")
    ok, why = game.legal({"do": "run", "unit": "beast", "to": [30, 19]})
    assert not ok and "control area" in why
    game = horde(beast_stats={"THR": 30}).game()  # no frenzy in the Control Phase
    game.board.model("beast").status["fury"] = 4
    to_phase(game, "activation")
    ok, why = game.legal({"do": "charge", "unit": "beast", "target": "enemy"})
    assert not ok and "fury" in why


def test_leach_and_excess_fury_in_maintenance():
    game = horde().game()
    game.board.model("beast").status["fury"] = 3
    to_phase(game, "control")
    game.board.model("lock").status["fury"] = 2
    ok, why = game.legal({"do": "leach", "unit": "lock", "from": {"beast": 5}})
    assert not ok
    assert game.apply({"do": "leach", "unit": "lock", "from": {"beast": 3}}).ok
    assert game.board.model("lock").status["fury"] == 5
    assert game.board.model("beast").status["fury"] == 0
    game.board.model("lock").status["fury"] = 9
    for _ in range(5):
        game.apply({"do": "next"})
    assert game.phase.name == "maintenance" and game.active_player == 1
    assert game.board.model("lock").status["fury"] == 6


def test_threshold_check_and_frenzy():
    game = horde(beast_stats={"THR": 2}).game()
    game.board.model("beast").status["fury"] = 2
    to_phase(game, "activation")
    threshold = next(e for e in game.log if e.kind == "threshold")
    assert threshold.data["frenzy"] and threshold.data["rule"] == "wmh2 §12"
    attack = next(e for e in game.log if e.kind == "frenzy_attack")
    assert attack.data["target"] == "lock"  # the nearest model, friend or foe
    assert len(attack.data["attack_dice"]) in (0, 3)  # boosted attack roll
    assert game.board.model("beast").status["fury"] == 0
    ok, why = game.legal({"do": "advance", "unit": "beast", "to": [13, 12]})
    assert not ok and ("frenzy" in why or "already activated" in why)


def test_damage_transfer_and_reaving():
    game = horde().game()
    out = _damage(game, "lock", 5)
    assert out["model"] == "beast" and out["transferred_from"] == "lock"
    assert game.board.model("lock").status["fury"] == 5
    assert game.board.model("lock").wounds == game.board.profile("lock").boxes
    game.board.model("beast").status["fury"] = 3
    out = _damage(game, "beast", 99)
    assert out["destroyed"] and out["reaved"] == {"warlock": "lock", "fury": 1}


def test_heal_spends_fury():
    game = horde().game()
    apply_damage(game.board, "beast", 4, start=1)
    to_phase(game, "activation")
    before = game.board.model("beast").wounds
    assert game.apply({"do": "heal", "unit": "lock", "target": "beast", "amount": 2}).ok
    assert game.board.model("beast").wounds == before + 2
