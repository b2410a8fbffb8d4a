"""One attack, planned and rolled (wmh2 §9): the attack roll 2d6 + MAT / RAT / FOC with its
modifiers against DEF after cover, concealment, elevation and stationary rules; the damage roll
2d6 + POW (+ STR in melee) against ARM; boosts, charge attacks and free strikes (boosted
damage), back strikes, aiming, targets in melee, Stealth and range misses.

`plan_attack` rolls no dice: it says whether the attack may be made and its exact odds.
`roll_attack` rolls a plan with the game's seeded roller.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.dice import Roller
from battlesight.rulesets.core.verdict import Modifier

from . import odds
from .bodies import Body, bodies
from .cover import Defence, defence
from .damage import crippled
from .profile import Profile, Weapon
from .rules import TOL, Effect, beyond_stealth, gap, modified_stat, total_mod
from .sight import Cloud, Sight, line_of_sight

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_MELEE = "wmh2 §9.2 (melee)"
RULE_RANGED = "wmh2 §9.2 (ranged)"
RULE_SECTION = "wmh2 §9.2"
RULE_STEALTH = "wmh2 §5.6 (Stealth)"
RULE_RNG = "wmh2 §3 (weapon RNG)"
LOCATIONS = {"L": "left arm", "R": "right arm", "H": "head"}


@dataclass
class AttackContext:
    """Circumstances of one attack."""

    boost_hit: bool = False
    boost_damage: bool = False
    charge_attack: bool = False
    free_strike: bool = False
    aimed: bool = False
    back_strike: bool | None = None  # None: judged from where the attacker stands
    magic: bool = False
    auto_rules: bool = True
    spray: bool = False  # one of a spray's attacks: the template puts the model in range


@dataclass
class AttackPlan:
    """Everything about one attack before the dice."""

    attacker: str
    target: str
    weapon: Weapon | None
    kind: str
    legal: bool = True
    reason: str = ""
    rule: str = ""
    distance: float = 0.0
    in_range: bool = True
    sight: Sight | None = None
    auto_miss: str | None = None
    auto_hit: str | None = None
    attack_dice: int = 2
    attack_mod: int = 0
    attack_parts: list[str] = field(default_factory=list)
    modifiers: list[Modifier] = field(default_factory=list)  # of the attack roll
    defense: int = 0
    defence: Defence = field(default_factory=Defence)
    damage_dice: int = 2
    damage_mod: int = 0
    armour: int = 0
    can_damage: bool = True
    auto_rules: bool = True

    @property
    def p_hit(self) -> Fraction:
        if not self.legal or self.auto_miss:
            return Fraction(0)
        if self.auto_hit:
            return Fraction(1)
        return odds.p_hit(self.attack_dice, self.attack_mod, self.defense, self.auto_rules)

    @property
    def p_damage(self) -> Fraction:
        """P(a hit deals at least one damage point)."""
        if not self.can_damage:
            return Fraction(0)
        return odds.p_damage(self.damage_dice, self.damage_mod, self.armour)

    @property
    def expected_damage(self) -> Fraction:
        if not self.can_damage:
            return Fraction(0)
        return self.p_hit * odds.expected_damage(self.damage_dice, self.damage_mod, self.armour)

    def to_dict(self) -> dict[str, Any]:
        return {
            "attacker": self.attacker, "target": self.target,
            "weapon": self.weapon.name if self.weapon else None, "kind": self.kind,
            "legal": self.legal, "reason": self.reason, "rule": self.rule,
            "distance": round(self.distance, 3), "in_range": self.in_range,
            "auto_miss": self.auto_miss, "auto_hit": self.auto_hit,
            "attack": {"dice": self.attack_dice, "modifier": self.attack_mod,
                       "parts": list(self.attack_parts)},
            "def": self.defense, "defence": self.defence.to_dict(),
            "damage": {"dice": self.damage_dice, "modifier": self.damage_mod,
                       "arm": self.armour},
            "p_hit": float(self.p_hit), "p_damage": float(self.p_damage),
            "expected_damage": float(self.expected_damage),
        }


def effects_of(board: Board, model: str) -> list[Effect]:
    return [Effect(e["name"], dict(e.get("mods", {})), e.get("player"), e.get("rounds"))
            for e in board.model(model).status.get("effects", [])]


def clouds_of(board: Board) -> list[Cloud]:
    """Cloud effects in play, kept in the scene (`clouds: [{id, at, radius}]`)."""
    return [Cloud(str(c.get("id", f"cloud-{i}")), tuple(c["at"]), float(c.get("radius", 1.5)),
                  c.get("height")) for i, c in enumerate(board.scene.extra.get("clouds") or [])]


def current(board: Board, model: str, stat: str, *, set_to: tuple[int, ...] = (),
            bonus: int = 0, penalty: int = 0) -> int:
    """A model's current stat with its effects (wmh2 §9.1 order and floors)."""
    effects = effects_of(board, model)
    mod = total_mod(effects, stat)
    return modified_stat(stat, board.profile(model).stat(stat), set_to=set_to,
                         bonus=bonus + max(0, mod), penalty=penalty + max(0, -mod))


