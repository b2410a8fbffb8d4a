"""Benchmarks of the layout analysis on generated 72 x 48 layouts.

`bench` (`analyze --bench`): one analysis at a grid (pinned to one core where the platform
allows), and layouts per minute in a batch (serial, and on a local Dask cluster).
`layout_bench` (the layout rows of `battlesight bench`): on a layout the set-up rules generate
and on the bench's crowded table (30 pieces), the refined analysis at 0.5" and at 1" each beside
the exhaustive one (a ratio, and how closely the fields match), and a Dask batch beside the
serial batch, with where a batch's time goes per layout.
"""

from __future__ import annotations

import os
import pickle
import time

from battlesight.analysis.analyze import analyze_scene, terrain_world
from battlesight.analysis.batch import analyze_batch, dask_client, generated_jobs, run_job
from battlesight.analysis.generate import generate_layout
from battlesight.geometry import ray
from battlesight.geometry.sightgrid.refine import default_stride, field_difference
from battlesight.scenes.generate import generate_table

#: Pieces on the bench's crowded table (the issue's "72x48 with 30 pieces").
CROWDED = 30


def _one_core():
    """Pin this process to one CPU (returns the previous set, or None where unsupported)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    return before


def _timed_analysis(scene, grid: float, exact: bool, workers: int | None = None,
                    stride: int | None = None):
    """(wall seconds with the world build, world build seconds, LayoutAnalysis)."""
    start = time.perf_counter()
    world = terrain_world(scene)
    world.solid_scene  # noqa: B018 - the BVH build is part of the analysis
    built = time.perf_counter() - start
    analysis = analyze_scene(scene, grid, world=world, exact=exact, workers=workers,
                             stride=stride)
    return time.perf_counter() - start, built, analysis


def bench(seed: int = 1, grid: float = 1.0, layouts: int = 8, workers: int | None = None,
          ruleset: str = "wh40k6", repeat: int = 3, exact: bool = False) -> dict:
    """Figures as a dict: the single analysis on one core (best of `repeat`, wall and CPU
    seconds, world build, segments; exact: the exhaustive method) and the batch rates (layouts
    per minute)."""
    scene = generate_layout(ruleset, seed)
    before = _one_core()
    try:
        runs = [_timed_analysis(scene, grid, exact, workers=1) for _ in range(repeat)]
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)
    wall, built, analysis = min(runs, key=lambda r: r[0])
    figures = analysis.figures
    seeds = range(seed, seed + layouts)
    start = time.perf_counter()
    analyze_batch(generated_jobs(ruleset, seeds), grid, exact=exact)
    serial = time.perf_counter() - start
    out = {
        "engine": ray.ENGINE,
        "ruleset": ruleset,
        "table": figures["table"],
        "grid": grid,
        "method": "exact" if exact else "refined",
        "pieces": len(scene.terrain),
        "deployment": figures["deployment"]["source"],
        "cells": figures["cells"],
        "segments": figures["segments"],
        "one_analysis_s": round(wall, 3),
        "one_analysis_cpu_s": figures["cpu_seconds"],
        "world_build_s": round(built, 3),
        "segments_per_s": round(figures["segments"] / max(wall - built, 1e-9)),
        "batch_layouts": layouts,
        "serial_layouts_per_min": round(60.0 * layouts / serial, 1),
    }
    if workers:
        start = time.perf_counter()
        analyze_batch(generated_jobs(ruleset, seeds), grid, workers=workers, exact=exact)
        out["workers"] = workers
        out["dask_layouts_per_min"] = round(60.0 * layouts / (time.perf_counter() - start), 1)
    return out


def format_bench(f: dict) -> str:
    """The figures of `bench` as lines of text."""
    cells = f["cells"]
    lines = [
        f"battlesight analyze --bench: {f['ruleset']} {f['table'][0]:g}x{f['table'][1]:g} "
        f"generated layout, {f['pieces']} pieces, {f['deployment']}, {f['grid']:g}\" grid, "
        f"{f['method']}, engine {f['engine']}",
        f"  cells {cells['standable']:,} standable of {cells['total']:,}; zones "
        + ", ".join(f"{p}: {n}" for p, n in cells["zone"].items()),
        f"  one full analysis (one core)   {f['one_analysis_s']:7.3f} s wall, "
        f"{f['one_analysis_cpu_s']:.3f} s CPU",
        f"    world build                  {f['world_build_s']:7.3f} s",
        f"    sight segments               {f['segments']:,} ({f['segments_per_s'] / 1e6:.2f} M/s)",
        f"  batch of {f['batch_layouts']} layouts, serial  {f['serial_layouts_per_min']:7.1f} "
        "layouts/min",
    ]
    if "dask_layouts_per_min" in f:
        lines.append(f"  batch on Dask, {f['workers']} workers    "
                     f"{f['dask_layouts_per_min']:7.1f} layouts/min")
    return "\n".join(lines)


def analysis_row(scene, grid: float, repeat: int = 3, exact_reference: bool = True) -> dict:
    """The default analysis of one scene at `grid` (best of `repeat`, both cores; its method),
    and with exact_reference the exhaustive one beside it (one run): seconds, their ratio,
    segments and the worst field match (`field_difference`) over the analysis' fields. Where
    the default cast every pair of a grid finer than 1", the refinement forced on (one run) is
    measured and matched too (`forced_*`)."""
    runs = [_timed_analysis(scene, grid, exact=False) for _ in range(repeat)]
    wall, _, fast = min(runs, key=lambda r: r[0])
    row = {"grid": grid, "cells": fast.figures["cells"]["standable"], "refined_s": round(wall, 3),
           "refined_segments": fast.figures["segments"], "method": fast.figures["method"]}
    if not exact_reference:
        return row
    exact_s, _, exact = _timed_analysis(scene, grid, exact=True)
    row.update(exact_s=round(exact_s, 3), exact_segments=exact.figures["segments"],
               speedup=round(exact_s / wall, 2), **_match(fast, exact))
    if fast.figures["method"] != "refined" and default_stride(grid) > 1:
        forced_s, _, forced = _timed_analysis(scene, grid, exact=False,
                                              stride=default_stride(grid))
        match = _match(forced, exact)
        row.update(forced_s=round(forced_s, 3), forced_segments=forced.figures["segments"],
                   forced_mean_abs=match["field_mean_abs"],
                   forced_share_over=match["field_share_over"])
    return row


def _match(analysis, exact) -> dict:
    """The worst `field_difference` over the fields of an analysis against the exact one."""
    worst = {"mean_abs": 0.0, "share_over": 0.0}
    for name, values in analysis.fields.items():
        diff = field_difference(values, exact.fields[name])
        worst = {k: max(worst[k], diff[k]) for k in worst}
    return {"field_mean_abs": round(worst["mean_abs"], 5),
            "field_share_over": round(worst["share_over"], 5)}


def batch_row(ruleset: str, seed: int, layouts: int, grid: float, workers: int) -> dict:
    """A batch of generated layouts, serial and on a local Dask cluster of `workers`: layouts
    per minute and their ratio, and where the time goes (per layout: generating, the world,
    the analysis, pickling the figures; the cluster's start with every worker's imports)."""
    seeds = range(seed, seed + layouts)
    parts = {"generate_s": 0.0, "world_s": 0.0, "analysis_s": 0.0, "pickle_s": 0.0}
    start = time.perf_counter()
    for s in seeds:
        t0 = time.perf_counter()
        scene = generate_layout(ruleset, s)
        t1 = time.perf_counter()
        world = terrain_world(scene)
        world.solid_scene  # noqa: B018
        t2 = time.perf_counter()
        figures = analyze_scene(scene, grid, world=world, workers=1).figures
        t3 = time.perf_counter()
        pickle.dumps(figures)
        parts["generate_s"] += t1 - t0
        parts["world_s"] += t2 - t1
        parts["analysis_s"] += t3 - t2
        parts["pickle_s"] += time.perf_counter() - t3
    serial = time.perf_counter() - start
    start = time.perf_counter()
    with dask_client(workers, None) as client:
        client.run(_warm)  # every worker imports the analysis before the clock of the batch
        started = time.perf_counter() - start
        futures = client.map(run_job, list(generated_jobs(ruleset, seeds)), grid=grid,
                             pure=False)
        client.gather(futures)
    dask_s = time.perf_counter() - start
    per = {k: round(1000 * v / layouts, 1) for k, v in parts.items()}
    return {"grid": grid, "layouts": layouts, "workers": workers,
            "serial_layouts_per_min": round(60.0 * layouts / serial, 1),
            "dask_layouts_per_min": round(60.0 * layouts / dask_s, 1),
            "dask_running_per_min": round(60.0 * layouts / max(dask_s - started, 1e-9), 1),
            "ratio": round(serial / dask_s, 2), "cluster_start_s": round(started, 2),
            "per_layout_ms": {k.replace("_s", ""): v for k, v in per.items()}}


def _warm() -> None:
    """Import what a job needs (run once on each worker)."""
    import battlesight.analysis.batch  # noqa: F401


def layout_bench(seed: int = 1, ruleset: str = "wh40k6", repeat: int = 3, layouts: int = 40,
                 batch_grid: float = 2.0, workers: int = 2, crowded: int = CROWDED) -> dict:
    """The layout rows of `battlesight bench` (see the module docstring): a layout generated
    by the system's set-up rules, and the bench's 72" x 48" table with `crowded` pieces
    (0: left out)."""
    scene = generate_layout(ruleset, seed)
    out = {
        "ruleset": ruleset, "table": [float(v) for v in scene.table],
        "pieces": len(scene.terrain),
        "fine": analysis_row(scene, 0.5, repeat),
        "coarse": analysis_row(scene, 1.0, repeat),
    }
    if crowded:
        table = generate_table(seed, pieces=crowded, models=0)
        out["crowded"] = {"pieces": len(table.terrain), "fine": analysis_row(table, 0.5, repeat),
                          "coarse": analysis_row(table, 1.0, repeat)}
    out["batch"] = batch_row(ruleset, seed, layouts, batch_grid, workers)
    return out


def format_layout_bench(f: dict) -> str:
    """The layout rows as lines of text."""
    fine, coarse, batch = f["fine"], f["coarse"], f["batch"]
    per = batch["per_layout_ms"]
    lines = [f"  layout analysis: {f['ruleset']} {f['table'][0]:g}x{f['table'][1]:g} generated "
             f"layout, {f['pieces']} pieces"]
    lines += _analysis_lines(fine, coarse)
    if "crowded" in f:
        crowded = f["crowded"]
        lines.append(f"  layout analysis: the bench's {f['table'][0]:g}x{f['table'][1]:g} table, "
                     f"{crowded['pieces']} pieces")
        lines += _analysis_lines(crowded["fine"], crowded["coarse"])
    lines += [
        f"    Dask batch, {batch['workers']} workers, {batch['layouts']} layouts at "
        f"{batch['grid']:g}\"  {batch['dask_layouts_per_min']:7.1f} layouts/min   vs serial "
        f"{batch['serial_layouts_per_min']:.1f} ({batch['ratio']:.2f}x); cluster start "
        f"{batch['cluster_start_s']:.2f} s, after it "
        f"{batch.get('dask_running_per_min', float('nan')):.1f} layouts/min",
        f"      per layout: generate {per['generate']:.0f} ms, world {per['world']:.0f} ms, "
        f"analysis {per['analysis']:.0f} ms, pickle {per['pickle']:.1f} ms",
    ]
    return "\n".join(lines)


def _analysis_lines(fine: dict, coarse: dict) -> list[str]:
    """The lines of one table's analysis rows (0.5" and 1")."""
    lines = []
    for row in (fine, coarse):
        line = (f"    analysis at {row['grid']:g}\" ({row['cells']:,} cells)  "
                f"{row['refined_s']:8.2f} s ({row['method']})")
        if "exact_s" in row:
            line += (f"   vs --exact {row['exact_s']:.2f} s ({row['speedup']:.2f}x); field "
                     f"mean |diff| {row['field_mean_abs']:.4f}, "
                     f"{row['field_share_over']:.2%} cells > 0.05")
        lines.append(line)
        if "forced_s" in row:
            lines.append(f"      refinement forced on: {row['forced_s']:.2f} s, "
                         f"{row['forced_segments']:,} segments against "
                         f"{row['exact_segments']:,}; field mean |diff| "
                         f"{row['forced_mean_abs']:.4f}, {row['forced_share_over']:.2%} cells "
                         "> 0.05")
    return lines
