"""MK II on the core's Game (wmh2 §2, §8, §9, §10): phases, focus, activations, orders and
formation, free strikes, damage boxes and grids, continuous effects, massive casualties and
victory."""

from __future__ import annotations

from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.rulesets.wmh2.damage import apply_damage, crippled

from tests.tables import Wmh2Table


def to_activation(game) -> None:
    while game.phase.name != "activation":
        assert game.apply({"do": "next"}).ok


def kinds(result) -> list[str]:
    return [e.kind for e in result.events]


def battlegroup(**jack) -> Wmh2Table:
    return (Wmh2Table().model("caster", (10, 10), profile="warcaster")
            .model("jack", (13, 10), 40, profile="warjack-light", controller="caster", **jack)
            .model("far", (30, 10), 40, profile="warjack-light", controller="caster")
            .model("enemy", (13, 30), player=2, facing=0))


def test_phases_and_registry():
    ruleset = get_ruleset("wmh2")
    assert [p["phase"] for p in ruleset.describe_phases()] == [
        "maintenance", "control", "activation"]
    assert "allocate" in ruleset.describe_phases()[1]["steps"][0]["actions"]


def test_focus_allocation_and_limits():
    sb = battlegroup()
    sb.model("other", (40, 40), player=2, profile="warcaster", focus=7)
    game = sb.game()
    assert game.board.model("other").status["focus"] == 7  # starts the game with FOC
    assert game.board.model("caster").status["focus"] == 0  # removed in maintenance
    game.apply({"do": "next"})  # -> control: focus replenished to FOC
    assert game.phase.name == "control" and game.board.model("caster").status["focus"] == 6
    ok, why = game.legal({"do": "allocate", "unit": "caster", "to": {"jack": 4}})
    assert not ok and "at most 3" in why
    ok, why = game.legal({"do": "allocate", "unit": "caster", "to": {"far": 1}})
    assert not ok and "control area" in why
    ok, why = game.legal({"do": "allocate", "unit": "caster", "to": {"enemy": 1}})
    assert not ok and "battlegroup" in why
    assert game.apply({"do": "allocate", "unit": "caster", "to": {"jack": 3}}).ok
    assert game.board.model("jack").status["focus"] == 3
    assert game.board.model("caster").status["focus"] == 3


def test_focus_is_removed_in_maintenance():
    game = battlegroup().game()
    game.apply({"do": "next"})
    game.apply({"do": "allocate", "unit": "caster", "to": {"jack": 2}})
    for _ in range(5):  # to the opponent's turn and back
        game.apply({"do": "next"})
    assert game.active_player == 1 and game.phase.name == "maintenance"
    assert game.board.model("jack").status["focus"] == 0


def test_cortex_crippled_takes_no_focus():
    game = battlegroup().game()
    game.apply({"do": "next"})
    apply_damage(game.board, "jack", 9, start=3)  # columns 3 and 4 hold the cortex
    assert "cortex" in crippled(game.board, "jack")
    ok, why = game.legal({"do": "allocate", "unit": "caster", "to": {"jack": 1}})
    assert not ok and "cortex" in why


def test_warjack_run_and_charge_spend_focus():
    game = battlegroup().game()
    game.apply({"do": "next"})
    game.apply({"do": "allocate", "unit": "caster", "to": {"jack": 1}})
    to_activation(game)
    assert game.apply({"do": "run", "unit": "jack", "to": [13, 21]}).ok
    assert game.board.model("jack").status["focus"] == 0
    ok, why = game.legal({"do": "attack", "unit": "jack", "target": "enemy"})
    assert not ok and ("no action" in why or "activated" in why)


def test_each_model_activates_once_and_moves_before_acting():
    game = battlegroup().game()
    to_activation(game)
    assert game.apply({"do": "advance", "unit": "caster", "to": [10, 15]}).ok
    ok, why = game.legal({"do": "advance", "unit": "caster", "to": [10, 16]})
    assert not ok and "normal movement" in why
    assert game.apply({"do": "advance", "unit": "jack", "to": [13, 14]}).ok  # caster ends
    ok, why = game.legal({"do": "attack", "unit": "caster", "target": "enemy"})
    assert not ok and "already activated" in why
    ok, why = game.legal({"do": "advance", "unit": "jack", "to": [13, 30]})
    assert not ok


def test_rough_terrain_halves_movement():
    sb = Wmh2Table().forest("wood", [(5, 12), (20, 12), (20, 30), (5, 30)]) \
        .model("A", (10, 10), facing=0).model("B", (40, 40), player=2)
    game = sb.game()
    to_activation(game)
    ok, why = game.legal({"do": "advance", "unit": "A", "to": [10, 16]})
    assert not ok and "rough" in why  # 2" open + 4" in the wood cost 10"
    assert game.apply({"do": "advance", "unit": "A", "to": [10, 14]}).ok  # 2 + 2 x 2 = 6


