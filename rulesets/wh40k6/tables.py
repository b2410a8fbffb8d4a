"""The 40k tables as functions: to hit, to wound, saves, armour penetration, vehicle damage,
leadership, with exact probabilities from `rulesets.core.dice`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction

from battlesight.rulesets.core.dice import Dist, d6, highest_of, nd6, p_leadership, p_target, reroll

RULE_HIT = "wh40k6 §8.2"
RULE_WOUND = "wh40k6 §8.3"
RULE_SAVE = "wh40k6 §8.4"
RULE_MELEE_HIT = "wh40k6 §9.2"
RULE_PEN = "wh40k6 §8.9"


@dataclass(frozen=True)
class HitNeed:
    """What a ranged to-hit roll needs: `need`+, and for BS 6+ a re-roll of a natural 1
    needing `reroll_need`+ (None when the model has no such re-roll)."""

    need: int | None
    reroll_need: int | None = None


def ranged_to_hit(bs: int | None, snap: bool = False) -> HitNeed:
    """To-hit need by BS (wh40k6 §8.2): 7 - BS, minimum 2; BS 6+ re-rolls 1s needing 12 - BS;
    snap shots count as BS 1. BS 0 or none cannot hit."""
    if snap:
        bs = 1
    if not bs or bs <= 0:
        return HitNeed(None)
    if bs >= 6:
        return HitNeed(2, max(2, 12 - min(bs, 10)))
    return HitNeed(max(2, 7 - bs))


def p_ranged_hit(bs: int | None, snap: bool = False, twin_linked: bool = False) -> Fraction:
    """P(one shot hits). A twin-linked re-roll of every miss takes precedence over the BS 6+
    re-roll of 1s and uses the normal need; a die is never re-rolled twice (§8.2)."""
    need = ranged_to_hit(bs, snap)
    if need.need is None:
        return Fraction(0)
    if twin_linked:
        return p_target(need.need, reroll_failed=True)
    if need.reroll_need is not None:
        return p_target(need.need, reroll_ones=True, reroll_need=need.reroll_need)
    return p_target(need.need)


def to_wound(strength: int | None, toughness: int, *, sniper: bool = False,
             fleshbane: bool = False, poisoned: int | None = None) -> int | None:
    """Roll needed to wound (wh40k6 §8.3), None when it cannot wound.

    S - T >= 2: 2+; 1: 3+; 0: 4+; -1: 5+; -2 or -3: 6+; -4 or less: impossible.
    Sniper: 4+ regardless; Fleshbane: 2+; Poisoned X+: X+ unless the chart is better."""
    if fleshbane:
        return 2
    if sniper or strength is None:
        return 4
    d = strength - toughness
    chart = 2 if d >= 2 else 3 if d == 1 else 4 if d == 0 else 5 if d == -1 else \
        6 if d >= -3 else None
    if poisoned is not None:
        return poisoned if chart is None else min(chart, poisoned)
    return chart


def melee_to_hit(ws_attacker: int, ws_defender: int | None) -> int:
    """Melee to-hit need (wh40k6 §9.2): attacker WS > defender -> 3+; defender up to twice the
    attacker's -> 4+; more than twice -> 5+. A defender of WS 0 is hit automatically (0)."""
    if ws_defender is None or ws_defender <= 0:
        return 0
    if ws_attacker > ws_defender:
        return 3
    if ws_defender <= 2 * ws_attacker:
        return 4
    return 5


def majority_or_highest(values: Iterable[int]) -> int:
    """The value held by the majority; without a majority, the highest (§8.3, §9.2)."""
    vals = list(values)
    if not vals:
        raise ValueError("no values")
    value, count = Counter(vals).most_common(1)[0]
    return value if count * 2 > len(vals) else max(vals)


@dataclass(frozen=True)
class Save:
    """The single best save a wound may take (§8.4): need (2..6) or None, its kind."""

    need: int | None
    kind: str  # 'armour', 'invulnerable', 'cover', 'none'

    @property
    def p_save(self) -> Fraction:
        return p_target(self.need)