def in_back_arc(of: Body, other: Body) -> bool:
    """The other model's base centre lies behind `of`'s shoulder line."""
    if of.arc >= 360.0:
        return False
    return float((other.xy - of.xy) @ of.forward) < -TOL


def engaged_by(board: Board, model: str, all_bodies: dict[str, Body] | None = None) -> list[str]:
    """Enemies whose melee range this model is in, or that are in its own (wmh2 §9.2)."""
    bd = all_bodies or bodies(board)
    me = bd[model]
    out = []
    for other, ob in bd.items():
        if other == model or ob.player == me.player:
            continue
        dist = gap(me.xy, me.radius, ob.xy, ob.radius)
        for x, xb, y in ((other, ob, me), (model, me, ob)):
            reach = board.profile(x).melee_range if not xb.knocked_down else 0.0
            if reach and dist <= reach + TOL and xb.faces(y):
                out.append(other)
                break
    return out


def plan_attack(board: Board, attacker: str, target: str, weapon: Weapon | None,
                ctx: AttackContext | None = None, *, sight: Sight | None = None,
                ranged_defence: Defence | None = None) -> AttackPlan:
    """The attack of `attacker` with `weapon` on `target`, without rolling. `sight` and
    `ranged_defence`: the pair's sight and DEF bonus from the sight verdict
    (`judge.judge_with`), used instead of judging them again."""
    ctx = ctx or AttackContext()
    kind = "magic" if ctx.magic else ("melee" if weapon and weapon.melee else "ranged")
    plan = AttackPlan(attacker, target, weapon, kind, auto_rules=ctx.auto_rules,
                      rule=RULE_MELEE if kind == "melee" else RULE_RANGED)
    if weapon is None:
        plan.legal, plan.reason = False, f"{attacker} has no such weapon"
        return plan
    ap, tp = board.profile(attacker), board.profile(target)
    bd = bodies(board)
    a, b = bd[attacker], bd[target]
    plan.distance = gap(a.xy, a.radius, b.xy, b.radius)
    if kind == "melee":
        plan.in_range = plan.distance <= weapon.rng + TOL and a.faces(b)
        if a.knocked_down:
            plan.legal, plan.reason = False, f"{attacker} is knocked down (no melee range)"
        elif not plan.in_range:
            plan.legal, plan.reason = False, (f"{target} is not in {attacker}'s melee range "
                                              f"({weapon.rng:g}\" in its front arc)")
    else:
        plan.sight = sight if sight is not None else line_of_sight(
            board.world, bd, attacker, target, clouds_of(board))
        plan.in_range = ctx.spray or plan.distance <= weapon.rng + TOL
        if not plan.sight.visible:
            plan.legal, plan.reason, plan.rule = False, plan.sight.reason, plan.sight.rule
        elif engaged_by(board, attacker, bd) and not ap.has("gunfighter"):
            plan.legal, plan.reason = False, f"{attacker} is in melee: no ranged attacks"
    _attack_roll(board, plan, ap, tp, a, b, ctx, bd,
                 ranged_defence if kind == "ranged" else None)
    _damage_roll(board, plan, ap, tp, a, b, ctx)
    return plan


