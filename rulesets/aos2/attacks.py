"""AoS 2nd attacks (aos2 §4, §8, §9): which models may attack a unit with which weapons, the
exact odds of each attack, rolling them out and allocating wounds.

Missile: the attacking model must see the target unit and have it in range (closest model,
3D base to base), unless the whole unit is within the weapon's minimum range; a unit within 3"
of enemies may only shoot at those (VIS-6). Melee: range only, no sight (§4.1 quote 4). A
garrison is seen and measured through its feature (§5.3: -1 to hit, counts as in cover).
Missile sight, the share seen and the cover of each attacker and target model come from the
one sight verdict (`Ruleset.judge`, one batch for every pair); only garrisons and a charge's
combat cover are judged here, the verdict knowing neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.report import chain, odds_keys
from battlesight.rulesets.core.ruling import Cover
from battlesight.rulesets.core.state import ReportHead
from battlesight.rulesets.core.verdict import Modifier, Verdict, cover_modifiers

from . import cover, rules, sight
from .warscroll import Warscroll, Weapon

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.dice import Roller

RULE_TARGET = "aos2 §4.2 VIS-1"
RULE_ENGAGED = "aos2 §4.2 VIS-6"
RULE_MELEE = "aos2 §9"
RULE_ALLOCATE = "aos2 §8.5"


@dataclass
class Context:
    missile: bool = True
    combat_after_charge: bool = False  # the target charged this turn (combat phase)
    garrisons: dict[str, str] = field(default_factory=dict)  # unit -> feature
    mystic_shield: bool = False
    samples: int = sight.SAMPLES
    weapon: str | None = None  # only this weapon (by name)


@dataclass
class AttackLine:
    model: str
    weapon: Weapon
    can_fire: bool = False
    reason: str = ""
    sees: list[str] = field(default_factory=list)
    in_range: bool = False
    distance: float | None = None
    need_hit: int = 7
    need_wound: int = 7
    need_save: int | None = None
    p_hit: Fraction = Fraction(0)
    p_wound: Fraction = Fraction(0)
    p_save_fail: Fraction = Fraction(1)
    cover: Cover = field(default_factory=Cover.none)
    modifiers: list[Modifier] = field(default_factory=list)

    @property
    def p_unsaved(self) -> Fraction:
        """P(one attack hits, wounds and is not saved)."""
        return self.p_hit * self.p_wound * self.p_save_fail

    @property
    def expected_unsaved(self) -> Fraction:
        return self.weapon.attacks_dist().mean() * self.p_unsaved

    @property
    def expected_damage(self) -> Fraction:
        return self.expected_unsaved * self.weapon.damage_dist().mean()

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "weapon": self.weapon.name, "can_fire": self.can_fire,
                "reason": self.reason, "sees": list(self.sees), "in_range": self.in_range,
                "distance": None if self.distance is None else round(self.distance, 3),
                "shots": self.weapon.attacks, "need_hit": self.need_hit,
                "need_wound": self.need_wound, "need_save": self.need_save,
                **odds_keys(self.p_hit, self.p_wound, self.p_save_fail, self.modifiers),
                "cover": self.cover.to_dict()}


@dataclass
class Report(ReportHead):
    firers: list[AttackLine]
    targets: list[dict[str, Any]] = field(default_factory=list)

    @property
    def expected_unsaved(self) -> Fraction:
        """Expected unsaved wounds of the whole attack (before damage)."""
        return sum((f.expected_unsaved for f in self.firing), Fraction(0))

    @property
    def expected_damage(self) -> Fraction:
        return sum((f.expected_damage for f in self.firing), Fraction(0))

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "target": self.target, "eligible": self.eligible,
                "reason": self.reason, "rule": self.rule,
                "firers": [f.to_dict() for f in self.firers], "targets": self.targets,
                "expected_unsaved": float(self.expected_unsaved),
                "expected_damage": float(self.expected_damage)}


def models_of(board: Board, unit: str) -> list[str]:
    """Living models, on the table or inside a garrisoned feature."""
    return board.unit_models(unit, alive=True, on_table=False)


def scene_garrisons(board: Board) -> dict[str, str]:
    """The units the scene sets up as garrisons (`garrison: FEATURE` on a unit entry, aos2
    §6.4): {unit: feature}. `play` starts its game with them, `shoot` measures and sees them
    through their feature as `play` does."""
    out = {}
    for unit in board.unit_ids():
        feature = (board.scene.unit(unit) or {}).get("garrison")
        if isinstance(feature, str) and feature in board.world.terrain:
            out[unit] = feature
    return out


def engaged_with(board: Board, unit: str, garrisons: dict[str, str]) -> list[str]:
    """Enemy units within 3" of the unit (VIS-6); a garrison is inside its feature, not on
    the table, whatever the scene's positions of its models."""
    if unit in garrisons or not board.unit_models(unit):
        return []
    player = board.unit_player(unit)
    return [e for e in board.enemies_of(player) if board.unit_models(e) and e not in garrisons
            and board.unit_gap(unit, e, "3d") <= rules.ENGAGE + 1e-9]


