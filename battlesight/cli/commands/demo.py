"""`battlesight demo [SCENE]`: the line-of-sight summary of the bundled default scene, and two
pictures of it rendered offscreen: the battle overview and one model's sight lines."""

from __future__ import annotations

from pathlib import Path

from battlesight.cli.common import load, require_model, table
from battlesight.cli.errors import UsageError
from battlesight.scenes import DEFAULT_SCENE
from battlesight.scenes.output import UnsafeOutput, folder_target


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="line-of-sight summary of the bundled default scene")
    parser.add_argument("scene", nargs="?", default=str(DEFAULT_SCENE), metavar="SCENE",
                        help="scene file (default: the bundled demo scene)")
    parser.add_argument("--out", default="battlesight-demo", metavar="DIR",
                        help="folder for the rendered pictures (default: ./battlesight-demo)")
    parser.add_argument("--from", dest="observer", metavar="MODEL",
                        help="model whose sight lines are drawn (default: the first model)")
    parser.add_argument("--no-render", action="store_true", help="print the summary only")


def run(args) -> int:
    scene, world = load(args.scene)
    if args.observer is not None:
        require_model(scene, args.observer)
    out = Path(args.out)
    if not args.no_render:
        try:
            folder_target(out)
        except UnsafeOutput as error:
            raise UsageError(f"--out {out} {error.strerror}") from None
    print(f"{scene.name} ({scene.ruleset}, {scene.table[0]:g}x{scene.table[1]:g}\", "
          f"{len(scene.terrain)} terrain pieces, {len(scene.models)} models)")
    print(summary(scene, world))
    if not args.no_render:
        from battlesight.viewer.render import (
            render_demo_pictures,  # imports Panda3D: only when drawing
        )

        for path in render_demo_pictures(world, scene, args.out, observer=args.observer):
            print(f"wrote {path}")
    return 0


def summary(scene, world) -> str:
    """For every model, how many enemy models it sees by the rules and how much of each: one
    batch of the scene's ruleset's judgement (`Battlefield.who_sees_whom`, enemy pairs)."""
    from battlesight.api import Battlefield

    verdicts = Battlefield(scene, world).who_sees_whom(enemies_only=True).verdicts
    by_observer: dict[str, list] = {}
    for v in verdicts:
        by_observer.setdefault(v.observer, []).append(v)
    rows = []
    for observer, seen in by_observer.items():
        visible = [v for v in seen if v.visible]
        best = max(visible, key=lambda v: v.seen_share, default=None)
        hidden = sorted({b for v in seen for b in v.blockers},
                        key=lambda b: -sum(v.blockers.get(b, 0.0) for v in seen))
        rows.append([
            observer, f"player {scene.model(observer).player}", f"{len(visible)}/{len(seen)}",
            f"{best.target} {best.seen_share:.0%}" if best is not None else "-",
            ", ".join(hidden[:3]) or "-",
        ])
    rules = sorted({v.rule for v in verdicts})
    header = ["model", "side", "enemies seen", "clearest target", "main blockers"]
    rays = sum(v.visibility.rays for v in verdicts if v.visibility is not None)
    return (table(rows, header) + f"\n{len(verdicts)} sight verdicts by {scene.ruleset} "
            f"({', '.join(rules) or 'no pairs'}); enemies seen and the clearest target's "
            f"share are by the rules, blockers by plain sight ({rays:,} rays)")
