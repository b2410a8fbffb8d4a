"""Terrain builders: wall, box, hill, forest, crater (ruins live in ruins.py, mesh files in
meshfile.py).

Each builder takes plain parameters (inches, degrees CCW seen from above, table top z = 0) and
returns a TerrainGeometry already placed on the table. Every mesh is closed and outward oriented;
a piece of several parts is a union of closed shells that never share vertices.
"""

from __future__ import annotations

import math

import numpy as np

from .mesh import Mesh
from .primitives import (
    MIN_SIDE,
    ArrayLike,
    BuildInputError,
    clean_ring,
    ellipse,
    loft,
    make_mesh,
    oval_cylinder,
    place,
    prism,
    rectangle,
    require_side,
    require_simple_polygon,
    revolve,
    signed_area,
    to_table,
    triangulate,
)
from .primitives import (
    box as box_mesh,
)
from .types import TerrainGeometry

__all__ = ["box", "crater", "forest", "hill", "wall"]

HILL_SEGMENTS = 48
HILL_BANDS = 4
CRATER_SEGMENTS = 48
TRUNK_RADIUS = 0.25
TRUNK_SEGMENTS = 12
TRUNK_HEIGHT = 0.6  # fraction of the canopy height
SQ_IN_PER_TRUNK = 12.0


def _positive(what: str, **values: float) -> None:
    """Each value (named by its scene key) at least MIN_SIDE, else BuildInputError."""
    for name, value in values.items():
        require_side(name, value, what)


def check_trunks(trunks: int | ArrayLike | None, max_trunks: int | None = None) -> None:
    """BuildInputError unless trunks is None, a whole number from 0 to max_trunks, or a list
    of at most max_trunks finite [x, y] points (the forms `forest` takes)."""
    if trunks is None:
        return
    limit = f" (at most {max_trunks})" if max_trunks is not None else ""
    if isinstance(trunks, bool) or not isinstance(trunks, (int, list, tuple, np.ndarray)):
        raise BuildInputError("trunks", "must be a whole number of trees or a list of [x, y] "
                                        f"points, got {str(trunks)[:40]!r}")
    if isinstance(trunks, int):
        if trunks < 0 or (max_trunks is not None and trunks > max_trunks):
            raise BuildInputError("trunks", f"must be a whole number from 0{limit}, got {trunks}")
        return
    if max_trunks is not None and len(trunks) > max_trunks:
        raise BuildInputError("trunks", f"lists {len(trunks)} trees{limit}")
    for point in trunks:
        ok = isinstance(point, (list, tuple, np.ndarray)) and len(point) == 2 and all(
            isinstance(v, (int, float, np.floating, np.integer)) and not isinstance(v, bool)
            and math.isfinite(v) for v in point)
        if not ok:
            raise BuildInputError("trunks", "a list of trunks holds [x, y] points, got "
                                            f"{str(point)[:40]}")


def wall(
    start: ArrayLike, end: ArrayLike, height: float, thickness: float = 0.5
) -> TerrainGeometry:
    """A straight wall: a box centred on the segment start -> end (both (2,) plan points), as long
    as the segment (no end overhang), `thickness` wide, from the table up to `height`.

    solid: closed box (12 faces); stand None; footprint (4, 2) CCW rectangle.
    """
    a = np.asarray(start, dtype=np.float64)[:2]
    b = np.asarray(end, dtype=np.float64)[:2]
    length = float(np.linalg.norm(b - a))
    if not (math.isfinite(length) and length >= MIN_SIDE):
        raise BuildInputError("to", f"wall length must be at least {MIN_SIDE:g}\", got {length:g}")
    _positive("wall", height=height, thickness=thickness)
    angle = math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))
    mid = 0.5 * (a + b)
    footprint = to_table(rectangle(length, thickness), mid, angle)
    return TerrainGeometry(solid=prism(footprint, 0.0, float(height)), footprint=footprint)


