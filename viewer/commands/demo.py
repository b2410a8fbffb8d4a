"""`battlesight demo [SCENE]`: the line-of-sight summary of the bundled default scene, and two
pictures of it rendered offscreen: the battle overview and one model's sight lines."""

from __future__ import annotations

from pathlib import Path

from battlesight.geometry.visibility import SightQuery, visibility_many
from battlesight.scenes import DEFAULT_SCENE
from battlesight.viewer.commands.common import load, require_model, table
from battlesight.viewer.errors import UsageError


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
    if not args.no_render and out.exists() and not out.is_dir():
        raise UsageError(f"--out {out} is a file: give a folder for the pictures")
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
    """For every model, how many enemy models it sees and how much of each, in one batch."""
    pairs = [
        SightQuery(a.id, b.id)
        for a in scene.models for b in scene.models if a.player != b.player
    ]
    results = visibility_many(world, pairs)
    by_observer: dict[str, list] = {}
    for r in results:
        by_observer.setdefault(r.observer, []).append(r)
    rows = []
    for observer, seen in by_observer.items():
        visible = [r for r in seen if r.visible]
        best = max(seen, key=lambda r: r.visible_fraction)
        hidden = sorted(
            {b for r in seen for b in r.blockers}, key=lambda b: -sum(
                r.blockers.get(b, 0.0) for r in seen)
        )
        rows.append([
            observer, f"player {scene.model(observer).player}",
            f"{len(visible)}/{len(seen)}",
            f"{best.target} {best.visible_fraction:.0%}" if best.visible else "-",
            ", ".join(hidden[:3]) or "-",
        ])
    rays = sum(r.rays for r in results)
    header = ["model", "side", "enemies seen", "clearest target", "main blockers"]
    return table(rows, header) + f"\n{len(results)} sight checks, {rays:,} rays"
