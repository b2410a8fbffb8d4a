"""`battlesight bench`: ray-casting figures on a generated 72x48 table (40 pieces, 100 models).

Prints raw embreex segment throughput, the project's throughput through `World.blocked` on the
same rays (and their ratio), world build time, the median time of one model-to-model query at
default sampling, and the time for all ordered pairs of models in one batch; then the world
build of a table holding one 1M-face mesh building beside the raw embreex BVH build of the
same triangles (`bench.mesh`).
"""

from __future__ import annotations

from importlib import import_module

from battlesight.bench.mesh import big_mesh_figures
from battlesight.bench.rays import bench, format_figures
from battlesight.cli.arguments import int_in
from battlesight.cli.common import print_json
from battlesight.scenes.limits import MAX_MODELS, MAX_SEED, MAX_TERRAIN_PIECES


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="measure ray-casting speed on a generated table")
    parser.add_argument("--seed", type=int_in(0, MAX_SEED), default=1,
                        help="table generator seed")
    parser.add_argument("--rays", type=int_in(1, 100_000_000), default=1_000_000,
                        help="segments for throughput")
    parser.add_argument("--models", type=int_in(2, MAX_MODELS), default=100,
                        help="models on the table")
    parser.add_argument("--pieces", type=int_in(0, MAX_TERRAIN_PIECES), default=40,
                        help="terrain pieces on the table")
    parser.add_argument("--mesh-faces", type=int_in(0, 5_000_000), default=1_000_000,
                        help="faces of the big-mesh world build (0: leave that figure out)")
    parser.add_argument("--who-models", type=_sizes, default=None, metavar="N,N",
                        help="the who-sees-whom rows' tables, by models (of 44, 100, 200, "
                             "400; default all four with --only whosees, else 44 and 100)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--only", choices=ONLY, action="append",
                        help="print only these groups of rows (repeatable; default: every row)")


#: Groups of rows `--only` can pick: the ray engine's, the layout analysis' (issue 13), the
#: lit overview's whole render command (issue 15), the rulings (load, los --from / --all,
#: geometry all pairs; issue 13), the replay of the bundled game (issue 15), the window's
#: model moves (verdicts after a move, a drag frame; issue 23), who sees whom on tables
#: of 44 to 400 models (issue 27).
ONLY = ("rays", "layout", "render", "rulings", "replay", "moves", "whosees")
#: how each group after the rays is printed: its module under battlesight.bench, the function
#: that formats its figures, and their key in the figures (imported only when printed)
FORMATTERS = {
    "layout": ("analysis", "format_layout_bench", "layout"),
    "render": ("render", "format_render_bench", "render"),
    "rulings": ("rulings", "format_rulings_bench", "rulings"),
    "replay": ("replay", "format_replay_bench", "replay"),
    "moves": ("moves", "format_moves_bench", "moves"),
    "whosees": ("whosees", "format_who_sees_whom", "who_sees_whom"),
}

def _sizes(text: str) -> tuple[int, ...]:
    """'100,200': the who-sees-whom tables of those model counts."""
    import argparse

    from battlesight.bench.whosees import TABLES

    sizes = tuple(int(t) for t in text.split(",") if t.strip().isdigit())
    if not sizes or any(s not in TABLES for s in sizes):
        raise argparse.ArgumentTypeError(
            f"give model counts among {', '.join(map(str, TABLES))}, comma-separated")
    return sizes


def run(args) -> int:
    only = set(args.only or ONLY)
    figures = bench(args.seed, args.rays, args.models, args.pieces)
    if "rulings" in only:  # what los waits for, beside the plain rays of the same pairs; run
        # before the big mesh and the layouts, whose leftovers made this Python-heavy work up to
        # 1.6x slower in one process (a YAML read 14 -> 23 ms)
        from battlesight.bench.rulings import rulings_bench

        figures["rulings"] = rulings_bench(
            figures["throughput"]["los"]["raw_embreex_rays_per_s"], args.seed, args.models,
            args.pieces)
    if args.mesh_faces:
        figures["big_mesh"] = big_mesh_figures(args.mesh_faces) if "rays" in only else {}
    if "layout" in only:
        from battlesight.bench.analysis import layout_bench

        figures["layout"] = layout_bench(seed=args.seed)
    if "render" in only:  # whole render commands: the lit overview against the flat one
        from battlesight.bench.render import render_bench

        figures["render"] = render_bench()
    if "replay" in only:  # a whole replay command, lit beside flat
        from battlesight.bench.replay import replay_bench

        figures["replay"] = replay_bench()
    if "moves" in only:  # a model dragged in the window: the verdicts after, a drag frame
        from battlesight.bench.moves import moves_bench

        figures["moves"] = moves_bench(args.seed, args.models, args.pieces)
    if "whosees" in only:  # whole los --all commands on tables of 44 to 400 models
        from battlesight.bench.whosees import TABLES, who_sees_whom_bench

        # all four tables when asked for by --only (the 400-model one alone takes minutes);
        # the two smaller in the every-row run
        sizes = args.who_models or (tuple(TABLES) if args.only else tuple(TABLES)[:2])
        figures["who_sees_whom"] = who_sees_whom_bench(sizes, args.seed)
    if args.json:
        print_json(figures)
    else:
        text = [format_figures(figures)] if "rays" in only else []
        for group, (module, formatter, key) in FORMATTERS.items():
            if group in only:
                text.append(getattr(import_module(f"battlesight.bench.{module}"),
                                    formatter)(figures[key]))
        print("\n".join(text))
    return 0


