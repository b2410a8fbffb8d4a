"""2D footprints of terrain pieces on the table (numpy only).

Every footprint is a (k, 2) counter-clockwise polygon in table inches. ``rotation`` turns a
piece counter-clockwise (seen from above) about its centre ``at``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .model import DEFAULT_MESH_FOOTPRINT, DEFAULT_WALL_THICKNESS, TerrainPiece

CIRCLE_POINTS = 32


def signed_area(poly: np.ndarray) -> float:
    """Shoelace area: positive for a counter-clockwise polygon."""
    p = np.asarray(poly, dtype=float)
    x, y = p[:, 0], p[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


def ccw(poly: np.ndarray) -> np.ndarray:
    """The polygon as float array, reversed if it runs clockwise."""
    p = np.asarray(poly, dtype=float).reshape(-1, 2)
    return p[::-1].copy() if signed_area(p) < 0 else p


def rotate(points: np.ndarray, degrees: float, centre: Any = (0.0, 0.0)) -> np.ndarray:
    """Points turned counter-clockwise by ``degrees`` about ``centre``."""
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s], [s, c]])
    ctr = np.asarray(centre, dtype=float)
    return (np.asarray(points, dtype=float) - ctr) @ rot.T + ctr


def rectangle(at: Any, width: float, depth: float, rotation: float = 0.0) -> np.ndarray:
    """A width (x) by depth (y) rectangle centred on ``at``, rotated, counter-clockwise."""
    hw, hd = width / 2.0, depth / 2.0
    local = np.array([[-hw, -hd], [hw, -hd], [hw, hd], [-hw, hd]])
    return rotate(local, rotation) + np.asarray(at, dtype=float)


def ellipse(at: Any, width: float, depth: float, rotation: float = 0.0,
            n: int = CIRCLE_POINTS) -> np.ndarray:
    """An n-gon inscribed in the width by depth ellipse centred on ``at``, rotated."""
    t = np.linspace(0.0, 2.0 * math.pi, n, endpoint=False)
    local = np.stack([np.cos(t) * width / 2.0, np.sin(t) * depth / 2.0], axis=1)
    return rotate(local, rotation) + np.asarray(at, dtype=float)


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

    wall: rectangle of ``thickness`` around from->to; box, ruin: rotated rectangle of ``size``;
    hill: 32-gon inscribed in the ``size`` ellipse; forest: its polygon; crater: 32-gon on the
    circle of ``radius``, or of diameter ``size`` (the larger of [x, y], as the crater builder
    does); mesh: rectangle of ``size`` times ``scale``
    when given, else a small square around ``at``. Raises ValueError for missing data.
    """
    d = piece.data
    rot = float(d.get("rotation", 0.0) or 0.0)
    try:
        if piece.type == "wall":
            thick = float(d.get("thickness", DEFAULT_WALL_THICKNESS))
            return ccw(segment_rectangle(d["from"], d["to"], thick))
        if piece.type in ("box", "ruin"):
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
            scale = float(d.get("scale", 1.0))
            if "size" in d:
                w, h = _size2(d["size"])
                return rectangle(d["at"], w * scale, h * scale, rot)
            return rectangle(d["at"], DEFAULT_MESH_FOOTPRINT, DEFAULT_MESH_FOOTPRINT, rot)
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"terrain {piece.id!r} ({piece.type}): bad or missing {exc}") from exc
    raise ValueError(f"terrain {piece.id!r}: unknown type {piece.type!r}")


def point_in_polygon(points: Any, poly: Any, eps: float = 1e-9) -> np.ndarray:
    """(n,) bool: which points lie inside the polygon or on its boundary (within eps)."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    ring = np.asarray(poly, dtype=float).reshape(-1, 2)
    a = ring
    b = np.roll(ring, -1, axis=0)
    px, py = pts[:, 0:1], pts[:, 1:2]  # (n, 1) against (k,) edges
    ax, ay, bx, by = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    straddle = (ay > py) != (by > py)
    with np.errstate(divide="ignore", invalid="ignore"):
        x_cross = ax + (py - ay) * (bx - ax) / (by - ay)
    crossings = np.count_nonzero(straddle & (px < x_cross), axis=1)
    inside = (crossings % 2) == 1
    return inside | (distance_to_polygon_edges(pts, ring) <= eps)


def distance_to_polygon_edges(points: Any, poly: Any) -> np.ndarray:
    """(n,) distance from each point to the nearest edge of the polygon's outline."""
    pts = np.asarray(points, dtype=float).reshape(-1, 2)
    a = np.asarray(poly, dtype=float).reshape(-1, 2)
    b = np.roll(a, -1, axis=0)
    ab = b - a  # (k, 2)
    ap = pts[:, None, :] - a[None, :, :]  # (n, k, 2)
    denom = np.einsum("kj,kj->k", ab, ab)
    denom = np.where(denom == 0.0, 1.0, denom)
    t = np.clip(np.einsum("nkj,kj->nk", ap, ab) / denom, 0.0, 1.0)
    closest = a[None, :, :] + t[:, :, None] * ab[None, :, :]
    dist = np.linalg.norm(pts[:, None, :] - closest, axis=2)
    return dist.min(axis=1) if dist.size else np.full(len(pts), np.inf)


def base_half_extents(ry: float, rx: float, facing: float) -> tuple[float, float]:
    """Half-widths in x and y of a base ellipse (ry along facing, rx across) turned to facing."""
    a = math.radians(facing)
    s, c = math.sin(a), math.cos(a)
    return math.hypot(ry * s, rx * c), math.hypot(ry * c, rx * s)


def base_polygon(at: Any, ry: float, rx: float, facing: float,
                 n: int = CIRCLE_POINTS) -> np.ndarray:
    """A model's base outline: n-gon on the ellipse, ry along facing (+y at facing 0)."""
    return ellipse(at, 2.0 * rx, 2.0 * ry, facing, n)
