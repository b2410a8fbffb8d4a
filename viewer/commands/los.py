"""`battlesight los SCENE --from A [--to B] [--json]`: what model A's eye sees of B (or of
every other model), and what hides the rest."""

from __future__ import annotations

from battlesight.geometry.plan import base_gap
from battlesight.geometry.visibility import SightQuery, Visibility, visibility_many
from battlesight.geometry.world import World
from battlesight.rulesets.core.ruling import cover_value_text
from battlesight.scenes.model import Scene
from battlesight.viewer.commands.common import (
    add_scene_argument,
    load,
    print_json,
    require_model,
    table,
)
from battlesight.viewer.errors import UsageError


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="line of sight from one model to another (or to all)")
    add_scene_argument(parser)
    parser.add_argument("--from", dest="observer", required=True, metavar="A",
                        help="observing model id")
    parser.add_argument("--to", dest="target", metavar="B",
                        help="target model id (default: every other model)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args) -> int:
    scene, world = load(args.scene)
    require_model(scene, args.observer)
    if args.target is not None:
        require_model(scene, args.target)
        if args.target == args.observer:
            raise UsageError(f"--to {args.target} is the observer itself: give another model")
        targets = [args.target]
    else:
        targets = [m.id for m in scene.models if m.id != args.observer]
    reports = los_reports(scene, world, args.observer, targets)
    if args.json:
        print_json(reports[0] if args.target is not None else reports)
    else:
        print(format_reports(args.observer, reports))
    return 0


def los_reports(scene: Scene, world: World, observer: str, targets: list[str]) -> list[dict]:
    """One JSON-ready report per target, from one batched query; each with the ruleset's own
    sight ruling under `ruling` (system, rule cited)."""
    results = visibility_many(world, [SightQuery(observer, t) for t in targets])
    reports = [report(scene, world, r) for r in results]
    board = rules_board(scene, world)
    for data in reports:
        if board is not None:
            data["ruling"] = {"system": scene.ruleset,
                              **board.ruleset.los_report(board, observer, data["target"])}
    return reports


def rules_board(scene: Scene, world: World):
    """The scene's ruleset board, or None when no ruleset of that id is installed."""
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.ruleset import get_ruleset

    try:
        ruleset = get_ruleset(scene.ruleset)
    except KeyError:
        return None
    return Board(scene, world, ruleset)


def report(scene: Scene, world: World, seen: Visibility) -> dict:
    """Visibility summary plus the closest base-edge distance (plan and 3D)."""
    data = seen.to_dict()
    a, b = scene.model(seen.observer), scene.model(seen.target)
    pa, pb = world.models[a.id].position, world.models[b.id].position
    gap = base_gap(pa, a.base_radii_in, a.facing, pb, b.base_radii_in, b.facing)
    data["distance"] = round(gap, 3)
    data["distance_3d"] = round(float((gap**2 + (pa[2] - pb[2]) ** 2) ** 0.5), 3)
    return data


def format_reports(observer: str, reports: list[dict]) -> str:
    rows = []
    for r in reports:
        hidden = ", ".join(f"{b['id']} {b['fraction']:.0%}" for b in r["blockers"][:3])
        rows.append([
            r["target"], "yes" if r["visible"] else "no", f"{r['visible_fraction']:.0%}",
            f"{r['distance']:.1f}\"", hidden or "-", _ruling_text(r.get("ruling")),
        ])
    header = ["target", "visible", "seen", "distance", "hidden by", "by the rules"]
    return f"line of sight from {observer}\n" + table(rows, header)


def _ruling_text(ruling: dict | None) -> str:
    if not ruling:
        return "-"
    text = "sees" if ruling["visible_by_rule"] else "no sight"
    cover = ruling.get("cover")
    if isinstance(cover, dict) and cover.get("in_cover") and ruling["visible_by_rule"]:
        text += f", cover {cover_value_text(cover.get('value'), cover.get('effect', 'save'))}"
        if cover.get("source"):
            text += f" ({cover['source']})"
    elif isinstance(cover, str):
        text += f", {cover} cover"
    return f"{text} [{ruling['rule']}]"
