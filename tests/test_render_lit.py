"""The lit look on the shader pipe, checked on pixels of real offscreen renders: a tall box casts
a shadow away from the key light, a textured GLB keeps its texture, army colours are the ones
chosen; and the parts behind it (occlusion, figures, textures, options) on their own."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.viewer import lighting, platform  # noqa: E402

GL = "headlessgl" in platform.available_backends()
needs_gl = pytest.mark.skipif(not GL, reason="no EGL/GL pipe here: the lit look needs GLSL")


def box_scene(with_box: bool = True, **extra) -> dict:
    """A 24x24 table with (or without) a 2x2x10 box in the middle."""
    terrain = [{"id": "tower", "type": "box", "at": [12, 12], "size": [2, 2, 10]}]
    return {"format": 1, "name": "shadow", "ruleset": "wh40k6", "table": [24, 24],
            "terrain": terrain if with_box else [], "units": [], "models": [], **extra}


def build(data: dict, tmp_path=None):
    """(scene, world) of scene data; written as a file in tmp_path (its mesh files beside)."""
    import json

    import battlesight

    source = data
    if tmp_path is not None:
        source = tmp_path / "scene.yaml"
        source.write_text(json.dumps(data))
    field = battlesight.load(source)
    return field.scene, field.world


def brightness(image: np.ndarray, pixel) -> float:
    """Mean of the 5x5 pixels around a projected point."""
    x, y = (int(round(v)) for v in pixel)
    return float(image[y - 2:y + 3, x - 2:x + 3].astype(float).mean())


def render_top(scene, world, points, look=None, size=(400, 400),
               multisamples=lighting.MULTISAMPLES):
    from battlesight.viewer.render import OffscreenRenderer, RenderSettings, apply_settings

    look = look or lighting.Look(mat="plain", grid=False)
    with OffscreenRenderer(world, scene, *size, "headlessgl", look,
                           multisamples=multisamples) as renderer:
        assert renderer.view.look.shaded
        apply_settings(renderer.view, RenderSettings(*size, view="top", legend=False))
        image = renderer.render()
        pixels, ok = renderer.view.stage.project(np.asarray(points, float))
    assert ok.all()
    return image, pixels


@needs_gl
def test_a_tall_box_casts_a_shadow_away_from_the_light_and_none_without_it():
    forward = lighting.sun_basis()[0]
    away = forward[:2] / np.linalg.norm(forward[:2])  # where the light travels to
    centre = np.array([12.0, 12.0])
    points = [[*(centre + 4.5 * away), 0.0],  # shadow side, past the box's occlusion reach
              [*(centre - 4.5 * away), 0.0],  # light side
              [3.0, 20.0, 0.0]]  # open table, far from the box
    image, px = render_top(*build(box_scene(True)), points)
    shadow, light_side, open_table = (brightness(image, p) for p in px)
    assert shadow < 0.75 * open_table, (shadow, open_table)
    assert light_side > 0.92 * open_table, (light_side, open_table)
    bare, px = render_top(*build(box_scene(False)), points)
    assert brightness(bare, px[0]) > 0.95 * brightness(bare, px[2])


def write_textured_glb(path):
    """A 6x6x1 slab (y up, as glTF) whose texture is four coloured quadrants, u along x and v
    along the file's z."""
    import trimesh
    from PIL import Image

    mesh = trimesh.creation.box(extents=(6.0, 1.0, 6.0))
    mesh.apply_translation((0.0, 0.5, 0.0))
    v = np.asarray(mesh.vertices)
    uv = np.column_stack([(v[:, 0] + 3) / 6, (v[:, 2] + 3) / 6])
    quads = np.zeros((8, 8, 3), np.uint8)
    quads[:4, :4] = (230, 40, 40)  # image top left: red
    quads[:4, 4:] = (40, 200, 40)  # top right: green
    quads[4:, :4] = (40, 60, 230)  # bottom left: blue
    quads[4:, 4:] = (235, 220, 40)  # bottom right: yellow
    material = trimesh.visual.material.SimpleMaterial(image=Image.fromarray(quads))
    mesh.visual = trimesh.visual.TextureVisuals(uv=uv, material=material)
    mesh.export(path)


