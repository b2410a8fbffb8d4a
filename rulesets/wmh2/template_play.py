"""AOE and spray attacks rolled in `play` (wmh2 §9.2): the target's attack roll, then for an
AOE the direct hit's damage and blast damage under the template (or the deviation of a miss
and its blast), for a spray one attack roll per model under the template; all dice first,
then the damage, since the models under one template are hit at the same time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import turn as turns
from .bodies import bodies
from .combat import armour, roll_attack
from .templates import RULE_DEVIATION, TemplatePlan, can_damage, covered, deviate

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

#: marks damage points on a model and returns what happened (resolve._damage); its last
#: argument False leaves the checks a removal calls for to the caller
DamageFn = Callable[["Game", str, int, bool], dict[str, Any]]


def resolve_template(game: Game, unit: str, tplan: TemplatePlan, damage: DamageFn) -> None:
    """Roll a legal template attack, mark its damage and log one event (its dice and the
    models it removed), then make the checks the removals call for (massive casualties)."""
    marked = (_aoe if tplan.kind == "aoe" else _spray)(game, unit, tplan, damage)
    for out in marked:
        if out:
            turns.after_removal(game, out["model"], bool(out.get("destroyed")))


def _aoe(game: Game, unit: str, tplan: TemplatePlan, damage: DamageFn
         ) -> list[dict[str, Any] | None]:
    plan, roller, board = tplan.plan, game.roller, game.board
    roll = roll_attack(plan, roller)
    bd = bodies(board)
    a = bd[plan.attacker]
    point, deviation = tplan.point, None
    if roll["hit"]:
        under = tplan.under
    else:
        direction = roller.one(f"{plan.attacker} deviation direction")
        rolled = roller.one(f"{plan.attacker} deviation distance")
        point = deviate(a, tplan.point, direction, rolled)
        deviation = {"direction": direction, "rolled": rolled,
                     "distance": round(min(float(rolled), tplan.cap), 4),
                     "cap": round(tplan.cap, 4), "from": _xy(tplan.point), "rule": RULE_DEVIATION}
        under = covered(bd, point, tplan.size)
    blasts = []
    for m in under:
        dice = roller.d6(2, f"{plan.attacker} blast damage on {m}")
        arm = armour(board, a, bd[m])
        total = sum(dice) + tplan.blast_mod
        points = max(0, total - arm) if can_damage(board, plan, m) else 0
        blasts.append({"model": m, "dice": dice, "total": total, "arm": arm, "points": points})
    direct = damage(game, plan.target, roll["points"], False) if roll["points"] > 0 else None
    for b in blasts:
        b["damage"] = damage(game, b["model"], b["points"], False) if b["points"] > 0 else None
    game.emit("aoe_attack", unit, attacker=plan.attacker, target=plan.target,
              weapon=plan.weapon.name, aoe=tplan.size, **roll,
              attack_modifier=plan.attack_mod, attack_parts=plan.attack_parts,
              defense=plan.defense, arm=plan.armour, damage=direct,
              point=_xy(point), deviation=deviation, blast_damage=f"2d6+{tplan.blast_mod}",
              blasts=blasts, p_hit=round(float(plan.p_hit), 6), rule=tplan.rule)
    return [direct, *(b["damage"] for b in blasts)]


def _spray(game: Game, unit: str, tplan: TemplatePlan, damage: DamageFn
           ) -> list[dict[str, Any] | None]:
    plan, roller = tplan.plan, game.roller
    attacks = []
    for m, attack in tplan.attacks.items():
        roll = roll_attack(attack, roller)
        attacks.append({"model": m, **roll, "attack_modifier": attack.attack_mod,
                        "defense": attack.defense, "arm": attack.armour,
                        "p_hit": round(float(attack.p_hit), 6)})
    for a in attacks:
        a["damage"] = damage(game, a["model"], a["points"], False) if a["points"] > 0 else None
    game.emit("spray_attack", unit, attacker=plan.attacker, target=plan.target,
              weapon=plan.weapon.name, spray=tplan.size, attacks=attacks,
              not_attacked=dict(tplan.blocked), rule=tplan.rule)
    return [a["damage"] for a in attacks]


def _xy(point: Any) -> list[float] | None:
    return None if point is None else [round(float(v), 4) for v in point]
