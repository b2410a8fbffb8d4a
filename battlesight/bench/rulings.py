"""The rulings rows of `battlesight bench`: what users wait for, beside a reference measured in
the same run (ratios stay meaningful on a busy machine).

- scene load: `battlesight.load` of the bench table's file, against reading its YAML alone;
- `los --from` per target: the command's own library path (the gated load + `reports.los_reports`)
  for one model against the other 99, against the plain ray cast of the same pairs; and the
  whole command (a new interpreter) per target;
- `los --all`: every ordered pair (9,900) through the same path, against the plain ray cast
  of the same pairs, and against the same path in one process (the pairs are judged in two,
  `reports.two_processes`, where there are many and two cores: the row says how many); and the
  whole command;
- geometry all pairs: `visibility_many` of every ordered pair, against raw embreex casting
  the same number of segments, and against the full sample of every pair in one pass (what
  the first pass saves).
The issue's targets are printed beside each row.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from battlesight.bench.timing import best_of, command_env

#: the issue's targets (issue 13), seconds
TARGETS = {"load": 0.030, "los_from_per_target": 0.002, "los_all": 4.0, "geometry_all": 2.0}


def _command(args: list[str], repeat: int) -> float:
    """Best wall time of a whole `battlesight` command in a new interpreter (output dropped)."""
    line = [sys.executable, "-c", "import sys; from battlesight.cli.main import main; "
            "sys.exit(main(sys.argv[1:]))", *args]

    env = command_env()  # compiles the package on first use: before the clock

    def run() -> None:
        subprocess.run(line, check=True, stdout=subprocess.DEVNULL, env=env)

    return best_of(run, repeat)


def _libraries_start(repeat: int) -> float:
    """Best wall time of a new interpreter that only imports the libraries every `los` needs
    (numpy, shapely, PyYAML, embreex): the floor under any whole command's start."""
    line = [sys.executable, "-c", "import numpy, shapely, yaml, embreex.rtcore_scene"]
    env = command_env()
    return best_of(lambda: subprocess.run(line, check=True, env=env), repeat)


def rulings_bench(raw_rays_per_s: float, seed: int = 1, models: int = 100, pieces: int = 40,
                  repeat: int = 3) -> dict:
    """The rulings figures (seconds) on a generated table written to a temporary file;
    raw_rays_per_s: raw embreex's rate on the same kind of segments (the bench's own
    measurement), the reference of the geometry row."""
    import battlesight
    from battlesight.geometry.visibility import SightQuery, visibility_many
    from battlesight.reports import two_processes
    from battlesight.reports.los import los_reports
    from battlesight.scenes.generate import generate_table
    from battlesight.scenes.save import save_scene
    from battlesight.scenes.yamlread import read_yaml

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.yaml"
        save_scene(generate_table(seed, pieces=pieces, models=models), path)
        battlesight.load(path)  # imports and data tables, as any earlier call would
        load_s = best_of(lambda: battlesight.load(path), 5 * repeat)
        yaml_s = best_of(lambda: read_yaml(path), 5 * repeat)
        scene, world = _scene_and_world(path)
        ids = [m.id for m in scene.models if m.id in world.models]
        observer = ids[0]
        one = [(observer, t) for t in ids if t != observer]
        every = [(a, b) for a in ids for b in ids if a != b]

        def plain(pairs):
            return lambda: visibility_many(world, [SightQuery(a, b) for a, b in pairs])

        def library(pairs):
            return lambda: los_reports(*_scene_and_world(path), pairs)

        from_s = best_of(library(one), repeat)
        from_geometry_s = best_of(plain(one), repeat)
        all_s = best_of(library(every), 2)
        processes = two_processes.processes_for(len(every))
        least = two_processes.MIN_ITEMS
        try:  # the same pairs in one process: the reference of the second
            two_processes.MIN_ITEMS = 10**9
            all_one_s = best_of(library(every), 1) if processes > 1 else all_s
        finally:
            two_processes.MIN_ITEMS = least
        geometry_s = best_of(plain(every), repeat)
        from battlesight.geometry import visibility

        first = visibility.FIRST_PASS_SAMPLES
        try:  # the full sample for every pair: the one-pass reference of the first pass
            visibility.FIRST_PASS_SAMPLES = 10**9
            full_s = best_of(plain(every), 1)
        finally:
            visibility.FIRST_PASS_SAMPLES = first
        rays = sum(v.rays for v in visibility_many(world, [SightQuery(a, b) for a, b in every]))
        raw_s = rays / raw_rays_per_s
        from_cmd_s = _command(["los", str(path), "--from", observer, "--json"], repeat)
        # one target: the start every command pays (interpreter, imports, the scene, its world)
        start_cmd_s = _command(["los", str(path), "--from", observer, "--to", one[0][1],
                                "--json"], repeat)
        all_cmd_s = _command(["los", str(path), "--all", "--json"], 2)
        floor_s = _libraries_start(repeat)
    return {
        "models": len(ids), "targets": len(one), "pairs": len(every), "rays": int(rays),
        "load_s": load_s, "yaml_s": yaml_s,
        "los_from_s": from_s, "los_from_geometry_s": from_geometry_s,
        "los_from_command_s": from_cmd_s, "los_one_target_command_s": start_cmd_s,
        "libraries_start_s": floor_s,
        "los_all_s": all_s, "los_all_command_s": all_cmd_s, "los_all_processes": processes,
        "los_all_one_process_s": all_one_s,
        "geometry_all_s": geometry_s, "raw_embreex_s": raw_s, "geometry_full_sample_s": full_s,
        "targets_s": dict(TARGETS),
    }


