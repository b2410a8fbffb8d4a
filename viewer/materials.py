"""What each surface is made of in the lit look: stone ruins and walls, earth hills and craters,
bark trunks under a leafy canopy, the table mat, models in army colours with darker bases, and
mesh files drawn with their own textures (a textured GLB keeps its image).

Surfaces get box-projected texture coordinates (one tile per `textures.SURFACE_INCHES`) and
baked ambient occlusion in their vertex colours (`ambient.soup_occlusion`).
"""

from __future__ import annotations

import numpy as np
from battlesight.geometry.mesh import shells
from battlesight.rulesets.core.ruleset import ruleset_class
from panda3d.core import NodePath, TransparencyAttrib

from . import ambient, geom, lighting, palette, textures

#: surface texture and tint (multiplied into the texture) of each terrain kind
SURFACES: dict[str, tuple[str | None, palette.Colour]] = {
    "ruin": ("stone", (1.0, 0.98, 0.95, 1.0)),
    "wall": ("stone", (0.98, 0.70, 0.48, 1.0)),  # warm field stone
    "box": ("stone", (0.86, 0.86, 0.88, 1.0)),
    "hill": ("earth", (1.0, 1.0, 1.0, 1.0)),
    "crater": ("earth", (0.72, 0.66, 0.60, 1.0)),
    "forest": ("bark", (1.0, 1.0, 1.0, 1.0)),
}
BASE_SHADE = 0.42  # a model's base: its army colour this much darker
CANOPY_LEAF = (1.0, 1.0, 1.0, 1.0)


def box_uvs(tris: np.ndarray, inches: float = textures.SURFACE_INCHES) -> np.ndarray:
    """(n, 3, 2) texture coordinates projecting each triangle along its main normal axis (x, y
    on tops, the horizontal coordinate and z on sides, so textures stand upright)."""
    tris = np.asarray(tris, dtype=np.float64).reshape(-1, 3, 3)
    axis = np.abs(geom.face_normals(tris)).argmax(axis=1)
    u = np.where(axis[:, None] == 0, tris[..., 1], tris[..., 0])
    v = np.where(axis[:, None] == 2, tris[..., 1], tris[..., 2])
    return np.stack([u, v], axis=-1) / inches


def surface(name: str, tris: np.ndarray, world, kind: str) -> NodePath:
    """A lit, textured, occlusion-shaded node of triangles tris (n, 3, 3) of a terrain kind."""
    texture, tint = SURFACES.get(kind, (None, palette.TERRAIN.get(kind, palette.OTHER_TERRAIN)))
    node = NodePath(geom.surface_node(name, tris, box_uvs(tris),
                                      ambient.soup_occlusion(world, tris)))
    if texture is not None:
        node.set_texture(textures.surface_texture(texture), 1)
    return geom.paint(node, tint)


def soup(mesh) -> np.ndarray:
    """(n, 3, 3) triangles of a trimesh."""
    return np.asarray(mesh.vertices, dtype=np.float64)[np.asarray(mesh.faces, dtype=np.int64)]


#: `feature` values of the wrecks a game leaves (rulesets/wh40k6/damage.py), not buildings
WRECKS = ("vehicle wreck", "wreck")


def auto_mat(world, ruleset: str | None = None) -> str:
    """The mat a table suggests: under ruins and buildings the system's own (`Ruleset.
    table_mat`: city paving under a 40k table), else grass (a fantasy village or a field with
    ruins stays green). A vehicle's wreck (a box the game leaves, wh40k6 §8.9) is no building:
    a field keeps its grass when a tank dies."""
    kinds = {entry.kind for entry in world.terrain.values()
             if entry.data.get("feature") not in WRECKS}
    if ruleset is None or not kinds & {"ruin", "box"}:
        return "grass"
    return ruleset_class(ruleset).table_mat


def table_top(table: tuple[float, float], world, mat: str, grid: bool,
              ruleset: str | None = None) -> NodePath:
    """The table top with its generated mat ("auto": `auto_mat`) and inch grid, the ground's
    occlusion baked in."""
    mat = auto_mat(world, ruleset) if mat == "auto" else mat
    width, depth = table
    tris = geom.polygon_soup([[0, 0], [width, 0], [width, depth], [0, depth]], 0.0)
    uvs = tris[..., :2] / np.array([width, depth])
    node = NodePath(geom.surface_node("table-top", tris, uvs))
    image = textures.table_mat(mat, table, ambient.table_occlusion(world, table))
    node.set_texture(textures.image_texture(image, f"mat-{mat}"), 1)
    lighting.grid_lines(node, grid)
    if mat == "plain":  # one flat colour: no close-up grain either
        node.set_shader_input("detail", 0.0)
    node.hide(lighting.SHADOW_MASK)  # nothing lies under the table: its shadow pass is skipped
    return geom.paint(node, (1.0, 1.0, 1.0, 1.0))


