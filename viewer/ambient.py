"""Ambient occlusion baked from the world's own meshes with the line-of-sight ray caster: how
much of the sky each surface point sees within a short reach (corners where walls meet floors,
the ground at the foot of a ruin). One batch of Embree segments per call, never a ray at a time.

The table top (z = 0) blocks too, so the foot of every wall darkens towards the ground.
"""

from __future__ import annotations

import numpy as np

REACH = 2.5  # inches: occluders farther than this do not darken a point
RAYS = 8  # directions per point
LIFT = 0.02  # inches: rays start this far off the surface (clear of the surface itself)
FLOOR = 0.45  # the darkest a fully enclosed point gets (never black)
TABLE_CELL = 0.75  # inches between the table's sample points
MAX_POINTS = 120_000  # a bigger mesh is sampled on a subset of faces (the rest left open)
#: table sample points at most: a wider cell beyond (a 72x48 table has 6,144 at TABLE_CELL;
#: a 1000x1000 one would have 1.8 million, 14 million rays and over 1 GiB of arrays)
MAX_TABLE_POINTS = 100_000


def hemisphere(count: int = RAYS) -> np.ndarray:
    """(count, 3) fixed cosine-weighted directions around +z (a spiral, so every bake matches)."""
    i = np.arange(count) + 0.5
    r = np.sqrt(i / count)
    phi = i * np.pi * (3.0 - np.sqrt(5.0))
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), np.sqrt(1.0 - r * r)])


def _frames(normals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two unit tangents (n, 3) perpendicular to each unit normal."""
    helper = np.where(np.abs(normals[:, 2:3]) < 0.9, [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
    t = np.cross(normals, helper)
    t /= np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-12)
    return t, np.cross(normals, t)


def openness(world, points: np.ndarray, normals: np.ndarray, rays: int = RAYS,
             reach: float = REACH) -> np.ndarray:
    """(n,) share of hemisphere rays from points (n, 3) around normals (n, 3) that reach `reach`
    inches without meeting solid terrain or the table top (models move: they are left out)."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    nrm = np.asarray(normals, dtype=np.float64).reshape(-1, 3)
    if not len(p):
        return np.zeros(0)
    t, b = _frames(nrm)
    local = hemisphere(rays)
    dirs = (local[None, :, 0:1] * t[:, None] + local[None, :, 1:2] * b[:, None]
            + local[None, :, 2:3] * nrm[:, None])  # (n, rays, 3)
    starts = np.repeat(p + LIFT * nrm, rays, axis=0)
    directions = dirs.reshape(-1, 3)
    hit = (starts[:, 2] + reach * directions[:, 2] < 0.0) & (starts[:, 2] >= 0.0)
    hit |= world.solid_scene.occluded(starts, directions, np.full(len(starts), reach))
    return 1.0 - hit.reshape(-1, rays).mean(axis=1)


def shade(open_share: np.ndarray) -> np.ndarray:
    """Ambient factor in [FLOOR, 1] for an openness in [0, 1]."""
    return FLOOR + (1.0 - FLOOR) * np.clip(open_share, 0.0, 1.0)


def soup_occlusion(world, tris: np.ndarray) -> np.ndarray:
    """(n, 3) ambient factor at every corner of the triangle soup tris (n, 3, 3) (1 = open).
    Points are pulled a little into their triangle so an edge's neighbour does not count."""
    tris = np.asarray(tris, dtype=np.float64).reshape(-1, 3, 3)
    out = np.ones((len(tris), 3))
    if not len(tris):
        return out
    keep = np.arange(len(tris))
    if len(tris) * 3 > MAX_POINTS:
        keep = np.linspace(0, len(tris) - 1, MAX_POINTS // 3).astype(int)
    sub = tris[keep]
    normal = np.cross(sub[:, 1] - sub[:, 0], sub[:, 2] - sub[:, 0])
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    normal = np.divide(normal, length, out=np.zeros_like(normal), where=length > 0)
    inward = sub.mean(axis=1, keepdims=True) - sub
    dist = np.linalg.norm(inward, axis=2, keepdims=True)
    step = np.minimum(0.06, 0.3 * dist)
    points = sub + np.divide(inward * step, dist, out=np.zeros_like(inward), where=dist > 0)
    share = openness(world, points.reshape(-1, 3), np.repeat(normal, 3, axis=0))
    out[keep] = shade(share).reshape(-1, 3)
    return out


def table_occlusion(world, table: tuple[float, float], cell: float = TABLE_CELL) -> np.ndarray:
    """(ny, nx) ambient factor over the table top at cell centres (row 0 along y = 0); the
    cell widens where the table would hold more than MAX_TABLE_POINTS of them."""
    width, depth = table
    cell = max(cell, float(np.sqrt(width * depth / MAX_TABLE_POINTS)))
    xs = np.arange(cell / 2, width, cell)
    ys = np.arange(cell / 2, depth, cell)
    gx, gy = np.meshgrid(xs, ys)
    points = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])
    up = np.tile([0.0, 0.0, 1.0], (len(points), 1))
    return shade(openness(world, points, up)).reshape(gx.shape)
