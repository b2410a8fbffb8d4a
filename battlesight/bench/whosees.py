"""The who-sees-whom rows of `battlesight bench`: `los --all --json` on generated tables of 44
(an open table), 100, 200 and 400 models, each row the whole command's time and the peak
memory of its process tree (it judges in two processes from 2,000 pairs on: both counted),
beside the same pairs in one process, and beside raw embreex casting as many rays as the
judgement asked the ray engine for (`ray.RayTally`), at raw embreex's rate on that table (in
wall seconds, and in CPU seconds, which a loaded machine changes less).

A command reports its own peak and its child's through `resource` (the largest resident size
of itself, and of its forked half), so the figure is the tree's, with no sampling.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from battlesight.bench.rays import los_segments, raw_embree_inputs
from battlesight.bench.timing import best_of, command_env
from battlesight.geometry import ray

#: (models, terrain pieces, deployment zone depth) of each row: 400 models need deeper zones
#: than the generator's 12" to stand 1.3" apart on a 72x48 table
TABLES = {44: (44, 0, 12.0), 100: (100, 40, 12.0), 200: (200, 40, 12.0),
          400: (400, 40, 18.0)}

#: a new interpreter running one `battlesight` command; it writes its figures to stderr as
#: one JSON line: the seconds of main(), the CPU seconds of itself and its children, the
#: peak resident size of itself and of its children (KiB), the rays it cast; argv[1] 'one'
#: keeps every pair in this process
_MEASURED = """\
import json, resource, sys, time
from battlesight.cli.main import main
from battlesight.geometry.ray import RayTally
from battlesight.reports import two_processes
if sys.argv[1] == "one":
    two_processes.MIN_ITEMS = 10**12
start = time.perf_counter()
code = main(sys.argv[2:])
seconds = time.perf_counter() - start
own, kids = (resource.getrusage(resource.RUSAGE_SELF),
             resource.getrusage(resource.RUSAGE_CHILDREN))
sys.stderr.write(json.dumps({"code": code, "seconds": seconds, "rays": RayTally.rays,
    "cpu_s": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
    "self_kib": own.ru_maxrss, "children_kib": kids.ru_maxrss}) + "\\n")
"""


def measured_command(args: list[str], one_process: bool = False) -> dict:
    """Wall seconds of a whole `battlesight` command (a new interpreter, output dropped), and
    its own figures (`_MEASURED`): CPU seconds and peak MiB of the process tree, peak MiB of
    the main process alone, rays cast (by the main process: all of them with one_process)."""
    line = [sys.executable, "-c", _MEASURED, "one" if one_process else "two", *args]
    env = command_env()
    start = time.perf_counter()
    done = subprocess.run(line, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=env, text=True)
    wall = time.perf_counter() - start
    own = json.loads(done.stderr.strip().splitlines()[-1])
    if own["code"] != 0:
        raise RuntimeError(f"battlesight {' '.join(args)} exited {own['code']}")
    return {"wall_s": wall, "run_s": own["seconds"], "rays": own["rays"], "cpu_s": own["cpu_s"],
            "peak_mib": (own["self_kib"] + own["children_kib"]) / 1024,
            "main_mib": own["self_kib"] / 1024}


def raw_rates(world, seed: int, rays: int = 200_000) -> tuple[float, float]:
    """Raw embreex OCCLUDED rays a second on this table's own triangles (`raw_embree_inputs`),
    on model-to-model sight segments (`los_segments`): per wall second, and per CPU second
    of this process (all of Embree's threads: what a loaded machine does not change much)."""
    starts, ends = los_segments(world, rays, np.random.default_rng(seed))
    directions, lengths = ray.segments(starts, ends)
    scene, origins, dirs, dists = raw_embree_inputs(world, starts, directions, lengths)

    def cast() -> None:
        scene.run(origins, dirs, dists=dists, query="OCCLUDED")

    wall = best_of(cast)
    cpu = min(_cpu_seconds(cast) for _ in range(3))
    return rays / wall, rays / max(cpu, 1e-9)


def _cpu_seconds(fn) -> float:
    """CPU seconds of this process (every thread) that one call of fn took."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def who_sees_whom_bench(sizes: tuple[int, ...] = tuple(TABLES), seed: int = 1) -> list[dict]:
    """One row per table size (models, a key of TABLES): pairs, the command in two processes
    and in one (seconds, peak MiB), the rays the judgement cast and raw embreex's time for as
    many rays."""
    import battlesight
    from battlesight.scenes.generate import generate_table
    from battlesight.scenes.save import save_scene

    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            models, pieces, zone = TABLES[size]
            path = Path(folder) / f"table-{models}.yaml"
            save_scene(generate_table(seed, pieces=pieces, models=models, zone_depth=zone),
                       path)
            rate, cpu_rate = raw_rates(battlesight.load(path).world, seed)
            args = ["los", str(path), "--all", "--json"]
            two = measured_command(args)
            one = measured_command(args, one_process=True)
            rows.append({
                "models": models, "pieces": pieces, "pairs": models * (models - 1),
                "command_s": two["wall_s"], "command_cpu_s": two["cpu_s"],
                "peak_mib": two["peak_mib"],
                "main_process_mib": two["main_mib"],
                "one_process_s": one["wall_s"], "one_process_cpu_s": one["cpu_s"],
                "one_process_peak_mib": one["peak_mib"],
                "rays": one["rays"], "raw_embreex_rays_per_s": rate,
                "raw_embreex_s": one["rays"] / rate,
                "raw_embreex_cpu_s": one["rays"] / cpu_rate,
            })
    return rows


def format_who_sees_whom(rows: list[dict]) -> str:
    """The rows as text, and each doubling of the models' time ratio (4x is the pairs')."""
    lines = ["who sees whom (los --all --json, whole command; peak: both processes' largest "
             "resident sizes summed):"]
    for r in rows:
        table = "open table" if not r["pieces"] else f"{r['pieces']} pieces"
        lines.append(
            f"  {r['models']:>4} models ({table}), {r['pairs']:>7,} pairs  "
            f"{r['command_s']:8.2f} s (CPU {r['command_cpu_s']:.1f} s)  peak "
            f"{r['peak_mib']:5.0f} MiB   one process {r['one_process_s']:8.2f} s (CPU "
            f"{r['one_process_cpu_s']:.1f} s), {r['one_process_peak_mib']:5.0f} MiB   raw embreex,"
            f" same {r['rays'] / 1e6:,.1f} M rays {r['raw_embreex_s']:6.2f} s "
            f"({r['command_s'] / r['raw_embreex_s']:.1f}x), CPU "
            f"{r['raw_embreex_cpu_s']:.2f} s ({r['command_cpu_s'] / r['raw_embreex_cpu_s']:.1f}"
            "x)")
    by_models = {r["models"]: r for r in rows}
    for small, big in ((100, 200), (200, 400)):
        if small in by_models and big in by_models:
            a, b = by_models[small], by_models[big]
            lines.append(f"  {small} -> {big} models: {b['command_s'] / a['command_s']:.2f}x "
                         f"the time, {b['command_cpu_s'] / a['command_cpu_s']:.2f}x the CPU "
                         f"time (one process {b['one_process_cpu_s'] / a['one_process_cpu_s']:.2f}"
                         f"x), {b['pairs'] / a['pairs']:.2f}x the pairs")
    return "\n".join(lines)
