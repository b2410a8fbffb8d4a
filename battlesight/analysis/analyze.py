"""Layout analysis: standard models on every cell of a grid, cumulative viewsheds per deployment
zone, the figures a designer compares layouts by, and the ruleset's layout checks.

Sight between two cells is the ruleset's standard-model test (`standard.py`), cast against the
terrain only (the scene's models are left out). Figures (all shares in 0..1):

- zone_to_zone_exposure: share of pairs (one cell in each zone) with sight either way;
- exposure[p]: share of pairs (cell outside p's zone, cell of p's zone) where the first sees
  the second: how exposed p's deployment zone is to the rest of the table;
- visible_share[p]: share of pairs (cell of p's zone, any cell) where the zone cell sees the
  other: the share of the table p's zone sees, cumulatively; visible_any[p]: share of cells
  that at least one zone cell sees;
- fairness: exposure[1] - exposure[2] (positive: player 1 is more exposed), and
  fairness_by_area: how much of it each ~2' x 2' area of the table contributes;
- longest_lane: the longest sight line between the two zones (plan inches, cell centres);
- pieces: the terrain pieces as the set-up rules count them (a `group` of shapes is one);
- terrain_area, blocking_area: shares of the table under terrain footprints (a group's
  outline, the ground between its walls included), and under the shapes that hide a standard
  model (solid top at or above its eye; forests where they block).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
import shapely

from battlesight.geometry import planar
from battlesight.geometry.sightgrid.refine import refined_pair_sight
from battlesight.geometry.sightgrid.viewshed import StandingGrid, pair_sight, standing_grid
from battlesight.geometry.world import World
from battlesight.scenes.build import build_world
from battlesight.scenes.footprints import footprints, layout_pieces, table_areas
from battlesight.scenes.model import Scene

from .checks import SightFacts, layout_checks
from .maps import Deployment, scene_deployment
from .standard import StandardModel, standard_model

DIGITS = 4
_LANE_ROWS = 64  # rows of the first zone measured at a time for the longest lane


@dataclass
class LayoutAnalysis:
    """The result of `analyze_scene`.

    figures: JSON-ready dict (see the module docstring); grid: the standing grid;
    fields: (ny, nx) float arrays over the grid (NaN where no model can stand):
    'exposure' (share of both zones' cells that see the cell), 'seen_from_P' and 'sees_P'
    (share of player P's zone cells that see the cell / that the cell sees);
    lane: ((x, y), (x, y)) ends of the longest lane or None.
    """

    scene: Scene
    model: StandardModel
    deployment: Deployment
    grid: StandingGrid
    figures: dict
    fields: dict[str, np.ndarray] = field(default_factory=dict)
    lane: tuple[tuple[float, float], tuple[float, float]] | None = None


def terrain_world(scene: Scene) -> World:
    """The world of the scene's terrain alone."""
    return build_world(replace(scene, models=[], units=[]))


def analyze_scene(scene: Scene, grid: float = 1.0, model: StandardModel | None = None,
                  deployment: str | None = None, world: World | None = None,
                  exact: bool = False, workers: int | None = None,
                  stride: int | None = None) -> LayoutAnalysis:
    """Analyse one layout at a grid of `grid` inches (see the module docstring).

    model: the standard model (default: the ruleset's); deployment: a map name overriding the
    scene's zones; world: a prebuilt terrain world (default: built here); exact: cast every
    pair of cells (`pair_sight`) instead of refining adaptively (`refine.refined_pair_sight`);
    workers: processes the refined method casts on (default: up to two, the CPUs allowed);
    stride: its lattice step in cells (default `refine.default_stride`).
    """
    start, cpu = time.perf_counter(), time.process_time()
    model = model or standard_model(scene.ruleset)
    dep = scene_deployment(scene, deployment)
    players = sorted(dep.zones)[:2]
    if len(players) < 2:
        raise ValueError("a layout analysis needs two deployment zones")
    world = world or terrain_world(scene)
    g = standing_grid(world, grid, heights=(0.05, model.eye))
    n = len(g.foot)
    masks = {p: planar.covers(g.plan, dep.zones[p]) & g.standable for p in players}
    for p in players:
        if not masks[p].any():
            raise ValueError(f"player {p}'s deployment zone holds no cell a model can stand on")
    rows = np.flatnonzero(g.standable)
    col_ids = {p: np.flatnonzero(masks[p]) for p in players}
    cols = np.concatenate([col_ids[p] for p in players])
    bounds = np.cumsum([0] + [len(col_ids[p]) for p in players])
    part = {p: slice(bounds[i], bounds[i + 1]) for i, p in enumerate(players)}
    method = {"method": "exact", "stride": 1}
    if exact:
        sight = pair_sight(world, g.foot, rows, cols, model.sight_test())
    else:
        sight = refined_pair_sight(world, g, rows, [col_ids[p] for p in players],
                                   model.sight_test(), stride=stride, workers=workers,
                                   report=method)

    sees, seen, seen_any = {}, {}, {}
    counted = {}  # per row and zone: how many zone cells it sees / sees it (bool counts, exact)
    for p in players:
        width = len(col_ids[p])
        counted[p] = (np.count_nonzero(sight.sees[:, part[p]], axis=1),
                      np.count_nonzero(sight.seen[:, part[p]], axis=1))
        sees[p] = np.zeros(n)
        sees[p][rows] = counted[p][0] / width
        seen[p] = np.zeros(n)
        seen[p][rows] = counted[p][1] / width
        seen_any[p] = np.zeros(n, dtype=bool)
        seen_any[p][rows] = counted[p][1] > 0

    one, two = players
    in_one = masks[one][rows]
    pairs = sight.sees[:, part[two]][in_one] | sight.seen[:, part[two]][in_one]  # copy less
    exposure, visible, visible_any = {}, {}, {}
    for p in players:
        outside = ~masks[p][rows]
        exposure[p] = (float(counted[p][0][outside].sum() / (outside.sum() * len(col_ids[p])))
                       if outside.any() else 0.0)
        visible[p] = float(counted[p][1].sum() / (len(rows) * len(col_ids[p])))
        visible_any[p] = float(seen_any[p][rows].mean())
    fairness = exposure[one] - exposure[two]
    by_area = _fairness_by_area(scene.table, g, masks, sees, players)
    lane, lane_ends = _longest_lane(g, col_ids[one], col_ids[two], pairs)
    pieces = layout_pieces(scene)
    terrain, blocking = _areas(scene, world, model, pieces)
    facts = SightFacts(g.plan, g.standable, {p: seen_any[p] for p in players})
    checks = layout_checks(scene, dep, facts)

    total = sum(len(col_ids[p]) for p in players)
    fields = {"exposure": g.field(sum(seen[p] * len(col_ids[p]) for p in players) / total)}
    for p in players:
        fields[f"seen_from_{p}"] = g.field(seen[p])
        fields[f"sees_{p}"] = g.field(sees[p])
    r = _round
    figures = {
        "scene": scene.name,
        "file": None if scene.path is None else str(scene.path),
        "ruleset": scene.ruleset,
        "table": [float(v) for v in scene.table],
        "grid": float(grid),
        "standard_model": model.to_dict(),
        "deployment": dep.to_dict(),
        "cells": {"total": int(n), "standable": int(len(rows)),
                  "zone": {str(p): int(len(col_ids[p])) for p in players}},
        "zone_to_zone_exposure": r(float(pairs.mean())),
        "exposure": {str(p): r(exposure[p]) for p in players},
        "visible_share": {str(p): r(visible[p]) for p in players},
        "visible_any": {str(p): r(visible_any[p]) for p in players},
        "fairness": r(fairness),
        "fairness_by_area": by_area,
        "fairness_source": _fairness_source(fairness, by_area, one, two),
        "longest_lane": r(lane),
        "longest_lane_ends": lane_ends,
        "pieces": len(pieces),
        "terrain_area": r(terrain),
        "blocking_area": r(blocking),
        "checks": [c.to_dict() for c in checks],
        "method": method["method"],
        "segments": int(sight.segments),
        "seconds": round(time.perf_counter() - start, 3),
        "cpu_seconds": round(time.process_time() - cpu, 3),
    }
    ends = None if lane_ends is None else (tuple(lane_ends[0]), tuple(lane_ends[1]))
    return LayoutAnalysis(scene, model, dep, g, figures, fields, ends)


def _round(value: float) -> float:
    return round(float(value), DIGITS)


def _fairness_by_area(table, g: StandingGrid, masks, sees, players) -> list[dict]:
    """Each area's share of exposure[p] (summing to it) and their difference."""
    out = []
    totals = {p: np.count_nonzero(g.standable & ~masks[p]) for p in players}
    x, y = g.plan[:, 0], g.plan[:, 1]
    for x0, y0, x1, y1 in table_areas(table):
        inside = (x >= x0) & (x < x1) & (y >= y0) & (y < y1) & g.standable
        share = {p: float(sees[p][inside & ~masks[p]].sum() / max(totals[p], 1))
                 for p in players}
        out.append({"area": [x0, y0, x1, y1],
                    "exposure": {str(p): _round(share[p]) for p in players},
                    "difference": _round(share[players[0]] - share[players[1]])})
    return out


def _fairness_source(fairness: float, by_area: list[dict], one: int, two: int) -> str:
    """One sentence: who is more exposed and which area contributes most to it."""
    if abs(fairness) < 5e-4:
        return "both zones are equally exposed"
    worse = one if fairness > 0 else two
    top = max(by_area, key=lambda a: a["difference"] * np.sign(fairness))
    x0, y0, x1, y1 = top["area"]
    return (f"player {worse}'s zone is more exposed by {abs(fairness):.3f}; most of it "
            f"({abs(top['difference']):.3f}) is seen from x {x0:g}-{x1:g}, y {y0:g}-{y1:g}")


def _longest_lane(g: StandingGrid, cells_one, cells_two, pairs) -> tuple[float, list | None]:
    """Longest plan distance between a cell of each zone with sight between them (pairs: (a, b)
    bool), the first such pair in row-major order where several tie.

    Rows are measured in float64, a block at a time, in falling order of the farthest any
    cell of the second zone lies from them (a vertex of its convex hull); the search stops
    where that bound falls below the longest lane found."""
    if not pairs.any():
        return 0.0, None
    a, b = g.plan[cells_one], g.plan[cells_two]
    hull = shapely.get_coordinates(planar.hull_shape(b))  # a point or a line for a few cells
    bound = ((a[:, None, :] - hull[None, :, :]) ** 2).sum(axis=2).max(axis=1)
    order = np.argsort(-bound, kind="stable")
    best, found = -1.0, []
    for lo in range(0, len(order), _LANE_ROWS):
        rows = order[lo:lo + _LANE_ROWS]
        if bound[rows[0]] * (1.0 + 1e-12) < best:
            break
        square = ((a[rows, None, :] - b[None, :, :]) ** 2).sum(axis=2)
        square[~pairs[rows]] = -1.0
        top = float(square.max())
        if top > best:
            best, found = top, []
        if top == best:
            i, j = np.nonzero(square == best)
            found += list(zip(rows[i].tolist(), j.tolist(), strict=True))
    i, j = min(found)
    ends = [[round(float(v), 3) for v in a[i]], [round(float(v), 3) for v in b[j]]]
    return float(np.sqrt(best)), ends


def _areas(scene: Scene, world: World, model: StandardModel,
           pieces: dict[str, np.ndarray]) -> tuple[float, float]:
    """Shares of the table under terrain (the pieces' outlines, a group's as one), and under
    the shapes that hide a standard model: the exact areas of their unions."""
    prints = footprints(scene)
    blocking = []
    for piece in scene.terrain:
        geom = world.terrain[piece.id].geometry
        if piece.type == "forest":
            blocks = model.canopy_limit is not None
        else:
            blocks = geom.solid is not None and geom.solid.bounds[1][2] >= model.eye
        if blocks:
            blocking.append(prints[piece.id])
    return (planar.table_share(list(pieces.values()), scene.table),
            planar.table_share(blocking, scene.table))
