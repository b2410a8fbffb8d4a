"""Shooting analysis: who may fire, what they see, range, cover and exact per-attack odds (wh40k6
§4.2, §8.1-§8.6). `analyse` is pure (no dice); `resolve` rolls it out.

A firer fires only if it sees at least one target model; its range is measured to the closest
model it can see (§4.1 quote 3). Sight comes from the one sight verdict (`judge`, one batch for
every firer and target model pair); cover is judged per target model from the rule views of the
models actually firing, by the verdict's cover function (`judge.cover_from_views`): the best of
the per-firer covers, a blind firer counting too (A2). Probabilities are exact Fractions;
`expected_unsaved` follows the allocation order (closest visible, in-range model first; a model
keeps taking wounds until removed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core import report as core_report
from battlesight.rulesets.core.dice import Dist, d3, d6, nd6
from battlesight.rulesets.core.ruling import Cover
from battlesight.rulesets.core.verdict import Modifier, Verdict, cover_modifiers

from .judge import cover_from_views, judge_views
from .odds import expected_unsaved, model_save, wound_and_unsaved
from .profile import Profile, Weapon
from .special import night_effect, template_floor_allowed
from .tables import Save, majority_or_highest, p_ranged_hit
from .vehicles import (
    facing_view,
    full_bs_weapons,
    max_penetration,
    speed_of,
    weapon_can_bear,
)

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_TARGET = "wh40k6 §4.2"
RULE_RANGE = "wh40k6 §4.1"
RULE_TYPES = "wh40k6 §8.6"
RULE_SNAP = "wh40k6 §8.2"
TEMPLATE_LENGTH = 8.0
TEMPLATE_ANY_FLOOR = ("jump infantry", "jet pack infantry", "jetbike", "skimmer")  # §6.3


@dataclass
class ShotContext:
    """Circumstances of one shooting attack."""

    weapon: str | dict[str, str] | Weapon | None = None
    moved: bool = False
    snap: bool = False
    overwatch: bool = False
    vehicle_moved: float = 0.0
    gone_to_ground: bool = False
    night: bool = False
    samples: int = 300
    only: tuple[str, ...] = ()  # only these models fire (a psyker's witchfire, §8.11)
    hold: tuple[str, ...] = ()  # these models do not fire (they cast a witchfire instead)
    ignore_sight: bool = False  # nova / maelstrom: every target model counts as seen (§4.2)
    friendly_fire: bool = False  # a maelstrom hits friendly units too (§8.11)
    floor: int | None = None  # the ruin floor a blast or template is declared at (§6.3)


@dataclass
class FirerLine(core_report.FirerLine):
    """One firing model with one weapon."""

    shots: int | str = 0
    snap: bool = False
    strength: int | None = None
    wall_of_death: bool = False  # a template firing overwatch: D3 automatic hits (§8.7)

    def shots_dist(self) -> Dist:
        if isinstance(self.shots, int):
            return Dist.constant(self.shots)
        return {"D3": d3(), "D6": d6(), "2D6": nd6(2)}.get(self.shots, Dist.constant(1))

    def extra(self) -> dict[str, Any]:
        return {"shots": self.shots, "snap": self.snap}


@dataclass
class TargetLine(core_report.TargetLine):
    """One target model: what the firers see of it and the odds of one attack."""

    save: Save | None = None
    facing: str | None = None

    def extra(self) -> dict[str, Any]:
        return {
            "save": None if self.save is None else {"need": self.save.need,
                                                    "kind": self.save.kind},
            "facing": self.facing,
        }


@dataclass
class ShootingReport:
    unit: str
    target: str
    eligible: bool
    reason: str
    rule: str
    firers: list[FirerLine]
    targets: list[TargetLine]
    expected_unsaved: Fraction = Fraction(0)
    toughness: int | None = None
    visibility: dict = field(default_factory=dict, repr=False)

    @property
    def firing(self) -> list[FirerLine]:
        return [f for f in self.firers if f.can_fire]

    def order(self) -> list[str]:
        """Allocation order: visible, in-range models, closest first (§8.5)."""
        lines = [t for t in self.targets if t.visible and t.in_range]
        return [t.model for t in sorted(lines, key=lambda t: t.distance)]

    def to_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit, "target": self.target, "eligible": self.eligible,
            "reason": self.reason, "rule": self.rule,
            "firers": [f.to_dict() for f in self.firers],
            "targets": [t.to_dict() for t in self.targets],
            "allocation_order": self.order(),
            "expected_unsaved": float(self.expected_unsaved),
            "toughness": self.toughness,
        }


def relentless(profile: Profile) -> bool:
    return profile.has("relentless") or profile.is_vehicle or profile.type in (
        "monstrous creature", "flying monstrous creature", "bike", "jetbike")


#: rules a model may gain (psychic blessings, §8.11) that its weapons then carry
PROFILE_WEAPON_RULES = ("re-roll hits", "ignores cover")


def with_profile_rules(w: Weapon, profile: Profile) -> Weapon:
    """The weapon with the firer's own weapon rules added (Prescience, Perfect Timing)."""
    extra = {r for r in PROFILE_WEAPON_RULES if profile.has(r)} - w.rules
    return replace(w, rules=w.rules | extra) if extra else w


