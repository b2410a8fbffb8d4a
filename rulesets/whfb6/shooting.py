"""WHFB 6th shooting (whfb6 §4, §8): who fires, what they see, range bands, cover, the score
needed with the 7+ chain, S vs T, saves modified by Strength, and rolling it out.

Only the front rank fires, the first two on a hill, every skirmisher (§4.2 LV-5, LV-6). A firer
fires if it sees a target model in its arc; range is measured base to base (square bases) to
the closest model it sees; beyond the maximum its shots miss (§8.1). Sight and each target
model's cover come from the one sight verdict (`Ruleset.judge`, one batch for every firer and
target pair); the cover modifier is one per unit, built from those verdicts: the worst that at
least half the visible target models are behind (§5.1, [AMB]), -1 soft or -2 hard to hit.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core import report as core_report
from battlesight.rulesets.core.ruling import Cover
from battlesight.rulesets.core.state import ReportHead
from battlesight.rulesets.core.verdict import Modifier, Verdict

from . import sight, tables
from .ambiguities import R6
from .judge import hit_modifiers as cover_hit_modifiers
from .profile import Profile, Weapon

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.dice import Roller

RULE_TARGET = "whfb6 §4.1"
RULE_RANKS = "whfb6 §4.2 LV-5"
RULE_MOVE_FIRE = "whfb6 §8.7"


@dataclass
class ShotContext:
    """Circumstances of one shooting attack."""

    weapon: str | None = None
    moved: bool = False
    marched: bool = False
    charging: bool = False  # the target is charging (Stand & Shoot)
    shooters: list[str] | None = None  # the unit's models in slot order (front rank first)
    files: int | None = None
    samples: int = sight.DEFAULT_SAMPLES


@dataclass
class FirerLine(core_report.FirerLine):
    """One model of the shooting ranks with its missile weapon."""

    band: str | None = None
    shots: int = 0
    need: int | None = None
    modifiers: list[Modifier] = field(default_factory=list)

    def extra(self) -> dict[str, Any]:
        return {"band": self.band, "shots": self.shots, "need": self.need}


TargetLine = core_report.TargetLine


@dataclass
class Report(ReportHead):
    firers: list[FirerLine]
    targets: list[TargetLine]
    cover: Cover = field(default_factory=Cover.none)
    expected_unsaved: Fraction = Fraction(0)

    def to_dict(self) -> dict[str, Any]:
        return {"unit": self.unit, "target": self.target, "eligible": self.eligible,
                "reason": self.reason, "rule": self.rule, "cover": self.cover.to_dict(),
                "firers": [f.to_dict() for f in self.firers],
                "targets": [t.to_dict() for t in self.targets],
                "expected_unsaved": float(self.expected_unsaved)}


def on_hill(board: Board, models: list[str]) -> bool:
    """Whether the unit stands on a hill (its front models' centres on a hill piece)."""
    for m in models:
        pieces = board.groups.at(board.outline(m).center)  # a grouped hill by its outline
        if any(board.groups.first(p, lambda e: e.kind == "hill") for p in pieces):
            return True
    return False


def shooting_ranks(board: Board, unit: str, models: list[str], files: int | None) -> list[str]:
    """Models that may shoot: the front rank, two ranks on a hill, all skirmishers (LV-5)."""
    if not models:
        return []
    if files is None or board.profile(models[0]).skirmisher:
        return list(models)
    ranks = 2 if on_hill(board, models[:files]) else 1
    return models[: files * ranks]


def pick_weapon(profile: Profile, choice: str | None) -> Weapon | None:
    if choice:
        w = profile.weapon(choice)
        return w if w and not w.melee else None
    ranged = profile.ranged()
    return ranged[0] if ranged else None


def model_cover(verdicts: list[Verdict]) -> Cover | None:
    """A target model's cover against the firing unit: the worst of its cover verdicts from the
    firers that see it (None when none sees it)."""
    covers = [v.cover for v in verdicts if v.visible and v.cover is not None]
    if not covers:
        return None
    return min(covers, key=lambda c: c.value if c.in_cover and c.value else 0)


def unit_cover(covers: dict[str, Cover]) -> Cover:
    """One modifier for the unit, from each visible model's cover (`model_cover`): the worst
    that at least half of them have (-2 hard, then -1 soft to hit); the cover verdict of a
    model that has it, noting how many models are behind cover."""
    if not covers:
        return Cover.none(sight.RULE_COVER)
    for value in (-3, -2, -1):
        have = [m for m, c in covers.items() if c.in_cover and (c.value or 0) <= value]
        if len(have) * 2 >= len(covers):
            pick = next(covers[m] for m in have if covers[m].value == value)
            return replace(pick, notes=[*pick.notes,
                                        f"{len(have)} of {len(covers)} visible models behind "
                                        "cover"])
    return Cover.none(sight.RULE_COVER)


def analyse(board: Board, unit: str, target: str, ctx: ShotContext | None = None) -> Report:
    """Everything about `unit` shooting at `target`, without rolling a die."""
    ctx = ctx or ShotContext()
    models = ctx.shooters if ctx.shooters is not None else board.unit_models(unit)
    targets = board.unit_models(target)
    if not models or not targets:
        return Report(unit, target, False, "a unit has no models on the table", RULE_TARGET,
                      [], [])
    if board.unit_player(unit) == board.unit_player(target):
        return Report(unit, target, False, "cannot shoot at a friendly unit", RULE_TARGET,
                      [], [])
    front = shooting_ranks(board, unit, models, ctx.files)
    pairs = [(f, t) for f in front for t in targets]
    lines = dict(zip(pairs, board.ruleset.judge(board, pairs, samples=ctx.samples),
                     strict=True))
    report = Report(unit, target, False, "", RULE_TARGET, [], [])
    t_profile: Profile = board.profile(targets[0])
    for m in models:
        report.firers.append(_firer(board, m, m in front, targets, lines, ctx))
    seen = {t: [f for f in front if lines[(f, t)].visible] for t in targets}
    covers = {t: model_cover([lines[(f, t)] for f in fs]) for t, fs in seen.items() if fs}
    report.cover = unit_cover({t: c for t, c in covers.items() if c is not None})
    skirmish = t_profile.skirmisher or (len(targets) == 1 and t_profile.has("character"))
    for ln in report.firers:
        if not ln.in_range:
            continue
        p: Profile = board.profile(ln.model)
        ln.need = tables.shooting_need(
            p.stat("BS", 0) or 0, moved=ctx.moved, long_range=ln.band == "long",
            charging=ctx.charging, skirmish_or_single=skirmish, cover=-(report.cover.value or 0),
            large=t_profile.large)
        ln.modifiers = hit_modifiers(ctx, ln.band == "long", skirmish, report.cover,
                                     t_profile.large)
        ln.p_hit = tables.p_shoot_hit(ln.need)
        ln.can_fire = True
    report.eligible = bool(report.firing)
    if not report.eligible:
        reasons = [f.reason for f in report.firers if f.reason]
        report.reason = reasons[0] if reasons else f"no model of {unit} can shoot {target}"
        report.rule = RULE_TARGET
    for t in targets:
        report.targets.append(_target_line(board, report, t, lines, seen.get(t, [])))
    report.expected_unsaved = sum(
        (ln.shots * ln.p_hit * unsaved_given_hit(board, ln, targets[0])
         for ln in report.firing), Fraction(0))
    return report


def hit_modifiers(ctx: ShotContext, long_range: bool, skirmish_or_single: bool, cover: Cover,
                  large: bool) -> list[Modifier]:
    """The to-hit modifiers of `tables.shooting_need`, each as a listed modifier (§8.2; cover
    §5.1), in the player's terms: -1 to hit makes the score needed one higher."""
    out = [Modifier(name, -1, tables.RULE_TO_HIT, "to_hit") for name, applies in (
        ("moved", ctx.moved), ("long range", long_range),
        ("stand and shoot at chargers", ctx.charging),
        ("skirmishers or a lone character", skirmish_or_single)) if applies]
    out.extend(cover_hit_modifiers(cover))
    if large:
        out.append(Modifier("large target", 1, "whfb6 §4.2 LV-7", "to_hit"))
    return out


def _firer(board: Board, m: str, in_front: bool, targets: list[str],
           lines: dict[tuple[str, str], Verdict], ctx: ShotContext) -> FirerLine:
    profile: Profile = board.profile(m)
    w = pick_weapon(profile, ctx.weapon)
    ln = FirerLine(m, w)
    if w is None:
        ln.reason = f"{m} has no missile weapon" + (f" {ctx.weapon!r}" if ctx.weapon else "")
        return ln
    if not in_front:
        ln.reason = f"{m} is not in a rank that may shoot ({RULE_RANKS})"
        return ln
    if ctx.marched and not profile.fast_cavalry:
        ln.reason = "the unit marched: it cannot shoot (whfb6 §7)"
        return ln
    if ctx.moved and w.has("move or fire"):
        ln.reason = f"a {w.name} cannot shoot after moving ({RULE_MOVE_FIRE})"
        return ln
    ln.sees = [t for t in targets if lines[(m, t)].visible]
    if not ln.sees:
        first = lines[(m, targets[0])]
        ln.reason = first.reason or f"{m} sees no model of the target"
        return ln
    dists = {t: sight.gap(board, m, t) for t in ln.sees}
    ln.closest = min(dists, key=dists.get)
    ln.distance = dists[ln.closest]
    ln.band = tables.range_band(ln.distance, w.range or 0.0)
    if ln.band is None:
        ln.reason = (f"closest visible model {ln.distance:.2f}\" away; {w.name} range "
                     f"{w.range:g}\": its shots miss (whfb6 §8.1)")
        return ln
    ln.in_range = True
    ln.shots = tables.shots_for(w.name, w.shots, ln.distance)
    return ln


def strength_of(board: Board, ln: FirerLine) -> int:
    return ln.weapon.strength_for(board.profile(ln.model).stat("S", 3) or 3)


def save_needs(profile: Profile, strength: int, ap: bool) -> tuple[int | None, int | None]:
    """(armour save, ward save) needed; a model with a ward rolls only that one under reading
    whfb6.6 'ward-only' (§8.4)."""
    if profile.ward is not None and R6.means("ward-only"):
        return None, profile.ward
    return tables.armour_need(profile.stat("Sv"), strength, ap), profile.ward


def wound_and_save_fail(board: Board, ln: FirerLine, target: str) -> tuple[Fraction, Fraction]:
    """(P(a hit wounds), P(a wound passes the armour and the ward save)) (§8.3, §8.4)."""
    profile: Profile = board.profile(target)
    s = strength_of(board, ln)
    p_wound = tables.p_roll(tables.wound_need(s, profile.stat("T", 3) or 3))
    armour, ward = save_needs(profile, s, ln.weapon.has("armour piercing"))
    return p_wound, (1 - tables.p_roll(armour)) * (1 - tables.p_roll(ward))


def unsaved_given_hit(board: Board, ln: FirerLine, target: str) -> Fraction:
    """P(a hit wounds and is not saved)."""
    p_wound, p_fail = wound_and_save_fail(board, ln, target)
    return p_wound * p_fail


def _target_line(board: Board, report: Report, t: str,
                 lines: dict[tuple[str, str], Verdict], seers: list[str]) -> TargetLine:
    firing = [ln for ln in report.firing if t in ln.sees]
    frac = max((lines[(f, t)].seen_share for f in seers), default=0.0)
    dist = min((sight.gap(board, ln.model, t) for ln in report.firers), default=0.0)
    line = TargetLine(t, bool(seers), frac, report.cover, dist, bool(firing))
    parts = []
    for ln in firing:
        p_wound, p_fail = wound_and_save_fail(board, ln, t)
        parts.append((Fraction(ln.shots), ln.p_hit, p_wound, p_fail))
        line.modifiers.extend(ln.modifiers + save_modifiers(board, ln, t))
    line.set_odds(parts)
    line.modifiers = core_report.unique(line.modifiers)
    return line


def save_modifiers(board: Board, ln: FirerLine, target: str) -> list[Modifier]:
    """The armour save modifiers of a hit (§8.4): -1 per Strength point above 3, and one more
    for an armour piercing weapon; none when the target has no armour save."""
    if board.profile(target).stat("Sv") is None:
        return []
    out = []
    by_strength = tables.save_modifier(strength_of(board, ln))
    if by_strength:
        out.append(Modifier(f"strength {strength_of(board, ln)}", -by_strength,
                            tables.RULE_SAVE, "save_mod"))
    if ln.weapon.has("armour piercing"):
        out.append(Modifier("armour piercing", -1, tables.RULE_SAVE, "save_mod"))
    return out


# ---- rolling -------------------------------------------------------------------------------


def roll_hits(roller: Roller, n: int, need: int, why: str) -> int:
    """Hits from n shots needing `need` (7+ chain: a 6, then the second score, §8.2)."""
    proc = tables.hit_procedure(need)
    if proc is None or n <= 0:
        return 0
    first, second = proc
    dice = roller.d6(n, f"{why}: to hit {first}+")
    hits = sum(1 for d in dice if d >= first and d != 1)
    if second is None or not hits:
        return hits
    again = roller.d6(hits, f"{why}: to hit, then {second}+")
    return sum(1 for d in again if d >= second)


def roll_wounds_and_saves(roller: Roller, hits: int, strength: int, target: Profile,
                          ap: bool, why: str) -> tuple[int, int]:
    """(wounds, unsaved) from `hits` (S vs T, armour then ward save, §8.3-§8.4)."""
    need = tables.wound_need(strength, target.stat("T", 3) or 3)
    if need is None or hits <= 0:
        return 0, 0
    wounds = sum(1 for d in roller.d6(hits, f"{why}: to wound {need}+") if d >= need and d != 1)
    armour, ward = save_needs(target, strength, ap)
    left = wounds
    for kind, save in (("armour", armour), ("ward", ward)):
        if save is not None and left:
            left -= sum(1 for d in roller.d6(left, f"{why}: {kind} save {save}+")
                        if d >= save and d != 1)
    return wounds, left


def resolve(board: Board, report: Report, roller: Roller) -> dict[str, Any]:
    """Roll every firing line (grouped by score and Strength): hits, wounds, unsaved."""
    groups: dict[tuple, int] = {}
    for ln in report.firing:
        key = (ln.need, strength_of(board, ln), ln.weapon.has("armour piercing"), ln.weapon.name)
        groups[key] = groups.get(key, 0) + ln.shots
    target: Profile = board.profile(board.unit_models(report.target)[0])
    out = {"shots": 0, "hits": 0, "wounds": 0, "unsaved": 0, "groups": []}
    for (need, s, ap, name), shots in groups.items():
        why = f"{report.unit} {name} x{shots}"
        hits = roll_hits(roller, shots, need, why)
        wounds, unsaved = roll_wounds_and_saves(roller, hits, s, target, ap, why)
        out["groups"].append({"weapon": name, "need": need, "S": s, "shots": shots,
                              "hits": hits, "wounds": wounds, "unsaved": unsaved})
        for k, v in (("shots", shots), ("hits", hits), ("wounds", wounds), ("unsaved", unsaved)):
            out[k] += v
    return out