def look_out_sir(board: Board, target: str) -> bool:
    models = board.unit_models(target)
    if not models:
        return False
    p: Warscroll = board.profile(models[0])
    player = board.unit_player(target)
    for other in board.units_of(player):
        n = len(board.unit_models(other))
        if other != target and n >= 3 and rules.look_out_sir(
                p.has("hero"), p.has("monster"), n, board.unit_gap(target, other, "3d")):
            return True
    return False


def analyse(board: Board, unit: str, target: str, ctx: Context | None = None) -> Report:
    """Every model of `unit` attacking `target` with its missile (or melee) weapons."""
    ctx = ctx or Context()
    attackers, targets = models_of(board, unit), models_of(board, target)
    rule = RULE_TARGET if ctx.missile else RULE_MELEE
    if not attackers or not targets:
        return Report(unit, target, False, "a unit has no models", rule, [])
    if board.unit_player(unit) == board.unit_player(target):
        return Report(unit, target, False, "only enemy units may be attacked (aos2 §8.2)",
                      rule, [])
    near = engaged_with(board, unit, ctx.garrisons)
    if ctx.missile and near and target not in near:
        return Report(unit, target, False, f"{unit} is within 3\" of {', '.join(near)}: it may "
                      "only shoot at units within 3\"", RULE_ENGAGED, [])
    t_garrison = ctx.garrisons.get(target)
    verdicts = _verdicts(board, unit, attackers, targets, ctx)
    seen = _seen(board, unit, attackers, targets, ctx, verdicts) if ctx.missile else {}
    t_prof: Warscroll = board.profile(targets[0])
    hit_mods = hit_modifiers(ctx.missile and look_out_sir(board, target),
                             ctx.missile and t_garrison is not None)
    hit_mod = sum(int(m.value) for m in hit_mods)
    report = Report(unit, target, False, "", rule, [])
    for a in attackers:
        prof: Warscroll = board.profile(a)
        for w in (prof.missile() if ctx.missile else prof.melee()):
            if ctx.weapon is not None and w.name.lower() != ctx.weapon.lower():
                continue
            line = AttackLine(a, w, sees=seen.get(a, []))
            report.firers.append(line)
            _judge(board, line, unit, target, targets, ctx, t_prof, hit_mod, verdicts)
            if line.can_fire:
                line.modifiers = [*hit_mods, *save_modifiers(line, ctx)]
    report.eligible = bool(report.firing)
    if not report.eligible:
        why = [f.reason for f in report.firers if f.reason]
        kind = "missile" if ctx.missile else "melee"
        report.reason = why[0] if why else (
            f"{unit} has no {kind} weapon {ctx.weapon!r}" if ctx.weapon is not None
            else f"{unit} has no {kind} weapons")
    fr = {pair: v.seen_share for pair, v in verdicts.items()}
    armed = list(dict.fromkeys(f.model for f in report.firers))
    # a garrison sees and is seen through its feature (§5.3): a model seen counts whole
    through = ctx.missile and (unit in ctx.garrisons or target in ctx.garrisons)
    for t in targets:
        lines = [f for f in report.firing if t in f.sees or not ctx.missile]
        p_hit, p_wound, p_fail = chain(
            (f.weapon.attacks_dist().mean(), f.p_hit, f.p_wound, f.p_save_fail) for f in lines)
        seen = any(t in f.sees for f in report.firers)
        report.targets.append({
            "model": t, "visible": seen or not ctx.missile,
            "visible_fraction": float(seen) if through else round(
                max((fr.get((a, t), 0.0) for a in armed), default=0.0), 4),
            "cover": _target_cover(t, lines, report.firers, verdicts).to_dict(),
            "distance": round(min(_distance(board, a, [t], ctx) for a in attackers), 3),
            "in_range": bool(lines),
            **odds_keys(p_hit, p_wound, p_fail, [m for f in lines for m in f.modifiers])})
    return report