def _attack_roll(board: Board, plan: AttackPlan, ap: Profile, tp: Profile, a: Body, b: Body,
                 ctx: AttackContext, bd: dict[str, Body], given: Defence | None = None) -> None:
    stat = {"melee": "MAT", "ranged": "RAT", "magic": "FOC"}[plan.kind]
    if plan.kind == "magic" and ap.type == "warlock":
        stat = "FURY"
    value = current(board, plan.attacker, stat)
    parts = [f"{stat} {value}"]
    mods: list[Modifier] = []
    mod = value
    effects = effects_of(board, plan.attacker)
    extra = total_mod(effects, "attack")

    def add(name: str, change: int, rule: str, text: str) -> None:
        nonlocal mod
        mod += change
        parts.append(text)
        mods.append(Modifier(name, change, rule, "to_hit"))

    if extra:
        add("effects", extra, "wmh2 §9.1", f"effects {extra:+d} (wmh2 §9.1 stacking)")
    weapon = plan.weapon
    if weapon and weapon.has("inaccurate"):
        add("inaccurate", -4, "wmh2 §9.1", "Inaccurate -4")
    broken = crippled(board, plan.attacker)
    if weapon and weapon.location and LOCATIONS.get(weapon.location) in broken:
        add("crippled weapon system", -2, RULE_SECTION,
            "crippled weapon system -2 (wmh2 §9.2)")
    if "mind" in broken:
        add("crippled mind", -2, RULE_SECTION, "crippled mind -2 (wmh2 §9.2)")
    back = ctx.back_strike if ctx.back_strike is not None else in_back_arc(b, a)
    if back:
        add("back strike", 2, RULE_SECTION, "back strike +2 (wmh2 §9.2)")
    if ctx.free_strike:
        add("free strike", 2, RULE_SECTION, "free strike +2 (wmh2 §9.2)")
    if plan.kind != "melee":
        spray = bool(weapon and weapon.spray)  # a spray is never aimed, never misses into
        if ctx.aimed and plan.kind == "ranged" and not spray:  # another model (wmh2 §9.2)
            add("aiming (forfeits movement)", 2, RULE_SECTION, "aiming +2 (wmh2 §9.2)")
        if engaged_by(board, plan.target, bd) and not spray:
            add("target in melee", -4, RULE_SECTION, "target in melee -4 (wmh2 §9.2)")
        if tp.has("stealth") and not a.eyeless and beyond_stealth(plan.distance):
            plan.auto_miss = "Stealth: attack from more than 5\" misses automatically"
        if not plan.in_range and plan.kind == "ranged":
            plan.auto_miss = f"target beyond RNG {weapon.rng:g}\": automatic miss"
    plan.modifiers = mods
    plan.attack_mod, plan.attack_parts = mod, parts
    plan.attack_dice = 3 if ctx.boost_hit else 2
    status = board.model(plan.target).status
    set_to: list[int] = []
    if status.get("stationary") or (status.get("knocked_down") and plan.kind != "melee"):
        set_to.append(5)
    if tp.is_warjack and "movement" in crippled(board, plan.target):
        set_to.append(7)
    if plan.kind == "melee" and (status.get("stationary") or status.get("knocked_down")):
        plan.auto_hit = "knocked down or stationary: melee attacks hit automatically"
    plan.defence = given if given is not None else defence(
        board.world, a, b, plan.kind, clouds=clouds_of(board), camouflage=tp.has("camouflage"))
    plan.defense = current(board, plan.target, "DEF", set_to=tuple(set_to),
                           bonus=plan.defence.total)
    if set_to:
        plan.modifiers.append(Modifier("stationary, knocked down or stalled: base DEF",
                                       min(set_to), "wmh2 §9.1", "base_def"))
    plan.modifiers.extend(plan.defence.modifiers())


def _damage_roll(board: Board, plan: AttackPlan, ap: Profile, tp: Profile, a: Body, b: Body,
                 ctx: AttackContext) -> None:
    weapon = plan.weapon
    assert weapon is not None
    power = weapon.pow if weapon.pow is not None else 0
    plan.can_damage = weapon.pow is not None
    if tp.has("incorporeal") and not (weapon.magical or plan.kind == "magic"):
        plan.can_damage = False
    mod = power + (current(board, plan.attacker, "STR") if plan.kind == "melee" else 0)
    mod += total_mod(effects_of(board, plan.attacker), "damage")
    broken = crippled(board, plan.attacker)
    if weapon.location and LOCATIONS.get(weapon.location) in broken:
        mod -= 2
    if "body" in broken:
        mod -= 2
    boosted = ctx.free_strike or (ctx.charge_attack and plan.kind == "melee") or ctx.boost_damage
    plan.damage_dice = 2 + (1 if boosted else 0) + (1 if weapon.has("weapon master") else 0)
    plan.damage_mod = mod
    plan.armour = armour(board, a, b)


def armour(board: Board, a: Body, b: Body) -> int:
    """The current ARM of `b` against an attack from `a`: Shield +2 and Buckler +1 from the
    front arc with the weapon's system working, a warcaster's focus (wmh2 §9.1)."""
    tp = board.profile(b.id)
    arm_bonus = 0
    if not in_back_arc(b, a):
        for w in tp.weapons:
            loc_ok = not (w.location and LOCATIONS.get(w.location) in crippled(board, b.id))
            if loc_ok and w.has("shield"):
                arm_bonus += 2
            if loc_ok and w.has("buckler"):
                arm_bonus += 1
    if tp.type == "warcaster":
        arm_bonus += int(board.model(b.id).status.get("focus", 0))
    return current(board, b.id, "ARM", bonus=arm_bonus)


def roll_attack(plan: AttackPlan, roller: Roller) -> dict[str, Any]:
    """Roll a legal plan: the attack roll (unless automatic) and, on a hit, the damage roll."""
    out: dict[str, Any] = {"hit": False, "attack_dice": [], "critical": False,
                           "damage_dice": [], "points": 0}
    if plan.auto_miss:
        out["auto"] = plan.auto_miss
        return out
    if plan.auto_hit:
        out["hit"], out["auto"] = True, plan.auto_hit
    else:
        dice = roller.d6(plan.attack_dice, f"{plan.attacker} attack roll on {plan.target}")
        out["attack_dice"] = dice
        out["attack_total"] = sum(dice) + plan.attack_mod
        out["hit"] = odds.hit_result(dice, plan.attack_mod, plan.defense, plan.auto_rules)
        out["critical"] = out["hit"] and odds.is_critical(dice)
    if out["hit"] and plan.can_damage:
        dmg = roller.d6(plan.damage_dice, f"{plan.attacker} damage roll on {plan.target}")
        out["damage_dice"] = dmg
        out["damage_total"] = sum(dmg) + plan.damage_mod
        out["points"] = max(0, out["damage_total"] - plan.armour)
    return out
