"""2D footprints of terrain pieces on the table, and what they measure there: gaps between
pieces, the share of each table area they cover, their spans.

Every footprint is a (k, 2) counter-clockwise polygon in table inches. ``rotation`` turns a
piece counter-clockwise (seen from above) about its centre ``at``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from battlesight.geometry import plan, planar
from battlesight.geometry.meshfile import mesh_footprint, reading
from battlesight.geometry.plan import signed_area

from .model import DEFAULT_MESH_FOOTPRINT, DEFAULT_WALL_THICKNESS, Scene, TerrainPiece
from .paths import resolve_mesh_file

CIRCLE_POINTS = 32


def ccw(poly: np.ndarray) -> np.ndarray:
    """The polygon as float array, reversed if it runs clockwise."""
    p = np.asarray(poly, dtype=float).reshape(-1, 2)
    return p[::-1].copy() if signed_area(p) < 0 else p


def rectangle(at: Any, width: float, depth: float, rotation: float = 0.0) -> np.ndarray:
    """A width (x) by depth (y) rectangle centred on ``at``, rotated, counter-clockwise."""
    return plan.to_table(plan.rectangle(width, depth), at, rotation)


def ellipse(at: Any, width: float, depth: float, rotation: float = 0.0,
            n: int = CIRCLE_POINTS) -> np.ndarray:
    """An n-gon inscribed in the width by depth ellipse centred on ``at``, rotated."""
    return plan.to_table(plan.ellipse(width / 2.0, depth / 2.0, n), at, rotation)


def segment_rectangle(a: Any, b: Any, thickness: float) -> np.ndarray:
    """The rectangle of a wall from a to b, ``thickness`` wide, centred on the segment."""
    p, q = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = q - p
    length = float(np.hypot(*d))
    if length == 0.0:
        raise ValueError("wall has zero length (from == to)")
    n = np.array([-d[1], d[0]]) / length * (thickness / 2.0)
    return np.array([p - n, q - n, q + n, p + n])


def _size2(size: Any) -> tuple[float, float]:
    if isinstance(size, (int, float)):
        return float(size), float(size)
    return float(size[0]), float(size[1])


def piece_footprint(piece: TerrainPiece) -> np.ndarray:
    """The (k, 2) counter-clockwise outline of a piece on the table.

    wall: rectangle of ``thickness`` around from->to; box, ruin, area: rotated rectangle of
    ``size``, or the ``polygon`` of a polygonal ruin or area;
    hill: 32-gon inscribed in the ``size`` ellipse; forest: its polygon; crater: 32-gon on the
    circle of ``radius``, or of diameter ``size`` (the larger of [x, y], as the crater builder
    does); mesh: the true plan outline of its file (the largest part of the union of its
    triangles seen from above, `geometry.outline`), or where the file cannot be read a
    rectangle of ``size`` times ``scale`` when given, else a small square around ``at``.
    Raises ValueError for missing data.
    """
    d = piece.data
    rot = float(d.get("rotation", 0.0) or 0.0)
    try:
        if piece.type == "wall":
            thick = float(d.get("thickness", DEFAULT_WALL_THICKNESS))
            return ccw(segment_rectangle(d["from"], d["to"], thick))
        if piece.type in ("ruin", "area") and "polygon" in d:
            return ccw(np.asarray(d["polygon"], dtype=float))
        if piece.type in ("box", "ruin", "area"):
            w, h = _size2(d["size"])
            return rectangle(d["at"], w, h, rot)
        if piece.type == "hill":
            w, h = _size2(d["size"])
            return ellipse(d["at"], w, h, rot)
        if piece.type == "forest":
            return ccw(np.asarray(d["polygon"], dtype=float))
        if piece.type == "crater":
            diameter = 2.0 * float(d["radius"]) if "radius" in d else max(_size2(d["size"]))
            return ellipse(d["at"], diameter, diameter)
        if piece.type == "mesh":
            outline = _mesh_outline(piece)
            if outline is not None:
                return outline
            scale = float(d.get("scale", 1.0))
            if "size" in d:
                w, h = _size2(d["size"])
                return rectangle(d["at"], w * scale, h * scale, rot)
            return rectangle(d["at"], DEFAULT_MESH_FOOTPRINT, DEFAULT_MESH_FOOTPRINT, rot)
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"terrain {piece.id!r} ({piece.type}): bad or missing {exc}") from exc
    raise ValueError(f"terrain {piece.id!r}: unknown type {piece.type!r}")


def grouped_footprints(pieces: list[TerrainPiece]) -> dict[str, np.ndarray]:
    """The footprint of every terrain piece as the rules count pieces: shapes that share a
    ``group`` are one piece, named by the group, outlined by the union of their footprints
    (the convex hull of that union when the shapes do not touch); other pieces by their id."""
    from battlesight.geometry.planar import union_outline

    members: dict[str, list[np.ndarray]] = {}
    for piece in pieces:
        members.setdefault(piece.group, []).append(piece_footprint(piece))
    out: dict[str, np.ndarray] = {}
    for name, polys in members.items():
        if len(polys) == 1:
            out[name] = polys[0]
            continue
        out[name] = ccw(np.asarray(union_outline(polys).exterior.coords)[:-1])
    return out


def _mesh_outline(piece: TerrainPiece) -> np.ndarray | None:
    """The true outline of a mesh piece as the world builds it (`meshfile.mesh_footprint`),
    or None when its file cannot be read (then ``size`` stands in)."""
    d = piece.data
    try:
        factor, y_up = reading(d.get("units"), d.get("up"), d.get("scale"))
        path = resolve_mesh_file(d["file"], piece.folder)
        ring = mesh_footprint(path, d["at"], float(d.get("rotation", 0.0) or 0.0), factor,
                              y_up=y_up)
    except (ValueError, OSError):
        return None
    return ring if len(ring) >= 3 else None


def base_half_extents(ry: float, rx: float, facing: float) -> tuple[float, float]:
    """Half-widths in x and y of a base ellipse (ry along facing, rx across) turned to facing."""
    a = math.radians(facing)
    s, c = math.sin(a), math.cos(a)
    return math.hypot(ry * s, rx * c), math.hypot(ry * c, rx * s)


def base_polygon(at: Any, ry: float, rx: float, facing: float,
                 n: int = CIRCLE_POINTS) -> np.ndarray:
    """A model's base outline: n-gon on the ellipse, ry along facing (+y at facing 0)."""
    return ellipse(at, 2.0 * rx, 2.0 * ry, facing, n)


