"""Benchmark of the layout analysis: one full analysis of a generated 72 x 48 layout at a 1" grid
(pinned to one core where the platform allows), and layouts per minute in a batch (serial, and
on a local Dask cluster when workers are given)."""

from __future__ import annotations

import os
import time

from battlesight.geometry import ray

from .analysis import analyze_scene, terrain_world
from .batch import analyze_batch, generated_jobs
from .generate import generate_layout


def _one_core():
    """Pin this process to one CPU (returns the previous set, or None where unsupported)."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    return before


def bench(seed: int = 1, grid: float = 1.0, layouts: int = 8, workers: int | None = None,
          ruleset: str = "wh40k6", repeat: int = 3) -> dict:
    """Figures as a dict: the single analysis (best of `repeat`, wall and CPU seconds, world
    build, segments) and the batch rates (layouts per minute)."""
    scene = generate_layout(ruleset, seed)
    before = _one_core()
    try:
        runs = []
        for _ in range(repeat):
            start = time.perf_counter()
            world = terrain_world(scene)
            world.solid_scene  # noqa: B018 - the BVH build is part of the analysis
            built = time.perf_counter() - start
            figures = analyze_scene(scene, grid, world=world).figures
            runs.append((time.perf_counter() - start, figures["cpu_seconds"], built, figures))
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)
    wall, cpu, built, figures = min(runs, key=lambda r: r[0])
    seeds = range(seed, seed + layouts)
    start = time.perf_counter()
    analyze_batch(generated_jobs(ruleset, seeds), grid)
    serial = time.perf_counter() - start
    out = {
        "engine": ray.ENGINE,
        "ruleset": ruleset,
        "table": figures["table"],
        "grid": grid,
        "pieces": len(scene.terrain),
        "deployment": figures["deployment"]["source"],
        "cells": figures["cells"],
        "segments": figures["segments"],
        "one_analysis_s": round(wall, 3),
        "one_analysis_cpu_s": round(cpu, 3),
        "world_build_s": round(built, 3),
        "segments_per_s": round(figures["segments"] / max(wall - built, 1e-9)),
        "batch_layouts": layouts,
        "serial_layouts_per_min": round(60.0 * layouts / serial, 1),
    }
    if workers:
        start = time.perf_counter()
        analyze_batch(generated_jobs(ruleset, seeds), grid, workers=workers)
        out["workers"] = workers
        out["dask_layouts_per_min"] = round(60.0 * layouts / (time.perf_counter() - start), 1)
    return out


def format_bench(f: dict) -> str:
    """The figures as lines of text."""
    cells = f["cells"]
    lines = [
        f"battlesight analyze --bench: {f['ruleset']} {f['table'][0]:g}x{f['table'][1]:g} "
        f"generated layout, {f['pieces']} pieces, {f['deployment']}, {f['grid']:g}\" grid, "
        f"engine {f['engine']}",
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
