"""2D footprints of terrain pieces on the table.

Every footprint is a (k, 2) counter-clockwise polygon in table inches. ``rotation`` turns a
piece counter-clockwise (seen from above) about its centre ``at``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from battlesight.geometry import plan
from battlesight.geometry.meshfile import mesh_footprint, reading
from battlesight.geometry.plan import signed_area

from .model import DEFAULT_MESH_FOOTPRINT, DEFAULT_WALL_THICKNESS, TerrainPiece
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