def box(at: ArrayLike, size: ArrayLike, rotation: float = 0.0) -> TerrainGeometry:
    """A solid block (building, crate stack): size (sx, sy, sz) centred on at in plan, bottom on
    the table, turned by rotation.

    solid: closed box (12 faces); stand: the same box (models stand on its top);
    footprint (4, 2) CCW rectangle.
    """
    sx, sy, sz = (float(v) for v in size)
    for side in (sx, sy, sz):
        require_side("size", side, "box")
    footprint = to_table(rectangle(sx, sy), at, rotation)
    solid = box_mesh((float(at[0]), float(at[1]), 0.5 * sz), (sx, sy, sz), rotation)
    return TerrainGeometry(solid=solid, stand=solid, footprint=footprint)


def hill(
    at: ArrayLike, size: ArrayLike, height: float, rotation: float = 0.0, top: float = 0.6
) -> TerrainGeometry:
    """An elliptical mesa: footprint ellipse with axes size (sx, sy) centred on at, a flat top at
    `height` whose semi-axes are `top` (0 < top <= 1) times the footprint's, and flanks between
    them with an S-shaped profile (gentle at the foot and at the shoulder).

    solid: closed loft of HILL_BANDS + 1 rings of HILL_SEGMENTS points
    (2*48*4 + 2*46 = 476 faces); stand: the same mesh; footprint (48, 2) CCW ellipse.
    """
    sx, sy = (float(v) for v in size)
    _positive("hill", height=height)
    for side in (sx, sy):
        require_side("size", side, "hill")
    if not (0 < top <= 1):
        raise BuildInputError("top", f"top must be in (0, 1], got {top}")
    base = ellipse(0.5 * sx, 0.5 * sy, HILL_SEGMENTS)
    rings, zs = [], []
    for k in range(HILL_BANDS + 1):
        s = k / HILL_BANDS
        rings.append(base * (1.0 - (1.0 - top) * s))
        zs.append(float(height) * 0.5 * (1.0 - math.cos(math.pi * s)))
    if top == 1:  # straight sides: one band is enough
        rings, zs = [rings[0], rings[-1]], [zs[0], zs[-1]]
    solid = place(loft(rings, zs), at, rotation)
    return TerrainGeometry(solid=solid, stand=solid, footprint=to_table(base, at, rotation))


def _inside_by(polygon: np.ndarray, points: np.ndarray, margin: float) -> np.ndarray:
    """(n,) bool: points inside polygon and at least margin from its edges (shapely 2's
    vectorised predicates: a 1000-corner outline and 40000 points take milliseconds)."""
    import shapely

    shape = shapely.Polygon(polygon)
    shapely.prepare(shape)
    inside = shapely.contains_xy(shape, points[:, 0], points[:, 1])
    near = np.zeros(len(points), dtype=bool)
    if inside.any():
        dist = shapely.distance(shape.exterior, shapely.points(points[inside]))
        near[np.flatnonzero(inside)] = dist >= margin
    return near


def _trunk_positions(polygon: np.ndarray, count: int, seed: int) -> np.ndarray:
    """(count, 2) deterministic, well spread trunk centres inside polygon, kept a trunk radius
    (plus a margin) from its edges: best-candidate sampling, falling back to the centroid of the
    polygon's largest triangle when the polygon is too thin."""
    rng = np.random.default_rng(seed)
    lo, hi = polygon.min(axis=0), polygon.max(axis=0)
    margin = TRUNK_RADIUS + 0.1
    cand = rng.uniform(lo, hi, size=(max(64, 40 * count), 2))
    cand = cand[_inside_by(polygon, cand, margin)]
    if len(cand) == 0:
        pts, tris = triangulate(polygon)
        tri = pts[tris]
        u, v = tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0]
        area = np.abs(u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0])
        return tri[int(np.argmax(area))].mean(axis=0)[None]
    chosen = [cand[0]]
    # squared distance of each candidate to the nearest chosen centre
    d2 = np.sum((cand - cand[0]) ** 2, axis=1)
    room = (2 * TRUNK_RADIUS + 0.05) ** 2
    for _ in range(count - 1):
        best = int(np.argmax(d2))
        if d2[best] < room:  # no room left for a disjoint trunk
            break
        chosen.append(cand[best])
        np.minimum(d2, np.sum((cand - cand[best]) ** 2, axis=1), out=d2)
    return np.asarray(chosen)


