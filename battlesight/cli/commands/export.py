"""`battlesight export SCENE OUT.glb [--units m|cm|mm|in]`: the assembled world as one glTF
scene other tools open at the right size (metres and y-up by default, as glTF requires), with
materials, a table node and one node per piece and model (`viewer.gltf_export`)."""

from __future__ import annotations

from pathlib import Path

from battlesight.cli.common import add_scene_argument, check_output_path, load, messages_stream
from battlesight.cli.errors import UsageError
from battlesight.geometry.world import World
from battlesight.scenes.output import write_output
from battlesight.scenes.textfiles import is_stdio
from battlesight.viewer.gltf_export import UNITS, world_glb


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="write the world as a glTF binary, one node per owner")
    add_scene_argument(parser)
    parser.add_argument("out", metavar="OUT.glb",
                        help="output file (glTF binary); - writes it to standard output")
    parser.add_argument("--units", choices=tuple(UNITS), default="m",
                        help="length unit of the file (default m, glTF's own; in for tools "
                             "that expect inches)")


def run(args) -> int:
    out = Path(args.out)
    if out.suffix.lower() != ".glb" and not is_stdio(args.out):
        raise UsageError(f"{out}: the output must be a .glb file (or - for standard output)")
    check_output_path(out)
    scene, world = load(args.scene)
    written = export_world(world, out, args.units, scene)
    print(f"wrote {written} ({len(world.terrain)} terrain pieces, {len(world.models)} models, "
          f"in {args.units}, y-up)", file=messages_stream(args.out))
    return 0


def export_world(world: World, out: Path, units: str = "m", scene=None) -> Path:
    """Write safely (``scenes.output``: a temporary file beside `out`, then a rename; `-`:
    standard output); with the scene, mesh files keep their textures. Returns what was
    written."""
    return write_output(out, world_glb(world, units, scene))