def pick_weapons(profile: Profile, choice: str | dict[str, str] | Weapon | None,
                 model: str) -> tuple[list[Weapon], str]:
    """Weapons a model fires: the chosen one, or its first ranged weapon that is not a grenade
    (a vehicle fires all its ranged weapons)."""
    if isinstance(choice, Weapon):
        return [choice], ""
    if isinstance(choice, dict):
        choice = choice.get(model) or choice.get("*")
    if choice:
        w = profile.weapon(str(choice))
        return ([w], "") if w and not w.melee else ([], f"has no ranged weapon {choice!r}")
    ranged = profile.ranged()
    if profile.is_vehicle:
        return ranged, "" if ranged else "has no ranged weapon"
    plain = [w for w in ranged if "grenade" not in w.name]
    pick = plain[:1] or ranged[:1]
    return pick, "" if pick else "has no ranged weapon"


@dataclass(frozen=True)
class FireMode:
    """How one weapon fires: 'normal', 'snap' (BS 1) or 'none' (`reason`, `rule` say why)."""

    mode: str
    reason: str = ""
    rule: str = ""

    @property
    def snap(self) -> bool:
        return self.mode == "snap"


def fire_mode(w: Weapon, moved: bool, steady: bool, snap: bool) -> FireMode:
    """The one decision of normal fire, snap shots or no fire for a weapon (§8.2, §8.6): a
    Heavy weapon fired after moving (not Relentless) makes snap shots, and template, blast and
    ordnance weapons cannot snap fire, so a moved Heavy Blast weapon cannot fire at all.
    `snap`: snap shots forced already (overwatch, gone to ground, crew shaken, vehicle speed)."""
    if w.kind == "ordnance" and moved and not steady:
        return FireMode("none", "a model that moved cannot fire ordnance (§8.6)", RULE_TYPES)
    heavy_moved = w.kind == "heavy" and moved and not steady
    if not (snap or heavy_moved):
        return FireMode("normal")
    if w.template or w.blast or w.kind == "ordnance":
        why = "template, blast and ordnance weapons cannot snap fire (§8.2)"
        if heavy_moved and not snap:
            why += ", and a heavy weapon fired after moving makes snap shots (§8.6)"
        return FireMode("none", why, RULE_SNAP)
    if heavy_moved and not snap:
        return FireMode("snap", "a heavy weapon fired after moving makes snap shots (§8.6)",
                        RULE_TYPES)
    return FireMode("snap", "", RULE_SNAP)


def shots_and_limits(w: Weapon, distance: float, moved: bool, steady: bool,
                     snap: bool) -> tuple[int | str, bool, str]:
    """(shots, snap, why it cannot fire) for one weapon at one distance (§8.6); whether it
    fires normally, as snap shots or not at all is `fire_mode`'s."""
    mode = fire_mode(w, moved, steady, snap)
    if mode.mode == "none":
        return 0, snap, mode.reason
    snap = mode.snap
    if w.kind == "rapid fire":
        return (2 if w.within_half(distance) else 1), snap, ""
    if w.kind == "salvo":
        if moved and not steady:
            if not w.within_half(distance):
                return 0, snap, "moved: a salvo weapon fires only within half range (§8.6)"
            return w.salvo[0], snap, ""
        return w.salvo[1], snap, ""
    return w.shots, snap, ""


def _range_of(w: Weapon) -> float:
    return TEMPLATE_LENGTH if w.template else (w.range or 0.0)


