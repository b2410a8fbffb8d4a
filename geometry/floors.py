"""The storeys of a mesh building, found from its horizontal surfaces.

A storey is a height at which the mesh has enough walkable surface: its near-horizontal,
upward-facing triangles (normal within FLAT_DEGREES of straight up) are grouped by height
(heights closer than LEVEL_GAP apart are one level) and a group counts when its plan area is at
least FLOOR_MIN_AREA and FLOOR_MIN_SHARE of the largest group's, and when somewhere on it a
base of MIN_BASE_MM (25 mm, the smallest round base) fits whole (the 4 mm tops of a roofless
building's walls are no storey however long they are); of levels less than
MIN_STOREY apart (a step, a plinth on a plinth) the larger one counts. Ground level comes
first: the lowest level, or the table (the mesh's bottom) when the lowest level is MIN_STOREY
or more above it (a building without a ground slab). The roof counts as the top storey.

A mesh with fewer than two levels (a rock, a statue, a hill) has no storeys: models stand on
whatever is under them, as on a hill.

All of it is one vectorised pass over the faces; the room test unions a level's triangles by
their outline (`geometry.outline.triangles_union`, to its 0.01" tolerance).
"""

from __future__ import annotations

import math

import numpy as np

from .outline import OUTLINE_TOLERANCE, triangles_union

__all__ = ["CLEARANCE", "FLAT_DEGREES", "MIN_BASE_MM", "find_floors", "has_room", "walkable"]

FLAT_DEGREES = 10.0
LEVEL_GAP = 0.05  # inches (1.3 mm)
FLOOR_MIN_AREA = 1.0  # square inches
FLOOR_MIN_SHARE = 0.1
MIN_STOREY = 1.0  # inches: levels closer than this are one storey (the larger one counts)
MIN_BASE_MM = 25.0  # a storey has room for a round base this wide somewhere on it
#: inches: closes the cracks the outline's snapping can leave between a level's triangles
_WELD = OUTLINE_TOLERANCE


def find_floors(vertices: np.ndarray, faces: np.ndarray) -> tuple[float, ...]:
    """z of each storey of a mesh (ground first, see the module docstring); () for fewer than
    two levels."""
    v = np.asarray(vertices, dtype=np.float64)
    faces = np.asarray(faces)
    # the corners a coordinate at a time, (m, 3) each, z only where the face looks up: numpy's
    # cross and norm of (m, 3) rows took four times as long on a 1M-face mesh
    x, y = v[:, 0][faces], v[:, 1][faces]
    ax, ay = x[:, 1] - x[:, 0], y[:, 1] - y[:, 0]
    bx, by = x[:, 2] - x[:, 0], y[:, 2] - y[:, 0]
    nz = ax * by - ay * bx  # twice the plan area: the normal's up part
    up = np.flatnonzero(nz > 0)  # only these can be flat: walls and undersides drop out here
    z = v[:, 2][faces[up]]
    ax, ay, bx, by, nz = ax[up], ay[up], bx[up], by[up], nz[up]
    az, bz = z[:, 1] - z[:, 0], z[:, 2] - z[:, 0]
    nx, ny = ay * bz - az * by, az * bx - ax * bz
    cos2 = math.cos(math.radians(FLAT_DEGREES)) ** 2
    flat = nz * nz > cos2 * (nx * nx + ny * ny + nz * nz)
    if not flat.any():
        return ()
    z = z[flat]
    height_of = (z[:, 0] + z[:, 1] + z[:, 2]) / 3.0
    order = np.argsort(height_of)
    kept = up[flat][order]
    z, area = height_of[order], 0.5 * nz[flat][order]
    plan = np.stack([x[kept], y[kept]], axis=-1)  # (k, 3, 2)
    group = np.concatenate([[0], np.cumsum(np.diff(z) > LEVEL_GAP)])
    total = np.bincount(group, weights=area)
    height = np.bincount(group, weights=area * z) / np.maximum(total, 1e-300)
    keep = (total >= FLOOR_MIN_AREA) & (total >= FLOOR_MIN_SHARE * total.max())
    for g in np.flatnonzero(keep):
        keep[g] = has_room(plan[group == g])
    levels: list[tuple[float, float]] = []  # (z, area), at least MIN_STOREY apart
    for h, a in zip(height[keep].tolist(), total[keep].tolist(), strict=True):
        if levels and h - levels[-1][0] < MIN_STOREY:
            if a > levels[-1][1]:
                levels[-1] = (h, a)
            continue
        levels.append((h, a))
    out = [h for h, _ in levels]
    bottom = float(v[:, 2].min())
    if out and out[0] - bottom >= MIN_STOREY:
        out.insert(0, bottom)
    return tuple(out) if len(out) >= 2 else ()


def has_room(triangles: np.ndarray, base_mm: float = MIN_BASE_MM) -> bool:
    """Whether a round base of base_mm fits whole on the union of plan triangles (m, 3, 2),
    inches: the union (geometry.outline, to its tolerance), its cracks up to twice that wide
    closed, shrunk by the base's radius is not empty."""
    surface = triangles_union(triangles).buffer(_WELD)
    return not surface.buffer(-(base_mm / 25.4 / 2.0 + _WELD)).is_empty


#: Free height a surface needs above it to be stood on, inches (the table under a solid block
#: is not a floor).
CLEARANCE = 0.5


def walkable(hits: np.ndarray, table: float = 0.0) -> list[float]:
    """The surfaces one can stand on along a vertical line through a closed mesh, from its
    crossings (z, highest first) going down: where the line enters the mesh (the 1st, 3rd, ...
    crossing: the top of a slab, a roof) and the table when the line leaves the mesh above it,
    each with at least CLEARANCE free above it."""
    z = np.sort(np.asarray(hits, dtype=np.float64))[::-1]
    out = []
    for i in range(0, len(z), 2):
        room = math.inf if i == 0 else z[i - 1] - z[i]
        if room >= CLEARANCE:
            out.append(float(z[i]))
    if len(z) % 2 == 0 and (not len(z) or z[-1] - table >= CLEARANCE):
        out.append(float(table))
    return out
