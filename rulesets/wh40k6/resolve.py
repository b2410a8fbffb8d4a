"""Rolling a shooting attack out (wh40k6 §8.1-§8.9): to hit, to wound or penetrate,
allocation closest first to visible in-range models, Look Out Sir, best single save,
casualties. Works on an `analyse` report, so the odds shown and the dice rolled agree."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry.ray import RayScene
from battlesight.rulesets.core.dice import Roller

from .cover import with_modifiers
from .damage import apply_vehicle_hit
from .odds import model_save
from .profile import Weapon
from .shooting import FirerLine, ShootingReport
from .special import (
    RULE_RUINS,
    blast_floor_hits,
    look_out_sir_need,
    marker_lost,
    scatter_distance,
    scatter_point,
    under_marker,
    under_template,
)
from .tables import ranged_to_hit, to_wound
from .vehicles import shot_facing

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


@dataclass
class Wound:
    """One successful wound (or glancing/penetrating hit) waiting for allocation."""

    weapon: Weapon
    strength: int | None
    ap: int | None
    firer: str
    result: str = "wound"  # wound | glancing | penetrating
    only: tuple[str, ...] | None = None  # models it may go to (a blast on one ruin floor)


@dataclass
class Outcome:
    """What an attack did."""

    shots: int = 0
    hits: int = 0
    wounds: int = 0
    saved: int = 0
    unsaved: int = 0
    lost: int = 0
    casualties: list[str] = field(default_factory=list)
    steps: list[dict[str, Any]] = field(default_factory=list)
    firer_wounds: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"shots": self.shots, "hits": self.hits, "wounds": self.wounds,
                "saved": self.saved, "unsaved": self.unsaved, "lost": self.lost,
                "casualties": list(self.casualties), "steps": self.steps}


def roll_hits(roller: Roller, line: FirerLine, bs: int | None, shots: int,
              out: Outcome) -> int:
    """Roll to hit for one firing line; returns hits (Gets Hot 1s recorded on out)."""
    w = line.weapon
    need = ranged_to_hit(bs, line.snap)
    if need.need is None or shots <= 0:
        return 0
    dice = roller.d6(shots, f"{line.model} to hit with {w.name} ({need.need}+)")
    final = []
    for d in dice:
        if d < need.need and (w.has("twin-linked") or w.has("re-roll hits")):
            d = roller.one(f"{line.model} {'twin-linked' if w.has('twin-linked') else 'Prescience'}"
                           " re-roll")
            final.append(d >= need.need)
        elif d == 1 and need.reroll_need is not None:
            again = roller.one(f"{line.model} BS{bs} re-roll of a 1 ({need.reroll_need}+)")
            final.append(again >= need.reroll_need)
            d = again
        else:
            final.append(d >= need.need)
        if d == 1 and w.has("gets hot"):
            out.firer_wounds.append(line.model)
    out.shots += shots
    return sum(final)


def blast_hits(board: Board, roller: Roller, line: FirerLine, bs: int | None,
               targets: list[str], out: Outcome, floor: int | None = None,
               ) -> tuple[int, tuple[str, ...] | None]:
    """Place the marker over the closest visible target model, scatter, count target models
    under it (§8.7) on the floor the rules say when it lands in a ruin (§6.3): (hits, the
    models its wounds may go to, None when any). Models of other units under it are not
    counted (partial)."""
    w = line.weapon
    aim = board.outline(line.closest).center
    hit = roller.one(f"{line.model} scatter die ({w.name})") <= 2
    direction = 0.0 if hit else roller.direction(f"{line.model} scatter direction")
    two = 0 if hit else sum(roller.d6(2, f"{line.model} scatter distance"))
    dist = 0 if hit else scatter_distance(two, bs or 0)
    centre = scatter_point(aim, hit, direction, dist)
    out.shots += 1
    if marker_lost(centre, board.world.table):
        out.steps.append({"blast": line.model, "centre": list(centre), "lost": True})
        return 0, None
    under = [t for t in targets if under_marker(board.outline(t), centre, w.blast)]
    step: dict[str, Any] = {"blast": line.model, "centre": [round(c, 3) for c in centre],
                            "scatter": dist, "under": under}
    only = None
    levels = floors_at(board, centre)
    if levels is not None:  # the marker landed in a ruin with floors
        declared = max(levels) if w.barrage else (
            floor if floor is not None else board.floor_of(line.closest) or 0)
        under = blast_floor_hits({t: board.floor_of(t) or 0 for t in under}, declared, levels)
        level = (board.floor_of(under[0]) or 0) if under else declared
        only = tuple(t for t in targets if (board.floor_of(t) or 0) == level)
        step.update(under=under, floor=level, declared=declared, floors_there=levels,
                    rule=RULE_RUINS)
    out.steps.append(step)
    return len(under), only


def resolve_shooting(board: Board, report: ShootingReport, roller: Roller, *,
                     go_to_ground: bool = False, unit_shots: dict[str, int] | None = None,
                     floor: int | None = None) -> Outcome:
    """Roll the attack of `report` out and update the board."""
    out = Outcome()
    if not report.eligible:
        return out
    targets = [t.model for t in report.targets]
    lines_by_model = {t.model: t for t in report.targets}
    groups: dict[str, list[FirerLine]] = {}
    for ln in report.firing:
        groups.setdefault(ln.weapon.name, []).append(ln)
    pool: list[Wound] = []
    for name, lines in groups.items():
        w = lines[0].weapon
        rolled = unit_shots or {}
        if isinstance(lines[0].shots, str) and name not in rolled:
            dice = 2 if lines[0].shots == "2D6" else 1
            rolled[name] = sum(roller.d6(dice, f"shots of {name} ({lines[0].shots})"))
            if lines[0].shots == "D3":
                rolled[name] = (rolled[name] + 1) // 2
        for ln in lines:
            bs = board.profile(ln.model).stat("BS")
            shots = rolled[name] if isinstance(ln.shots, str) else int(ln.shots)
            groups_hit: dict[tuple[str, ...] | None, int] = {}
            if ln.wall_of_death or w.has("auto hit"):  # Wall of Death; a nova (§8.11)
                groups_hit[None] = shots
                key = "wall_of_death" if ln.wall_of_death else "automatic_hits"
                out.steps.append({key: ln.model, "hits": shots})
            elif w.template:
                only = _template_floor(board, ln, targets, floor)
                aim = board.outline(ln.closest).center
                groups_hit[only] = sum(
                    under_template(board.outline(ln.model), aim, board.outline(t))
                    for t in (targets if only is None else only))
                out.shots += 1
            elif w.blast:
                for _ in range(shots):
                    n, only = blast_hits(board, roller, ln, bs, targets, out, floor)
                    groups_hit[only] = groups_hit.get(only, 0) + n
            else:
                groups_hit[None] = roll_hits(roller, ln, bs, shots, out)
            for only, hits in groups_hit.items():
                out.hits += hits
                found = _roll_wounds(board, roller, ln, hits, report, lines_by_model)
                pool += [replace(f, only=only) for f in found]
    out.wounds = len(pool)
    _gets_hot(board, roller, out)
    _allocate(board, roller, report, pool, out, go_to_ground)
    return out


def floors_at(board: Board, centre: tuple[float, float]) -> list[int] | None:
    """Levels of the ruin under a marker's centre that have flooring there (ground first), or
    None when the centre is not in a ruin with upper floors (§6.3)."""
    for pid in board.world.pieces_at(centre):
        entry = board.world.terrain[pid]
        if len(entry.floors) < 2 or entry.geometry.stand is None:
            continue
        scene = RayScene([entry.geometry.stand])
        levels = [0]
        for k, z in enumerate(entry.floors[1:], start=1):
            origin = np.array([[centre[0], centre[1], z + 0.05]])
            dist, _ = scene.first_hit(origin, np.array([[0.0, 0.0, -1.0]]), np.array([0.3]))
            if np.isfinite(dist[0]):
                levels.append(k)
        return levels
    return None


def _template_floor(board: Board, ln: FirerLine, targets: list[str],
                    floor: int | None) -> tuple[str, ...] | None:
    """A template in a ruin hits only the models on the declared floor (the aimed model's by
    default) (§6.3); None when no target model stands on an upper floor."""
    if all(not board.floor_of(t) for t in targets) and not floor:
        return None
    level = floor if floor is not None else board.floor_of(ln.closest) or 0
    return tuple(t for t in targets if (board.floor_of(t) or 0) == level)


def _roll_wounds(board, roller, ln: FirerLine, hits: int, report, lines_by_model) -> list[Wound]:
    w = ln.weapon
    if hits <= 0:
        return []
    order = report.order() or [ln.closest]
    first = order[0]
    profile = board.profile(first)
    found: list[Wound] = []
    if profile.is_vehicle:
        facing = shot_facing(board, first, ln.model, w.barrage)
        armour = profile.armour(facing) or 10
        av = min(armour, 12) if w.has("lance") else armour
        half = w.has("melta") and w.within_half(ln.distance or 99)
        strength = 3 if ln.strength is None else ln.strength
        for _ in range(hits):
            if half or w.has("armourbane"):
                dice = roller.d6(2, f"{ln.model} penetration 2D6+{strength} vs {facing} AV{av}")
                roll = sum(dice)
            elif w.kind == "ordnance":
                roll = max(roller.d6(2, f"{ln.model} ordnance penetration, highest die"))
            else:
                roll = roller.one(f"{ln.model} penetration D6+{strength} vs {facing} AV{av}")
                if roll == 6 and w.has("rending"):
                    roll += roller.d3("rending +D3")
            total = roll + strength
            if total >= av:
                found.append(Wound(w, strength, w.ap, ln.model,
                                   "glancing" if total == av else "penetrating"))
        return found
    need = to_wound(ln.strength, report.toughness or 4, sniper=w.has("sniper"),
                    fleshbane=w.has("fleshbane"))
    rend = w.has("rending") or w.has("sniper")
    if need is None and not rend:
        return []
    dice = roller.d6(hits, f"{ln.model} to wound with {w.name} ({need or 6}+)")
    for d in dice:
        if need is not None and d < need and w.has("shred"):
            d = roller.one("shred re-roll")
        if rend and d == 6:
            found.append(Wound(w, ln.strength, 2, ln.model))
        elif need is not None and d >= need:
            found.append(Wound(w, ln.strength, w.ap, ln.model))
    return found


def _gets_hot(board: Board, roller: Roller, out: Outcome) -> None:
    for model in out.firer_wounds:
        if not board.model(model).alive:
            continue
        profile = board.profile(model)
        save = model_save(profile, None, _NO_COVER, Weapon("gets hot", None, 0, None, "assault"))
        roll = roller.one(f"{model} gets hot! save ({save.need}+)")
        if save.need is None or roll < save.need:
            _take_wound(board, model, out, instant=False, why="gets hot")


def _take_wound(board: Board, model: str, out: Outcome, instant: bool, why: str) -> None:
    left = 0 if instant else board.model(model).wounds - 1
    board.set_wounds(model, max(0, left))
    if left <= 0:
        board.remove(model)
        out.casualties.append(model)
    out.steps.append({"model": model, "wound": why, "left": max(0, left)})


def _allocate(board: Board, roller: Roller, report: ShootingReport, pool: list[Wound],
              out: Outcome, go_to_ground: bool) -> None:
    lines = {t.model: t for t in report.targets}
    order = list(report.order())
    for wound in pool:
        order = [m for m in order if board.model(m).alive]
        allowed = order
        if wound.only is not None:  # a blast on one ruin floor: those models only (§6.3, A28)
            allowed = [m for m in order if m in wound.only] or sorted(
                (m for m in wound.only if board.model(m).alive),
                key=lambda m: board.gap(wound.firer, m) if board.model(wound.firer).on_table
                else 0.0)
        if not allowed:
            out.lost += 1
            continue
        model = allowed[0]
        model = _look_out_sir(board, roller, model, out)
        profile = board.profile(model)
        if profile.is_vehicle:
            cover = lines[model].cover
            if cover.in_cover and not wound.weapon.template:
                roll = roller.one(f"{model} obscured save ({cover.value}+)")
                if roll >= max(2, cover.value) and roll != 1:
                    out.saved += 1
                    out.steps.append({"model": model, "hit": wound.result, "saved": roll})
                    continue
            out.unsaved += 1
            step = apply_vehicle_hit(board, roller, model, wound.result, wound.ap)
            out.steps.append(step)
            if not board.model(model).alive:
                out.casualties.append(model)
            continue
        cover = lines[model].cover if model in lines else _NO_COVER
        if go_to_ground:
            cover = with_modifiers(board, cover, gone_to_ground=True, model=model)
        save = model_save(profile, wound.ap, cover, wound.weapon)
        roll = roller.one(f"{model} {save.kind} save ({save.need}+)" if save.need
                          else f"{model} no save")
        if save.need is not None and roll >= save.need and roll != 1:
            out.saved += 1
            out.steps.append({"model": model, "save": save.kind, "need": save.need,
                              "roll": roll, "saved": True})
            continue
        out.unsaved += 1
        instant = (wound.strength is not None and not profile.has("eternal warrior")
                   and wound.strength >= 2 * (profile.stat("T") or 99))
        _take_wound(board, model, out, instant,
                    f"{wound.weapon.name} ({save.kind} {save.need}+ failed: {roll})"
                    if save.need else f"{wound.weapon.name} (no save)")


def _look_out_sir(board: Board, roller: Roller, model: str, out: Outcome) -> str:
    """Characters may pass a wound to a squad-mate within 6" (4+, IC 2+) (§4.6)."""
    profile = board.profile(model)
    if not profile.is_character:
        return model
    unit = board.unit_of(model)
    mates = [m for m in board.unit_models(unit) if m != model
             and not board.profile(m).is_character]
    if not mates:
        return model
    nearest = min(mates, key=lambda m: board.gap(model, m))
    need = look_out_sir_need(profile.has("independent character"), board.gap(model, nearest))
    if need is None:
        return model
    roll = roller.one(f"{model} look out, sir! ({need}+)")
    out.steps.append({"look_out_sir": model, "roll": roll, "need": need,
                      "to": nearest if roll >= need else None})
    return nearest if roll >= need else model


class _NoCover:
    in_cover = False
    value = None


_NO_COVER: Any = _NoCover()


def allocate(board: Board, roller: Roller, report: ShootingReport, pool: list[Wound],
             out: Outcome, go_to_ground: bool = False) -> None:
    """Allocate and save a pool of wounds (closest first, Look Out Sir, best save) (§8.5)."""
    _allocate(board, roller, report, pool, out, go_to_ground)