def analyse(board: Board, unit: str, target: str, ctx: ShotContext | None = None) -> ShootingReport:
    """Everything about `unit` shooting at `target`, without rolling a die."""
    ctx = ctx or ShotContext()
    models = [m for m in board.unit_models(unit) if not ctx.only or m in ctx.only]
    targets = board.unit_models(target)
    if not models or not targets:
        who = unit if not models else target
        return ShootingReport(unit, target, False, f"unit {who!r} has no models on the table",
                              RULE_TARGET, [], [])
    if board.unit_player(unit) == board.unit_player(target) and not ctx.friendly_fire:
        return ShootingReport(unit, target, False, "cannot shoot at a friendly unit",
                              RULE_TARGET, [], [])
    pairs = [(f, t) for f in models for t in targets]
    verdicts, vis = judge_views(board, pairs, ctx.samples)
    judged = dict(zip(pairs, verdicts, strict=True))
    t_profiles = {t: board.profile(t) for t in targets}
    vehicle_target = all(p.is_vehicle for p in t_profiles.values())
    lines: list[FirerLine] = []
    for f in models:
        profile: Profile = board.profile(f)
        weapons, why = pick_weapons(profile, ctx.weapon, f)
        weapons = [with_profile_rules(w, profile) for w in weapons]
        if f in ctx.hold:
            weapons, why = [], f"{f} cast a witchfire power instead of firing (§8.11)"
        sees = [t for t in targets if ctx.ignore_sight or judged[(f, t)].visible]
        dists = {t: board.gap(f, t) for t in sees}
        closest = min(dists, key=dists.get) if dists else None
        steady = relentless(profile)
        if not weapons:
            lines.append(FirerLine(f, None, False, why, sees))
            continue
        limit = full_bs_weapons(profile, speed_of(ctx.vehicle_moved)) \
            if profile.is_vehicle else None
        for k, w in enumerate(weapons):
            line = FirerLine(f, w, sees=sees, closest=closest,
                             distance=None if closest is None else dists[closest])
            snap = ctx.snap or ctx.overwatch or (limit is not None and k >= limit)
            lines.append(line)
            if not sees:
                line.reason = f"{f} sees no model of {target} (§4.2)"
                continue
            if ctx.overwatch and w.template:  # Wall of Death: D3 hits, no range check
                line.in_range = line.can_fire = line.wall_of_death = True
                line.shots, line.p_hit = "D3", Fraction(1)
                line.strength = w.strength_for(profile.stat("S"))
                continue
            rng = _range_of(w)
            line.in_range = w.min_range <= line.distance <= rng + 1e-9
            if not line.in_range:
                line.reason = (f"closest visible model {closest} is {line.distance:.2f}\" away; "
                               f"{w.name} range {rng:g}\" (§4.1): its shots miss")
                continue
            if w.template and not template_floor_allowed(
                    board.floor_of(f) or 0, _declared_floor(board, ctx, closest),
                    profile.type in TEMPLATE_ANY_FLOOR):
                line.reason = (f"a template fired from floor {board.floor_of(f) or 0} reaches "
                               "only its own floor or one above or below (§6.3)")
                continue
            if profile.is_vehicle:
                bear = weapon_can_bear(board, f, w, board.position(closest) + [0, 0, 0.5])
                if not bear:
                    line.reason = bear.reason
                    continue
            shots, snap, why = shots_and_limits(w, line.distance, ctx.moved, steady, snap)
            if why:
                line.reason = why
                continue
            line.shots, line.snap, line.can_fire = shots, snap, True
            line.strength = w.strength_for(profile.stat("S"))
            line.p_hit = _p_hit(w, profile.stat("BS"), snap)
    firing = [ln for ln in lines if ln.can_fire]
    report = ShootingReport(unit, target, bool(firing), "", RULE_TARGET, lines, [],
                            visibility=vis)
    if models and all(f in ctx.hold for f in models):
        report.reason = f"every model of {unit} cast a witchfire power instead of firing (§8.11)"
        report.rule = "wh40k6 §8.11"
    elif not any(ln.sees for ln in lines):
        report.reason = f"no model of {unit} can see any model of {target} (§4.1 quote 1)"
    elif not firing:
        report.reason = "no firing model has a target model in range (§4.1 quote 2)"
        report.rule = RULE_RANGE
        other = [ln.reason for ln in lines if ln.sees and ln.in_range and ln.reason]
        if other:
            report.reason = f"no model can fire: {other[0]}"
            cited = re.search(r"§\d+\.\d+", other[0])
            report.rule = f"wh40k6 {cited.group(0)}" if cited else RULE_TYPES
    if ctx.night and firing and board.unit_gap(unit, target) > 36.0 + 1e-9:
        report.eligible = False
        report.reason = "night fighting: the target is more than 36\" away (§8.12)"
        report.rule = "wh40k6 §8.12"
    if not vehicle_target:
        toughs = [p.stat("T", 4) for p in t_profiles.values() if not p.is_vehicle]
        report.toughness = majority_or_highest(toughs) if toughs else None
    shooters = [ln.model for ln in firing] or models
    for t in targets:
        report.targets.append(_target_line(board, report, t, shooters, vis, judged, ctx))
    report.expected_unsaved = expected_unsaved(board, report)
    return report


