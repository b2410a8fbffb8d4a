"""`battlesight export SCENE OUT.glb`: the assembled world as one glTF scene (y-up, as glTF
requires; `geometry.meshfile.load_mesh_file` turns it back to z-up)."""

from __future__ import annotations

from pathlib import Path

import trimesh
from battlesight.geometry.meshfile import glb_bytes
from battlesight.geometry.world import World
from battlesight.scenes.output import write_output
from battlesight.viewer.commands.common import add_scene_argument, check_output_path, load
from battlesight.viewer.errors import UsageError


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="write the world as a glTF binary, one node per owner")
    add_scene_argument(parser)
    parser.add_argument("out", metavar="OUT.glb", help="output file (glTF binary)")


def run(args) -> int:
    out = Path(args.out)
    if out.suffix.lower() != ".glb":
        raise UsageError(f"{out}: the output must be a .glb file")
    check_output_path(out)
    _, world = load(args.scene)
    export_world(world, out)
    print(f"wrote {out} ({len(world.terrain)} terrain pieces, {len(world.models)} models)")
    return 0


def world_parts(world: World) -> list[tuple[str, trimesh.Trimesh]]:
    """(owner id, mesh) for every terrain solid, area volume (as 'ID/area') and model."""
    parts = []
    for entry in world.terrain.values():
        if entry.geometry.solid is not None:
            parts.append((entry.id, entry.geometry.solid))
        if entry.geometry.area is not None:
            parts.append((f"{entry.id}/area", entry.geometry.area))
    parts += [(model.id, model.mesh) for model in world.models.values()]
    return parts


def export_world(world: World, out: Path) -> None:
    """Write safely (``scenes.output``: a temporary file beside `out`, then a rename)."""
    write_output(out, glb_bytes(world_parts(world)))