def _squad(**extra) -> Wmh2Table:
    sb = Wmh2Table().unit("wg", 1, "winter-guard-infantry")
    for i in range(4):
        sb.model(f"wg-{i + 1}", (10 + 1.5 * i, 10), unit="wg", facing=0, leader=(i == 0),
                 **extra)
    return sb.model("enemy", (12, 40), player=2)


def test_troopers_need_a_run_order():
    game = _squad().game()
    to_activation(game)
    ok, why = game.legal({"do": "run", "unit": "wg", "by": [0, 10]})
    assert not ok and "order" in why
    assert game.apply({"do": "order", "unit": "wg", "order": "run"}).ok
    result = game.apply({"do": "run", "unit": "wg", "by": [0, 10]})
    assert result.ok and "activation_end" in kinds(result)
    assert game.board.outline("wg-3").center == (13.0, 20.0)


def test_out_of_formation_trooper_must_run_toward_its_commander():
    sb = _squad()
    sb.scene.models[3].at = (35.0, 10.0)  # wg-4 beyond CMD 8
    game = sb.game()
    to_activation(game)
    ok, why = game.legal({"do": "advance", "unit": "wg", "to": {"wg-4": [40, 10]}})
    assert not ok and "toward its unit commander" in why
    assert game.apply({"do": "run", "unit": "wg", "to": {"wg-4": [25, 10]}}).ok
    ok, why = game.legal({"do": "attack", "unit": "wg", "model": "wg-4", "target": "enemy"})
    assert not ok


def test_free_strike_when_leaving_melee_range():
    sb = (Wmh2Table().model("A", (10, 10), facing=0)
          .model("E", (10, 11.87), 50, player=2, facing=180, profile="warjack-heavy"))
    game = sb.game()
    to_activation(game)
    result = game.apply({"do": "advance", "unit": "A", "to": [10, 5]})
    assert result.ok
    assert "free_strike" in kinds(result)
    strike = next(e for e in result.events if e.kind == "free_strike")
    assert strike.data["attacker"] == "E"
    assert len(strike.data["damage_dice"]) in (0, 3)  # boosted damage when it hits


def test_damage_grid_columns_wrap_and_cripple():
    board = battlegroup().board()
    marked = apply_damage(board, "jack", 3, start=6)
    assert marked.boxes == ["-", "R", "R"]  # column 6, top down
    marked = apply_damage(board, "jack", 3, start=6)
    assert marked.boxes == ["M", "-", "L"]  # column 6 full: on to column 1
    assert "right arm" not in marked.crippled
    assert apply_damage(board, "jack", 3, start=5).crippled == ["right arm"]
    assert board.model("jack").wounds == board.profile("jack").boxes - 9
    out = apply_damage(board, "jack", 100, start=1)
    assert out.destroyed and not board.model("jack").alive


def test_troopers_have_one_box_and_solos_several():
    board = _squad().board()
    assert board.model("wg-1").wounds == 1
    assert apply_damage(board, "wg-2", 1).destroyed


def test_continuous_effects_in_maintenance():
    game = battlegroup().game(seed=3)
    game.board.model("jack").status["continuous"] = ["corrosion", "fire"]
    for _ in range(6):
        game.apply({"do": "next"})
    events = [e for e in game.log if e.kind.startswith("continuous")]
    assert events and all(e.data["rule"].startswith("wmh2 §2.3") for e in events)
    expiry = [r for e in game.log for r in e.rolls if "expiry" in r["why"]]
    assert len(expiry) == 2


def test_massive_casualties_and_victory():
    sb = _squad()
    sb.model("boss", (40, 40), player=2, profile="warcaster").model("gun", (12, 20), player=2,
                                                                    facing=180)
    game = sb.game()
    board = game.board
    for m in ("wg-2", "wg-3", "wg-4"):
        from battlesight.rulesets.wmh2.turn import after_removal

        after_removal(game, m, apply_damage(board, m, 1).destroyed)
    checks = [e for e in game.log if e.kind == "command_check"]
    assert len(checks) == 1 and checks[0].data["why"] == "massive casualties"
    sb2 = battlegroup()
    sb2.model("boss", (40, 40), player=2, profile="warcaster")
    game2 = sb2.game()
    from battlesight.rulesets.wmh2.turn import after_removal

    after_removal(game2, "boss", apply_damage(game2.board, "boss", 99).destroyed)
    assert game2.over and game2.winner == 1


def test_massive_casualties_at_exactly_half():
    """Losing 2 of 4 models (exactly 50%) forces the check (wmh2 §10: 'loses 50% or more of
    the models it had at the start of the turn'; the seed names 严重减员 in its contents only)."""
    from battlesight.rulesets.wmh2.turn import after_removal

    game = _squad().game()
    board = game.board
    after_removal(game, "wg-2", apply_damage(board, "wg-2", 1).destroyed)
    assert not [e for e in game.log if e.kind == "command_check"]  # 1 of 4: 25%
    after_removal(game, "wg-3", apply_damage(board, "wg-3", 1).destroyed)
    checks = [e for e in game.log if e.kind == "command_check"]
    assert len(checks) == 1 and checks[0].data["why"] == "massive casualties"
