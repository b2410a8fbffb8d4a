"""`battlesight render SCENE --out FILE.png`: an offscreen picture (or a turntable) of a scene.

Panda3D is imported only when the command runs, not when the parser is built.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from battlesight.scenes.limits import (
    MAX_IMAGE_SIDE,
    MAX_TURNTABLE_FRAMES,
    MAX_TURNTABLE_PIXELS,
    MIN_IMAGE_SIDE,
    shown,
)
from battlesight.viewer.commands.arguments import float_in, int_in
from battlesight.viewer.commands.common import (
    add_scene_argument,
    check_grid,
    check_output_path,
    load,
    print_json,
    require_model,
)
from battlesight.viewer.commands.look import add_look_options, look_settings
from battlesight.viewer.errors import UsageError

FRAME_SUFFIXES = (".png", ".gif", ".mp4")


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="render a scene offscreen to PNG (or a turntable GIF)")
    add_scene_argument(parser)
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="output image (.png); with --turntable .gif, .mp4 or numbered .png")
    parser.add_argument("--view", default="iso", metavar="VIEW",
                        help="top | iso | edge1 | edge2 | eye:MODEL[:TARGET] (default iso)")
    parser.add_argument("--size", default="1920x1080", metavar="WxH",
                        help="image size in pixels (default 1920x1080)")
    parser.add_argument("--los", metavar="MODEL",
                        help="draw MODEL's sight lines to every enemy, coloured by ruling")
    parser.add_argument("--target", metavar="MODEL",
                        help="with --los: draw the sample points on this target (seen/hidden)")
    parser.add_argument("--labels", action="store_true", help="label every model")
    add_heatmap_options(parser, "draw a heatmap on the table (see --field)")
    parser.add_argument("--heatmap-field", metavar="FILE.npy",
                        help="heatmap from a saved (ny, nx) array instead "
                             "(as analyze --save-field writes)")
    parser.add_argument("--ruler", nargs=2, metavar=("A", "B"),
                        help="measure between two models, base to base")
    parser.add_argument("--turntable", type=int_in(1, MAX_TURNTABLE_FRAMES), metavar="N",
                        help="N frames orbiting the table (GIF, MP4 or numbered PNGs)")
    parser.add_argument("--no-legend", action="store_true", help="leave out the legend")
    parser.add_argument("--json", action="store_true",
                        help="with --los or an eye view: print the sight lines drawn (observer, "
                             "target, status, label, seen_share, geometric_share, rule) as JSON")
    parser.add_argument("--renderer", choices=("auto", "headlessgl", "tiny"), default=None,
                        help="back end (default: $BATTLESIGHT_RENDERER or auto)")
    add_look_options(parser)


def add_heatmap_options(parser, help_text: str) -> None:
    """--heatmap, --field and --grid (shared by `render` and `view`)."""
    from battlesight.viewer.heatmap import DEFAULT_GRID, FIELDS

    parser.add_argument("--heatmap", action="store_true", help=help_text)
    parser.add_argument("--field", default="exposure", choices=FIELDS,
                        help="heatmap field: the layout analysis' (as `battlesight analyze`; "
                             "default exposure) or eyes (share of the scene's model eyes "
                             "seeing each inch)")
    parser.add_argument("--grid", type=float_in(), default=DEFAULT_GRID,
                        help=f"layout analysis grid in inches (default {DEFAULT_GRID:g})")


def check_heatmap_options(args, scene=None) -> None:
    """UsageError for a --grid out of range (or too fine for the scene's table)."""
    tables = [tuple(scene.table)] if scene is not None and args.heatmap else []
    check_grid(args.grid, tables)


def parse_size(text: str) -> tuple[int, int]:
    """'1920x1080' -> (1920, 1080); UsageError otherwise."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"bad --size {shown(text)}; write WIDTHxHEIGHT, e.g. 1920x1080") from None
    if not (MIN_IMAGE_SIDE <= w <= MAX_IMAGE_SIDE and MIN_IMAGE_SIDE <= h <= MAX_IMAGE_SIDE):
        raise UsageError(f"--size {shown(text)} out of range ({MIN_IMAGE_SIDE}..{MAX_IMAGE_SIDE} "
                         "pixels a side)")
    return w, h


def check_args(args, scene) -> None:
    """Every mistake the command can spot before drawing, as a UsageError."""
    from battlesight.viewer.cameras import parse_view

    out = Path(args.out)
    if not out.parent.exists() or not out.parent.is_dir():
        raise UsageError(f"cannot write {args.out}: folder {out.parent} does not exist")
    check_output_path(out, "--out")
    suffix = out.suffix.lower()
    allowed = FRAME_SUFFIXES if args.turntable else (".png",)
    if suffix not in allowed:
        raise UsageError(f"--out must end in {' or '.join(allowed)}")
    if args.turntable is not None and not 1 <= args.turntable <= MAX_TURNTABLE_FRAMES:
        raise UsageError(f"--turntable N: N from 1 to {MAX_TURNTABLE_FRAMES}")
    if args.turntable is not None:
        width, height = parse_size(args.size)
        if width * height * args.turntable > MAX_TURNTABLE_PIXELS:
            raise UsageError(f"--turntable {args.turntable} at --size {width}x{height} is "
                             f"{width * height * args.turntable:,} pixels (the limit is "
                             f"{MAX_TURNTABLE_PIXELS:,}): use fewer frames or a smaller size")
    try:
        kind, model, target = parse_view(args.view)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if kind == "eye" and target is not None and target == model:
        raise UsageError(f"--view {args.view}: the target is the eye's own model; "
                         "give another model")
    for model_id in (model, target, args.los, args.target, *(args.ruler or ())):
        if model_id is not None:
            require_model(scene, model_id)
    if args.target and not args.los:
        raise UsageError("--target needs --los MODEL")
    if args.json and args.turntable:
        raise UsageError("--json prints the sight lines of one picture: not with --turntable")
    if args.heatmap and args.heatmap_field:
        raise UsageError("use --heatmap or --heatmap-field, not both")
    check_heatmap_options(args, scene)


def settings_from_args(args, world):
    """RenderSettings for the parsed arguments."""
    from battlesight.viewer.heatmap import load_field
    from battlesight.viewer.render import RenderSettings

    width, height = parse_size(args.size)
    heatmap = None
    if args.heatmap:
        heatmap = args.field
    elif args.heatmap_field:
        try:
            heatmap = load_field(args.heatmap_field)
        except (OSError, ValueError) as error:
            raise UsageError(f"cannot read heatmap field: {error}") from None
    return RenderSettings(
        width=width, height=height, view=args.view, los=args.los, target=args.target,
        labels=args.labels, legend=not args.no_legend, heatmap=heatmap, heatmap_grid=args.grid,
        ruler=tuple(args.ruler) if args.ruler else None,
        backend=None if args.renderer in (None, "auto") else args.renderer,
        **look_settings(args),
    )


def run(args) -> int:
    scene, world = load(args.scene)
    parse_size(args.size)
    check_args(args, scene)
    settings = settings_from_args(args, world)
    from battlesight.viewer import platform
    from battlesight.viewer.platform import RenderUnavailable
    from battlesight.viewer.render import (
        render_scene_lines,
        render_turntable,
        save_frames,
        save_png,
    )

    start = time.perf_counter()
    lines = []
    try:
        if args.turntable:
            paths = save_frames(render_turntable(world, scene, settings, args.turntable),
                                args.out)
        else:
            image, lines = render_scene_lines(world, scene, settings)
            paths = [save_png(image, args.out)]
    except RenderUnavailable as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {args.out}: {error.strerror or error}") from None
    seconds = time.perf_counter() - start
    shown = paths[0] if len(paths) == 1 else f"{paths[0]} .. {paths[-1]} ({len(paths)} files)"
    summary = (f"wrote {shown} ({settings.width}x{settings.height}, {platform.last_backend}, "
               f"{seconds:.2f} s)")
    if args.json:
        print(summary, file=sys.stderr)
        print_json([line.to_dict() for line in lines])
    else:
        print(summary)
    return 0
