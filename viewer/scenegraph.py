"""The battlefield as a Panda3D scene graph: table, grid, deployment zones, terrain, models.

Built from a `geometry.world.World` (meshes handed over as arrays) and, optionally, the
`scenes.model.Scene` it came from (deployment zones, names). No camera, no window: see `stage`.
The table top and its decals (zones, heatmap, grid) are drawn first in a fixed order without
depth tests, so they never fight over depth in the software renderer. Models are drawn after
all terrain (a translucent canopy never tints them) and each has an x-ray silhouette drawn
before it, through the terrain, so a model inside a wood or under a ruin floor is
still seen where it stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from battlesight.geometry.primitives import transform
from panda3d.core import CullBinManager, NodePath, TransparencyAttrib

from . import geom, lighting, materials, mesh_textures, palette, proxies
from .lighting import FLAT, Look

GROUND_BIN = "background"  # a fixed-order bin drawn before the opaque one
GRID_MAJOR = 6  # a stronger grid line every 6 inches
XRAY_BIN = "xray"  # after every terrain bin (transparent is 30), before the models
MODEL_BIN = "models"  # after the x-ray silhouettes, before the overlays' "fixed" bin (40)
#: An x-ray silhouette's colour: its army colour this much of the way to white, so it reads
#: as the model (same hue) and as seen through terrain (flat, paler than the shaded model).
XRAY_LIGHTEN = 0.25


def _add_bins() -> None:
    """The two bins models draw in (once per process; Panda keeps them globally)."""
    bins = CullBinManager.get_global_ptr()
    if bins.find_bin(XRAY_BIN) < 0:
        bins.add_bin(XRAY_BIN, CullBinManager.BT_fixed, 32)
    if bins.find_bin(MODEL_BIN) < 0:
        bins.add_bin(MODEL_BIN, CullBinManager.BT_state_sorted, 34)


@dataclass
class SceneGraph:
    """Handles on the nodes the viewer changes later."""

    root: NodePath
    ground: NodePath  # table top + decals
    decals: NodePath  # heatmap etc. attach here (drawn over zones, under the grid)
    terrain: dict[str, NodePath] = field(default_factory=dict)
    models: dict[str, NodePath] = field(default_factory=dict)
    rings: dict[str, NodePath] = field(default_factory=dict)
    xrays: dict[str, NodePath] = field(default_factory=dict)  # model id -> its silhouette
    overlays: NodePath | None = None
    look: Look = FLAT
    ruleset: str | None = None

    def model_node(self, model_id: str) -> NodePath | None:
        return self.models.get(model_id)


def ground_decal(node: NodePath, order: int) -> NodePath:
    """Make node a decal on the table top: drawn in the ground bin at `order`, no depth."""
    node.set_bin(GROUND_BIN, order)
    node.set_depth_test(False)
    node.set_depth_write(False)
    node.set_light_off(1)
    return lighting.unlit(node)


def translucent(node: NodePath, colour: palette.Colour, two_sided: bool = False) -> NodePath:
    """Alpha-blended unlit colour, drawn after opaque things, not writing depth."""
    node.set_color(*colour)
    node.set_light_off(1)
    node.set_transparency(TransparencyAttrib.M_alpha)
    node.set_depth_write(False)
    node.set_bin("transparent", 0)
    if two_sided:
        node.set_two_sided(True)
    return lighting.unlit(node)


def _table(root: NodePath, world, look: Look, ruleset: str | None = None
           ) -> tuple[NodePath, NodePath]:
    table = world.table
    width, depth = table
    ground = root.attach_new_node("ground")
    if look.shaded:  # the generated mat, lit and shadowed, its grid and occlusion baked in
        top = materials.table_top(table, world, look.mat, look.grid, ruleset)
        top.reparent_to(ground)
    else:
        top = ground.attach_new_node(geom.soup_node("table-top", geom.polygon_soup(
            [[0, 0], [width, 0], [width, depth], [0, depth]], 0.0)))
        top.set_color(*palette.TABLE)
        top.set_light_off(1)
    top.set_bin(GROUND_BIN, 0)
    # sides of the table, lit, below the top
    body = np.array([[0, 0], [width, 0], [width, depth], [0, depth]], float)
    a, b = geom.outline_segments(body, 0.0)
    low = np.array([0.0, 0.0, -0.75])
    sides = np.concatenate([np.stack([a + low, b + low, b], 1), np.stack([a + low, b, a], 1)])
    side = root.attach_new_node(geom.soup_node("table-sides", sides))
    geom.paint(side, palette.TABLE_EDGE)
    decals = ground.attach_new_node("decals")
    ground_decal(decals, 2)
    if not look.shaded:
        _grid(ground, table)
    return ground, decals


def _grid(ground: NodePath, table: tuple[float, float]) -> None:
    width, depth = table
    for major, colour, order in ((False, palette.GRID_INCH, 3), (True, palette.GRID_FOOT, 4)):
        xs = [x for x in range(0, int(width) + 1) if (x % GRID_MAJOR == 0) == major]
        ys = [y for y in range(0, int(depth) + 1) if (y % GRID_MAJOR == 0) == major]
        starts = [(x, 0, 0) for x in xs] + [(0, y, 0) for y in ys]
        ends = [(x, depth, 0) for x in xs] + [(width, y, 0) for y in ys]
        if not starts:
            continue
        lines = ground.attach_new_node(geom.lines_node("grid", np.array(starts), np.array(ends)))
        lines.set_color(*colour)
        ground_decal(lines, order)


def _deployment(ground: NodePath, deployment, alpha: float = 0.22, look: Look = FLAT) -> None:
    if not isinstance(deployment, dict):
        return  # a named map: drawn once a ruleset can turn the name into polygons
    for player, polygon in deployment.items():
        colour = look.army(int(player))
        poly = np.asarray(polygon, dtype=np.float64)
        fill = ground.attach_new_node(geom.soup_node(f"zone-{player}", geom.polygon_soup(poly, 0)))
        ground_decal(translucent(fill, colour[:3] + (alpha,)), 1)
        a, b = geom.outline_segments(poly, 0.0)
        edge = ground.attach_new_node(geom.lines_node(f"zone-edge-{player}", a, b))
        edge.set_color(*colour)
        ground_decal(edge, 5)


def draw_terrain(root: NodePath, entries, graph: SceneGraph, world=None, scene=None) -> None:
    """Draw terrain entries (geometry.world.TerrainEntry) under root, one node per piece,
    recorded in graph.terrain (in the lit look: textured, from world's rays for occlusion)."""
    for entry in entries:
        if graph.look.shaded and world is not None:
            node = _lit_piece(root, entry, world, scene)
            graph.terrain[entry.id] = node
            continue
        node = root.attach_new_node(f"terrain-{entry.id}")
        g = entry.geometry
        colour = palette.TERRAIN.get(entry.kind, palette.OTHER_TERRAIN)
        drew = False
        if entry.kind in ("forest", "crater", "area") and len(g.footprint) >= 3:
            floor = palette.darker(palette.FOREST_CANOPY if entry.kind == "forest" else colour, 0.7)
            decal = node.attach_new_node(geom.soup_node("floor", geom.polygon_soup(g.footprint, 0)))
            decal.set_color(*floor[:3], 1.0)
            ground_decal(decal, 1)
        if g.solid is not None and len(g.solid.faces):
            solid = node.attach_new_node(geom.mesh_node("solid", g.solid))
            geom.paint(solid, colour)
            drew = True
        if g.area is not None and len(g.area.faces):
            area = node.attach_new_node(geom.mesh_node("area", g.area))
            translucent(area, palette.FOREST_CANOPY if entry.kind == "forest" else palette.AREA,
                        two_sided=True)
            drew = True
        if not drew and g.stand is not None and len(g.stand.faces):
            stand = node.attach_new_node(geom.mesh_node("stand", g.stand))
            geom.paint(stand, colour)
        graph.terrain[entry.id] = node


def _lit_piece(root: NodePath, entry, world, scene) -> NodePath:
    """One terrain piece in the lit look: its surfaces textured by kind (a mesh file with its
    own textures), a forest as bark trunks under leaf clusters over its darker floor."""
    node = root.attach_new_node(f"terrain-{entry.id}")
    g = entry.geometry
    if entry.kind in ("forest", "crater", "area") and len(g.footprint) >= 3:
        floor = palette.darker(palette.FOREST_CANOPY if entry.kind == "forest"
                               else palette.TERRAIN.get(entry.kind, palette.AREA), 0.7)
        decal = node.attach_new_node(geom.soup_node("floor", geom.polygon_soup(g.footprint, 0)))
        decal.set_color(*floor[:3], 0.55)
        decal.set_transparency(TransparencyAttrib.M_alpha)
        ground_decal(decal, 1)
    shown = [m for m in (g.solid, g.stand if g.solid is None else None)
             if m is not None and len(m.faces)]
    for i, mesh in enumerate(shown):
        drawn = None
        if entry.kind == "mesh":
            drawn = materials.textured_mesh(f"mesh-{i}", mesh, _file_parts(scene, entry.id),
                                            palette.TERRAIN["mesh"], world)
        if drawn is None:
            drawn = materials.surface(f"surface-{i}", materials.soup(mesh), world, entry.kind)
        drawn.reparent_to(node)
    if entry.kind == "forest" and g.area is not None and len(g.area.faces):
        leaves = materials.canopy(g.solid, float(g.area.bounds[1][2]))
        if leaves is not None:
            leaves.reparent_to(node)
    elif g.area is not None and len(g.area.faces):
        translucent(node.attach_new_node(geom.mesh_node("area", g.area)), palette.AREA,
                    two_sided=True)
    return node


def _file_parts(scene, piece_id: str):
    """The textures of a mesh piece's file (`mesh_textures`), None without any."""
    if scene is None:
        return None
    return mesh_textures.scene_file_textures(scene, mesh_textures.piece_file(scene, piece_id))


def _textures_of(scene, file):
    return mesh_textures.scene_file_textures(scene, file)


def base_radii(model) -> tuple[float, float]:
    """(rx, ry) of a placed model's base in its local frame, from the bottom of its volume."""
    v = np.asarray(model.volume.mesh.vertices)
    low = v[v[:, 2] <= v[:, 2].min() + 0.05]
    pts = low if len(low) >= 3 else v
    return float(np.abs(pts[:, 0]).max()), float(np.abs(pts[:, 1]).max())


def ring_node(model, colour: palette.Colour, grow: float = 0.0, width: float = 0.08) -> NodePath:
    """A flat ring around a model's base (unlit), placed and turned with the model."""
    rx, ry = base_radii(model)
    soup = geom.ring_soup(rx + grow + width, ry + grow + width, width, 0.03)
    node = NodePath(geom.soup_node(f"ring-{model.id}", soup))
    node.set_pos(*map(float, model.position))
    node.set_h(float(model.facing))
    node.set_color(*colour)
    node.set_light_off(1)
    return lighting.unlit(node)


def xray_colour(colour: palette.Colour) -> palette.Colour:
    """The flat colour of a model's x-ray silhouette in army colour `colour`."""
    return tuple(c + (1.0 - c) * XRAY_LIGHTEN for c in colour[:3]) + (1.0,)


def xray_node(name: str, mesh, colour: palette.Colour) -> NodePath:
    """mesh as a flat silhouette drawn through everything drawn before it (all terrain),
    writing no depth; the model itself is drawn over it where nothing hides it, so the
    silhouette stays only where terrain does (a plain depth test off: the software renderer
    has no greater-than test)."""
    node = NodePath(geom.mesh_node(name, mesh))
    node.set_color(*xray_colour(colour))
    node.set_light_off(1)
    node.set_depth_test(False, 1)
    node.set_depth_write(False, 1)
    node.set_bin(XRAY_BIN, 0, 1)
    return lighting.unlit(node)


def draw_models(root: NodePath, placed, graph: SceneGraph, scene=None) -> None:
    """Draw placed models (geometry.world.PlacedModel) with their base rings under root,
    recorded in graph.models and graph.rings. The lit look draws army colours with darker
    bases, figures for plain cylinders (`proxies`) and a mesh file's own textures. Each model
    node holds its x-ray silhouette (`xray_node`), so hiding the model hides it too."""
    _add_bins()
    models = root.attach_new_node("models")
    models.set_bin(MODEL_BIN, 0)
    for model in placed:
        colour = graph.look.army(model.player)
        if graph.look.shaded:
            node, mesh = _lit_model(model, colour, graph.ruleset, scene)
            node.reparent_to(models)
        else:
            mesh = model.mesh
            node = models.attach_new_node(geom.mesh_node(f"model-{model.id}", mesh))
            geom.paint(node, colour)
        graph.xrays[model.id] = xray_node(f"xray-{model.id}", mesh, colour)
        graph.xrays[model.id].reparent_to(node)
        node.set_tag("model", model.id)
        ring = ring_node(model, palette.darker(colour, 0.5))
        ring.reparent_to(models)
        graph.models[model.id] = node
        graph.rings[model.id] = ring


def _lit_model(model, colour: palette.Colour, ruleset: str | None, scene
               ) -> tuple[NodePath, object]:
    """A model in the lit look and the mesh it draws (in table coordinates): a figure for a
    plain cylinder, its mesh file's textures, else its volume; army colour with a darker base
    and a rim light."""
    figure = proxies.display_figure(model, ruleset)
    if figure is not None:
        mesh = transform(figure, model.transform)
        return materials.model_nodes(f"model-{model.id}", mesh,
                                     materials.base_faces_of(mesh), colour), mesh
    spec = next((m for m in getattr(scene, "models", ()) if m.id == model.id), None)
    if spec is not None and spec.is_mesh:
        textured = materials.textured_mesh(f"model-{model.id}", model.mesh,
                                           _textures_of(scene, spec.shape), colour,
                                           rest=palette.darker(colour, materials.BASE_SHADE))
        if textured is not None:
            return lighting.rim_light(textured), model.mesh
    return materials.model_nodes(f"model-{model.id}", model.mesh,
                                 materials.base_faces_of(model.mesh, model.volume),
                                 colour), model.mesh


def build_scene_graph(world, scene=None, look: Look = FLAT) -> SceneGraph:
    """The whole battlefield of world (and scene's deployment zones) under one root, in the
    look asked (the lit look also needs `lighting.light_battlefield` once on a stage)."""
    root = NodePath("battlefield")
    ground, decals = _table(root, world, look, getattr(scene, "ruleset", None))
    graph = SceneGraph(root=root, ground=ground, decals=decals, look=look,
                       ruleset=getattr(scene, "ruleset", None))
    if scene is not None:
        # a lighter tint on the textured mat: the mat and the models on it keep reading
        _deployment(ground, getattr(scene, "deployment", None), 0.15 if look.shaded else 0.22,
                    look)
    draw_terrain(root, world.terrain.values(), graph, world, scene)
    draw_models(root, world.models.values(), graph, scene)
    graph.overlays = root.attach_new_node("overlays")
    graph.overlays.set_light_off(1)
    lighting.unlit(graph.overlays)
    return graph
