"""Placing imported units in a deployment zone in legal formation: each unit a block of files
and ranks facing the table's centre, its bases the system's gap apart (within its coherency),
every base wholly inside the zone, clear of terrain footprints and of the bases already there.

Candidate block centres are tried on a 1" grid over the zone, nearest the zone's middle first;
the first that fits is taken. A unit that fits nowhere is refused with the reason.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from .common import Ids, ImportOptions, r, refuse

MM_PER_INCH = 25.4
#: gap kept to other units' bases and to terrain, inches
CLEAR = 1.0
#: most models in a rank (files)
FILES = 5
GRID = 1.0


def block(count: int, base_mm: float, gap: float) -> np.ndarray:
    """(count, 2) offsets of a block's models in its own frame, bases `gap` apart: x across
    (files), y forward (the front rank at y = 0, the ranks behind at negative y), centred
    across."""
    files = min(count, FILES)
    step = base_mm / MM_PER_INCH + gap
    i = np.arange(count)
    col, row = i % files, i // files
    x = (col - (files - 1) / 2.0) * step
    return np.column_stack([x, -row * step])


def place_units(blocks: list[tuple[str, int, float]], options: ImportOptions, ids: Ids,
                file: Path) -> list[dict[str, Any]]:
    """Model entries for each (unit id, model count, base mm), placed in options.zone, each
    unit's bases the system's `unit_gap` apart."""
    import shapely

    if options.zone is None:
        raise refuse(file, "zone", "no deployment zone to place the roster in (give --onto)")
    zone = shapely.Polygon(options.zone)
    blocked = shapely.union_all([shapely.Polygon(p).buffer(0) for p in options.blocked]) \
        if options.blocked else None
    taken = list(options.taken)
    middle = np.asarray(zone.centroid.coords[0])
    centre = np.asarray(options.table, dtype=np.float64) / 2.0 if options.table else middle
    lo, hi = np.asarray(zone.bounds[:2]), np.asarray(zone.bounds[2:])
    xs, ys = np.arange(lo[0], hi[0] + 1e-9, GRID), np.arange(lo[1], hi[1] + 1e-9, GRID)
    grid = np.array([(x, y) for y in ys for x in xs])
    grid = grid[np.argsort(np.hypot(*(grid - middle).T), kind="stable")]
    out = []
    for unit, count, base in blocks:
        radius = base / MM_PER_INCH / 2.0
        offsets = block(count, base, options.system.unit_gap)
        offsets[:, 1] -= offsets[:, 1].min() / 2.0  # the block's middle on the candidate
        spot = None
        for c in grid:
            d = centre - c
            facing = math.degrees(math.atan2(-d[0], d[1])) if np.hypot(*d) > 1e-9 else 0.0
            a = math.radians(facing)
            right, fwd = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a),
                                                                        math.cos(a)])
            pts = c + offsets[:, :1] * right + offsets[:, 1:] * fwd
            if _fits(pts, radius, zone, blocked, taken):
                spot = (pts, facing)
                break
        if spot is None:
            raise refuse(file, f"units[{unit}]",
                         f"{count} models on {base:g} mm bases do not fit in player "
                         f"{options.player}'s deployment zone clear of terrain and other models")
        pts, facing = spot
        for k, (x, y) in enumerate(pts):
            out.append({"id": ids.new(f"{unit}-{k + 1}"), "unit": unit, "at": [r(x), r(y)],
                        "facing": r(facing), "base": r(base)})
            taken.append((float(x), float(y), radius))
    return out


def _fits(pts: np.ndarray, radius: float, zone, blocked, taken) -> bool:
    import shapely

    discs = shapely.buffer(shapely.points(pts), radius, quad_segs=8)
    if not all(zone.contains(d) for d in discs):
        return False
    if blocked is not None and any(d.distance(blocked) < CLEAR for d in discs):
        return False
    for x, y, rad in taken:
        if np.min(np.hypot(pts[:, 0] - x, pts[:, 1] - y)) < radius + rad + CLEAR:
            return False
    return True
