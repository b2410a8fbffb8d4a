"""Fields over the table for the heatmap overlay: a cheap exposure field, or one from a file.

A field is an (ny, nx) float array in [0, 1], row 0 along y = 0, covering the whole table.
Issue 7 (layout analysis) will provide richer fields; `draw_heatmap` takes any of them.
No Panda3D here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from geometry.ray import segments


def cell_centres(table: tuple[float, float], cell: float) -> tuple[np.ndarray, np.ndarray]:
    """x (nx,) and y (ny,) of the centres of cell x cell squares covering the table."""
    nx = max(1, int(np.ceil(table[0] / cell)))
    ny = max(1, int(np.ceil(table[1] / cell)))
    xs = (np.arange(nx) + 0.5) * table[0] / nx
    ys = (np.arange(ny) + 0.5) * table[1] / ny
    return xs, ys


def exposure_field(world, observers: list[str] | None = None, cell: float = 1.0,
                   height: float = 1.0) -> np.ndarray | None:
    """Share of the observers' eyes (default: every model) with a line to a point `height`
    above the table at each cell, blocked by solid terrain only. None without observers.

    One ray per (observer, cell): 3,456 cells x 20 models is ~70k rays, milliseconds in Embree.
    """
    ids = list(world.models) if observers is None else list(observers)
    if not ids:
        return None
    xs, ys = cell_centres(world.table, cell)
    gx, gy = np.meshgrid(xs, ys)
    points = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, float(height))])
    eyes = np.array([world.models[i].eye for i in ids], dtype=np.float64)
    starts = np.repeat(eyes, len(points), axis=0)
    ends = np.tile(points, (len(eyes), 1))
    directions, lengths = segments(starts, ends)
    blocked = world.solid_scene.occluded(starts, directions, np.maximum(lengths - 1e-4, 0.0))
    seen = ~blocked.reshape(len(eyes), len(points))
    return seen.mean(axis=0).reshape(gx.shape)


def load_field(path: str | Path) -> np.ndarray:
    """A field from a .npy file (2-D float array); ValueError when it is not one."""
    field = np.load(Path(path), allow_pickle=False)
    if field.ndim != 2 or field.size == 0:
        raise ValueError(f"{path}: a heatmap field is a 2-D array, got shape {field.shape}")
    return field.astype(np.float64)


def normalise(field: np.ndarray) -> np.ndarray:
    """The field scaled to [0, 1] when it leaves that range (NaN kept)."""
    f = np.asarray(field, dtype=np.float64)
    lo, hi = np.nanmin(f), np.nanmax(f)
    if lo >= 0.0 and hi <= 1.0:
        return f
    return (f - lo) / (hi - lo) if hi > lo else np.zeros_like(f)
