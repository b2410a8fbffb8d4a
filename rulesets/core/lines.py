"""Plan-view (top-down) tests of sight segments against base ellipses and area polygons."""

from __future__ import annotations

import numpy as np


def segments_cross_ellipses(p: np.ndarray, q: np.ndarray, centers: np.ndarray,
                            radii: np.ndarray, facings: np.ndarray) -> np.ndarray:
    """(n, k) bool: plan segment i (p[i] -> q[i]) passes through ellipse j (centre, semi-axes
    (along facing, across), facing in degrees). Each ellipse is mapped to the unit circle."""
    p, q = np.atleast_2d(p)[:, :2], np.atleast_2d(q)[:, :2]
    if not len(centers):
        return np.zeros((len(p), 0), dtype=bool)
    th = np.radians(np.asarray(facings, float))
    c, s = np.cos(th), np.sin(th)

    def local(pts: np.ndarray) -> np.ndarray:
        d = pts[:, None, :] - centers[None, :, :]
        x = (d[..., 0] * c + d[..., 1] * s) / radii[None, :, 1]
        y = (-d[..., 0] * s + d[..., 1] * c) / radii[None, :, 0]
        return np.stack([x, y], axis=-1)

    a, b = local(p), local(q)
    ab = b - a
    denom = np.maximum(np.einsum("nkd,nkd->nk", ab, ab), 1e-12)
    t = np.clip(-np.einsum("nkd,nkd->nk", a, ab) / denom, 0.0, 1.0)
    closest = a + ab * t[..., None]
    return np.einsum("nkd,nkd->nk", closest, closest) < 1.0


def length_inside(p: np.ndarray, q: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """(n,) plan length of each segment p[i] -> q[i] that lies inside the polygon (k, 2)."""
    from battlesight.geometry import planar

    p, q = np.atleast_2d(p)[:, :2], np.atleast_2d(q)[:, :2]
    poly = np.asarray(polygon, float)
    lo_b, hi_b = poly.min(axis=0), poly.max(axis=0)
    near = ~((np.maximum(p, q) < lo_b).any(axis=1) | (np.minimum(p, q) > hi_b).any(axis=1))
    out = np.zeros(len(p))
    if not near.any():
        return out
    p, q = p[near], q[near]
    e0, e1 = poly, np.roll(poly, -1, axis=0)
    d = q - p
    f = e1 - e0
    den = d[:, None, 0] * f[None, :, 1] - d[:, None, 1] * f[None, :, 0]
    w = e0[None, :, :] - p[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (w[..., 0] * f[None, :, 1] - w[..., 1] * f[None, :, 0]) / den
        u = (w[..., 0] * d[:, None, 1] - w[..., 1] * d[:, None, 0]) / den
    ok = (np.abs(den) > 1e-12) & (t > 0) & (t < 1) & (u >= 0) & (u <= 1)
    cuts = np.sort(np.where(ok, t, 1.0), axis=1)
    lo = np.concatenate([np.zeros((len(p), 1)), cuts], axis=1)
    hi = np.concatenate([cuts, np.ones((len(p), 1))], axis=1)
    start_in = planar.inside(p, poly)
    flips = np.arange(lo.shape[1]) % 2 == 1
    inside = start_in[:, None] ^ flips[None, :]
    span = np.where(inside, hi - lo, 0.0)
    out[near] = span.sum(axis=1) * np.linalg.norm(d, axis=1)
    return out
