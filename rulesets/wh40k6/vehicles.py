"""Vehicles: facings, weapon arcs, move-and-fire, obscured cover, hull points and damage
(wh40k6 §4.5, §5.9, §8.9, §8.10)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from battlesight.geometry.visibility import Visibility
from battlesight.rulesets.core.measure import (
    Outline,
    elevation_angle,
    relative_bearing,
    vehicle_facing,
)
from battlesight.rulesets.core.ruling import Cover, Ruling

from .ambiguities import A12, A15
from .cover import occluder_value
from .profile import Profile, Weapon
from .tables import penetration_dist

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_FACING = "wh40k6 §4.5"
RULE_OBSCURED = "wh40k6 §5.9"
RULE_PEN = "wh40k6 §8.9"
RULE_SPEED = "wh40k6 §8.10"
FACINGS = ("front", "side", "rear")
VERTICAL_LIMIT = 45.0
COMBAT_SPEED = 6.0  # the farthest a combat-speed move goes (§7.3)


def facing_of_samples(hull: Outline, points: np.ndarray) -> np.ndarray:
    """(m,) facing name of each surface sample: the nearest vertical face of the hull box."""
    local = hull.to_local(points[:, :2]) if len(points) else np.zeros((0, 2))
    along, across = hull.radii
    front = along - local[:, 1]
    rear = local[:, 1] + along
    side = across - np.abs(local[:, 0])
    which = np.argmin(np.column_stack([front, side, rear]), axis=1)
    return np.array(FACINGS, dtype=object)[which]


def weapon_can_bear(board: Board, vehicle: str, weapon: Weapon, target_point: np.ndarray,
                    side: str | None = None) -> Ruling:
    """Whether a vehicle weapon's arc covers the target point (§4.5, A12: hull 45 degrees
    total; sponsons 180 degrees on their side; guns elevate and depress 45 degrees)."""
    outline = board.outline(vehicle)
    origin = board.eye(vehicle)
    elevation = elevation_angle(origin, target_point)
    if abs(elevation) > VERTICAL_LIMIT + 1e-9:
        return Ruling(False, RULE_FACING, f"target {elevation:.0f} degrees above/below: guns "
                      f"elevate only {VERTICAL_LIMIT:.0f}", geometry={"elevation": elevation})
    off = relative_bearing(outline.facing, outline.center, target_point[:2])
    arc = weapon.arc
    if weapon.mount == "sponson":
        centres = {"left": 90.0, "right": -90.0}
        chosen = [centres[side]] if side in centres else list(centres.values())
        ok = any(abs((off - c + 180) % 360 - 180) <= arc / 2 + 1e-9 for c in chosen)
    else:
        half = arc if weapon.mount == "hull" and A12.means("45-each-side") else arc / 2
        ok = arc >= 360 or abs(off) <= half + 1e-9
    reason = "" if ok else f"target {abs(off):.0f} degrees off the {weapon.mount} mount " \
                           f"(arc {arc:.0f})"
    return Ruling(ok, RULE_FACING, reason, geometry={"bearing": off, "elevation": elevation})


def full_bs_weapons(profile: Profile, speed: str) -> int | None:
    """How many weapons fire at full BS at this speed (None: all) (§8.10 table)."""
    kinds = profile.kinds
    if speed == "stationary" or "heavy" in kinds or profile.is_walker:
        return None
    if "flyer" in kinds or profile.type == "flyer":
        return 4
    if speed == "combat":
        return None if "fast" in kinds else 1
    return 2 if "fast" in kinds else 0


def speed_of(moved: float) -> str:
    """'stationary', 'combat' (up to 6") or 'cruising' (over 6") (§7.3)."""
    if moved <= 1e-9:
        return "stationary"
    return "combat" if moved <= COMBAT_SPEED + 1e-9 else "cruising"


def max_penetration(weapon: Weapon, strength: int | None, armour: int,
                    melta_half: bool = False) -> bool:
    """Whether the weapon can glance at all against this armour (firers that cannot are left
    out of the obscured count, §5.9)."""
    if strength is None:
        strength = 3  # sniper counts as S3 against vehicles (§8.8)
    dist = penetration_dist(strength, ordnance=weapon.kind == "ordnance", melta_half=melta_half,
                            armourbane=weapon.has("armourbane"), rending=weapon.has("rending"))
    av = min(armour, 12) if weapon.has("lance") else armour
    return max(v for v, _ in dist) >= av


@dataclass
class FacingView:
    """One firer's view of the facing it shoots: share of that facing hidden, by what."""

    firer: str
    facing: str
    hidden: float
    hiders: dict[str, float]
    seen_any: bool
    other_visible: str | None  # a facing it can see when it sees none of its own


