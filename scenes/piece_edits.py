"""Terrain pieces as data, moved and made: a piece's centre, the piece translated or turned (the
window's editor), and random pieces for the layout generators.

Everything works on scene data (inches, degrees counter-clockwise); no meshes are built.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np
from battlesight.geometry.plan import rotation_2d

from .model import TerrainPiece


def piece_centre(piece: TerrainPiece | dict) -> np.ndarray:
    """(2,) the plan point a piece is placed by: at, the middle of a wall, a forest's mean."""
    data = piece.data if isinstance(piece, TerrainPiece) else piece
    if "at" in data:
        return np.asarray(data["at"], dtype=np.float64)[:2]
    if "from" in data:
        return 0.5 * (np.asarray(data["from"], float) + np.asarray(data["to"], float))
    return np.asarray(data["polygon"], dtype=np.float64).mean(axis=0)


def translated(data: dict[str, Any], dx: float, dy: float) -> dict[str, Any]:
    """A copy of a piece's data moved by (dx, dy): its at, from/to or polygon."""
    out = copy.deepcopy(data)
    for key in ("at", "from", "to"):
        if key in out:
            out[key] = [_r(out[key][0] + dx), _r(out[key][1] + dy), *out[key][2:]]
    if "polygon" in out:
        out["polygon"] = [[_r(x + dx), _r(y + dy)] for x, y in out["polygon"]]
    return out


def rotated(kind: str, data: dict[str, Any], degrees: float,
            about: tuple[float, float] | None = None) -> dict[str, Any]:
    """A copy of a piece's data turned counter-clockwise by degrees about `about` (default its
    centre): walls and forests turn their points, other kinds add to `rotation`."""
    out = copy.deepcopy(data)
    centre = piece_centre(out) if about is None else np.asarray(about, dtype=np.float64)
    for key in ("at", "from", "to"):
        if key in out and (key != "at" or about is not None):
            x, y = _turn(np.asarray(out[key][:2], float)[None], degrees, centre)[0]
            out[key] = [_r(x), _r(y), *out[key][2:]]
    if "polygon" in out:
        pts = _turn(np.asarray(out["polygon"], float), degrees, centre)
        out["polygon"] = [[_r(x), _r(y)] for x, y in pts]
    if kind in ("box", "ruin", "hill", "mesh", "area") and "polygon" not in out:
        angle = (float(out.get("rotation", 0.0) or 0.0) + degrees + 180.0) % 360.0 - 180.0
        out["rotation"] = _r(angle)
    return out


def _turn(points: np.ndarray, degrees: float, centre: np.ndarray) -> np.ndarray:
    """Points (k, 2) turned counter-clockwise by degrees about centre (2,)."""
    return (points - centre) @ rotation_2d(degrees).T + centre


def _r(value: float) -> float | int:
    """Rounded to 1/1000 inch, written as an int when whole."""
    v = round(float(value), 3)
    return int(v) if v.is_integer() else v


def random_piece(rng: np.random.Generator, kind: str, centre: tuple[float, float],
                 extent: tuple[float, float] = (3.0, 8.0)) -> dict[str, Any]:
    """Geometry keys of a random piece of a scene terrain kind centred near `centre`, its
    largest plan dimension within extent (lo, hi) inches (mesh: the bundled statue)."""
    x, y = (float(v) for v in centre)
    lo, hi = extent
    span = float(rng.uniform(lo, hi))
    rot = float(rng.choice([0, 15, 30, 45, 60, 75, 90, 120, 135, 150]))

    def u(a: float, b: float) -> float:
        return _r(rng.uniform(a, b))

    if kind == "ruin":
        sx, sy = _r(span), _r(span * rng.uniform(0.55, 0.9))
        height = u(4.0, 8.0)
        floors = [3.0] if height >= 5.5 else []
        walls = [["north", "west"], ["south", "east"], ["north", "east"], ["south", "west"]]
        return {"at": [_r(x), _r(y)], "size": [sx, sy], "rotation": _r(rot), "height": height,
                "floors": floors, "walls": walls[int(rng.integers(4))], "windows": True}
    if kind == "wall":
        a = math.radians(rot)
        dx, dy = math.cos(a) * span / 2, math.sin(a) * span / 2
        return {"from": [_r(x - dx), _r(y - dy)], "to": [_r(x + dx), _r(y + dy)],
                "height": u(1.0, 3.0), "thickness": 0.5}
    if kind == "box":
        sx, sy = _r(span), _r(span * rng.uniform(0.5, 1.0))
        return {"at": [_r(x), _r(y)], "size": [sx, sy, u(2.0, 6.0)], "rotation": _r(rot)}
    if kind == "hill":
        sx, sy = _r(span), _r(span * rng.uniform(0.55, 0.9))
        return {"at": [_r(x), _r(y)], "size": [sx, sy], "height": u(1.0, 2.5), "rotation": _r(rot)}
    if kind == "forest":
        radius = span / 2
        angles = (np.arange(7) + rng.uniform(-0.3, 0.3, 7)) * (2 * np.pi / 7)
        scale = rng.uniform(0.8, 1.0, 7)
        poly = [[_r(x + radius * c * math.cos(t)), _r(y + radius * c * math.sin(t))]
                for t, c in zip(angles, scale, strict=True)]
        return {"polygon": poly, "height": u(4.0, 6.0)}
    if kind == "crater":
        return {"at": [_r(x), _r(y)], "radius": _r(max(span / 2, 1.2)), "depth": 0.5}
    if kind == "mesh":
        return {"file": "terrain/statue.glb", "at": [_r(x), _r(y)], "rotation": _r(rot),
                "scale": 1}
    raise ValueError(f"unknown terrain kind {kind!r}")
