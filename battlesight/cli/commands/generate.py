"""`battlesight generate --ruleset R --seed N [--out FILE.yaml] [--count K] [--analyze]`:
random legal layouts from the ruleset's set-up rules.

One layout without --out prints its YAML. With --out each layout is written atomically and read
back through the validator (K layouts, seeds N..N+K-1, go to FILE-<seed>.yaml). --analyze
analyses every layout (a comparison table, or JSON), on Dask with --workers/--scheduler.
No Panda3D here.
"""

from __future__ import annotations

from pathlib import Path

from battlesight.analysis import (
    deployment_map,
    generate_layout,
    layout_checks,
    legal,
    setup_systems,
)
from battlesight.analysis.batch import Job, analyze_batch
from battlesight.analysis.maps import scene_deployment
from battlesight.cli.arguments import int_in
from battlesight.cli.commands.analyze import (
    add_analysis_options,
    check_analysis_options,
    overrides,
    print_results,
)
from battlesight.cli.common import check_output_path, print_json
from battlesight.cli.errors import UsageError
from battlesight.scenes import load_scene, save_scene
from battlesight.scenes.limits import MAX_LAYOUTS, MAX_SEED
from battlesight.scenes.model import Scene
from battlesight.scenes.save import scene_to_dict, scene_to_yaml
from battlesight.scenes.textfiles import is_stdio

MAX_COUNT = MAX_LAYOUTS


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="random legal terrain layouts from a ruleset's set-up rules")
    parser.add_argument("--ruleset", required=True, choices=sorted(setup_systems()),
                        help="game system")
    parser.add_argument("--seed", type=int_in(0, MAX_SEED), default=0,
                        help="first seed (default 0)")
    parser.add_argument("--count", type=int_in(), default=1,
                        help="how many layouts (seeds N, N+1...)")
    parser.add_argument("--out", metavar="FILE.yaml",
                        help="write here (with --count K: FILE-<seed>.yaml)")
    parser.add_argument("--analyze", action="store_true", help="analyse every layout")
    add_analysis_options(parser)


def run(args) -> int:
    if not 1 <= args.count <= MAX_COUNT:
        raise UsageError(f"--count must be between 1 and {MAX_COUNT}, got {args.count}")
    if args.seed + args.count - 1 > MAX_SEED:
        raise UsageError(f"--seed {args.seed} with --count {args.count} passes the last seed, "
                         f"{MAX_SEED:,}")
    if args.count > 1 and args.out is None and not args.analyze:
        raise UsageError("--count above 1 needs --out (or --analyze)")
    if is_stdio(args.out):  # a layout read back from the file it was written to
        raise UsageError("--out -: leave --out out to print one layout on standard output")
    if args.out is not None and not Path(args.out).resolve().parent.is_dir():
        raise UsageError(f"no folder for {args.out}")
    if args.out is not None:
        for seed in range(args.seed, args.seed + args.count):
            check_output_path(out_path(args.out, seed, args.count), "--out")
    if args.deployment is not None:
        try:
            deployment_map(args.ruleset, args.deployment)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if args.analyze:
        check_analysis_options(args, {args.ruleset})
    seeds = range(args.seed, args.seed + args.count)
    if args.out is None and not args.analyze:
        scene = generate_layout(args.ruleset, args.seed, args.deployment)
        if args.json:
            print_json(layouts_json(args.ruleset, [(args.seed, None, scene)]))
        else:
            print(scene_to_yaml(scene), end="")
        return 0
    written = []
    if args.out is not None:
        for seed in seeds:
            written.append(write_layout(args.ruleset, seed, args.deployment,
                                        out_path(args.out, seed, args.count)))
    if args.analyze:
        jobs = ([Job(scene=load_scene(p)) for p in written] if written
                else [Job(ruleset=args.ruleset, seed=s) for s in seeds])
        try:
            results = analyze_batch(jobs, args.grid, overrides(args), None, args.workers,
                                    args.scheduler, progress=True, exact=args.exact)
        except (ValueError, OSError) as error:
            raise UsageError(str(error)) from None
        for seed, figures in zip(seeds, results, strict=True):
            figures["seed"] = seed
        print_results(results, args.json)
    elif args.json:
        print_json(layouts_json(args.ruleset, [(seed, path, load_scene(path))
                                               for seed, path in zip(seeds, written,
                                                                     strict=True)]))
    else:
        for path in written:
            print(f"wrote {path}")
    return 0


def layouts_json(ruleset: str, layouts: list[tuple[int, Path | None, Scene]]) -> dict:
    """What `generate --json` prints without --analyze (generate.schema.json): each layout's
    seed, the file written (the scene itself where none was), its pieces and its set-up
    checks, each with its rule."""
    out = []
    for seed, path, scene in layouts:
        deployment = scene_deployment(scene)
        entry = {"seed": seed, "file": None if path is None else str(path),
                 "deployment": deployment.source, "terrain_pieces": len(scene.terrain),
                 "checks": [c.to_dict() for c in layout_checks(scene, deployment)]}
        if path is None:
            entry["scene"] = scene_to_dict(scene)
        out.append(entry)
    return {"ruleset": ruleset, "layouts": out}


def out_path(out: str, seed: int, count: int) -> Path:
    """FILE.yaml for one layout, FILE-<seed>.yaml for several."""
    p = Path(out)
    return p if count == 1 else p.with_name(f"{p.stem}-{seed}{p.suffix or '.yaml'}")


def write_layout(ruleset: str, seed: int, deployment: str | None, path: Path) -> Path:
    """Generate, check the set-up rules, write atomically, read back through the validator."""
    scene = generate_layout(ruleset, seed, deployment)
    checks = layout_checks(scene, scene_deployment(scene))
    if not legal(checks):  # the generator keeps to the rules; this guards against a regression
        failed = "; ".join(f"{c.rule}: {c.detail}" for c in checks if not c.passed)
        raise UsageError(f"{ruleset} seed {seed}: generated layout breaks {failed}")
    save_scene(scene, path)
    load_scene(path)
    return path