#: Side of the squares a table is divided into for density rules ("2' x 2' areas").
AREA_SIDE = 24.0


def footprints(scene: Scene) -> dict[str, np.ndarray]:
    """Footprint polygon (k, 2) of every terrain piece, by id."""
    return {p.id: piece_footprint(p) for p in scene.terrain}


def layout_pieces(scene: Scene) -> dict[str, np.ndarray]:
    """Footprint (k, 2) of every terrain piece as the set-up rules count them: a ``group`` of
    shapes is one piece (``footprints.grouped_footprints``), by group name or id."""
    return grouped_footprints(scene.terrain)


def polygon_gap(a: np.ndarray, b: np.ndarray, beyond: float | None = None) -> float:
    """Closest plan distance between two polygons (0 when they touch, cross or overlap).

    beyond: when the bounding boxes are more than this apart, their distance (a lower bound)
    is returned at once: enough to tell that the polygons are more than `beyond` apart.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if beyond is not None:
        lo = np.maximum(a.min(axis=0), b.min(axis=0))
        hi = np.minimum(a.max(axis=0), b.max(axis=0))
        box = float(np.hypot(*np.maximum(lo - hi, 0.0)))
        if box > beyond:
            return box
    return planar.gap(a, b)


def table_areas(table: tuple[float, float], side: float = AREA_SIDE) -> list[tuple[float, ...]]:
    """The table cut into about side x side areas, (x0, y0, x1, y1) each, row by row from
    y = 0 (72 x 48 gives six 24" squares)."""
    nx = max(1, round(table[0] / side))
    ny = max(1, round(table[1] / side))
    w, d = table[0] / nx, table[1] / ny
    return [(i * w, j * d, (i + 1) * w, (j + 1) * d) for j in range(ny) for i in range(nx)]


#: grid points `area_shares` samples at most: a 0.5" grid up to a 500" square piece, a coarser
#: one beyond (a 2,000,000" mesh piece once asked numpy for 116 TiB)
MAX_SHARE_POINTS = 1_000_000


def area_shares(poly: np.ndarray, areas: list[tuple[float, ...]], step: float = 0.5):
    """(len(areas),) share of the polygon's area inside each area, sampled on a grid of
    `step` inches, widened where the polygon's bounding box would hold more than
    MAX_SHARE_POINTS points (memory and time bounded whatever the piece's size)."""
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    span = np.maximum(hi - lo, step)
    if float(span[0] / step) * float(span[1] / step) > MAX_SHARE_POINTS:
        step = float(np.sqrt(span[0] * span[1] / MAX_SHARE_POINTS))
    xs = np.arange(lo[0] + step / 2, hi[0], step)
    ys = np.arange(lo[1] + step / 2, hi[1], step)
    if not len(xs) or not len(ys):
        xs, ys = np.array([poly[:, 0].mean()]), np.array([poly[:, 1].mean()])
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    pts = pts[planar.covers(pts, poly)]
    if not len(pts):
        pts = poly.mean(axis=0, keepdims=True)
    shares = np.array([np.mean((pts[:, 0] >= x0) & (pts[:, 0] < x1) & (pts[:, 1] >= y0)
                               & (pts[:, 1] < y1)) for x0, y0, x1, y1 in areas])
    return shares


def piece_span(piece: TerrainPiece) -> float:
    """The largest plan dimension of a piece: the longer side of a box, ruin, hill or mesh
    (size), a wall's length, a crater's diameter, the widest pair of a polygon's points."""
    d = piece.data
    if piece.type == "wall":
        return float(np.hypot(*(np.asarray(d["to"], float) - np.asarray(d["from"], float))))
    if piece.type in ("box", "ruin", "hill", "area", "mesh") and "size" in d:
        size = d["size"]
        scale = float(d.get("scale", 1.0)) if piece.type == "mesh" else 1.0
        return scale * (float(size) if np.ndim(size) == 0 else max(float(v) for v in size[:2]))
    if piece.type == "crater" and "radius" in d:
        return 2.0 * float(d["radius"])
    return outline_span(piece_footprint(piece))


def outline_span(poly: np.ndarray) -> float:
    """The widest pair of a polygon's points, inches."""
    diff = poly[:, None, :] - poly[None, :, :]
    return float(np.sqrt(np.einsum("ijk,ijk->ij", diff, diff).max()))


def layout_spans(scene: Scene) -> dict[str, float]:
    """The largest plan dimension of every piece as the set-up rules count them: a lone
    shape's `piece_span`, a group's widest pair of outline points."""
    prints = layout_pieces(scene)
    members: dict[str, list[TerrainPiece]] = {}
    for piece in scene.terrain:
        members.setdefault(piece.group, []).append(piece)
    return {name: piece_span(members[name][0]) if len(members[name]) == 1
            else outline_span(poly) for name, poly in prints.items()}