def _target_cover(t: str, lines: list[AttackLine], attackers: list[AttackLine],
                  verdicts: dict[tuple[str, str], Verdict]) -> Cover:
    """A target model's cover: that of the first attack on it, else the verdict of the first
    attacker that sees it (none attacks it: out of range), else none."""
    if lines:
        return lines[0].cover
    seer = next((a.model for a in attackers if t in a.sees and (a.model, t) in verdicts), None)
    judged = verdicts[(seer, t)].cover if seer is not None else None
    return judged if judged is not None else Cover.none()


def _verdicts(board: Board, unit: str, attackers: list[str], targets: list[str],
              ctx: Context) -> dict[tuple[str, str], Verdict]:
    """The sight verdict of every attacker and target model pair between units on the table,
    in one batch (none for a garrison: seen through its feature). Melee needs no sight: its
    verdicts give only the share each target shows, as for missiles (its cover is §5.1's)."""
    if unit in ctx.garrisons or board.unit_of(targets[0]) in ctx.garrisons:
        return {}
    pairs = [(a, t) for a in attackers for t in targets]
    return dict(zip(pairs, board.ruleset.judge(board, pairs, samples=ctx.samples), strict=True))


def _seen(board: Board, unit: str, attackers: list[str], targets: list[str], ctx: Context,
          verdicts: dict[tuple[str, str], Verdict]) -> dict[str, list[str]]:
    """Which target models each attacker sees (garrisons through their feature)."""
    target_unit = board.unit_of(targets[0])
    if target_unit in ctx.garrisons or unit in ctx.garrisons:
        return {a: list(targets) if sight.garrison_sight(board, a, target_unit, ctx.garrisons)
                else [] for a in attackers}
    return {a: sorted(t for t in targets if verdicts[(a, t)].visible) for a in attackers}


def _distance(board: Board, a: str, targets: list[str], ctx: Context) -> float:
    t_piece = ctx.garrisons.get(board.unit_of(targets[0]))
    a_piece = ctx.garrisons.get(board.unit_of(a))
    if t_piece and a_piece:
        return 0.0
    if t_piece:
        return cover.feature_gap(board, a, t_piece)
    if a_piece:
        return min(cover.feature_gap(board, t, a_piece) for t in targets)
    return sight.closest(board, a, targets)[1]


def _judge(board: Board, line: AttackLine, unit: str, target: str, targets: list[str],
           ctx: Context, t_prof: Warscroll, hit_mod: int,
           verdicts: dict[tuple[str, str], Verdict]) -> None:
    w = line.weapon
    if ctx.missile and not line.sees:
        line.reason = f"{line.model} cannot see {target} ({sight.RULE_SEE})"
        return
    line.distance = _distance(board, line.model, targets, ctx)
    line.in_range = line.distance <= w.range + 1e-9
    if not line.in_range:
        line.reason = f"{target} is {line.distance:.2f}\" from {line.model}; {w.name} range " \
            f"{w.range:g}\""
        return
    if w.min_range and all(sight.closest(board, t, [line.model])[1] < w.min_range
                           for t in targets):
        line.reason = f"{target} is wholly within {w.name}'s minimum range {w.min_range:g}\""
        return
    judged = verdicts.get((line.model, line.sees[0])) if line.sees else None
    if judged is not None and judged.cover is not None and not ctx.combat_after_charge:
        line.cover = judged.cover  # the verdict: this attacker's missiles at the target unit
    else:
        line.cover = cover.save_bonus(board, line.model, target, missile=ctx.missile,
                                      combat_after_charge=ctx.combat_after_charge,
                                      garrisoned=target in ctx.garrisons)
        if target in ctx.garrisons:  # the feature it is inside gives it
            line.cover = replace(line.cover, source=ctx.garrisons[target])
    line.need_hit = rules.roll_need(w.to_hit, hit_mod)
    line.need_wound = rules.roll_need(w.to_wound)
    line.need_save = rules.save_need(t_prof.save, w.rend, line.cover.value or 0)
    line.p_hit, line.p_wound = rules.p_need(line.need_hit), rules.p_need(line.need_wound)
    p_save = rules.p_need(line.need_save)
    if ctx.mystic_shield:
        p_save += Fraction(1, 6) * p_save
    line.p_save_fail = 1 - p_save
    line.can_fire = True


