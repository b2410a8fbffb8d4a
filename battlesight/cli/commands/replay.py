"""`battlesight replay SCENE --log LOG.json --out BATTLE.mp4 [--size WxH] [--fps N]`: the game
of a `play` log as a video (H.264 MP4), or as numbered PNGs with `--out DIR/`.

Models glide along their moves, shots fly from firer to target with hits and misses marked,
casualties fade out, a caption names the turn, player and phase and what happened, and the
camera frames each beat's action (`viewer.replay`). Frames are streamed to the encoder, so a
long game needs no more memory than a short one; the file (or the folder of frames) appears
whole when the last frame is written, or not at all.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from battlesight.cli.arguments import float_in
from battlesight.cli.commands.render import frame_shape, parse_size
from battlesight.cli.common import add_scene_argument, check_output_path, load
from battlesight.cli.errors import UsageError
from battlesight.scenes.limits import MAX_REPLAY_FRAMES
from battlesight.scenes.output import check_target
from battlesight.viewer.replay_timeline import ReplayLogError, frame_count, read_log, timeline


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="a played game (play --log) as a video or PNG frames")
    add_scene_argument(parser)
    parser.add_argument("--log", required=True, metavar="LOG.json",
                        help="the event log `battlesight play SCENE ... --log` wrote")
    parser.add_argument("--out", required=True, metavar="OUT",
                        help="BATTLE.mp4 for a video, or DIR/ (ending in /) for numbered PNGs")
    parser.add_argument("--size", default="1280x720", metavar="WxH",
                        help="frame size in pixels (default 1280x720)")
    parser.add_argument("--fps", type=float_in(1.0, 120.0), default=30.0,
                        help="frames per second (default 30)")
    parser.add_argument("--aa", type=int, choices=(0, 2, 4), default=2,
                        help="anti-aliasing samples per pixel (default 2; 4 is smoother and "
                             "slower, 0 fastest)")
    parser.add_argument("--flat", action="store_true",
                        help="the flat look (no shadows or textures; several times faster)")
    parser.add_argument("--camera", choices=("action", "table", "top"), default="action",
                        help="action: frame each beat's models (default); table: the whole "
                             "table from above at an angle; top: straight down")


def run(args) -> int:
    width, height = parse_size(args.size)
    folder = args.out.endswith(("/", os.sep))
    out = Path(args.out)
    if not folder and out.suffix.lower() != ".mp4":
        raise UsageError(f"--out {args.out}: give BATTLE.mp4 or a folder ending in /")
    if folder:
        check_frames_folder(out)
    else:
        check_output_path(out, "--out")
    try:
        log = read_log(args.log)
    except ReplayLogError as error:
        raise UsageError(f"--log {args.log}: {error}") from None
    scene, world = load(args.scene)
    beats = timeline(log, {m.id: m.unit for m in scene.models if m.unit is not None},
                     {u["id"]: u["name"] for u in scene.units if isinstance(u.get("name"), str)})
    unknown = sorted({m for b in beats for m in b.models()} - set(world.models))
    if unknown:
        raise UsageError(f"--log {args.log}: models {', '.join(unknown[:5])} are not in "
                         f"{args.scene} (was the game played on another scene?)")
    if not beats:
        raise UsageError(f"--log {args.log}: nothing happened on the table in this game")
    pieces = added_pieces(scene, beats, args.log)
    total = frame_count(beats, args.fps)
    if total > MAX_REPLAY_FRAMES:
        raise UsageError(f"the replay would be {total:,} frames (at most "
                         f"{MAX_REPLAY_FRAMES:,}): use a lower --fps or a shorter log")
    from battlesight.viewer.lighting import FLAT
    from battlesight.viewer.render import write_video
    from battlesight.viewer.replay import replay_frames

    frames = progress(replay_frames(world, scene, beats, args.fps, width, height,
                                    camera=args.camera, multisamples=args.aa,
                                    look=FLAT if args.flat else None, pieces=pieces), total)
    if folder:
        write_frames_folder(out, frames)
    else:
        write_video(frames, out, (width, height), args.fps)
    seconds = total / args.fps
    print(f"wrote {args.out} ({total} frames, {seconds:.1f} s at {args.fps:g} fps, "
          f"{len(beats)} beats, {frame_shape(width, height, video=not folder)})")
    return 0


def progress(frames, total: int):
    """The frames, with a progress bar on stderr when it is a terminal."""
    from tqdm import tqdm

    return tqdm(frames, total=total, unit="frame", file=sys.stderr, leave=False,
                disable=not sys.stderr.isatty())


def added_pieces(scene, beats, log: str) -> list:
    """The terrain pieces the game added (a wreck: `Beat.added`) as world entries to draw,
    built as the scene `play --out` saves would build them. A piece the builders refuse is a
    UsageError naming it."""
    from battlesight.geometry.placed import TerrainEntry
    from battlesight.scenes.build import BUILD_ERRORS, rules_data, terrain_geometry
    from battlesight.scenes.model import TerrainPiece

    entries = []
    for beat in beats:
        for piece_id, entry in beat.added.items():
            data = {k: v for k, v in entry.items() if k != "type"}
            piece = TerrainPiece(piece_id, entry["type"], data, folder=scene.scene_dir)
            try:
                geometry = terrain_geometry(piece, scene.scene_dir)
            except (*BUILD_ERRORS, KeyError, TypeError) as exc:
                raise UsageError(f"--log {log}: terrain piece {piece_id!r} the game added: "
                                 f"{exc}") from None
            entries.append(TerrainEntry(piece_id, piece.type, geometry, rules_data(piece)))
    return entries


def check_frames_folder(out: Path) -> None:
    """A folder of frames may be a new folder in an existing one, or an existing real folder."""
    if out.is_symlink():
        raise UsageError(f"--out {out}/ is a symbolic link; give the real folder")
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}/ is a file, not a folder")
    if not out.parent.is_dir():
        raise UsageError(f"--out {out}/: folder {out.parent} does not exist")


def write_frames_folder(out: Path, frames) -> list[Path]:
    """Write frame_00000.png, ... into out: every frame goes to a temporary folder beside it,
    then all are moved in (a new folder is renamed whole), so a failed run leaves nothing."""
    from battlesight.viewer.render import png_bytes

    parent = out.parent if out.parent != Path("") else Path(".")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    try:
        names = []
        for i, image in enumerate(frames):
            name = f"frame_{i:05d}.png"
            (tmp / name).write_bytes(png_bytes(image))
            names.append(name)
        if not out.exists():
            os.chmod(tmp, 0o777 & ~current_umask())
            os.replace(tmp, out)
            return [out / n for n in names]
        for name in names:
            check_target(out / name)
        for name in names:
            os.replace(tmp / name, out / name)
        return [out / n for n in names]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