def _trunks(centres: np.ndarray, height: float) -> Mesh | None:
    """One cylinder per centre, as separate shells of one mesh (one cylinder built, moved)."""
    if len(centres) == 0:
        return None
    unit = oval_cylinder(TRUNK_RADIUS, TRUNK_RADIUS, 0.0, height, (0.0, 0.0), TRUNK_SEGMENTS)
    if len(centres) == 1:
        return oval_cylinder(TRUNK_RADIUS, TRUNK_RADIUS, 0.0, height, centres[0], TRUNK_SEGMENTS)
    shift = np.zeros((len(centres), 1, 3))
    shift[:, 0, :2] = centres
    verts = (np.asarray(unit.vertices)[None] + shift).reshape(-1, 3)
    nv = len(unit.vertices)
    faces = (np.asarray(unit.faces)[None] + nv * np.arange(len(centres))[:, None, None])
    return make_mesh(verts, faces.reshape(-1, 3))


def forest(
    polygon: ArrayLike,
    height: float,
    trunks: int | ArrayLike | None = None,
    seed: int = 0,
    max_trunks: int | None = None,
) -> TerrainGeometry:
    """A wood: the canopy region is the prism of polygon (k, 2) from the table to `height`
    (area: reported when crossed, does not block); the trunks are the solid.

    trunks: None for about one per SQ_IN_PER_TRUNK square inches (at least 1), an int count, or
    an (n, 2) array of trunk centres. Trunks are cylinders of radius TRUNK_RADIUS, TRUNK_HEIGHT *
    height tall (12 segments, 44 faces each), placed deterministically from seed, never
    overlapping. stand None; footprint: polygon, CCW. The polygon must be simple; max_trunks
    bounds the trunks asked for (and the default count).
    """
    _positive("forest", height=height)
    require_simple_polygon(polygon)
    check_trunks(trunks, max_trunks)
    poly = clean_ring(polygon, ccw=True)
    area = prism(poly, 0.0, float(height))
    if trunks is None or np.ndim(trunks) == 0:
        count = (
            max(1, round(signed_area(poly) / SQ_IN_PER_TRUNK)) if trunks is None else int(trunks)
        )
        if max_trunks is not None:
            count = min(count, max_trunks)
        centres = _trunk_positions(poly, count, seed) if count > 0 else np.zeros((0, 2))
    else:
        centres = np.asarray(trunks, dtype=np.float64).reshape(-1, 2)
    trunk_h = TRUNK_HEIGHT * float(height)
    solid = _trunks(centres, trunk_h)
    return TerrainGeometry(solid=solid, area=area, footprint=poly)


def crater(at: ArrayLike, radius: float, depth: float = 0.5, rim: float = 1.0) -> TerrainGeometry:
    """A crater's rim: a ring centred on at whose outer foot has `radius`, `rim` wide at the
    foot, rising to a narrow crest (a fifth of the rim width) `depth` high, with sloped inner and
    outer sides. The bowl inside is the table (models inside stand at z = 0).

    solid: closed revolved ring (8 * 48 = 384 faces); stand: the same mesh;
    footprint (48, 2) CCW circle of `radius`.
    """
    _positive("crater", radius=radius, depth=depth, rim=rim)
    if rim >= radius:
        raise BuildInputError(
            "rim", f"crater rim ({rim}) must be narrower than its radius ({radius})")
    r_in = float(radius) - float(rim)
    crest = float(radius) - 0.5 * float(rim)
    half = 0.1 * float(rim)
    profile = [[r_in, 0.0], [float(radius), 0.0], [crest + half, depth], [crest - half, depth]]
    solid = revolve(profile, CRATER_SEGMENTS, center=(float(at[0]), float(at[1])))
    footprint = ellipse(radius, radius, CRATER_SEGMENTS) + np.asarray(at, dtype=np.float64)[:2]
    return TerrainGeometry(solid=solid, stand=solid, footprint=footprint)
