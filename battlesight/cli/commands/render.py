"""`battlesight render SCENE --out FILE.png`: an offscreen picture (or a turntable) of a scene.

Panda3D is imported only when the command runs, not when the parser is built.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from battlesight.cli.arguments import (
    add_reading_arguments,
    chosen_readings,
    float_in,
    int_in,
)
from battlesight.cli.common import (
    add_scene_argument,
    check_grid,
    check_output_path,
    load,
    messages_stream,
    print_json,
    require_model,
)
from battlesight.cli.errors import UsageError
from battlesight.cli.look import add_look_options, look_settings
from battlesight.rulesets.core.readings import use
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.scenes.limits import (
    MAX_IMAGE_SIDE,
    MAX_TURNTABLE_FRAMES,
    MAX_TURNTABLE_PIXELS,
    MIN_IMAGE_SIDE,
    shown,
)
from battlesight.scenes.output import numbered_paths
from battlesight.scenes.textfiles import is_stdio

FRAME_SUFFIXES = (".png", ".gif", ".mp4")
DEFAULT_FPS = 30.0  # as viewer.render.DEFAULT_FPS (the parser does not import Panda3D)
MIN_FPS, MAX_FPS = 1.0, 60.0


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="render a scene offscreen to PNG (or a turntable GIF)")
    add_scene_argument(parser)
    parser.add_argument("--out", required=True, metavar="FILE",
                        help="output image (.png; - writes it to standard output); with "
                             "--turntable .gif, .mp4 or numbered .png")
    parser.add_argument("--view", default=None, metavar="VIEW",
                        help="top (orthographic) | iso | edge1 | edge2 | stream (a 16:9 "
                             "overview that fills the frame) | eye:MODEL[:TARGET] (default iso)")
    parser.add_argument("--size", default="1920x1080", metavar="WxH",
                        help="image size in pixels (default 1920x1080)")
    parser.add_argument("--los", metavar="MODEL",
                        help="draw MODEL's sight lines to every enemy, coloured by ruling")
    parser.add_argument("--target", metavar="MODEL",
                        help="with --los: draw the sample points on this target (seen/hidden)")
    parser.add_argument("--labels", nargs="?", const="model", choices=("model", "unit"),
                        help="label every model (--labels unit: one label per unit); laid out "
                             "so none overlap, eye views mark the models they cannot see")
    parser.add_argument("--matrix", action="store_true",
                        help="who sees whom: the top view with a line per pair of enemy units "
                             "coloured by verdict, and the unit-by-unit grid of los --all")
    add_heatmap_options(parser, "draw a heatmap on the table (see --field)")
    parser.add_argument("--heatmap-field", metavar="FILE.npy",
                        help="heatmap from a saved (ny, nx) array instead "
                             "(as analyze --save-field writes)")
    parser.add_argument("--ruler", nargs=2, metavar=("A", "B"),
                        help="measure between two models, base to base")
    add_reading_arguments(parser, every=True)
    parser.add_argument("--turntable", type=int_in(1, MAX_TURNTABLE_FRAMES), metavar="N",
                        help="N frames orbiting the table (GIF, MP4 or numbered PNGs)")
    parser.add_argument("--seconds", type=float_in(0.0, MAX_TURNTABLE_FRAMES / MIN_FPS,
                                                   above=True), metavar="S",
                        help="a turntable S seconds long (fps x S frames)")
    parser.add_argument("--fps", type=float_in(MIN_FPS, MAX_FPS), default=None, metavar="F",
                        help=f"turntable frames per second (default {DEFAULT_FPS:g})")
    parser.add_argument("--no-legend", action="store_true", help="leave out the legend")
    parser.add_argument("--per-model", action="store_true",
                        help="with --los: a sight line per target model (default: one per "
                             "target unit, coloured by its best verdict; a unit of two "
                             "models or fewer gets a line per model)")
    parser.add_argument("--json", action="store_true",
                        help="print what was drawn as JSON: the camera, the sight lines "
                             "(observer, target, status, label, seen_share, geometric_share, "
                             "rule), every label with its pixel box, a matrix's cells")
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
    frames = turntable_frames(args)
    if is_stdio(args.out):  # one PNG on standard output
        if frames:
            raise UsageError("--out - writes one picture to standard output: a turntable "
                             "needs a file (.gif, .mp4 or numbered .png)")
        if args.json:
            raise UsageError("--out - and --json both print to standard output: give a file "
                             "for the picture")
    suffix = ".png" if is_stdio(args.out) else out.suffix.lower()
    allowed = FRAME_SUFFIXES if frames else (".png",)
    if suffix not in allowed:
        raise UsageError(f"--out must end in {' or '.join(allowed)} (or be - for a PNG on "
                         "standard output)")
    if frames is not None:
        if suffix == ".png":
            try:
                numbered_paths(out, frames)
            except ValueError as error:
                raise UsageError(f"--out {error}") from None
        width, height = parse_size(args.size)
        if width * height * frames > MAX_TURNTABLE_PIXELS:
            raise UsageError(f"a turntable of {frames} frames at --size {width}x{height} is "
                             f"{width * height * frames:,} pixels (the limit is "
                             f"{MAX_TURNTABLE_PIXELS:,}): use fewer frames or a smaller size")
    if args.matrix:
        for flag, given in (("--los", args.los), ("--target", args.target),
                            ("--turntable/--seconds", frames), ("--ruler", args.ruler)):
            if given:
                raise UsageError(f"--matrix draws every unit pair on the top view: not with "
                                 f"{flag}")
        if args.view not in (None, "top"):
            raise UsageError(f"--matrix draws the top view: not with --view {shown(args.view)}")
    args.view = args.view or "iso"
    try:
        kind, model, target = parse_view(args.view)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if kind == "eye" and target is not None and target == model:
        raise UsageError(f"--view {args.view}: the target is the eye's own model; "
                         "give another model")
    if args.readings == "all" and (args.matrix or not (args.los or kind == "eye")):
        # it marks sight lines; without any it judged every pair under every reading for
        # nothing (--matrix: 1892 pairs, six times the render time)
        raise UsageError("--readings all marks the sight lines another reading changes: give "
                         "--los MODEL or an eye view (not --matrix)")
    for model_id in (model, target, args.los, args.target, *(args.ruler or ())):
        if model_id is not None:
            require_model(scene, model_id)
    if args.target and not args.los:
        raise UsageError("--target needs --los MODEL")
    if args.json and frames:
        raise UsageError("--json prints what one picture shows: not with a turntable")
    if args.heatmap and args.heatmap_field:
        raise UsageError("use --heatmap or --heatmap-field, not both")
    check_heatmap_options(args, scene)


def frame_shape(width: int, height: int, video: bool) -> str:
    """'WxH' of the frames written, and the padded size of an H.264 video with an odd side
    (yuv420p needs even sides: render.encode_mp4 pads them)."""
    shape = f"{width}x{height}"
    if video and (width % 2 or height % 2):
        shape += f", padded to {width + width % 2}x{height + height % 2} for H.264"
    return shape


def turntable_frames(args) -> int | None:
    """The number of turntable frames asked for (--turntable N, or --seconds S at --fps),
    None for one picture; UsageError for --fps without a turntable or both counts given."""
    if args.turntable is not None and args.seconds is not None:
        raise UsageError("give --turntable N (frames) or --seconds S, not both")
    if args.seconds is not None:
        frames = round(args.seconds * (args.fps or DEFAULT_FPS))
        if not 1 <= frames <= MAX_TURNTABLE_FRAMES:
            raise UsageError(f"--seconds {args.seconds:g} at {args.fps or DEFAULT_FPS:g} fps is "
                             f"{frames} frames; a turntable has 1 to {MAX_TURNTABLE_FRAMES}")
        return frames
    if args.fps is not None and args.turntable is None:
        raise UsageError("--fps goes with --turntable N or --seconds S")
    return args.turntable


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
        labels=args.labels or False, legend=not args.no_legend, per_model=args.per_model,
        heatmap=heatmap,
        heatmap_grid=args.grid, ruler=tuple(args.ruler) if args.ruler else None,
        matrix=args.matrix,
        backend=None if args.renderer in (None, "auto") else args.renderer,
        **look_settings(args),
    )


def run(args) -> int:
    scene, world = load(args.scene)
    parse_size(args.size)
    check_args(args, scene)
    settings = settings_from_args(args, world)
    chosen = chosen_readings(args.reading, get_ruleset(scene.ruleset))
    explore = ("sight",) if args.readings == "all" else ()
    from battlesight.viewer import platform
    from battlesight.viewer.platform import RenderUnavailable
    from battlesight.viewer.render import (
        render_drawing,
        render_turntable,
        save_frames,
        save_png,
    )

    start = time.perf_counter()
    drawing = None
    frames = turntable_frames(args)
    try:
        with use(chosen, explore):  # sight lines judged under the readings chosen
            if frames:
                paths = save_frames(render_turntable(world, scene, settings, frames), args.out,
                                    args.fps or DEFAULT_FPS)
            else:
                image, drawing = render_drawing(world, scene, settings)
                paths = [save_png(image, args.out)]
    except RenderUnavailable as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise UsageError(f"cannot write {args.out}: {error.strerror or error}") from None
    seconds = time.perf_counter() - start
    shown = paths[0] if len(paths) == 1 else f"{paths[0]} .. {paths[-1]} ({len(paths)} files)"
    clip = f", {frames} frames at {args.fps or DEFAULT_FPS:g} fps" if frames else ""
    video = Path(args.out).suffix.lower() == ".mp4"
    summary = (f"wrote {shown} ({frame_shape(settings.width, settings.height, video)}{clip}, "
               f"{platform.last_backend}, {seconds:.2f} s)")
    if args.json:
        print(summary, file=sys.stderr)
        print_json(drawing.to_dict())
    else:
        print(summary, file=messages_stream(args.out))
    return 0
