"""`battlesight analyze SCENE [SCENE...]`: what a terrain layout does to sight lines.

One scene: a report (or `--json`) of zone-to-zone exposure, each zone's exposure and share of
the table it sees, fairness and where it comes from, the longest lane, terrain and blocking
areas, and the ruleset's layout checks; `--heatmap FILE.png` draws the exposure field.
Several scenes: one comparison table (a progress bar on stderr when it takes over a second).
`--workers N` / `--scheduler ADDRESS` run the batch on Dask. `--bench` prints speed figures.
No Panda3D here.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import numpy as np

from battlesight.analysis import (
    LayoutAnalysis,
    analyze_scene,
    deployment_map,
    standard_model,
)
from battlesight.analysis.batch import Job, analyze_batch
from battlesight.cli.arguments import float_in, int_in
from battlesight.cli.common import (
    check_grid,
    check_output_path,
    json_text,
    load_checked,
    table,
)
from battlesight.cli.errors import UsageError
from battlesight.scenes import limits
from battlesight.scenes.model import Scene
from battlesight.scenes.output import write_outputs

FIELDS = ("exposure", "seen_from_1", "seen_from_2", "sees_1", "sees_2")


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="analyse terrain layouts: exposure, fairness, lanes, checks")
    parser.add_argument("scenes", nargs="*", metavar="SCENE", help="scene files (YAML)")
    add_analysis_options(parser)
    parser.add_argument("--heatmap", metavar="FILE.png",
                        help="write a top-down PNG of the field (one per scene: FILE-<scene>.png)")
    parser.add_argument("--field", default="exposure", choices=FIELDS,
                        help="field drawn and saved (default: exposure)")
    parser.add_argument("--save-field", metavar="FILE.npy",
                        help="save the (ny, nx) field for `battlesight render --heatmap-field`")
    parser.add_argument("--bench", action="store_true",
                        help="speed figures on generated layouts (ignores SCENE)")
    parser.add_argument("--layouts", type=int_in(1, limits.MAX_LAYOUTS), default=8,
                        help="layouts in the --bench batch")


def add_analysis_options(parser: argparse.ArgumentParser) -> None:
    """Options shared with `battlesight generate --analyze`."""
    parser.add_argument("--grid", type=float_in(), default=1.0,
                        help="cell size in inches (default 1)")
    parser.add_argument("--exact", action="store_true",
                        help="cast every pair of cells instead of refining adaptively "
                             "(slower; the reference the refined field is tested against)")
    parser.add_argument("--deployment", metavar="MAP",
                        help="a deployment map of the ruleset (default: the scene's zones)")
    inches = limits.MAX_TABLE_SIDE
    parser.add_argument("--base", type=float_in(0, inches * 25.4, above=True),
                        help="standard model base (mm)")
    parser.add_argument("--height", type=float_in(0, inches, above=True),
                        help="standard model height (inches)")
    parser.add_argument("--eye", type=float_in(0, inches, above=True),
                        help="standard model eye height (inches)")
    parser.add_argument("--workers", type=int_in(1, limits.MAX_WORKERS),
                        help="run the batch on a local Dask cluster")
    parser.add_argument("--scheduler", metavar="ADDRESS", help="run on an existing Dask scheduler")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def check_analysis_options(args, rulesets: set[str]) -> None:
    """UsageError for bad --grid, --deployment, model or Dask options."""
    check_grid(args.grid)
    if args.workers is not None and args.scheduler is not None:
        raise UsageError("give --workers or --scheduler, not both")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    for ruleset in sorted(rulesets):
        try:
            if args.deployment is not None:
                deployment_map(ruleset, args.deployment)
            standard_model(ruleset, args.base, args.height, args.eye)
        except ValueError as error:
            raise UsageError(str(error)) from None


def overrides(args) -> dict | None:
    """The standard-model values given on the command line (None when there are none)."""
    given = {k: getattr(args, k) for k in ("base", "height", "eye")}
    return {k: v for k, v in given.items() if v is not None} or None


def model_for(args, ruleset: str):
    """The standard model with the command line's overrides, or None for the default."""
    values = overrides(args)
    return None if values is None else standard_model(ruleset, **values)


def run(args) -> int:
    if args.bench:
        from battlesight.bench.analysis import bench, format_bench

        check_grid(args.grid)
        figures = bench(grid=args.grid, layouts=args.layouts, workers=args.workers,
                        exact=args.exact)
        print(json_text(figures) if args.json else format_bench(figures) + "\n", end="")
        return 0
    if not args.scenes:
        raise UsageError("give at least one SCENE (or --bench)")
    scenes = [load_checked(path) for path in args.scenes]
    check_analysis_options(args, {s.ruleset for s in scenes})
    check_grid(args.grid, [tuple(s.table) for s in scenes])
    drawing = args.heatmap is not None or args.save_field is not None
    if drawing and (args.workers is not None or args.scheduler is not None):
        raise UsageError("--heatmap and --save-field run here; leave out --workers/--scheduler")
    for out, what in ((args.heatmap, "--heatmap"), (args.save_field, "--save-field")):
        if out is not None and not Path(out).resolve().parent.is_dir():
            raise UsageError(f"no folder for {out}")
        if out is not None:
            for scene in scenes:
                name = scene.path.stem if scene.path is not None else "scene"
                check_output_path(_per_scene(out, name, len(scenes) > 1), what)
    files: dict[Path, object] = {}
    if drawing or (len(scenes) == 1 and args.workers is None and args.scheduler is None):
        analyses = [_analyse(s, args) for s in _progress(scenes, len(scenes) > 1)]
        results = [a.figures for a in analyses]
        for analysis in analyses:
            files.update(_drawings(analysis, args, several=len(scenes) > 1))
    else:
        try:
            results = analyze_batch([Job(scene=s) for s in scenes], args.grid, overrides(args),
                                    args.deployment, args.workers, args.scheduler,
                                    progress=True, exact=args.exact)
        except (ValueError, OSError) as error:
            raise UsageError(str(error)) from None
    text = results_text(results, args.json)  # whole before any file is written
    write_outputs(files)
    print(text, end="")
    return 0


