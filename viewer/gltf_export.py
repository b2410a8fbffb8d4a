"""The world as a glTF scene other tools open at the right size and pivot: metres (glTF's unit)
and y-up, with materials, normals, a table node and a node tree (table, terrain, models).

The project works in inches with z up; glTF 2.0 says "the units for all linear distances are
meters" and +Y is up, so lengths are scaled by `UNITS[units]` and turned -90 degrees about x.
Every piece and model is its own node carrying its transform: a model's node stands at the
centre of the bottom of its base, turned to its facing, and its mesh is in its own frame; a
terrain piece's node stands at the centre of its footprint on the table top. So a miniature
pivots about its base in Blender or three.js, and moving a node moves the piece. `units="in"`
keeps inches for tools that expect them; the unit is recorded in `asset.extras.battlesight`.
Node names are the scene's ids (three.js strips `/`, `.` and `:` from names, so the extra nodes
of a piece are `ID_area` and `ID_part1`, `ID_part2`, ...). Colours come from `viewer.palette`
(terrain by kind, models by player), the same as the pictures; a textured or colour-painted
input mesh keeps its own look. No Panda3D here: exporting needs no display.
"""

from __future__ import annotations

import numpy as np
import trimesh
import trimesh.exchange.gltf
from battlesight.geometry.mesh import as_trimesh
from battlesight.geometry.meshfile import Z_UP_TO_Y_UP
from battlesight.geometry.world import World
from trimesh.visual import ColorVisuals, TextureVisuals
from trimesh.visual.material import PBRMaterial

from . import mesh_textures, palette

#: Scale from the project's inches to each unit a file may be written in.
UNITS: dict[str, float] = {"m": 0.0254, "cm": 2.54, "mm": 25.4, "in": 1.0}
#: The table's thickness below z = 0, in inches (a board, so the table reads as one).
TABLE_THICKNESS = 0.5


def material(name: str, colour: palette.Colour, roughness: float = 0.85) -> PBRMaterial:
    """A glTF metal-rough material of one colour (translucent colours blend)."""
    rgba = [float(c) for c in colour]
    return PBRMaterial(name=name, baseColorFactor=rgba, metallicFactor=0.0,
                       roughnessFactor=roughness,
                       alphaMode="BLEND" if rgba[3] < 1.0 else "OPAQUE",
                       doubleSided=rgba[3] < 1.0)


def has_own_look(mesh: trimesh.Trimesh) -> bool:
    """True when the input mesh carries a texture or painted colours worth keeping."""
    visual = mesh.visual
    if isinstance(visual, TextureVisuals):
        mat = visual.material
        return getattr(mat, "image", None) is not None or getattr(
            mat, "baseColorTexture", None) is not None
    return isinstance(visual, ColorVisuals) and visual.defined


def dressed(mesh: trimesh.Trimesh, mat: PBRMaterial, to_file: np.ndarray) -> trimesh.Trimesh:
    """A copy of `mesh` moved by `to_file` (4, 4), wearing `mat` unless it has a look of its
    own."""
    out = mesh.copy()
    if not has_own_look(mesh):
        out.visual = TextureVisuals(material=mat)
    out.apply_transform(to_file)
    return out


def textured_parts(mesh: trimesh.Trimesh, parts: list[mesh_textures.Part] | None,
                   mat: PBRMaterial) -> list[trimesh.Trimesh] | None:
    """The mesh cut into its file's parts, each wearing its texture image (corner texture
    coordinates, so faces keep their own UVs) or `mat`; faces past the file's (a base the
    loader added) wear `mat`. None when the file brought no textures or does not match."""
    from PIL import Image

    faces = np.asarray(mesh.faces)
    total = sum(count for count, _, _ in parts) if parts else 0
    if not parts or len(faces) < total:
        return None
    tris = np.asarray(mesh.vertices)[faces]
    out, start = [], 0
    for count, uv, image in [*parts, (len(faces) - total, None, None)]:
        chunk = tris[start:start + count]
        start += count
        if not len(chunk):
            continue
        piece = trimesh.Trimesh(chunk.reshape(-1, 3), np.arange(len(chunk) * 3).reshape(-1, 3),
                                process=False)
        if image is not None and uv is not None:
            look = PBRMaterial(name=f"{mat.name}-texture", baseColorTexture=Image.fromarray(
                image), metallicFactor=0.0, roughnessFactor=0.85)
            piece.visual = TextureVisuals(uv=uv.reshape(-1, 2), material=look)
        else:
            piece.visual = TextureVisuals(material=mat)
        out.append(piece)
    return out


def file_transform(units: str) -> np.ndarray:
    """(4, 4) project frame (inches, z-up) -> file frame (`units`, y-up)."""
    scale = np.diag([UNITS[units]] * 3 + [1.0])
    return Z_UP_TO_Y_UP @ scale


def table_mesh(world: World) -> trimesh.Trimesh:
    """The table as a board: its top at z = 0, corner at the origin."""
    width, depth = world.table
    board = trimesh.creation.box((width, depth, TABLE_THICKNESS))
    board.apply_translation((width / 2, depth / 2, -TABLE_THICKNESS / 2))
    return board


