"""Polygonal ruins: a ruin on any simple polygon (an L, a trapezoid), its walls, windows, broken
tops, floors, core and overhang made as `ruins.ruin` makes a rectangle's."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial

import numpy as np

from .primitives import ArrayLike, BuildInputError, concatenate, prism
from .ruins import (
    BREAK_DEPTH,
    END_MARGIN,
    JOINT,
    SLAB_THICKNESS,
    WALL_THICKNESS,
    _overhang,
    _stand_wall,
    _top_edge,
    _wall_elevation,
    _wall_parts,
    _window_columns,
    _window_rows,
    check_ruin,
)
from .types import TerrainGeometry

__all__ = ["check_polygon_ruin", "polygon_ruin", "polygon_wall_plan"]


def _edge_frame(outline: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray, float,
                                                       np.ndarray, np.ndarray]:
    """Edge i of a CCW outline: its ends a, b, its length, and the unit directions along it
    and inward (left of it; both zero for an edge of no length)."""
    a, b = outline[i], outline[(i + 1) % len(outline)]
    length = float(np.hypot(*(b - a)))
    along = (b - a) / length if length > 0 else np.zeros(2)
    return a, b, length, along, np.array([-along[1], along[0]])


def _wall_strips(outline: np.ndarray, walled: Iterable[int], depth: float) -> list[np.ndarray]:
    """A (4, 2) strip `depth` deep inside each walled edge of a CCW outline (a repeated point
    holds no wall)."""
    strips = []
    for i in walled:
        a, b, length, _, inward = _edge_frame(outline, i)
        if length > 0:
            strips.append(np.array([a, b, b + inward * depth, a + inward * depth]))
    return strips


def polygon_wall_plan(polygon: ArrayLike, height: float, floors: Sequence[float] = (),
                      walls: Iterable[int] | None = None,
                      wall_thickness: float = WALL_THICKNESS) -> list[np.ndarray]:
    """The plan of each wall `polygon_ruin` builds: a (4, 2) strip on the table per walled
    edge, `wall_thickness` deep inside it (where the scene checks find a base inside a wall).
    BuildInputError as `check_polygon_ruin`."""
    outline, _, _, walled = check_polygon_ruin(polygon, height, floors, walls, wall_thickness)
    return _wall_strips(outline, walled, wall_thickness)


def _floor(outline: np.ndarray, walled: Iterable[int], by: float):
    """The floor of a polygonal ruin (CCW outline): the outline less the ground under each
    walled edge's wall (a strip `by` deep inside the edge; an edge without a wall keeps its
    floor to the edge, as a rectangular ruin's open sides do). A CCW shapely Polygon, or None
    when nothing is left; a MultiPolygon when the walls cut the floor apart (slivers under
    0.01 square inches at the walls' corners dropped)."""
    import shapely
    from shapely.geometry.polygon import orient

    strips = [shapely.Polygon(s) for s in _wall_strips(outline, walled, by)]
    floor = shapely.Polygon(outline)
    if strips:
        floor = floor.difference(shapely.union_all(strips))
    parts = [g for g in getattr(floor, "geoms", [floor])
             if g.geom_type == "Polygon" and g.area > 0.01]
    if not parts:
        return None
    return orient(parts[0], 1.0) if len(parts) == 1 else shapely.MultiPolygon(parts)


def check_polygon_ruin(
    polygon: ArrayLike,
    height: float,
    floors: Sequence[float] = (),
    walls: Iterable[int] | None = None,
    wall_thickness: float = WALL_THICKNESS,
    slab_thickness: float = SLAB_THICKNESS,
) -> tuple[np.ndarray, float, tuple[float, ...], tuple[int, ...]]:
    """The polygonal ruin builder's preconditions, shared with the scene checks: BuildInputError
    naming `polygon`, `height`, `floors` or `walls` (edge numbers: edge i runs from point i to
    point i + 1 as written). Returns (CCW outline, height, levels, walled edges of the CCW
    outline)."""
    return _checked(polygon, height, floors, walls, wall_thickness, slab_thickness)[:4]


def _checked(polygon, height, floors, walls, wall_thickness, slab_thickness) -> tuple:
    """`check_polygon_ruin`'s checks and its answer, and the floor they made (`_floor`)."""
    from .plan import clean_ring, signed_area
    from .primitives import require_simple_polygon

    require_simple_polygon(polygon, "polygon")
    raw = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    if len(raw) > 3 and np.allclose(raw[0], raw[-1], rtol=0.0, atol=1e-9):
        raw = raw[:-1]  # a closed ring (GeoJSON's): the outline closes by itself
    n = len(raw)
    edges = tuple(range(n)) if walls is None else tuple(int(w) for w in walls)
    bad = [w for w in edges if not 0 <= w < n]
    if bad:
        raise BuildInputError("walls", f"edge numbers run from 0 to {n - 1} for a {n}-point "
                                       f"polygon, got {bad}")
    # the walls' lengths in the points' order as written, so a refusal names the user's edges
    lengths = np.linalg.norm(np.roll(raw, -1, axis=0) - raw, axis=1)
    short = sorted({w for w in edges if lengths[w] < 2 * wall_thickness})
    # the builder works on the counter-clockwise outline: renumber the edges if it is reversed
    if signed_area(raw) < 0:
        raw, edges = raw[::-1].copy(), tuple(sorted(n - 2 - w if w < n - 1 else n - 1
                                                    for w in edges))
    try:
        clean_ring(raw)
    except ValueError as exc:
        raise BuildInputError("polygon", str(exc)) from None
    _, _, height, levels, _ = check_ruin((1.0, 1.0), height, floors, (), wall_thickness,
                                         slab_thickness)
    floor = _floor(raw, edges, wall_thickness - JOINT)
    if floor is None:
        raise BuildInputError("polygon", f'ruin outline leaves no room for a floor inside its '
                                         f'{wall_thickness:g}" walls')
    if floor.geom_type != "Polygon":
        raise BuildInputError("polygon", f"the walls cut the ruin's floor into "
                                         f"{len(floor.geoms)} pieces: make the narrow part at "
                                         f'least {2 * wall_thickness:g}" wide, or leave a wall '
                                         "out there")
    if short:
        leave = "" if walls is not None else " (list the walled edges in walls to leave it out)"
        raise BuildInputError("walls", f'edge(s) {short} are shorter than two wall thicknesses '
                                       f'({2 * wall_thickness:g}"): no wall fits{leave}')
    return raw, height, levels, tuple(sorted(set(edges))), floor


def polygon_ruin(
    polygon: ArrayLike,
    height: float,
    floors: Sequence[float] = (),
    walls: Iterable[int] | None = None,
    windows: bool = True,
    broken: bool = False,
    wall_thickness: float = WALL_THICKNESS,
    slab_thickness: float = SLAB_THICKNESS,
    seed: int = 0,
) -> TerrainGeometry:
    """A ruined building on a polygonal plan (table inches, any simple polygon: an L, a
    trapezoid), built as `ruin` builds a rectangle: a ground slab and one slab per `floors` entry
    over the outline less the ground under its walls (`_floor`), and a wall along each walled
    edge (default every edge), outer face on the edge, windows per storey and a broken top as
    `ruin` makes them. Walls that meet at a corner overlap there (separate closed shells).

    Returns TerrainGeometry(solid=slabs + walls, stand=slabs, floors=levels, footprint=the
    CCW outline, core=ground slab + walls below their lowest windows, overhang=upper slabs +
    walls from their lowest windows up).
    """
    outline, height, levels, edges, inner = _checked(polygon, height, floors, walls,
                                                     wall_thickness, slab_thickness)
    t, st = float(wall_thickness), float(slab_thickness)
    ring = np.asarray(inner.exterior.coords)[:-1]
    holes = [np.asarray(h.coords)[:-1] for h in inner.interiors]
    slabs = [prism(ring, 0.0, st, holes)]
    slabs += [prism(ring, f - st, f, holes) for f in levels[1:]]
    ceilings = [f - st for f in levels[1:]] + [height]
    storeys = list(zip(levels, ceilings, strict=True))
    depth = BREAK_DEPTH * (height - levels[-1]) if broken else 0.0
    rng = np.random.default_rng(seed) if broken else None
    n = len(outline)
    walled = set(edges)
    meshes, cores, rest = [], [], []
    for i in edges:
        a, _, length, along, inward = _edge_frame(outline, i)
        c0 = END_MARGIN + (t if (i - 1) % n in walled else 0.0)
        c1 = length - END_MARGIN - (t if (i + 1) % n in walled else 0.0)
        top = _top_edge(0.0, length, height, depth, rng)
        columns = _window_columns(c0, c1) if windows else []
        rows = _window_rows(storeys, top) if columns else []
        points, tris, core = _wall_elevation(top, rows, columns)
        _wall_parts(partial(_stand_wall, a, along, inward, t, points), tris, core,
                    (meshes, cores, rest))
    stand = concatenate(slabs)
    return TerrainGeometry(solid=concatenate([stand, concatenate(meshes)]), stand=stand,
                           floors=levels, footprint=outline,
                           core=concatenate([slabs[0], *cores]),
                           overhang=_overhang(slabs[1:] + rest))