def _progress(items: list, show: bool):
    """items wrapped in a tqdm bar on stderr that appears after a second (when tqdm is
    installed)."""
    if not show:
        return items
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return items
    return tqdm(items, delay=1.0, unit="layout", desc="analyse", file=sys.stderr)


def _analyse(scene: Scene, args) -> LayoutAnalysis:
    try:
        return analyze_scene(scene, args.grid, model_for(args, scene.ruleset), args.deployment,
                             exact=args.exact)
    except ValueError as error:
        raise UsageError(f"{scene.path}: {error}") from None


def _drawings(analysis: LayoutAnalysis, args, several: bool) -> dict[Path, bytes]:
    """The --heatmap PNG and --save-field array of one analysis, as bytes by path."""
    name = analysis.scene.path.stem if analysis.scene.path is not None else "scene"
    if args.field not in analysis.fields:
        raise UsageError(f"no field {args.field!r}; fields: {', '.join(analysis.fields)}")
    out: dict[Path, bytes] = {}
    if args.heatmap is not None:
        from battlesight.viewer.heatmap_png import heatmap_png_bytes

        out[_per_scene(args.heatmap, name, several)] = heatmap_png_bytes(analysis, args.field)
    if args.save_field is not None:
        buffer = io.BytesIO()
        np.save(buffer, analysis.fields[args.field])
        out[_per_scene(args.save_field, name, several)] = buffer.getvalue()
    return out


def _per_scene(path: str, name: str, several: bool) -> Path:
    p = Path(path)
    return p.with_name(f"{p.stem}-{name}{p.suffix}") if several else p


def results_text(results: list[dict], as_json: bool) -> str:
    """One report, or a comparison table of several (strict JSON with as_json), whole."""
    if as_json:
        return json_text(results[0] if len(results) == 1 else {"layouts": results})
    if len(results) == 1:
        return format_report(results[0]) + "\n"
    return format_comparison(results) + "\n"


def print_results(results: list[dict], as_json: bool) -> None:
    """Print results_text (built whole first, so a failure prints nothing)."""
    print(results_text(results, as_json), end="")


def _pair(values: dict, fmt: str = "{:.3f}") -> str:
    return "   ".join(f"player {p} {fmt.format(v)}" for p, v in values.items())


def format_report(f: dict) -> str:
    """A one-scene report."""
    cells = f["cells"]
    m = f["standard_model"]
    lane = f["longest_lane_ends"]
    lane_text = "" if lane is None else f"   from {tuple(lane[0])} to {tuple(lane[1])}"
    lines = [
        f"battlesight analyze: {f['scene']} ({f['ruleset']}, {f['table'][0]:g}x{f['table'][1]:g}, "
        f"zones: {f['deployment']['source']}), {f['grid']:g}\" grid, "
        f"{cells['standable']:,} of {cells['total']:,} cells standable",
        f"  standard model: {m['base']:g} mm base, {m['height']:g}\" tall, eye {m['eye']:g}\" "
        f"({m['rule']})",
        f"  zone-to-zone exposure  {f['zone_to_zone_exposure']:.3f}",
        f"  exposure               {_pair(f['exposure'])}",
        f"  visible share          {_pair(f['visible_share'])}",
        f"  fairness               {f['fairness']:+.3f}   {f['fairness_source']}",
        f"  longest lane           {f['longest_lane']:.1f}\"{lane_text}",
        f"  terrain area           {f['terrain_area']:.1%}   blocking {f['blocking_area']:.1%}"
        f"   {f['pieces']} piece{'' if f['pieces'] == 1 else 's'}",
        "  checks:",
    ]
    for c in f["checks"]:
        mark = "pass" if c["passed"] else ("FAIL" if c["kind"] == "set-up" else "note")
        lines.append(f"    {mark}  {c['rule']}: {c['detail']}")
    method = f" ({f['method']})" if "method" in f else ""
    lines.append(f"  {f['segments']:,} sight segments in {f['seconds']:.2f} s{method}")
    return "\n".join(lines)


def format_comparison(results: list[dict]) -> str:
    """One row per layout."""
    header = ["layout", "ruleset", "zones", "z2z", "exp 1", "exp 2", "vis 1", "vis 2", "fair",
              "lane", "terrain", "block", "checks", "s"]
    rows = []
    for f in results:
        label = Path(f["file"]).name if f.get("file") else f["scene"]
        if "seed" in f:
            label = f"seed {f['seed']}"
        setup = [c for c in f["checks"] if c["kind"] == "set-up"]
        passed = sum(c["passed"] for c in setup)
        e, v = list(f["exposure"].values()), list(f["visible_share"].values())
        rows.append([label, f["ruleset"], f["deployment"]["source"],
                     f"{f['zone_to_zone_exposure']:.3f}", f"{e[0]:.3f}", f"{e[1]:.3f}",
                     f"{v[0]:.3f}", f"{v[1]:.3f}", f"{f['fairness']:+.3f}",
                     f"{f['longest_lane']:.1f}", f"{f['terrain_area']:.1%}",
                     f"{f['blocking_area']:.1%}", f"{passed}/{len(setup)}",
                     f"{f['seconds']:.2f}"])
    return table(rows, header)
