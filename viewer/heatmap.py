"""Fields over the table for the heatmap overlay, and where they come from.

A field is an (ny, nx) float array in [0, 1], row 0 along y = 0, covering the whole table.
The default source is the layout analysis (`battlesight.analysis.analyze_scene`, what `battlesight
analyze` computes): its 'exposure' field (share of both zones' cells that see a cell) and the
per-zone fields. 'eyes' is the cheap field of the scene's own models (`exposure_field`), also
the fallback when a scene cannot be analysed (no scene file, fewer than two zones). `Heat`
carries a field with the words its legend shows; `Analyser` runs the analysis now or on a
worker thread. No Panda3D here.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from dataclasses import field as _field
from pathlib import Path

import numpy as np
from battlesight.geometry.ray import segments

EYES = "eyes"  # the model-eyes field, not the layout analysis
ANALYSIS_FIELDS = ("exposure", "seen_from_1", "seen_from_2", "sees_1", "sees_2")
FIELDS = (*ANALYSIS_FIELDS, EYES)
DEFAULT_GRID = 1.0  # inches, as `battlesight analyze`
EXPOSURE_TITLE = "Exposure: share of eyes seeing 1\" up"


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


# ---- sources ------------------------------------------------------------------------------


@dataclass
class Heat:
    """A field to draw and its legend: title, notes (what it shows, its source), and its
    name ('exposure', 'seen_from_1', ..., or 'eyes')."""

    field: np.ndarray | None
    title: str
    notes: list[str] = _field(default_factory=list)
    name: str = "exposure"


def field_label(name: str) -> str:
    """Short name of a field for a legend title."""
    if name == EYES:
        return "Exposure to the models' eyes"
    kind, _, player = name.rpartition("_")
    return {"exposure": "Exposure (both zones)", "seen_from": f"Seen from zone {player}",
            "sees": f"Zone {player} seen from"}.get(kind or name, name)


def analysis_heat(analysis, name: str = "exposure") -> Heat:
    """A field of a `LayoutAnalysis`, with its legend."""
    from .heatmap_png import field_title

    if name not in analysis.fields:
        raise ValueError(f"no field {name!r}; fields: {', '.join(analysis.fields)}")
    grid = analysis.figures["grid"]
    return Heat(analysis.fields[name], field_label(name),
                [field_title(name), f'layout analysis, {grid:g}" grid, standard model'], name)


def eyes_heat(world, reason: str | None = None) -> Heat:
    """The model-eyes field of a world (None without models); reason: why it stands in for
    the layout analysis."""
    notes = ['share of model eyes seeing 1" up', "solid terrain only"]
    if reason:
        notes.append(f"(no layout analysis: {reason})")
    return Heat(exposure_field(world), field_label(EYES), notes, EYES)


def analyse(scene, grid: float = DEFAULT_GRID) -> tuple[object | None, str | None]:
    """(LayoutAnalysis, None), or (None, why not) when the scene cannot be analysed."""
    if scene is None:
        return None, "no scene file"
    from battlesight.analysis import analyze_scene

    try:
        return analyze_scene(scene, grid), None
    except Exception as error:  # noqa: BLE001 - a layout the analysis refuses: say why
        return None, str(error) or type(error).__name__


def scene_heat(world, scene, name: str = "exposure", grid: float = DEFAULT_GRID,
               analysis=None) -> Heat:
    """The heatmap `name` of a scene: a layout-analysis field (from `analysis`, or computed
    here), or the model-eyes field (for 'eyes', and when the scene cannot be analysed)."""
    if name not in FIELDS:
        raise ValueError(f"unknown heatmap {name!r}; fields: {', '.join(FIELDS)}")
    if name == EYES:
        return eyes_heat(world)
    reason = None
    if analysis is None:
        analysis, reason = analyse(scene, grid)
    if analysis is not None and name in analysis.fields:
        return analysis_heat(analysis, name)
    return eyes_heat(world, reason or f"no field {name!r}")


def chosen_heat(world, scene, name: str, analysis=None, error: str | None = None) -> Heat | None:
    """The field `name` to draw: the model eyes' one, a field of the scene's analysis, the
    model eyes' one when the analysis failed (error); None when the analysis is needed."""
    if name == EYES:
        return eyes_heat(world)
    if analysis is not None:
        return scene_heat(world, scene, name, analysis=analysis)
    return eyes_heat(world, error) if error else None


def next_field(name: str | None, analysis=None) -> str:
    """The field after `name` in the cycle: the analysis' fields, then 'eyes'."""
    names = [*(analysis.fields if analysis is not None else ANALYSIS_FIELDS), EYES]
    return names[(names.index(name) + 1) % len(names)] if name in names else names[0]


Done = Callable[[object, object, "str | None"], None]  # (scene, analysis or None, error)


class Analyser:
    """Runs the layout analysis of a scene at `grid`: at once (threaded=False), or on one worker
    thread, the newest request's result handed over by `poll()` on the caller's thread (a
    window calls it every frame). on_done(scene, analysis or None, error or None)."""

    def __init__(self, grid: float, on_done: Done, threaded: bool = False):
        self.grid, self.on_done, self.threaded = float(grid), on_done, threaded
        self._executor: ThreadPoolExecutor | None = None
        self._future: Future | None = None
        self._scene = None

    @property
    def pending(self) -> bool:
        """A requested analysis has not been handed over yet."""
        return self._future is not None

    def pending_for(self, scene) -> bool:
        """The analysis of this scene is on its way."""
        return self._future is not None and self._scene is scene

    def request(self, scene) -> None:
        """Analyse scene (superseding a request not yet handed over)."""
        if not self.threaded:
            self.on_done(scene, *analyse(scene, self.grid))
            return
        if self._future is not None:
            self._future.cancel()
        if self._executor is None:
            self._executor = ThreadPoolExecutor(1, thread_name_prefix="battlesight-analysis")
        self._scene = scene
        self._future = self._executor.submit(analyse, scene, self.grid)

    def poll(self, wait: bool = False) -> bool:
        """Hand the newest finished result to on_done (wait: block until it is there); True
        when one was handed over."""
        future = self._future
        if future is None or not (wait or future.done()):
            return False
        analysis, error = future.result()
        self._future = None
        self.on_done(self._scene, analysis, error)
        return True

    def close(self) -> None:
        """Stop the worker (a running analysis is left to finish on its own)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        self._future = None
