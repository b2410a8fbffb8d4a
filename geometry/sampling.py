"""Sample directions that cover a target's silhouette uniformly, as each eye sees it.

The target's vertices are projected onto the plane one unit in front of the eye, across the
line of sight; low-discrepancy points (the R2 sequence) fill the bounding rectangle of that
projection, so samples are uniform over the projected area (not over the mesh surface) and a
straight blocker edge is resolved far better than by a regular grid of the same size. Rays that
miss the target are dropped by the caller; the sequence is extended until enough hit.

Everything works on a batch of eyes looking at one target at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_PLASTIC = 1.32471795724474602596  # root of x^3 = x + 1; gives the R2 sequence
_R2_STEP = np.array([1.0 / _PLASTIC, 1.0 / _PLASTIC**2])
_MIN_DEPTH_SHARE = 0.05


def r2_points(start: int | np.ndarray, count: int) -> np.ndarray:
    """(count, 2) points of the R2 low-discrepancy sequence in [0, 1)^2, from index start;
    for (g,) starts, (g, count, 2): each row continues its own sequence."""
    index = np.asarray(start, dtype=np.float64)[..., None] + np.arange(count) + 1.0
    return np.mod(0.5 + index[..., None] * _R2_STEP, 1.0)


#: R2 points kept as float32 (read-only), sequence indices 0 .. _R2_KEPT - 1: every sequence
#: the sampler casts stays inside (a query casts at most 40,000 window rays)
_R2_KEPT = 1 << 16
#: the first table kept: what one observer's first pass reads (grown by doubling past it)
_R2_FIRST = 1 << 12
_r2_kept: list[np.ndarray] = []


def _r2_table(size: int) -> np.ndarray:
    """The first `size` or more (up to _R2_KEPT) points of `r2_points` as float32, computed
    once per process and extended by doubling when a longer sequence is asked for (each point
    is worked out on its own: the same numbers in a longer table; a command with one target
    no longer computes all _R2_KEPT of them, 3 ms)."""
    if not _r2_kept or len(_r2_kept[0]) < size:
        length = max(_R2_FIRST, len(_r2_kept[0]) if _r2_kept else 0)
        while length < min(size, _R2_KEPT):
            length *= 2
        points = r2_points(0, length).astype(np.float32)
        points.flags.writeable = False
        _r2_kept[:] = [points]
    return _r2_kept[0]


def _r2_at(index: np.ndarray) -> np.ndarray:
    """(..., 2) float32 R2 points at sequence indices (...) (those `r2_points` numbers from
    0): looked up where kept, else computed."""
    if not index.size:
        return _r2_table(0)[index]
    top = int(index.max())
    if top < _R2_KEPT:
        return _r2_table(top + 1)[index]
    return np.mod(0.5 + (index.astype(np.float64) + 1.0)[..., None] * _R2_STEP,
                  1.0).astype(np.float32)


@dataclass
class ViewWindows:
    """For g eyes, the window of directions that holds a target's whole silhouette.

    eyes: (g, 3); frame: (g, 3, 3) rows forward, right, up; lo, hi: (g, 2) corners of the
    projected rectangle on the plane at unit depth; wide: (g,) bool, eyes so close to the
    target that no such window exists (their directions cover the whole sphere).
    """

    eyes: np.ndarray
    frame: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    wide: np.ndarray

    def take(self, rows: np.ndarray) -> ViewWindows:
        """The windows of the given rows only."""
        return ViewWindows(
            self.eyes[rows], self.frame[rows], self.lo[rows], self.hi[rows], self.wide[rows]
        )

    @classmethod
    def concatenate(cls, parts: list[ViewWindows]) -> ViewWindows:
        """The rows of every part, part after part."""
        return cls(*(np.concatenate([getattr(p, name) for p in parts])
                     for name in ("eyes", "frame", "lo", "hi", "wide")))

    def directions(self, start: int | np.ndarray, count: int) -> np.ndarray:
        """(g, count, 3) unit directions (float32, as the ray engine takes them) for samples
        start .. start + count of the sequence (start: one for all windows, or (g,))."""
        counts = np.full(len(self.eyes), count, dtype=np.int64)
        return self.ragged_directions(start, counts).reshape(len(self.eyes), count, 3)

    def ragged_directions(self, start: int | np.ndarray, counts: np.ndarray) -> np.ndarray:
        """(counts.sum(), 3) unit directions (float32): counts[i] samples of window i from
        its start (one for all windows, or (g,)), window after window. Each ray is worked
        out on its own (no padding to the longest row, the same direction in any batch)."""
        counts = np.asarray(counts, dtype=np.int64)
        total = int(counts.sum())
        if not total:
            return np.zeros((0, 3), dtype=np.float32)
        # sequence index of every ray: its row's start, then on along the row
        begin = np.broadcast_to(np.asarray(start, dtype=np.int64), counts.shape)
        index = np.arange(total) - np.repeat(np.cumsum(counts) - counts - begin, counts)
        points = _r2_at(index)

        def per_ray(column: np.ndarray) -> np.ndarray:
            return np.repeat(column.astype(np.float32), counts)

        lo, span = self.lo.astype(np.float32), (self.hi - self.lo).astype(np.float32)
        u = per_ray(lo[:, 0]) + points[:, 0] * per_ray(span[:, 0])
        v = per_ray(lo[:, 1]) + points[:, 1] * per_ray(span[:, 1])
        frame = self.frame.astype(np.float32)
        # forward + u * right + v * up, component by component
        rays = np.empty((total, 3), dtype=np.float32)
        for k in range(3):
            rays[:, k] = (per_ray(frame[:, 0, k]) + u * per_ray(frame[:, 1, k])
                          + v * per_ray(frame[:, 2, k]))
        rays /= np.sqrt(np.einsum("nk,nk->n", rays, rays))[:, None]
        if self.wide.any():
            wide = np.repeat(self.wide, counts)
            rays[wide] = _sphere(points[wide])
        return rays


def view_windows(eyes: np.ndarray, vertices: np.ndarray) -> ViewWindows:
    """Windows around a target with vertices (v, 3) as seen from each of eyes (g, 3); or, with
    vertices (g, v, 3), around each eye's own target (many targets in one batch: a set with
    fewer vertices repeats one of them, which moves no bound)."""
    eyes = np.atleast_2d(np.asarray(eyes, dtype=np.float64))
    if vertices.ndim == 2:
        centre = (0.5 * (vertices.min(axis=0) + vertices.max(axis=0)))[None]
        rel = vertices[None, :, :] - eyes[:, None, :]
    else:
        centre = 0.5 * (vertices.min(axis=1) + vertices.max(axis=1))
        rel = vertices - eyes[:, None, :]
    forward = centre - eyes
    distance = np.linalg.norm(forward, axis=1)
    forward /= np.maximum(distance, 1e-12)[:, None]
    steep = np.abs(forward[:, 2]) >= 0.9
    helper = np.where(steep[:, None], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0])
    right = np.cross(forward, helper)
    right /= np.linalg.norm(right, axis=1, keepdims=True)
    up = np.cross(right, forward)
    depth = np.einsum("gvk,gk->gv", rel, forward)
    wide = (depth.min(axis=1) <= _MIN_DEPTH_SHARE * distance) | (distance < 1e-9)
    safe = np.where(depth > 1e-12, depth, 1e-12)
    u = np.einsum("gvk,gk->gv", rel, right) / safe
    v = np.einsum("gvk,gk->gv", rel, up) / safe
    pad = 1e-6
    lo = np.column_stack([u.min(axis=1), v.min(axis=1)]) - pad
    hi = np.column_stack([u.max(axis=1), v.max(axis=1)]) + pad
    frame = np.stack([forward, right, up], axis=1)
    return ViewWindows(eyes, frame, lo, hi, wide)


def _sphere(points: np.ndarray) -> np.ndarray:
    """(..., 3) directions uniform over the unit sphere from points (..., 2) in [0, 1)^2."""
    z = 1.0 - 2.0 * points[..., 0]
    ring = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    phi = 2.0 * np.pi * points[..., 1]
    return np.stack([ring * np.cos(phi), ring * np.sin(phi), z], axis=-1)
