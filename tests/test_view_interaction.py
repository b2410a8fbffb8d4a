"""The viewer's handlers, driven without a display on an offscreen view."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.viewer.interact import HELP, HELP_HINT, Controller  # noqa: E402
from battlesight.viewer.render import OffscreenRenderer  # noqa: E402
from battlesight.viewer.rulings import BARE_WORLD_RULE  # noqa: E402

from tests import worlds  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scenes" / "examples" / "demo.yaml"


@pytest.fixture
def app():
    """A controller on an offscreen skirmish, software renderer, top view."""
    world = worlds.skirmish_world()
    renderer = OffscreenRenderer(world, None, 960, 540, backend="tiny")
    controller = Controller(renderer.view, loader=lambda: (worlds.skirmish_world(), None))
    renderer.view.set_view("top")
    yield controller, renderer
    renderer.close()


def screen_point(controller: Controller, model_id: str) -> tuple[float, float]:
    model = controller.view.world.models[model_id]
    pixels, ok = controller.view.stage.project(model.mesh.bounds.mean(axis=0)[None])
    assert ok[0]
    return float(pixels[0, 0]), float(pixels[0, 1])


def test_click_at_a_models_projected_position_selects_it(app):
    controller, renderer = app
    for model_id in ("red-2", "blue-5"):
        controller.select(None)
        x, y = screen_point(controller, model_id)
        assert controller.click(x + 2, y - 1) == model_id
        assert controller.selected == model_id
        assert {line.target for line in controller.view.lines} == {
            m for m, v in controller.view.world.models.items()
            if v.player != controller.view.world.models[model_id].player}
    controller.select(None)
    assert controller.click(5, 5) is None and controller.selected is None  # empty corner


def test_click_on_an_enemy_shows_why_then_selects_it(app):
    controller, _ = app
    controller.click(*screen_point(controller, "red-boss"))
    x, y = screen_point(controller, "blue-3")
    assert controller.click(x, y) == "blue-3"
    assert controller.selected == "red-boss" and controller.target == "blue-3"
    info = "\n".join(controller.view.info)
    assert "red-boss -> blue-3" in info and "block-1 hides" in info and BARE_WORLD_RULE in info
    assert controller.view.node("samples-hidden") is not None
    controller.click(x, y)  # second click: blue-3 becomes the observer
    assert controller.selected == "blue-3"


def test_hovering_a_sight_line_explains_it(app):
    controller, _ = app
    controller.select("red-boss")
    line = controller.view.line_to("blue-4")
    from battlesight.viewer.overlays import aim_point

    ends, _ = controller.view.stage.project(np.array([line.start, aim_point(
        controller.view.world, line)]))
    middle = ends.mean(axis=0)
    assert controller.hover(*middle) == "blue-4"
    assert any("wood-1" in text for text in controller.view.info)


def test_eye_key_moves_the_camera_to_the_selected_models_eye(app):
    controller, renderer = app
    assert controller.key("e") is False  # nothing selected yet
    controller.select("red-boss")
    assert controller.key("e")
    camera = np.array(renderer.view.stage.camera.get_pos(renderer.view.stage.root))
    assert np.allclose(camera, controller.view.world.models["red-boss"].eye, atol=1e-4)
    image = renderer.render()
    assert image.reshape(-1, 3).std(axis=0).max() > 10
    # with a target, the eye view looks at it: the target projects near the image centre
    controller.set_target("blue-1")
    controller.key("e")
    x, y = screen_point(controller, "blue-1")
    stage = controller.view.stage
    centre_x = stage.inset_left + (stage.width - stage.inset_left) / 2
    assert abs(x - centre_x) < 5 and abs(y - stage.height / 2) < 5


def test_preset_keys_orbit_pan_and_zoom_move_the_camera(app):
    controller, renderer = app
    stage = renderer.view.stage
    positions = {}
    for key, name in (("1", "top"), ("2", "iso"), ("3", "edge1"), ("4", "edge2")):
        assert controller.key(key)
        assert controller.view.view_name == name
        positions[name] = np.array(stage.camera.get_pos(stage.root))
    assert positions["top"][2] > positions["edge1"][2]
    assert positions["edge1"][1] < 24 < positions["edge2"][1]
    before = controller.view.orbit.distance
    controller.zoom(2)
    assert controller.view.orbit.distance < before
    heading = controller.view.orbit.heading
    controller.orbit(40, 0)
    assert controller.view.orbit.heading != heading
    focus = controller.view.orbit.focus.copy()
    controller.pan(30, 0)
    assert not np.allclose(controller.view.orbit.focus, focus)


def test_ruler_between_two_models(app):
    controller, _ = app
    assert controller.key("m") and controller.ruler_mode
    controller.click(*screen_point(controller, "red-1"))
    controller.click(*screen_point(controller, "red-4"))
    start, end, gap, note = controller.view.ruler
    assert np.allclose(start[:2], (12.0, 8.0)) and np.allclose(end[:2], (30.0, 8.0))
    assert gap == pytest.approx(32 / 25.4, rel=0.02) and "base to base" in note
    texts = [lab.text for lab in controller.view.stage.labels]
    assert any(t.startswith('16.7"') for t in texts), texts


def test_reload_keeps_selection_and_reports_a_broken_file(app):
    controller, _ = app
    controller.select("red-boss")
    assert controller.key("f5") and controller.selected == "red-boss"
    assert controller.message == "reloaded"

    def broken():
        raise ValueError("demo.yaml:3: bad key")

    controller.loader = broken
    assert controller.key("r") is False
    assert "reload failed" in controller.view.info[0] and "bad key" in controller.view.info[1]
    assert controller.selected == "red-boss"


def test_help_overlay_lists_the_keys_and_toggles(app):
    controller, _ = app
    assert controller.view.help == HELP_HINT  # folded: one line, the labels stay clear
    controller.key("f1")
    assert controller.view.help == HELP
    texts = [n.node().get_text() for n in controller.view.hud.find_all_matches("**/+TextNode")]
    assert any("eye view" in t for t in texts) and any("reload" in t for t in texts)
    controller.key("f1")
    assert controller.view.help == HELP_HINT
    controller.key("tab")
    controller.key("escape")
    assert controller.selected is None and not controller.quit_requested
    controller.key("escape")  # nothing left to drop: esc quits, as q does
    assert controller.quit_requested


def test_labels_and_heatmap_keys(app):
    controller, _ = app
    controller.key("l")
    assert controller.view.show_labels and any(
        "red-boss" in lab.text for lab in controller.view.stage.labels)
    controller.key("h")
    assert controller.view.heatmap is not None and controller.view.heatmap.shape == (48, 72)
    controller.key("h")
    assert controller.view.heatmap is None


def test_view_command_runs_headless_frames(tmp_path):
    shot = tmp_path / "shot.png"
    env = dict(os.environ, BATTLESIGHT_RENDERER="tiny")
    env.pop("DISPLAY", None)
    result = subprocess.run(
        [sys.executable, "-m", "battlesight", "view", str(DEMO), "--frames", "3",
         "--select", "sgt", "--size", "320x200", "--screenshot", str(shot)],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    from PIL import Image

    with Image.open(shot) as im:
        assert im.size == (320, 200)
        pixels = np.asarray(im.convert("RGB"))
    assert pixels.reshape(-1, 3).std(axis=0).max() > 10
    refused = subprocess.run([sys.executable, "-m", "battlesight", "view", str(DEMO)],
                             capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert refused.returncode == 2 and "no display" in refused.stderr