def hit_modifiers(look_out: bool, garrisoned: bool) -> list[Modifier]:
    """-1 to hit with missile weapons: Look Out, Sir! (§8.1) and a garrisoned target (§5.3)."""
    out = []
    if look_out:
        out.append(Modifier("look out, sir!", -1, "aos2 §8.1", "to_hit"))
    if garrisoned:
        out.append(Modifier("garrisoned target", -1, cover.RULE_GARRISON, "to_hit"))
    return out


def save_modifiers(line: AttackLine, ctx: Context) -> list[Modifier]:
    """The save modifiers of one attack line: rend, the cover +1 (§5.1-§5.3) and Mystic
    Shield's re-roll of save rolls of 1."""
    out = []
    if line.weapon.rend:
        out.append(Modifier("rend", int(line.weapon.rend), rules.RULE_SAVE, "save_mod"))
    out.extend(cover_modifiers(line.cover))
    if ctx.mystic_shield:
        out.append(Modifier("mystic shield", "re-roll 1s", "aos2 §10.3", "save_roll"))
    return out


def roll(board: Board, report: Report, roller: Roller,
         mystic_shield: bool = False) -> dict[str, Any]:
    """Roll every attack of the report: hits, wounds, saves, damage (aos2 §8.3)."""
    out: dict[str, Any] = {"attacks": 0, "hits": 0, "wounds": 0, "unsaved": 0, "damage": 0,
                           "lines": []}
    groups: dict[tuple, list[AttackLine]] = {}
    for ln in report.firing:
        groups.setdefault((ln.weapon.name, ln.need_hit, ln.need_wound, ln.need_save), []).append(ln)
    for (name, nh, nw, ns), lines in groups.items():
        w = lines[0].weapon
        attacks = sum(_value(roller, w.attacks, f"{name} attacks") for _ in lines)
        why = f"{report.unit} {name} x{attacks}"
        hits = sum(1 for d in roller.d6(attacks, f"{why}: hit {nh}+") if d >= nh)
        wounds = sum(1 for d in roller.d6(hits, f"{why}: wound {nw}+") if d >= nw) if hits else 0
        saved = 0
        if ns is not None and wounds:
            dice = roller.d6(wounds, f"{report.target} saves {ns}+")
            if mystic_shield and 1 in dice:
                again = roller.d6(dice.count(1), "Mystic Shield: re-roll save rolls of 1")
                dice = [d for d in dice if d != 1] + again
            saved = sum(1 for d in dice if d >= ns)
        unsaved = wounds - saved
        damage = sum(_value(roller, w.damage, f"{name} damage") for _ in range(unsaved))
        for k, v in (("attacks", attacks), ("hits", hits), ("wounds", wounds),
                     ("unsaved", unsaved), ("damage", damage)):
            out[k] += v
        out["lines"].append({"weapon": name, "attacks": attacks, "hits": hits,
                             "wounds": wounds, "unsaved": unsaved, "damage": damage})
    return out


def _value(roller: Roller, value: Any, why: str) -> int:
    if isinstance(value, int) or str(value).isdigit():
        return int(value)
    text = str(value).upper()
    plus = int(text.split("+")[1]) if "+" in text else 0
    text = text.split("+")[0]
    if text == "D3":
        return roller.d3(why) + plus
    n = int(text[0]) if text[0].isdigit() else 1
    return roller.total(n, why) + plus
