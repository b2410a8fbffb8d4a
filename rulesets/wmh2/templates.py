"""AOE and spray templates (wmh2 §9.1, §9.2), without dice: which models a template covers,
where a missed AOE attack deviates, and the exact odds of every model under the template.

An AOE weapon's template is a circle of AOE inches diameter centred on the point of impact;
every model whose base it covers, even partly, is hit. The target of a hit takes the weapon's
damage roll (2d6 + POW); every other model under the template takes blast damage 2d6 + half
POW, rounded up (the seed's rounding, wmh2 §3). A miss (or an attack beyond RNG, from the
point at RNG on the line to the target) deviates d6 in the direction of a d6 (1 directly
away from the attacker, then clockwise every 60 degrees) and d6 inches, at most half the
distance from the attacker to the intended point; the template then blasts every model under
it, the target included.

A spray weapon (`RNG: "SP 8"`) lays a wedge from the attacker's base edge towards the target's
centre (SPRAY_WIDTH_NEAR wide there, SPRAY_WIDTH_FAR at 10"). Every model whose base it
covers, even partly, and that the attacker sees past terrain (intervening models do not
block) takes its own attack roll, without the aiming bonus and without the target-in-melee
penalty, and on a hit the weapon's damage roll.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from shapely.geometry import Point, Polygon

from .bodies import Body, bodies
from .combat import AttackContext, AttackPlan, armour, clouds_of, plan_attack
from .cover import Defence
from .odds import damage_dist
from .rules import SPRAY_WIDTH_FAR, SPRAY_WIDTH_NEAR, TOL, gap, half_up
from .sight import Sight, lines_of_sight

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

    from .profile import Weapon

RULE_AOE = "wmh2 §9.2 (AOE)"
RULE_SPRAY = "wmh2 §9.2 (spray)"
RULE_DEVIATION = "wmh2 §9.2 (AOE deviation)"
DIRECTION_TEXT = "d6: 1 directly away from the attacker, then clockwise every 60 degrees"
#: every (direction, distance) pair of the two deviation dice, equally likely
DEVIATION_ROLLS = [(d, n) for d in range(1, 7) for n in range(1, 7)]


def is_template(weapon: Weapon | None) -> bool:
    """An AOE or spray weapon (its attacks go through this module)."""
    return weapon is not None and not weapon.melee and bool(weapon.aoe or weapon.spray)


def covered(all_bodies: dict[str, Body], point: Any, diameter: float) -> list[str]:
    """Models whose base the circle of `diameter` at `point` covers, even partly."""
    c = np.asarray(point, float)
    return [m for m, b in all_bodies.items()
            if float(np.hypot(*(b.xy - c))) < diameter / 2.0 + b.radius - TOL]


def impact_point(a: Body, b: Body, rng: float) -> tuple[np.ndarray, bool]:
    """The intended point of impact (the target's centre) and whether the target is within
    RNG; beyond it, the point at RNG from the attacker's base edge on the line to it."""
    if gap(a.xy, a.radius, b.xy, b.radius) <= rng + TOL:
        return np.array(b.xy, float), True
    u = _unit(b.xy - a.xy)
    return a.xy + u * (a.radius + rng), False


def deviation_cap(a: Body, point: Any) -> float:
    """A deviation goes at most half the distance from the attacker to the intended point."""
    return max(0.0, float(np.hypot(*(np.asarray(point, float) - a.xy))) - a.radius) / 2.0


def deviate(a: Body, point: Any, direction: int, distance: int) -> np.ndarray:
    """Where a missed AOE lands: `distance` inches (capped) in d6 `direction` from `point`."""
    p = np.asarray(point, float)
    u = _unit(p - a.xy)
    angle = -math.radians(60.0 * (direction - 1))  # clockwise seen from above
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return p + (rot @ u) * min(float(distance), deviation_cap(a, p))


def spray_template(a: Body, toward: Any, length: float) -> Polygon:
    """The spray wedge from the attacker's base edge towards `toward`, `length` inches long."""
    u = _unit(np.asarray(toward, float) - a.xy)
    n = np.array([-u[1], u[0]])
    start, end = a.xy + u * a.radius, a.xy + u * (a.radius + length)
    near = SPRAY_WIDTH_NEAR / 2.0
    far = (SPRAY_WIDTH_NEAR + (SPRAY_WIDTH_FAR - SPRAY_WIDTH_NEAR) * length / 10.0) / 2.0
    return Polygon([start - n * near, start + n * near, end + n * far, end - n * far])


def under_spray(all_bodies: dict[str, Body], wedge: Polygon, attacker: str) -> list[str]:
    """Models other than the attacker whose base the wedge covers, even partly, nearest
    first."""
    hit = [(wedge.distance(Point(*b.xy)), float(np.hypot(*(b.xy - all_bodies[attacker].xy))), m)
           for m, b in all_bodies.items() if m != attacker]
    return [m for d, _, m in sorted(hit, key=lambda h: h[1])
            if d < all_bodies[m].radius - TOL]


def _unit(v: np.ndarray) -> np.ndarray:
    norm = float(np.hypot(*v))
    return v / norm if norm > TOL else np.array([0.0, 1.0])


@dataclass
class TemplateHit:
    """One model under a template: the chance it is hit (directly or by blast), and the odds
    and expected size of its damage."""

    model: str
    role: str  # "target" (the attack's target), "blast" (under an AOE) or "spray"
    p_direct: Fraction = Fraction(0)
    p_blast: Fraction = Fraction(0)
    p_unsaved: Fraction = Fraction(0)
    expected_damage: Fraction = Fraction(0)
    arm: int = 0
    defense: int | None = None

    @property
    def p_hit(self) -> Fraction:
        return self.p_direct + self.p_blast

    def to_dict(self) -> dict[str, Any]:
        out = {"model": self.model, "role": self.role, "p_hit": float(self.p_hit),
               "p_direct": float(self.p_direct), "p_blast": float(self.p_blast),
               "p_unsaved": float(self.p_unsaved),
               "expected_damage": float(self.expected_damage), "arm": self.arm,
               "exact": {"p_hit": str(self.p_hit), "p_unsaved": str(self.p_unsaved)}}
        if self.defense is not None:
            out["def"] = self.defense
        return out


@dataclass
class TemplatePlan:
    """A template attack before the dice: the target's attack plan, the template, the models
    under it with their odds and (AOE) the deviation of a miss."""

    kind: str  # "aoe" or "spray"
    plan: AttackPlan
    size: float
    point: np.ndarray | None = None
    in_range: bool = True
    hits: list[TemplateHit] = field(default_factory=list)
    attacks: dict[str, AttackPlan] = field(default_factory=dict)  # spray: one per model
    blocked: dict[str, str] = field(default_factory=dict)  # spray: under it, not seen
    under: list[str] = field(default_factory=list)  # AOE: blasted on a direct hit
    blast_mod: int = 0
    cap: float = 0.0
    deviations: dict[str, int] = field(default_factory=dict)  # AOE: model -> rolls of 36
    on_hit: list[dict[str, Any]] = field(default_factory=list)  # AOE: given a direct hit

    @property
    def rule(self) -> str:
        return RULE_AOE if self.kind == "aoe" else RULE_SPRAY

    def deviation_odds(self) -> dict[str, Any]:
        """P(miss), the capped distance's distribution and the direction rule."""
        miss = 1 - self.plan.p_hit
        dist: dict[str, Fraction] = {}
        for n in range(1, 7):
            key = f"{min(float(n), self.cap):g}"
            dist[key] = dist.get(key, Fraction(0)) + Fraction(1, 6)
        return {"p_miss": float(miss), "exact_p_miss": str(miss), "cap": round(self.cap, 3),
                "distance": {k: float(v) for k, v in dist.items()}, "direction": DIRECTION_TEXT,
                "rule": RULE_DEVIATION}

    def to_dict(self) -> dict[str, Any]:
        p = self.plan
        out: dict[str, Any] = {
            "kind": self.kind, "firer": p.attacker, "target": p.target,
            "weapon": p.weapon.name if p.weapon else None, "size": self.size,
            "legal": p.legal, "reason": p.reason, "rule": self.rule,
            "hits": [h.to_dict() for h in self.hits]}
        if self.kind == "aoe":
            out["point"] = None if self.point is None else [round(float(v), 3)
                                                             for v in self.point]
            out["in_range"] = self.in_range
            out["blast_damage"] = f"2d6+{self.blast_mod}"
            out["on_hit"] = list(self.on_hit)
            out["deviation"] = self.deviation_odds()
        else:
            out["not_attacked"] = dict(self.blocked)
        return out


def plan_template(board: Board, attacker: str, target: str, weapon: Weapon,
                  ctx: AttackContext | None = None, *, sight: Sight | None = None,
                  ranged_defence: Defence | None = None) -> TemplatePlan:
    """The AOE or spray attack of `attacker` at `target` with its exact odds (no dice)."""
    ctx = ctx or AttackContext()
    plan = plan_attack(board, attacker, target, weapon, ctx, sight=sight,
                       ranged_defence=ranged_defence)
    kind = "aoe" if weapon.aoe else "spray"
    out = TemplatePlan(kind, plan, float(weapon.aoe or weapon.spray or 0))
    if not plan.legal:
        return out
    if kind == "aoe":
        _aoe(board, out)
    else:
        _spray(board, out, ctx)
    return out


def blast_modifier(plan: AttackPlan) -> int:
    """Blast damage is 2d6 + half POW (rounded up) with the attack's other damage modifiers."""
    power = (plan.weapon.pow or 0) if plan.weapon else 0
    return plan.damage_mod - power + half_up(power)


def _aoe(board: Board, out: TemplatePlan) -> None:
    plan = out.plan
    bd = bodies(board)
    a, b = bd[plan.attacker], bd[plan.target]
    out.point, out.in_range = impact_point(a, b, plan.weapon.rng)
    out.cap = deviation_cap(a, out.point)
    out.blast_mod = blast_modifier(plan)
    out.under = [m for m in covered(bd, out.point, out.size) if m != plan.target]
    counts: dict[str, int] = {}
    for direction, distance in DEVIATION_ROLLS:
        for m in covered(bd, deviate(a, out.point, direction, distance), out.size):
            counts[m] = counts.get(m, 0) + 1
    out.deviations = counts
    p_hit, miss = plan.p_hit, 1 - plan.p_hit
    hit_dist = damage_dist(plan.damage_dice, plan.damage_mod, plan.armour)
    for m in [plan.target, *out.under]:  # what a direct hit does, model by model
        dist = hit_dist if m == plan.target else damage_dist(2, out.blast_mod,
                                                             armour(board, a, bd[m]))
        hurt = can_damage(board, plan, m)
        out.on_hit.append({
            "model": m, "damage": f"{plan.damage_dice}d6+{plan.damage_mod}" if m == plan.target
            else f"2d6+{out.blast_mod}",
            "p_damage": float(dist.p(lambda v: v > 0)) if hurt else 0.0,
            "expected_damage": float(dist.mean()) if hurt else 0.0})
    for m in [plan.target, *sorted(set(out.under) | set(counts) - {plan.target})]:
        direct = p_hit if m == plan.target else Fraction(0)
        blast = miss * Fraction(counts.get(m, 0), 36) + (
            p_hit if m in out.under else Fraction(0))
        arm = armour(board, a, bd[m])
        blast_dist = damage_dist(2, out.blast_mod, arm)
        hit = TemplateHit(m, "target" if m == plan.target else "blast", direct, blast, arm=arm,
                          defense=plan.defense if m == plan.target else None)
        if can_damage(board, plan, m):
            hit.p_unsaved = blast * blast_dist.p(lambda v: v > 0)
            hit.expected_damage = blast * blast_dist.mean()
            if m == plan.target:
                hit.p_unsaved += direct * plan.p_damage
                hit.expected_damage += plan.expected_damage
        out.hits.append(hit)


def can_damage(board: Board, plan: AttackPlan, model: str) -> bool:
    """POW '-' never damages; an Incorporeal model takes no damage from a non-magical
    weapon (wmh2 §9.1, §5.6)."""
    weapon = plan.weapon
    if weapon is None or weapon.pow is None:
        return False
    return not (board.profile(model).has("incorporeal") and not weapon.magical)


def _spray(board: Board, out: TemplatePlan, ctx: AttackContext) -> None:
    plan = out.plan
    bd = bodies(board)
    a = bd[plan.attacker]
    wedge = spray_template(a, bd[plan.target].xy, out.size)
    under = under_spray(bd, wedge, plan.attacker)
    sights = lines_of_sight(board.world, bd, [(plan.attacker, m) for m in under],
                            clouds_of(board), models_block=False)
    for m, sight in zip(under, sights, strict=True):
        if not sight.visible:
            out.blocked[m] = sight.reason
            continue
        own = AttackContext(spray=True, boost_hit=ctx.boost_hit and m == plan.target,
                            boost_damage=ctx.boost_damage and m == plan.target)
        attack = plan_attack(board, plan.attacker, m, plan.weapon, own, sight=sight)
        if not attack.legal:
            out.blocked[m] = attack.reason
            continue
        out.attacks[m] = attack
        out.hits.append(TemplateHit(
            m, "target" if m == plan.target else "spray", attack.p_hit,
            p_unsaved=attack.p_hit * attack.p_damage, expected_damage=attack.expected_damage,
            arm=attack.armour, defense=attack.defense))