def dominant(pixel_rgb) -> str:
    r, g, b = (float(c) for c in pixel_rgb)
    if r > 1.6 * b and g > 1.6 * b and min(r, g) > 0.6 * max(r, g):
        return "yellow"
    return {0: "red", 1: "green", 2: "blue"}[int(np.argmax([r, g, b]))]


@needs_gl
def test_a_textured_glb_keeps_its_texture_colours_in_the_render(tmp_path):
    write_textured_glb(tmp_path / "slab.glb")
    data = box_scene(False, terrain=[{"id": "slab", "type": "mesh", "file": "slab.glb",
                                      "at": [12, 12]}])
    scene, world = build(data, tmp_path)
    top = float(world.terrain["slab"].geometry.solid.bounds[1][2])
    # the file's z runs to the table's -y (y-up to z-up), so the image's top row (v = 1)
    # lies towards low y
    points = [[10.5, 10.5, top], [13.5, 10.5, top], [10.5, 13.5, top], [13.5, 13.5, top]]
    image, px = render_top(scene, world, points)
    seen = [dominant(image[int(round(y)), int(round(x))]) for x, y in px]
    assert seen == ["red", "green", "blue", "yellow"], seen


@needs_gl
def test_army_colours_are_the_ones_chosen():
    from tests import worlds

    world = worlds.one_model_world(at=(12.0, 12.0), table=(24.0, 24.0))
    look = lighting.Look(mat="plain", grid=False, armies={1: (0.1, 0.8, 0.2, 1.0)})
    model = world.models["solo"]
    image, px = render_top(None, world, [model.mesh.bounds.mean(axis=0)], look)
    r, g, b = image[int(round(px[0][1])), int(round(px[0][0]))].astype(int)
    assert g > 1.5 * r and g > 1.5 * b, (r, g, b)


def test_the_software_renderer_keeps_the_flat_look():
    from battlesight.viewer.render import OffscreenRenderer

    from tests import worlds

    with OffscreenRenderer(worlds.one_model_world(), None, 64, 48, "tiny") as renderer:
        assert not renderer.view.look.shaded
        assert renderer.view.stage.key_light is None


def test_occlusion_darkens_the_foot_of_a_wall_not_the_open_table():
    from battlesight.viewer import ambient

    from tests import worlds

    world = worlds.wall_ahead_world(gap=2.0, wall_height=4.0)
    wall = world.terrain["wall"].geometry.solid
    y = float(wall.bounds[0][1]) - 0.1  # just in front of the wall
    points = np.array([[36.0, y, 0.0], [36.0, 5.0, 0.0]])
    foot, open_table = ambient.openness(world, points, np.tile([0.0, 0.0, 1.0], (2, 1)))
    assert open_table == 1.0 and foot < 0.75


def test_figures_stand_inside_their_rules_cylinder():
    from battlesight.geometry.volumes import cylinder_volume
    from battlesight.viewer import proxies

    for base, height, kind in ((50, 2.75, "warjack"), (30, 1.75, "trooper")):
        volume = cylinder_volume(base, height)
        rx, ry, h = proxies.cylinder_size(volume)
        figure = getattr(proxies, kind)(rx, ry, h)
        v = np.asarray(figure.vertices)
        assert v[:, 2].min() >= -1e-9 and v[:, 2].max() <= h + 1e-9
        assert ((v[:, 0] / rx) ** 2 + (v[:, 1] / ry) ** 2).max() <= 1.0 + 1e-6, kind