def _declared_floor(board: Board, ctx: ShotContext, aimed: str | None) -> int:
    """The floor a blast or template is declared at: the action's, else the aimed model's."""
    if ctx.floor is not None:
        return int(ctx.floor)
    return (board.floor_of(aimed) or 0) if aimed else 0


def _p_hit(w: Weapon, bs: int | None, snap: bool) -> Fraction:
    if w.template or w.has("auto hit"):
        return Fraction(1)
    if w.blast:  # the marker stays on the aimed model: a hit, or an arrow moving 2D6 - BS <= 0
        stays = nd6(2).at_most(bs or 0) if not snap else Fraction(0)
        return Fraction(1, 3) + Fraction(2, 3) * stays
    return p_ranged_hit(bs, snap, w.has("twin-linked") or w.has("re-roll hits"))


def _target_line(board: Board, report: ShootingReport, t: str, shooters: list[str], vis,
                 judged: dict[tuple[str, str], Verdict], ctx: ShotContext) -> TargetLine:
    profile: Profile = board.profile(t)
    seen_by = [ln for ln in report.firing if t in ln.sees]
    visible_fraction = max(judged[(f, t)].seen_share for f in shooters)
    distance = min(board.gap(f, t) for f in shooters)
    in_range = any(ln.in_range and distance <= _range_of(ln.weapon) + 1e-9
                   for ln in report.firers if ln.weapon and t in ln.sees)
    line = TargetLine(t, any(t in ln.sees for ln in report.firers), visible_fraction,
                      Cover.none(), distance, in_range)
    firers = list(dict.fromkeys(shooters))
    if profile.is_vehicle:
        views = [facing_view(board, t, vis[(f, t)]) for f in firers]
        able = [v.firer for v in views if any(
            ln.model == v.firer and ln.weapon and max_penetration(
                ln.weapon, ln.strength, profile.armour(v.facing) or 10)
            for ln in report.firing)] or firers
        line.cover = cover_from_views(board, able, t, [vis[(f, t)] for f in able])
        line.facing = views[0].facing if views else None
    else:
        night = night_effect(distance) if ctx.night and not profile.has("night vision") \
            else "normal"
        line.cover = cover_from_views(board, firers, t, [vis[(f, t)] for f in firers],
                                      gone_to_ground=ctx.gone_to_ground,
                                      stealth=night == "stealth", shrouded=night == "shrouded",
                                      memo=board.sight_memo)
    _odds(board, report, line, profile, seen_by)
    return line


def _odds(board: Board, report: ShootingReport, line: TargetLine, profile: Profile,
          seen_by: list[FirerLine]) -> None:
    """Shot-weighted per-attack odds of the firing lines that see this model, as one chain
    (hit, wound given a hit, not saved given a wound), and the modifiers they apply."""
    parts = []
    for ln in seen_by:
        p_w, p_u = wound_and_unsaved(board, ln, line.model, profile, report.toughness,
                                     line.cover)
        parts.append((ln.shots_dist().mean(), ln.p_hit, p_w, p_u / p_w if p_w else Fraction(1)))
        if line.save is None and not profile.is_vehicle and ln.weapon:
            line.save = model_save(profile, ln.weapon.ap, line.cover, ln.weapon)
    line.set_odds(parts)
    line.modifiers = shot_modifiers(line, seen_by)


#: cover notes of `cover.with_modifiers` that are modifiers of their own ('Stealth (+1, ...)')
MODIFIER_NOTES = ("gone to ground", "Stealth", "Shrouded")


def shot_modifiers(line: TargetLine, seen_by: list[FirerLine]) -> list[Modifier]:
    """The modifiers the firing lines that see this model apply: snap shots (BS 1, §8.2) and
    the cover save with what improved it, unless every weapon ignores cover (templates,
    Ignores Cover, §5.1)."""
    out: list[Modifier] = []
    if any(ln.snap and not ln.wall_of_death for ln in seen_by):
        out.append(Modifier("snap shots", "BS 1", RULE_SNAP, "to_hit"))
    if any(ln.weapon and not (ln.weapon.template or ln.weapon.has("ignores cover"))
           for ln in seen_by):
        out.extend(cover_modifiers(line.cover))
        for note in line.cover.notes:
            if note.startswith(MODIFIER_NOTES):
                name, _, value = note.partition(" (")
                out.append(Modifier(name, int(value.split(",")[0].rstrip(")")),
                                    line.cover.rule, "save_mod"))
    return out