def format_rulings_bench(f: dict) -> str:
    """The rows as text: figure, reference, ratio, target."""
    n = f["targets"]

    def row(label: str, value: float, unit: str, ref_label: str, ref: float,
            target: float | None) -> str:
        scale = 1000.0 if unit == "ms" else 1.0
        aim = f"   target <= {target * scale:g} {unit}" if target is not None else ""
        return (f"  {label:<38} {value * scale:8.2f} {unit}   {value / ref:5.2f}x {ref_label}"
                f" ({ref * scale:.2f} {unit}){aim}")

    t = f["targets_s"]
    procs = "1 process" if f["los_all_processes"] == 1 else f"{f['los_all_processes']} processes"
    return "\n".join([
        f"rulings ({f['models']} models, {f['pairs']:,} ordered pairs, {f['rays']:,} rays for "
        "all pairs):",
        row("scene load (battlesight.load)", f["load_s"], "ms", "its YAML alone", f["yaml_s"],
            t["load"]),
        row(f"los --from, per target (library, {n})", f["los_from_s"] / n, "ms",
            "plain rays", f["los_from_geometry_s"] / n, t["los_from_per_target"]),
        row("los --from, per target (whole command)", f["los_from_command_s"] / n, "ms",
            "library", f["los_from_s"] / n, t["los_from_per_target"]),
        row("  of which the start (one target)", f["los_one_target_command_s"] / n, "ms",
            "whole command", f["los_from_command_s"] / n, None),
        row("    under it, the libraries' own start", f["libraries_start_s"] / n, "ms",
            "the start", f["los_one_target_command_s"] / n, None),
        row(f"  and each further target ({n - 1})", (f["los_from_command_s"]
            - f["los_one_target_command_s"]) / (n - 1), "ms", "library",
            f["los_from_s"] / n, t["los_from_per_target"]),
        row(f"los --all, {f['pairs']:,} pairs ({procs})", f["los_all_s"], "s",
            "plain rays", f["geometry_all_s"], t["los_all"]),
        row(f"los --all, {f['pairs']:,} pairs ({procs})", f["los_all_s"], "s",
            "one process", f["los_all_one_process_s"], t["los_all"]),
        row(f"los --all, {f['pairs']:,} pairs (whole command)", f["los_all_command_s"], "s",
            "library", f["los_all_s"], t["los_all"]),
        row("geometry all pairs (visibility_many)", f["geometry_all_s"], "s",
            "raw embreex, same rays", f["raw_embreex_s"], t["geometry_all"]),
        row("geometry all pairs (visibility_many)", f["geometry_all_s"], "s",
            "full sample, one pass", f["geometry_full_sample_s"], t["geometry_all"]),
    ])


def _scene_and_world(path: Path):
    """What `los` loads before it judges: the scene through the whole gate and its world."""
    import battlesight

    field = battlesight.load(path)
    return field.scene, field.world