def best_save(sv: int | None, ap: int | None, inv: int | None = None,
              cover: int | None = None) -> Save:
    """Best of armour (lost when AP <= Sv), invulnerable and cover; never better than 2+
    (wh40k6 §8.4, §5.1). A roll of 1 always fails (handled by p_target)."""
    options: list[tuple[int, int, str]] = []
    if sv is not None and (ap is None or ap > sv):
        options.append((sv, 0, "armour"))
    if inv is not None:
        options.append((inv, 1, "invulnerable"))
    if cover is not None:
        options.append((cover, 2, "cover"))
    if not options:
        return Save(None, "none")
    need, _, kind = min(options)
    return Save(max(2, need), kind)


def cover_with_modifiers(base: int | None, *, gone_to_ground: bool = False,
                         ground_bonus: int = 1, stealth: bool = False,
                         shrouded: bool = False) -> int | None:
    """Cover after going to ground (+1, +2 in area terrain / behind a defence line, 6+ in the
    open), Stealth (+1, at least 6+) and Shrouded (+2, at least 5+), capped at 2+
    (wh40k6 §5.2, §5.7). Going to ground in the open gives 6+ before other bonuses."""
    value = base
    if gone_to_ground:
        value = 6 if value is None else value - ground_bonus
    if shrouded:
        value = 5 if value is None else value - 2
    if stealth:
        value = 6 if value is None else value - 1
    return None if value is None else max(2, value)


def penetration_dist(strength: int, *, ordnance: bool = False, melta_half: bool = False,
                     armourbane: bool = False, rending: bool = False) -> Dist:
    """Distribution of the armour penetration total D6 + S (§8.9): Ordnance rolls 2 dice and
    picks the highest; Melta at half range or Armourbane roll 2D6; Rending adds D3 on a 6."""
    if melta_half or armourbane:
        dice = nd6(2)
    elif ordnance:
        dice = highest_of(2)
    else:
        dice = d6()
    if rending and not (melta_half or armourbane or ordnance):
        d3 = d6().map(lambda v: (v + 1) // 2)
        probs: dict[int, Fraction] = {v: p for v, p in dice if v != 6}
        for extra, p in d3:
            probs[6 + extra] = probs.get(6 + extra, Fraction(0)) + dice[6] * p
        dice = Dist(probs)
    return dice + strength


def penetration_result(total: int, armour: int, lance: bool = False) -> str:
    """'none', 'glancing' or 'penetrating' for a penetration total against an AV (§8.9)."""
    av = min(armour, 12) if lance else armour
    return "none" if total < av else "glancing" if total == av else "penetrating"


def p_penetration(strength: int, armour: int, **rules: bool) -> dict[str, Fraction]:
    """Exact P of each result of one hit against one armour value."""
    lance = rules.pop("lance", False)
    dist = penetration_dist(strength, **rules)
    out = {"none": Fraction(0), "glancing": Fraction(0), "penetrating": Fraction(0)}
    for total, p in dist:
        out[penetration_result(total, armour, lance)] += p
    return out


DAMAGE_RESULTS = {1: "crew shaken", 2: "crew shaken", 3: "crew stunned", 4: "weapon destroyed",
                  5: "immobilised", 6: "explodes"}


def damage_result(roll: int, ap: int | None, open_topped: bool = False) -> str:
    """Vehicle damage table with AP2 +1, AP1 +2, open-topped +1; 6 or more explodes
    (wh40k6 §8.9, A16)."""
    total = roll + (2 if ap == 1 else 1 if ap == 2 else 0) + (1 if open_topped else 0)
    return DAMAGE_RESULTS[min(6, max(1, total))]


def leadership_passes(dice: list[int], ld: int, modifier: int = 0) -> bool:
    """2D6 <= Ld + modifier passes; a double 1 always passes (wh40k6 §10)."""
    return sum(dice) <= ld + modifier or (len(dice) == 2 and dice[0] == dice[1] == 1)


def p_morale(ld: int, modifier: int = 0) -> Fraction:
    return p_leadership(ld, modifier)


def p_reroll_ones(need: int) -> Fraction:
    """P(success) for a `need`+ roll that may re-roll 1s (e.g. Preferred Enemy to wound)."""
    return reroll(d6(), lambda v: v == 1).at_least(max(2, need))
