"""`battlesight export SCENE OUT.glb`: the assembled world as one glTF scene."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import trimesh

from geometry.world import World
from viewer.commands.common import add_scene_argument, load
from viewer.errors import UsageError

#: glTF is y-up; the world is z-up. Rotating -90 degrees about x maps z-up onto y-up.
Z_UP_TO_Y_UP = trimesh.transformations.rotation_matrix(-np.pi / 2, [1, 0, 0])


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="write the world as a glTF binary, one node per owner")
    add_scene_argument(parser)
    parser.add_argument("out", metavar="OUT.glb", help="output file (glTF binary)")


def run(args) -> int:
    out = Path(args.out)
    if out.suffix.lower() != ".glb":
        raise UsageError(f"{out}: the output must be a .glb file")
    _, world = load(args.scene)
    export_world(world, out)
    print(f"wrote {out} ({len(world.terrain)} terrain pieces, {len(world.models)} models)")
    return 0


def world_scene(world: World) -> trimesh.Scene:
    """A trimesh scene with one node per owner id (terrain solids, area volumes as
    'ID/area', models), y-up as glTF expects."""
    scene = trimesh.Scene()
    for entry in world.terrain.values():
        if entry.geometry.solid is not None:
            scene.add_geometry(entry.geometry.solid, node_name=entry.id, geom_name=entry.id)
        if entry.geometry.area is not None:
            name = f"{entry.id}/area"
            scene.add_geometry(entry.geometry.area, node_name=name, geom_name=name)
    for model in world.models.values():
        scene.add_geometry(model.mesh, node_name=model.id, geom_name=model.id)
    scene.apply_transform(Z_UP_TO_Y_UP)
    return scene


def export_world(world: World, out: Path) -> None:
    """Write atomically: a temporary file beside `out`, then a rename."""
    data = world_scene(world).export(file_type="glb")
    directory = out.resolve().parent
    if not directory.is_dir():
        raise UsageError(f"{out}: folder {directory} does not exist")
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=out.suffix)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
