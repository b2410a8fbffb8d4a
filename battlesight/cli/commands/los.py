"""`battlesight los SCENE --from A [--to B] [--json]`: what model A's eye sees of B (or of
every other model), what hides the rest, and the ruleset's verdict (`Ruleset.judge`)."""

from __future__ import annotations

import sys
from collections.abc import Mapping

from battlesight.api import Battlefield
from battlesight.cli.arguments import add_reading_arguments, chosen_readings, int_in
from battlesight.cli.common import (
    add_scene_argument,
    load,
    print_json,
    require_model,
    table,
)
from battlesight.cli.errors import UsageError
from battlesight.reports.los import los_cells, los_json_lines, los_reports
from battlesight.rulesets.core.profiles import STANDARD_LABEL
from battlesight.rulesets.core.readings import Readings
from battlesight.rulesets.core.verdict import share_text
from battlesight.scenes.limits import MAX_WORKERS
from battlesight.scenes.model import Scene


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="line of sight from one model to another (or to all)")
    add_scene_argument(parser)
    who = parser.add_mutually_exclusive_group(required=True)
    who.add_argument("--from", dest="observer", metavar="A", help="observing model id")
    who.add_argument("--all", action="store_true",
                     help="every ordered pair of models on the table, judged in one batch: a "
                          "unit-by-unit table (JSON: one entry per pair, as --from gives it)")
    parser.add_argument("--to", dest="target", metavar="B",
                        help="target model id (default: every other model)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--workers", type=int_in(1, MAX_WORKERS), metavar="N",
                        help="--all --json on a local Dask cluster of N processes, one chunk "
                             "of pairs a task (the same entries)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="--all --json on an existing Dask scheduler (tcp://host:8786)")
    add_reading_arguments(parser, every=True)


def run(args) -> int:
    scene, world = load(args.scene)
    args.chosen = chosen_readings(args.reading, Battlefield(scene, world).ruleset)
    dask = args.workers is not None or args.scheduler is not None
    if dask and args.workers is not None and args.scheduler is not None:
        raise UsageError("give --workers or --scheduler, not both")
    if dask and not args.all:
        raise UsageError("--workers and --scheduler go with --all --json")
    if args.all:
        from battlesight.rulesets.core.unit_matrix import all_pairs  # the unit table's, --all only

        if args.target is not None:
            raise UsageError("--to goes with --from, not --all")
        pairs, every = all_pairs(scene, world), args.readings == "all"
        if dask:
            if not args.json:
                raise UsageError("--workers and --scheduler go with --all --json")
            from battlesight.reports.los_dask import los_json_on_dask

            write_json_lines(los_json_on_dask(scene, pairs, args.chosen, every,
                                              workers=args.workers, scheduler=args.scheduler))
        elif args.json:  # one entry a line (the C encoder), written as each chunk is judged
            write_json_lines(los_json_lines(scene, world, pairs, args.chosen, every))
        else:
            cells = los_cells(scene, world, pairs, args.chosen, every=every)
            print(format_matrix(scene, cells) + format_readings(cells, args.chosen))
        return 0
    require_model(scene, args.observer)
    if args.target is not None:
        require_model(scene, args.target)
        if args.target == args.observer:
            raise UsageError(f"--to {args.target} is the observer itself: give another model")
        targets = [args.target]
    else:
        targets = [m.id for m in scene.models if m.id != args.observer]
    reports = los_reports(scene, world, [(args.observer, t) for t in targets], args.chosen,
                          every=args.readings == "all")
    if args.json:
        print_json(reports[0] if args.target is not None else reports)
    else:
        print(format_reports(args.observer, reports) + format_readings(reports, args.chosen))
    return 0


def write_json_lines(lines) -> None:
    """A JSON list on stdout, one entry a line, each written as it comes (the whole list is
    never held)."""
    out = sys.stdout
    out.write("[\n")
    for i, line in enumerate(lines):
        out.write(",\n" + line if i else line)
    out.write("\n]\n")


def format_reports(observer: str, reports: list[dict]) -> str:
    rows = []
    for r in reports:
        v = r["verdict"]  # its blockers name the pieces (a group once, its shapes' shares summed)
        hidden = ", ".join(f"{b['id']} {b['share']:.0%}" for b in v["blockers"][:3])
        rows.append([
            r["target"], f"{r['visible_fraction']:.0%}", f"{r['distance']:.1f}\"",
            hidden or "-", "sees" if v["visible"] else "no sight",
            share_text(v["seen_share"]) if v["visible"] else "-", _cover_text(v), v["rule"],
        ])
    header = ["target", "plain sight", "distance", "hidden by", "by the rules", "rule's share",
              "cover", "rule"]
    plain = [r["observer"] for r in reports[:1] if r["profiles"]["observer"] == STANDARD_LABEL]
    plain += [r["target"] for r in reports if r["profiles"]["target"] == STANDARD_LABEL]
    note = (f"\n{', '.join(plain)}: no profile or stats given, judged as the system's "
            "standard model" if plain else "")
    return (f"line of sight from {observer}\n" + table(rows, header)
            + "\nplain sight: share of the whole target seen from the eye (geometry); "
              "rule's share: the share that counts under the system's sight rule" + note)


def format_matrix(scene: Scene, reports: list[dict]) -> str:
    """Unit against unit: how many of the target unit's models some model of the observing
    unit sees by the rules, and the cover the seen ones have most often (the cells
    `render --matrix` draws: `unit_matrix`)."""
    from battlesight.rulesets.core.unit_matrix import unit_matrix

    units, cells = unit_matrix(scene, [r["verdict"] for r in reports])
    rows = [[a, *("-" if a == b else cells[(a, b)].text for b in units)] for a in units]
    return (f"who sees whom ({scene.ruleset}, {len(reports)} ordered pairs judged)\n"
            + table(rows, ["observer \\ target", *units])
            + "\neach cell: the target unit's models some model of the observing unit sees by "
              "the rules, and the cover most of them have; `--from MODEL` gives the detail")


def format_readings(reports: list[dict], chosen: Mapping[str, str] | None = None) -> str:
    """The `--readings all` lines: each verdict another reading changes, with the reading,
    its rule and what the verdict becomes ('' without --readings all). The verdicts compared
    against are the defaults' unless `--reading` chose others (`chosen`: the readings used),
    and the column says which."""
    if not any("readings" in r for r in reports):
        return ""
    rows = [[f"{r['observer']} -> {r['target']}", f"{e['reading']}={e['value']}", e["rule"],
             _verdict_text(r["verdict"]), _verdict_text(e["verdict"])]
            for r in reports for e in r.get("readings", ())]
    if not rows:
        return "\n\nreadings: no other reading of an ambiguous rule changes these verdicts"
    return ("\n\nreadings that change a verdict\n"
            + table(rows, ["pair", "reading", "rule", _judged_under(chosen),
                           "under the reading"]))


def _judged_under(chosen: Mapping[str, str] | None) -> str:
    """The heading of the judged verdict's column: 'default', or the readings --reading
    chose ('under wh40k6.A5=whole-model')."""
    changed = chosen.changed() if isinstance(chosen, Readings) else dict(chosen or {})
    if not changed:
        return "default"
    return "under " + ", ".join(f"{k}={v}" for k, v in sorted(changed.items()))


def _verdict_text(verdict: dict) -> str:
    """A verdict in a few words: seen or not, and its cover."""
    if not verdict["visible"]:
        return "no sight"
    cover = verdict["cover_text"]
    return f"sees, {cover}" if cover else "sees, no cover"


def _cover_text(verdict: dict) -> str:
    """The verdict's own cover wording (`Verdict.cover_text`), '-' when not in cover."""
    return verdict["cover_text"] or "-"
