"""`battlesight view SCENE`: the interactive 3D viewer (orbit, presets, selection, sight lines,
the layout heatmap, and edit mode for the terrain).

Without a display it refuses unless `--frames N` asks for a headless run of the window code
(handy for checks: `--frames 3 --screenshot shot.png`).
"""

from __future__ import annotations

from pathlib import Path

from battlesight.cli.arguments import int_in
from battlesight.cli.commands.render import (
    add_heatmap_options,
    check_heatmap_options,
    parse_size,
)
from battlesight.cli.common import (
    add_scene_argument,
    check_output_path,
    load,
    require_model,
)
from battlesight.cli.errors import UsageError
from battlesight.cli.look import add_look_options, look_settings
from battlesight.scenes.output import forget_inputs


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="interactive 3D viewer (mouse camera, sight lines)")
    add_scene_argument(parser)
    parser.add_argument("--view", default="iso", metavar="VIEW",
                        help="start view: top | iso | edge1 | edge2 | eye:MODEL[:TARGET]")
    parser.add_argument("--size", default="1280x720", metavar="WxH", help="window size")
    parser.add_argument("--select", metavar="MODEL", help="start with MODEL selected")
    parser.add_argument("--frames", type=int_in(1, 1_000_000), metavar="N",
                        help="run N frames and exit (works without a display)")
    parser.add_argument("--screenshot", metavar="FILE.png", help="with --frames: save the last")
    parser.add_argument("--edit", action="store_true",
                        help="start in edit mode (t toggles it): move, turn, add, delete terrain")
    add_heatmap_options(parser, "show the heatmap from the start (h toggles it)")
    add_look_options(parser)


def load_editable(path: str):
    """`load`, with the scene file left writable: the window's edit mode saves the layout
    back to its own file (`s`), which is the point of editing it."""
    loaded = load(path)
    forget_inputs()
    return loaded


def run(args) -> int:
    scene, _ = load_editable(args.scene)
    width, height = parse_size(args.size)
    if args.select:
        require_model(scene, args.select)
    from battlesight.viewer.cameras import parse_view

    try:
        _, model, target = parse_view(args.view)
    except ValueError as error:
        raise UsageError(str(error)) from None
    for model_id in (model, target):
        if model_id is not None:
            require_model(scene, model_id)
    check_heatmap_options(args, scene)
    if args.screenshot and args.frames is None:
        raise UsageError("--screenshot needs --frames N")
    if args.screenshot and not Path(args.screenshot).parent.is_dir():
        raise UsageError(f"cannot write {args.screenshot}: its folder does not exist")
    if args.screenshot:
        check_output_path(args.screenshot, "--screenshot")
    from battlesight.viewer import platform

    if args.frames is None and not platform.has_display():
        raise UsageError("no display here (DISPLAY is not set): use `battlesight render`, "
                         "or --frames N to run the viewer headless")
    look = look_settings(args)
    from battlesight.viewer.lighting import Look
    from battlesight.viewer.platform import RenderUnavailable
    from battlesight.viewer.window import run_viewer

    def loader():
        scene_now, world_now = load_editable(args.scene)
        return world_now, scene_now

    try:
        run_viewer(loader, width, height, args.view, args.select, args.frames,
                   args.screenshot, heatmap=args.field if args.heatmap else None,
                   grid=args.grid, edit=args.edit,
                   look=Look(look["lit"], look["mat"], look["grid"], look["armies"]))
    except RenderUnavailable as error:  # a one-line refusal, never a black window
        raise UsageError(str(error)) from None
    if args.screenshot:
        print(f"wrote {args.screenshot}")
    return 0