def canopy(trunks, top: float, seed: int = 0) -> NodePath | None:
    """Leaf clusters over each trunk of a forest's trunk mesh, up to height top: alpha-tested
    leaves on two-sided spheres, so the trunks and the ground show through the gaps."""
    if trunks is None or not len(trunks.faces):
        return None
    from battlesight.geometry.primitives import sphere

    rng = np.random.default_rng(seed)
    blobs = []
    for part in shells(trunks):
        low, high = part.bounds
        centre = 0.5 * (low + high)
        span = max(top - high[2], 0.6)
        radius = float(np.clip(0.75 * span + 0.6, 0.9, 2.2))
        for _ in range(3):
            jitter = rng.uniform(-0.5, 0.5, 3) * [radius, radius, 0.4 * radius]
            z = high[2] + 0.45 * span + jitter[2]
            blobs.append(soup(sphere((centre[0] + jitter[0], centre[1] + jitter[1], z),
                                     radius * rng.uniform(0.7, 1.0), subdivisions=1)))
    if not blobs:
        return None
    tris = np.concatenate(blobs)
    rel = tris - tris.mean(axis=(0, 1))
    uvs = np.stack([np.arctan2(rel[..., 1], rel[..., 0]) * 1.2, rel[..., 2] * 0.8], axis=-1)
    node = NodePath(geom.surface_node("canopy", tris, uvs, np.full(tris.shape[:2], 0.85)))
    node.set_texture(textures.surface_texture("leaves", seed), 1)
    node.set_two_sided(True)
    node.set_transparency(TransparencyAttrib.M_binary)
    lighting.cutout(node)
    return geom.paint(node, CANOPY_LEAF)


def model_nodes(name: str, mesh, base_faces: np.ndarray, colour: palette.Colour
                ) -> NodePath:
    """A model: its body in the army colour, its base darker, a rim light on its edges."""
    node = NodePath(name)
    tris = soup(mesh)
    is_base = np.zeros(len(tris), dtype=bool)
    is_base[base_faces] = True
    for part, mask, paint in (("body", ~is_base, colour),
                              ("base", is_base, palette.darker(colour, BASE_SHADE))):
        if mask.any():
            geom.paint(node.attach_new_node(geom.soup_node(part, tris[mask])), paint)
    return lighting.rim_light(node)


def base_faces_of(mesh, volume=None) -> np.ndarray:
    """Indices of a model mesh's base faces: its 'base' part, else the faces of its lowest slab
    (every corner within the base thickness of the bottom)."""
    if volume is not None and "base" in volume.part_names:
        return volume.faces_of({"base"})
    from battlesight.geometry.volumes import BASE_THICKNESS

    v = np.asarray(mesh.vertices)
    low = v[:, 2].min() + BASE_THICKNESS + 1e-6
    return np.flatnonzero((v[np.asarray(mesh.faces)][..., 2] <= low).all(axis=1))


def textured_mesh(name: str, mesh, parts, fallback: palette.Colour, world=None,
                  rest: palette.Colour | None = None) -> NodePath | None:
    """A mesh drawn with its file's textures (`mesh_textures.file_textures`): one node per
    part, textured parts keep their image, the others get fallback. Faces past the file's (a
    base the loader added under a model) are painted rest; None when the mesh has fewer faces."""
    tris = soup(mesh)
    total = sum(count for count, _, _ in parts) if parts is not None else 0
    if parts is None or len(tris) < total or (len(tris) > total and rest is None):
        return None
    node = NodePath(name)
    if len(tris) > total:
        geom.paint(node.attach_new_node(geom.soup_node(f"{name}-rest", tris[total:])), rest)
    start = 0
    for i, (count, uv, image) in enumerate(parts):
        chunk = tris[start:start + count]
        start += count
        shade = ambient.soup_occlusion(world, chunk) if world is not None else None
        # trimesh keeps texture coordinates with v up the image, as Panda3D reads them
        child = node.attach_new_node(geom.surface_node(f"{name}-{i}", chunk, uv, shade))
        if image is not None:
            child.set_texture(textures.image_texture(image, f"{name}-{i}", repeat=True), 1)
            if image.shape[-1] == 4 and (image[..., 3] < 250).any():
                child.set_transparency(TransparencyAttrib.M_binary)
            geom.paint(child, (1.0, 1.0, 1.0, 1.0))
        else:
            geom.paint(child, fallback)
    return node