def test_leaves_are_see_through_and_mats_are_generated():
    from battlesight.viewer import textures

    alpha = textures.leaves()[..., 3]
    assert set(np.unique(alpha)) == {0, 255} and 0.2 < (alpha == 0).mean() < 0.8
    grass = textures.table_mat("grass", (24, 24))
    desert = textures.table_mat("desert", (24, 24))
    assert grass.shape == desert.shape and grass.std() > 3
    assert grass[..., 1].mean() > grass[..., 2].mean() + 20  # green
    assert desert[..., 0].mean() > desert[..., 2].mean() + 30  # sand
    with pytest.raises(ValueError):
        textures.table_mat("lava", (24, 24))


def test_army_option_refuses_a_bad_colour_in_one_line():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    demo = root / "scenes" / "examples" / "demo.yaml"
    result = subprocess.run([sys.executable, "-m", "battlesight", "render", str(demo), "--out",
                             "/tmp/never-written.png", "--army", "1=chartreuse-ish"],
                            capture_output=True, text=True, cwd=root, timeout=300)
    assert result.returncode == 2
    assert result.stderr.strip().count("\n") == 0 and "--army" in result.stderr


@needs_gl
def test_bench_times_the_lit_overview_against_the_flat_one():
    from battlesight.bench.render import format_render_bench, render_bench

    figures = render_bench(size=(320, 180), repeat=1)
    assert figures["lit_backend"] == "headlessgl" and figures["lit_command_s"] > 0
    assert figures["lit_vs_flat"] == round(figures["lit_command_s"]
                                           / figures["flat_command_s"], 3)
    text = format_render_bench(figures)
    assert "lit (shadows, 4x AA" in text and "target 1.5 s" in text


@needs_gl
def test_a_textured_glb_model_keeps_its_texture_not_its_army_colour(tmp_path):
    import trimesh
    from PIL import Image

    mesh = trimesh.creation.box(extents=(1.0, 2.0, 1.0))  # y up, as glTF
    mesh.apply_translation((0.0, 1.0, 0.0))
    v = np.asarray(mesh.vertices)
    green = np.zeros((4, 4, 3), np.uint8)
    green[...] = (40, 210, 60)
    material = trimesh.visual.material.SimpleMaterial(image=Image.fromarray(green))
    mesh.visual = trimesh.visual.TextureVisuals(uv=(v[:, [0, 2]] + 0.5), material=material)
    mesh.export(tmp_path / "figure.glb")
    data = box_scene(False, units=[{"id": "u", "player": 1, "profile": "tactical-squad"}],
                     models=[{"id": "fig", "unit": "u", "at": [12, 12], "facing": 0,
                              "base": 32, "height": 2, "shape": "figure.glb",
                              "profile": "tactical-marine"}])
    scene, world = build(data, tmp_path)
    top = world.models["fig"].mesh.bounds[1]
    image, px = render_top(scene, world, [[12.0, 12.0, float(top[2])]])
    r, g, b = image[int(round(px[0][1])), int(round(px[0][0]))].astype(int)
    assert g > 1.5 * r and g > 1.5 * b, (r, g, b)  # the texture's green, not player 1's red


@needs_gl
def test_a_heatmap_is_not_darkened_by_shadows():
    forward = lighting.sun_basis()[0]
    away = forward[:2] / np.linalg.norm(forward[:2])
    points = [[*(np.array([12.0, 12.0]) + 4.5 * away), 0.0], [3.0, 20.0, 0.0]]
    from battlesight.viewer.render import OffscreenRenderer, RenderSettings, apply_settings

    scene, world = build(box_scene(True))
    field = np.full((24, 24), 0.8)
    with OffscreenRenderer(world, scene, 400, 400, "headlessgl",
                           lighting.Look(mat="plain", grid=False)) as renderer:
        apply_settings(renderer.view, RenderSettings(400, 400, view="top", heatmap=field,
                                                     legend=False))
        image = renderer.render()
        px, _ = renderer.view.stage.project(np.asarray(points))
    in_shadow, open_table = (image[int(round(y)), int(round(x))].astype(int) for x, y in px)
    assert np.abs(in_shadow - open_table).max() <= 12, (in_shadow, open_table)


