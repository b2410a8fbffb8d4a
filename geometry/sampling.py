"""Sample directions that cover a target's silhouette uniformly, as an observer sees it.

The target's vertices are projected onto the plane one unit in front of the eye, across the
line of sight; low-discrepancy points (the R2 sequence) fill the bounding rectangle of that
projection, so samples are uniform over the projected area (not over the mesh surface) and a
straight blocker edge is resolved far better than by a regular grid of the same size.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_PLASTIC = 1.32471795724474602596  # root of x^3 = x + 1; gives the R2 sequence
_R2_STEP = np.array([1.0 / _PLASTIC, 1.0 / _PLASTIC**2])
_MIN_DEPTH_SHARE = 0.05


def r2_points(start: int, count: int) -> np.ndarray:
    """(count, 2) points of the R2 low-discrepancy sequence in [0, 1)^2, from index start."""
    index = np.arange(start, start + count, dtype=np.float64)[:, None] + 1.0
    return np.mod(0.5 + index * _R2_STEP, 1.0)


@dataclass
class ViewWindow:
    """The window of directions, seen from eye, that holds a target's whole silhouette.

    eye: (3,); forward, right, up: (3,) orthonormal frame; lo, hi: (2,) corners of the
    projected rectangle on the plane at unit depth. `wide` marks an eye so close to the target
    that no such window exists; then directions cover the whole sphere.
    """

    eye: np.ndarray
    forward: np.ndarray
    right: np.ndarray
    up: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    wide: bool = False

    def directions(self, start: int, count: int) -> np.ndarray:
        """(count, 3) unit directions for samples start .. start + count of the sequence."""
        points = r2_points(start, count)
        if self.wide:
            z = 1.0 - 2.0 * points[:, 0]
            ring = np.sqrt(np.maximum(0.0, 1.0 - z * z))
            phi = 2.0 * np.pi * points[:, 1]
            return np.column_stack([ring * np.cos(phi), ring * np.sin(phi), z])
        uv = self.lo + points * (self.hi - self.lo)
        rays = self.forward + uv[:, 0:1] * self.right + uv[:, 1:2] * self.up
        return rays / np.linalg.norm(rays, axis=1, keepdims=True)


def view_window(eye: np.ndarray, vertices: np.ndarray) -> ViewWindow:
    """The window around vertices (n, 3) of a target as seen from eye (3,)."""
    eye = np.asarray(eye, dtype=np.float64)
    centre = 0.5 * (vertices.min(axis=0) + vertices.max(axis=0))
    forward = centre - eye
    distance = float(np.linalg.norm(forward))
    if distance < 1e-9:
        return _wide(eye)
    forward /= distance
    helper = np.array([0.0, 0.0, 1.0]) if abs(forward[2]) < 0.9 else np.array([1.0, 0.0, 0.0])
    right = np.cross(forward, helper)
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    rel = vertices - eye
    depth = rel @ forward
    if depth.min() <= _MIN_DEPTH_SHARE * distance:
        return _wide(eye)
    uv = np.column_stack([rel @ right, rel @ up]) / depth[:, None]
    pad = 1e-6
    return ViewWindow(eye, forward, right, up, uv.min(axis=0) - pad, uv.max(axis=0) + pad)


def _wide(eye: np.ndarray) -> ViewWindow:
    axis = np.eye(3)
    return ViewWindow(eye, axis[1], axis[0], axis[2], np.zeros(2), np.ones(2), wide=True)
