"""`battlesight los SCENE --from A [--to B] [--json]`: what model A's eye sees of B (or of
every other model), what hides the rest, and the ruleset's verdict (`Ruleset.judge`)."""

from __future__ import annotations

from battlesight.geometry.world import World
from battlesight.rulesets.core.profiles import STANDARD_LABEL, profile_label
from battlesight.rulesets.core.verdict import Verdict
from battlesight.scenes.model import Scene
from battlesight.viewer.commands.common import (
    add_scene_argument,
    load,
    print_json,
    require_model,
    table,
)
from battlesight.viewer.errors import UsageError

from battlesight.api import Battlefield


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
    reports = los_reports(scene, world, [(args.observer, t) for t in targets])
    if args.json:
        print_json(reports[0] if args.target is not None else reports)
    else:
        print(format_reports(args.observer, reports))
    return 0


def los_reports(scene: Scene, world: World, pairs: list[tuple[str, str]]) -> list[dict]:
    """One JSON-ready report per (observer, target) pair from one call of the ruleset's
    judgement (`Battlefield.judge_many`): the plain ray cast from the eye at the whole target
    (visible, visible_fraction, blockers, through, rays, samples: geometry, nothing skipped),
    base distances (the system's own first), and the rule's verdict under `verdict`
    (visible by the rule, seen_share that counts, geometric_share, cover, reason, rule,
    modifiers)."""
    field = Battlefield(scene, world)
    return [report(field, v) for v in field.judge_many(list(pairs))]


def report(field: Battlefield, verdict: Verdict) -> dict:
    """The plain sight summary, the base-edge distances (the system's measure, plan, 3D) and
    the verdict."""
    data = verdict.visibility.to_dict()
    a, b, board = verdict.observer, verdict.target, field.board
    data["distance"] = round(field.ruleset.distance(board, a, b), 3)
    data["distance_plan"] = round(board.gap(a, b, "plan"), 3)
    data["distance_3d"] = round(board.gap(a, b, "3d"), 3)
    scene = field.scene
    data["profiles"] = {"observer": profile_label(scene, scene.model(a)),
                        "target": profile_label(scene, scene.model(b))}
    data["verdict"] = {"system": field.scene.ruleset, **verdict.to_dict()}
    return data


def format_reports(observer: str, reports: list[dict]) -> str:
    rows = []
    for r in reports:
        hidden = ", ".join(f"{b['id']} {b['fraction']:.0%}" for b in r["blockers"][:3])
        v = r["verdict"]
        rows.append([
            r["target"], f"{r['visible_fraction']:.0%}", f"{r['distance']:.1f}\"",
            hidden or "-", "sees" if v["visible"] else "no sight",
            f"{v['seen_share']:.0%}" if v["visible"] else "-", _cover_text(v), v["rule"],
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


def _cover_text(verdict: dict) -> str:
    """The verdict's own cover wording (`Verdict.cover_text`), '-' when not in cover."""
    return verdict["cover_text"] or "-"