@needs_gl
def test_render_command_takes_the_mat_and_the_flat_look(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from battlesight.viewer import palette
    from PIL import Image

    root = Path(__file__).resolve().parent.parent
    demo = root / "scenes" / "examples" / "demo.yaml"

    def render(name: str, *options: str) -> np.ndarray:
        out = tmp_path / name
        result = subprocess.run([sys.executable, "-m", "battlesight", "render", str(demo),
                                 "--out", str(out), "--view", "top", "--size", "320x200",
                                 "--renderer", "headlessgl", *options],
                                capture_output=True, text=True, cwd=root, timeout=300)
        assert result.returncode == 0, result.stderr
        with Image.open(out) as im:
            return np.asarray(im.convert("RGB")).astype(int)

    desert = render("desert.png", "--mat", "desert", "--no-inch-grid", "--army", "1=green")
    sand = (desert[..., 0] > desert[..., 2] + 40) & (desert[..., 0] > 90)
    assert sand.mean() > 0.3, sand.mean()
    flat = render("flat.png", "--flat")
    table = (np.abs(flat - np.array([round(c * 255) for c in palette.TABLE[:3]])) <= 4).all(2)
    assert table.mean() > 0.2, table.mean()  # the fixed-function table colour, unshaded


@needs_gl
def test_the_key_light_is_the_one_shaded_after_a_software_render():
    """The stage's fixed-function lights never stand in for the key light (they did, by
    node address, after a software renderer had drawn in the same process)."""
    from battlesight.viewer.render import OffscreenRenderer

    from tests import worlds

    with OffscreenRenderer(worlds.skirmish_world(), None, 96, 54, "tiny") as renderer:
        renderer.render()
    forward = lighting.sun_basis()[0]
    away = forward[:2] / np.linalg.norm(forward[:2])
    points = [[*(np.array([12.0, 12.0]) + 4.5 * away), 0.0], [3.0, 20.0, 0.0]]
    image, px = render_top(*build(box_scene(True)), points)
    shadow, open_table = (brightness(image, p) for p in px)
    assert shadow < 0.75 * open_table, (shadow, open_table)


@needs_gl
def test_a_driver_that_refuses_the_program_gets_the_flat_look(monkeypatch):
    from battlesight.viewer.render import OffscreenRenderer

    from tests import worlds

    broken = lighting.FRAGMENT.replace("void main() {", "void main() { not glsl;", 1)
    monkeypatch.setattr(lighting, "FRAGMENT", broken)
    monkeypatch.setattr(lighting, "_programs", {})
    with OffscreenRenderer(worlds.one_model_world(), None, 64, 48, "headlessgl") as renderer:
        assert renderer.view.look.shaded
        image = renderer.render()
        assert not renderer.view.look.shaded  # fell back, and still drew the table
    assert image.reshape(-1, 3).std(axis=0).max() > 10


def test_army_colours_read_names_hex_and_rgb():
    look = lighting.Look(armies={1: "green", 2: "#ff8000", 3: (0.1, 0.2, 0.3)})
    assert look.army(1) == pytest.approx((0.20, 0.62, 0.22, 1.0))
    assert look.army(2) == pytest.approx((1.0, 128 / 255, 0.0, 1.0))
    assert look.army(3) == pytest.approx((0.1, 0.2, 0.3, 1.0))
    assert look.army(4) == lighting.palette.player_colour(4)


def test_the_mat_option_offers_every_generated_mat():
    from battlesight.viewer import textures

    from battlesight.cli.look import MAT_CHOICES

    assert MAT_CHOICES == ("auto", *textures.MATS)  # the parser's copy (no Panda3D import)


@needs_gl
def test_lit_pictures_are_anti_aliased():
    """Multisampling smooths a slanted edge: the pictures with and without it differ along
    the slab's outline only, and the lit buffer has the samples (the flat one none)."""
    from battlesight.viewer.render import OffscreenRenderer

    from tests import worlds

    slab = {"id": "slab", "type": "box", "at": [12, 12], "size": [8, 1, 0.5], "rotation": 20}
    scene, world = build(box_scene(False, terrain=[slab]))
    smooth, _ = render_top(scene, world, [[12.0, 12.0, 0.0]], size=(300, 300))
    # the samples are the renderer's setting (its default bound when it is defined)
    jagged, _ = render_top(scene, world, [[12.0, 12.0, 0.0]], size=(300, 300), multisamples=0)
    changed = (np.abs(smooth.astype(int) - jagged).max(axis=2) > 8).sum()
    assert 20 < changed < 0.02 * 300 * 300, changed
    with OffscreenRenderer(worlds.one_model_world(), None, 64, 48, "headlessgl") as lit:
        assert lit.target.buffer.get_fb_properties().get_multisamples() >= 2
    with OffscreenRenderer(worlds.one_model_world(), None, 64, 48, "headlessgl",
                           lighting.FLAT) as flat:
        assert flat.target.buffer.get_fb_properties().get_multisamples() == 0


@needs_gl
def test_the_table_shows_no_small_copy_of_the_layout_in_its_corner():
    """The close-up grain once read the mat itself 9x finer with the texture clamped: a 1/9
    copy of the whole mat, baked occlusion and all, sat in the table's (0, 0) corner (a box at
    (18, 18) left a dark square at (2, 2)). The grain is its own tiling texture now."""
    data = box_scene()
    data["terrain"] = [{"id": "block", "type": "box", "at": [18, 18], "size": [4, 4, 3]}]
    scene, world = build(data)
    image, pixels = render_top(scene, world, [[2, 2, 0], [6, 2, 0]], size=(600, 600))
    copy, open_ground = (brightness(image, p) for p in pixels)
    assert abs(copy - open_ground) < 2.0


def test_the_grain_tiles_and_leaves_the_mat_brightness_alone():
    from battlesight.viewer import textures

    g = textures.grain().astype(float)
    assert abs(g.mean() - 128) < 1.0 and 5 < g.std() < 30
    # the seams across the tile's edges are no stronger than any neighbouring pixels
    inner = np.abs(np.diff(g, axis=0)).mean()
    assert np.abs(g[0] - g[-1]).mean() < 1.5 * inner
    assert np.abs(g[:, 0] - g[:, -1]).mean() < 1.5 * inner


def test_a_portrait_table_is_lit_from_the_front_left_of_its_stream_view():
    """The stream view watches a portrait table from its long side (heading 90): the sun
    turns with it, so the faces towards the camera are lit as on a landscape table (they were
    in shade, the sun behind the camera)."""
    from battlesight.viewer.cameras import preset_heading
    from panda3d.core import NodePath

    def camera_and_sun(table):
        heading = np.radians(preset_heading("stream", table)[0])
        camera = np.array([-np.sin(heading), np.cos(heading)])  # plan forward (Panda heading)
        sun = lighting.sun_basis(lighting.table_sun(table))[0][:2]
        return camera, sun / np.linalg.norm(sun)

    wide, tall = camera_and_sun((60, 44)), camera_and_sun((44, 60))
    assert np.dot(*wide) == pytest.approx(np.dot(*tall))
    side = lambda c, s: c[0] * s[1] - c[1] * s[0]  # noqa: E731 - the plan cross product
    assert side(*wide) == pytest.approx(side(*tall))
    assert np.dot(*tall) > 0  # the light travels away from the camera: it lights the faces
    # turned towards it
    root = NodePath("stage")
    sun = lighting.light_battlefield(root, root.attach_new_node("battlefield"), (44, 60), 5.0)
    assert sun.get_h() == pytest.approx(lighting.table_sun((44, 60))[0])
    assert lighting.table_sun((60, 44)) == lighting.SUN_HPR


def test_shadow_map_is_no_finer_than_the_frame_needs():
    from battlesight.viewer import lighting

    assert lighting.shadow_map_for(1920, 1080) == lighting.SHADOW_MAP == 2048
    assert lighting.shadow_map_for(1280, 720) == lighting.SHADOW_MAP_SMALL == 1024
    assert lighting.shadow_map_for(720, 1280) == 1024
