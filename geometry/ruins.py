"""Ruin builder: floor slabs and walls with real window openings, optionally broken tops.

Local frame before placing: the ruin's centre at the origin, north = +y edge, south = -y,
east = +x, west = -x. Each wall is one closed shell: its elevation (a grid of cells in the
wall's (along, up) plane, the window cells left out) extruded through the wall thickness, so
sight really passes through the openings. Walls and slabs are separate closed shells that overlap by
JOINT (0.001") where they meet, so they never share vertices and leave no slit at the joints.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from functools import partial

import numpy as np

from .mesh import Mesh
from .primitives import (
    ArrayLike,
    BuildInputError,
    concatenate,
    extrude,
    place,
    prism,
    rectangle,
    require_side,
    to_table,
    transform,
)
from .types import TerrainGeometry

__all__ = ["SIDES", "check_ruin", "ruin"]

SIDES = ("north", "south", "east", "west")
WINDOW_WIDTH = 1.5
WINDOW_HEIGHT = 1.2
WINDOW_SILL = 0.8  # window bottom above the floor top
MIN_WINDOW_HEIGHT = 0.5
PIER = 1.0  # solid wall between two windows
END_MARGIN = 0.4  # solid wall between a window and a wall end (or the wall it meets)
LINTEL = 0.2  # solid wall kept above a window
JOINT = 1e-3  # overlap of shells that meet
WALL_THICKNESS = 0.25
SLAB_THICKNESS = 0.2
BREAK_SPACING = (0.4, 0.9)  # spacing of the knots of a broken top edge
BREAK_DEPTH = 0.6  # deepest break, as a fraction of the top storey's height

# side -> (origin of the wall's outer face, along direction, inward normal)
_FRAMES = {
    "north": ((0.0, 1.0), (1.0, 0.0), (0.0, -1.0)),
    "south": ((0.0, -1.0), (1.0, 0.0), (0.0, 1.0)),
    "east": ((1.0, 0.0), (0.0, 1.0), (-1.0, 0.0)),
    "west": ((-1.0, 0.0), (0.0, 1.0), (1.0, 0.0)),
}


def _sides(walls: Iterable[str]) -> tuple[str, ...]:
    sides = tuple(str(w).lower() for w in walls)
    bad = [s for s in sides if s not in SIDES]
    if bad:
        raise ValueError(f"unknown ruin wall side(s) {bad}; use {list(SIDES)}")
    return tuple(s for s in SIDES if s in sides)


def _interior(a: float, b: float, t: float, has: dict[str, bool]) -> tuple[float, ...]:
    """(x0, x1, y0, y1) of the floor inside the walls of a ruin of half sizes a, b."""
    return (-a + (t - JOINT if has["west"] else 0.0), a - (t - JOINT if has["east"] else 0.0),
            -b + (t - JOINT if has["south"] else 0.0), b - (t - JOINT if has["north"] else 0.0))


def check_ruin(
    size: ArrayLike,
    height: float,
    floors: Sequence[float] = (),
    walls: Iterable[str] = SIDES,
    wall_thickness: float = WALL_THICKNESS,
    slab_thickness: float = SLAB_THICKNESS,
) -> tuple[float, float, float, tuple[float, ...], tuple[str, ...]]:
    """The ruin builder's preconditions, shared with the scene checks: BuildInputError (naming
    `size`, `height`, `floors` or `walls`) when `ruin` could not build these.

    The ground slab's top is a level too: each floor top is at least two slab thicknesses above
    the level below it (the first above the ground slab's top), and below `height`; the walls
    leave room for a floor between them. Returns (sx, sy, height, levels, sides).
    """
    sx, sy = (float(v) for v in size)
    height, t, st = float(height), float(wall_thickness), float(slab_thickness)
    for v in (sx, sy):
        require_side("size", v, "ruin")
    for name, value in (("wall_thickness", t), ("slab_thickness", st)):
        require_side(name, value, "ruin")
    if not (math.isfinite(height) and height > st):
        raise BuildInputError("height", f'a ruin must be taller than its {st:g}" ground slab, '
                                        f"got height {height:g}")
    try:
        sides = _sides(walls)
    except ValueError as exc:
        raise BuildInputError("walls", str(exc)) from None
    levels = (st, *(float(f) for f in floors))
    for below, above in zip(levels, levels[1:], strict=False):
        if not above - st >= below + st - 1e-9:
            raise BuildInputError(
                "floors", f'floors must be at least {2 * st:g}" above the level below (the ground '
                          f'slab\'s top is at {st:g}"): floor {above:g} is too close to {below:g}')
    if len(levels) > 1 and levels[-1] >= height:
        raise BuildInputError("floors", f"floor heights must be below the ruin's height "
                                        f"{height:g}, got {levels[-1]:g}")
    has = {s: s in sides for s in SIDES}
    x0, x1, y0, y1 = _interior(0.5 * sx, 0.5 * sy, t, has)
    if x1 - x0 <= 0.1 or y1 - y0 <= 0.1:
        raise BuildInputError("size", f'ruin of size [{sx:g}, {sy:g}] leaves no room for a floor '
                                      f'inside its {t:g}" walls')
    return sx, sy, height, levels, sides


def _window_columns(u0: float, u1: float) -> list[tuple[float, float]]:
    """(start, end) along the wall of each window column fitting between u0 and u1, centred."""
    length = u1 - u0
    n = int(math.floor((length + PIER) / (WINDOW_WIDTH + PIER) + 1e-9))
    if n < 1:
        return []
    span = n * WINDOW_WIDTH + (n - 1) * PIER
    start = 0.5 * (u0 + u1) - 0.5 * span
    return [
        (start + i * (WINDOW_WIDTH + PIER), start + i * (WINDOW_WIDTH + PIER) + WINDOW_WIDTH)
        for i in range(n)
    ]


def _top_edge(
    u0: float, u1: float, height: float, depth: float, rng: np.random.Generator | None
) -> np.ndarray:
    """(k, 2) knots (u, z) of the wall's top edge from u0 to u1: flat at height, or jagged with
    breaks down to height - depth when rng is given."""
    if rng is None or depth <= 0:
        return np.array([[u0, height], [u1, height]])
    us = [u0]
    while True:
        step = rng.uniform(*BREAK_SPACING)
        if us[-1] + step >= u1 - 0.5 * BREAK_SPACING[0]:
            break
        us.append(us[-1] + step)
    us.append(u1)
    zs = height - rng.uniform(0.0, depth, size=len(us))
    return np.column_stack([us, zs])


def _window_rows(
    storeys: Sequence[tuple[float, float]], top: np.ndarray
) -> list[tuple[float, float]]:
    """(bottom, top) of the windows of each storey that has room for them: under the storey's
    ceiling and under the lowest point of the (possibly broken) top edge, LINTEL to spare."""
    rows = []
    limit = float(np.min(top[:, 1])) - LINTEL
    for lo, ceiling in storeys:
        z0 = lo + WINDOW_SILL
        z1 = min(z0 + WINDOW_HEIGHT, ceiling - LINTEL)
        if z1 - z0 >= MIN_WINDOW_HEIGHT and z1 <= limit:
            rows.append((z0, z1))
    return rows


def _wall_elevation(
    top: np.ndarray, rows: Sequence[tuple[float, float]], columns: Sequence[tuple[float, float]]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Triangulated elevation of one wall in its (u along, z up) plane: (points (n, 2), CCW
    triangles (m, 3), and which triangles (m,) bool make its core).

    A grid whose columns break at the wall ends, the window edges and the top edge's knots, and
    whose rows break at 0 and at the window sills and heads; every cell is two triangles except
    the window cells (holes). The last row reaches up to the top edge. Cells share full edges,
    so the extrusion is watertight. The core is the wall below its lowest window (the bottom
    row under a window column, every row elsewhere): solid from the table up at each point
    along the wall, a column (`TerrainGeometry.core`).
    """
    us = np.concatenate([top[:, 0], np.ravel(columns)]) if columns else top[:, 0]
    us = np.unique(np.round(us, 9))
    zs = np.array([0.0, *np.ravel(rows)])
    nu, nz = len(us), len(zs) + 1
    tops = np.interp(us, top[:, 0], top[:, 1])
    grid_u = np.repeat(us[:, None], nz, axis=1)
    grid_z = np.column_stack([np.repeat(zs[None], nu, axis=0), tops])
    points = np.column_stack([grid_u.ravel(), grid_z.ravel()])
    index = np.arange(nu * nz).reshape(nu, nz)
    mid_u = 0.5 * (us[:-1] + us[1:])
    in_window = np.zeros(nu - 1, dtype=bool)
    for a, b in columns:
        in_window |= (mid_u > a) & (mid_u < b)
    tris, core = [], []
    for j in range(nz - 1):
        cells = np.arange(nu - 1)
        if j % 2 == 1:  # rows 1, 3, ... lie between a sill and a head
            cells = cells[~in_window]
        p00, p10 = index[cells, j], index[cells + 1, j]
        p01, p11 = index[cells, j + 1], index[cells + 1, j + 1]
        tris += [np.column_stack([p00, p10, p11]), np.column_stack([p00, p11, p01])]
        below = np.ones(len(cells), dtype=bool) if j == 0 else ~in_window[cells]
        core += [below, below]
    return points, np.concatenate(tris), np.concatenate(core)


def _wall_mesh(
    side: str, half: tuple[float, float], thickness: float, points: np.ndarray, tris: np.ndarray
) -> Mesh:
    """The wall's elevation extruded through its thickness and stood on its side of the ruin."""
    (ox, oy), along, inward = _FRAMES[side]
    return _stand_wall((ox * half[0], oy * half[1]), along, inward, thickness, points, tris)


def _stand_wall(origin: ArrayLike, along: ArrayLike, inward: ArrayLike, thickness: float,
                points: np.ndarray, tris: np.ndarray) -> Mesh:
    """A wall elevation (u along, z up) extruded `thickness` inward from its outer face, the
    face's u = 0 at `origin`: the plan frame (origin, along, inward) is unit and right-handed."""
    m = np.eye(4)
    # extrusion coordinates (u, z, w) -> plan (origin + u * along + w * inward, z)
    m[:3, 0] = (along[0], along[1], 0.0)
    m[:3, 1] = (0.0, 0.0, 1.0)
    m[:3, 2] = (inward[0], inward[1], 0.0)
    m[:3, 3] = (origin[0], origin[1], 0.0)
    return transform(extrude(points, tris, 0.0, thickness), m)


def _slab_outline(x0: float, x1: float, y0: float, y1: float, stair_gap: bool) -> np.ndarray:
    """CCW outline of a slab over [x0, x1] x [y0, y1], less a stair opening at its south-west
    corner when stair_gap."""
    if not stair_gap:
        return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    gx = min(1.5, 0.3 * (x1 - x0))
    gy = min(2.5, 0.4 * (y1 - y0))
    return np.array(
        [[x0 + gx, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0 + gy], [x0 + gx, y0 + gy]]
    )


def ruin(
    at: ArrayLike,
    size: ArrayLike,
    height: float,
    floors: Sequence[float] = (),
    walls: Iterable[str] = SIDES,
    windows: bool = True,
    rotation: float = 0.0,
    broken: bool = False,
    wall_thickness: float = WALL_THICKNESS,
    slab_thickness: float = SLAB_THICKNESS,
    seed: int = 0,
    stair_gap: bool = False,
) -> TerrainGeometry:
    """A ruined building of plan size (sx, sy) centred on at, walls up to `height`.

    - ground slab: z 0 .. slab_thickness over the interior (inside the walls); its top is
      floors[0] of the result.
    - one upper slab per entry of `floors` (the z of the slab's TOP, increasing, each at least two
      slab thicknesses above the previous one, at most `height`), over the interior, less a stair
      opening (1.5" x 2.5" at most) at the interior's south-west corner when stair_gap.
    - walls on the named sides, outer faces on the footprint's edges, wall_thickness thick, from
      the table to `height`. North and south walls run the full width; east and west walls fit
      between them.
    - windows=True: each storey of each wall has openings WINDOW_WIDTH x WINDOW_HEIGHT (lower
      where the storey is low) WINDOW_SILL above the storey's floor, PIER apart, centred on the
      wall, END_MARGIN from its ends and from the walls it meets.
    - broken=True: a jagged top edge, knots every 0.4-0.9" dropping by up to BREAK_DEPTH of the
      top storey's height, deterministic for a given seed; a storey whose windows would come
      within LINTEL of the wall's lowest break has no windows on that wall.

    Returns TerrainGeometry(solid=slabs + walls, stand=slabs, floors=(slab_thickness, *floors),
    footprint=(4, 2) CCW rotated rectangle, core=ground slab + walls below their lowest windows,
    overhang=upper slabs + walls from their lowest windows up).
    """
    sx, sy, height, levels, sides = check_ruin(size, height, floors, walls, wall_thickness,
                                               slab_thickness)
    t, st = float(wall_thickness), float(slab_thickness)
    a, b = 0.5 * sx, 0.5 * sy
    has = {s: s in sides for s in SIDES}
    x0, x1, y0, y1 = _interior(a, b, t, has)

    slabs = [prism(_slab_outline(x0, x1, y0, y1, False), 0.0, st)]
    slabs += [prism(_slab_outline(x0, x1, y0, y1, stair_gap), f - st, f) for f in levels[1:]]
    ceilings = [f - st for f in levels[1:]] + [height]
    storeys = list(zip(levels, ceilings, strict=True))
    depth = BREAK_DEPTH * (height - levels[-1]) if broken else 0.0
    rng = np.random.default_rng(seed) if broken else None

    wall_meshes, wall_cores, wall_rest = [], [], []
    for side in sides:
        if side in ("north", "south"):
            u0, u1 = -a, a
            c0 = u0 + END_MARGIN + (t if has["west"] else 0.0)
            c1 = u1 - END_MARGIN - (t if has["east"] else 0.0)
        else:
            u0 = -b + (t - JOINT if has["south"] else 0.0)
            u1 = b - (t - JOINT if has["north"] else 0.0)
            c0, c1 = u0 + END_MARGIN + JOINT, u1 - END_MARGIN - JOINT
        top = _top_edge(u0, u1, height, depth, rng)
        columns = _window_columns(c0, c1) if windows else []
        rows = _window_rows(storeys, top) if columns else []
        points, tris, core = _wall_elevation(top, rows, columns)
        _wall_parts(partial(_wall_mesh, side, (a, b), t, points), tris, core,
                    (wall_meshes, wall_cores, wall_rest))

    stand = place(concatenate(slabs), at, rotation)
    walls_mesh = concatenate(wall_meshes)
    solid = concatenate([stand, place(walls_mesh, at, rotation) if walls_mesh else None])
    return TerrainGeometry(
        solid=solid,
        stand=stand,
        floors=levels,
        footprint=to_table(rectangle(sx, sy), at, rotation),
        core=place(concatenate([slabs[0], *wall_cores]), at, rotation),
        overhang=_overhang([place(m, at, rotation) for m in slabs[1:] + wall_rest]),
    )


def wall_plan(at: ArrayLike, size: ArrayLike, walls: Iterable[str] = SIDES, rotation: float = 0.0,
              wall_thickness: float = WALL_THICKNESS) -> list[np.ndarray]:
    """The plan of each wall `ruin` builds on a rectangle: a (4, 2) strip on the table per
    named side, its outer edge on the footprint's edge, `wall_thickness` deep inside it (where
    the scene checks find a base inside a wall)."""
    a, b = 0.5 * float(size[0]), 0.5 * float(size[1])
    t = float(wall_thickness)
    strips = []
    for side in _sides(walls):
        (ox, oy), along, inward = _FRAMES[side]
        half = a if side in ("north", "south") else b
        edge = np.array([ox * a, oy * b]) + np.outer((-half, half), along)
        local = np.vstack([edge, edge[::-1] + np.asarray(inward) * t])
        strips.append(to_table(local, at, rotation))
    return strips


def _wall_parts(stand: Callable[[np.ndarray], Mesh], tris: np.ndarray, core: np.ndarray,
                into: tuple[list, list, list]) -> None:
    """Add a wall, its core and the rest of it (where the core is not all of it) to the three
    lists `into`, each stood up by stand(triangles of the wall's elevation); core: which
    triangles are the core's (`_wall_elevation`)."""
    walls, cores, rest = into
    walls.append(stand(tris))
    cores.append(stand(tris[core]))
    if not core.all():
        rest.append(stand(tris[~core]))


def _overhang(meshes: list[Mesh]) -> Mesh | None:
    """A ruin's overhang (its upper slabs, and its walls from their lowest windows up), or None
    where it has none."""
    return concatenate(meshes) if meshes else None