def node_transform(to_file: np.ndarray, local_to_world: np.ndarray) -> np.ndarray:
    """(4, 4) node matrix in the file's frame for a local frame placed by `local_to_world`
    (project frame): `to_file` is a rotation times a uniform scale, so the result is a rigid
    motion (the rotation about the file's up axis, the translation in file units)."""
    return to_file @ local_to_world @ np.linalg.inv(to_file)


def piece_pivot(footprint: np.ndarray, mesh) -> np.ndarray:
    """(4, 4) project-frame placement of a terrain piece's node: the centre of its footprint's
    bounds on the table top (z = 0); the mesh's bounds where the piece has no footprint."""
    pivot = np.eye(4)
    points = np.asarray(footprint, dtype=np.float64)
    if len(points) == 0:
        points = np.asarray(as_trimesh(mesh).vertices)[:, :2]
    pivot[:2, 3] = 0.5 * (points.min(axis=0) + points.max(axis=0))
    return pivot


def world_scene(world: World, units: str = "m", scene=None) -> trimesh.Scene:
    """The glTF scene of `world`: nodes `table`, `terrain` (one child per piece, named by its
    id, with `ID_area` for its area volume) and `models` (one child per model, by its id),
    each placed by its own transform (see the module's docstring). With the `scene` the world
    was built from, a mesh file's own textures are kept (its parts after the first as
    `ID_part1`, `ID_part2`, ...)."""
    if units not in UNITS:
        raise ValueError(f"units must be one of {', '.join(UNITS)}, got {units!r}")
    to_file = file_transform(units)
    out = trimesh.Scene(base_frame="battlesight")
    for group in ("terrain", "models"):
        out.graph.update(frame_from="battlesight", frame_to=group)

    def add(name: str, mesh, mat: PBRMaterial, parent: str, placed: np.ndarray,
            parts: list[mesh_textures.Part] | None = None, world_mesh: bool = True) -> None:
        """Add `mesh` as node `name` placed by `placed` (project frame); world_mesh: the mesh
        is in table coordinates (moved into the node's frame here), else already local."""
        mesh = as_trimesh(mesh)  # the builders' meshes are arrays only: trimesh's visuals
        local = to_file @ np.linalg.inv(placed) if world_mesh else to_file
        node = node_transform(to_file, placed)
        pieces = textured_parts(mesh, parts, mat)
        if pieces is None:
            out.add_geometry(dressed(mesh, mat, local), node_name=name, geom_name=name,
                             parent_node_name=parent, transform=node)
            return
        for i, piece in enumerate(pieces):
            part = name if i == 0 else f"{name}_part{i}"
            out.add_geometry(piece.apply_transform(local), node_name=part, geom_name=part,
                             parent_node_name=parent, transform=node)

    add("table", table_mesh(world), material("table", palette.TABLE, 1.0), "battlesight",
        np.eye(4))
    looks: dict[str, PBRMaterial] = {}
    shapes = {m.id: m for m in getattr(scene, "models", ())}
    for entry in world.terrain.values():
        colour = palette.TERRAIN.get(entry.kind, palette.OTHER_TERRAIN)
        geometry = entry.geometry
        pivot = piece_pivot(geometry.footprint, geometry.solid if geometry.solid is not None
                            else geometry.area)
        if geometry.solid is not None:
            mat = looks.setdefault(entry.kind, material(entry.kind, colour))
            file = mesh_textures.piece_file(scene, entry.id) if entry.kind == "mesh" else None
            add(entry.id, geometry.solid, mat, "terrain", pivot,
                mesh_textures.scene_file_textures(scene, file) if file else None)
        if geometry.area is not None:
            area = palette.FOREST_CANOPY if entry.kind == "forest" else palette.AREA
            name = f"{entry.kind}-area"
            add(f"{entry.id}_area", geometry.area,
                looks.setdefault(name, material(name, area)), "terrain", pivot)
    for model in world.models.values():
        name = f"player-{model.player}" if model.player is not None else "neutral"
        mat = looks.setdefault(name, material(name, palette.player_colour(model.player), 0.6))
        spec = shapes.get(model.id)
        textures = (mesh_textures.scene_file_textures(scene, spec.shape)
                    if spec is not None and spec.is_mesh else None)
        add(model.id, model.volume.mesh, mat, "models", model.transform, textures,
            world_mesh=False)
    return out


def world_glb(world: World, units: str = "m", scene=None) -> bytes:
    """The binary glTF of `world_scene`, with vertex normals and the length unit recorded in
    `asset.extras.battlesight` (`{"units": "m", "up": "+y", "source": "battlesight"}`)."""

    def record_units(tree: dict) -> None:
        tree["asset"]["extras"] = {"battlesight": {"units": units, "up": "+y",
                                                   "source": "battlesight"}}

    return trimesh.exchange.gltf.export_glb(world_scene(world, units, scene),
                                            include_normals=True,
                                            tree_postprocessor=record_units)