def facing_view(board: Board, vehicle: str, vis: Visibility) -> FacingView:
    hull = board.outline(vehicle)
    firer = vis.observer or ""
    facing = vehicle_facing(hull, board.eye(firer)[:2])
    labels = facing_of_samples(hull, vis.points)
    mine = labels == facing
    seen = vis.blocker_of < 0
    hidden = 1.0 - float(seen[mine].mean()) if mine.any() else 1.0
    hiders: dict[str, float] = {}
    if mine.any():
        for idx in vis.blocker_of[mine & ~seen]:
            owner = vis.owners[idx]
            hiders[owner] = hiders.get(owner, 0.0) + 1.0 / mine.sum()
    other = None
    if not (mine & seen).any():
        for f in FACINGS:
            if f != facing and ((labels == f) & seen).any():
                other = f
                break
    return FacingView(firer, facing, hidden, hiders, bool((mine & seen).any()), other)


def vehicle_cover(board: Board, vehicle: str, views: list[FacingView]) -> Cover:
    """Obscured (§5.9): at least 25% of the facing shot hidden from a strict majority of the
    firers able to hurt it (A15); value from the occluders; +1 when the firers cannot see the
    facing towards them and shoot another (§4.5)."""
    if not views:
        return Cover.none(RULE_OBSCURED)
    by_facing: dict[str, list[FacingView]] = {}
    for v in views:
        by_facing.setdefault(v.facing, []).append(v)
    best: Cover | None = None
    for facing, group in by_facing.items():
        hidden = [v for v in group if v.hidden >= 0.25 - 1e-9]
        if len(hidden) * 2 < len(group) or (len(hidden) * 2 == len(group)
                                            and A15.means("more-than-half")):
            continue
        values = []
        for v in hidden:
            for owner in v.hiders:
                value, kind, rule = occluder_value(board, owner)
                if value is not None:
                    values.append((value, owner, kind))
        if not values:
            continue
        value, owner, kind = min(values)
        source = board.unit_of(owner) if kind == "models" else owner
        cover = Cover(True, value, "save", kind, source, RULE_OBSCURED,
                      max(v.hidden for v in group), None,
                      [f"{len(hidden)} of {len(group)} firers see >=25% of the {facing} hidden"])
        if best is None or cover.value < best.value:
            best = cover
    blind = [v for v in views if not v.seen_any and v.other_visible]
    if blind and len(blind) == len(views):
        base = best.value if best and best.value else None
        value = max(2, (base if base is not None else 7) - 1)
        note = f"facing towards the firers unseen: shoots the {blind[0].other_visible}, +1 cover"
        if base is None:
            return Cover.none(RULE_FACING, note=note + " (no cover to improve)")
        return Cover(True, value, "save", best.kind, best.source, RULE_FACING,
                     best.obscured, None, [*best.notes, note])
    return best or Cover.none(RULE_OBSCURED, max(v.hidden for v in views))


def shot_facing(board: Board, vehicle: str, firer: str, barrage: bool = False) -> str:
    """Armour a shot strikes: from the firer's sight point (A13); barrage always side."""
    if barrage:
        return "side"
    return vehicle_facing(board.outline(vehicle), board.eye(firer)[:2])


def jink_cover(moved: bool, flat_out: bool = False, skilled_rider: bool = False) -> int | None:
    """Jink (bikes, jetbikes, skimmers, §5.2): 5+ if it moved, 4+ if it went flat out or
    turbo-boosted; Skilled Rider improves it by 1."""
    if not moved and not flat_out:
        return None
    value = 4 if flat_out else 5
    return max(2, value - (1 if skilled_rider else 0))


def zooming_flyer_crashes(moved: float) -> bool:
    """A zooming flyer must move at least 18" in its movement phase or it crashes (§7.3)."""
    return moved < 18.0 - 1e-9
