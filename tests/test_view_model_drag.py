"""Models dragged on the real controller with the events a mouse drag makes: the new place,
an illegal move refused with its rule, the verdicts shown after the move the same as
`battlesight los` gives there, undo and redo, the unit moved in formation, the chance through
difficult terrain, range rings and the hover distance."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.rulesets.core.move_trial import judge_move  # noqa: E402
from battlesight.scenes import load_scene, save_scene  # noqa: E402
from battlesight.scenes.build import build_world  # noqa: E402
from battlesight.viewer.interact import Controller  # noqa: E402
from battlesight.viewer.render import OffscreenRenderer  # noqa: E402

from battlesight.cli.main import main  # noqa: E402
from tests.helpers import minimal_with, write_scene  # noqa: E402

MODELS = """\
- {id: mate, unit: tac-1, at: [14, 6], profile: tactical-marine}
- {id: boy-2, player: 2, at: [40, 12], facing: 180, base: 32, height: 1.7}
"""
TERRAIN = """\
- {id: rubble, type: crater, at: [12, 12], radius: 2, depth: 0.3, difficult: true}
"""


@pytest.fixture
def table(tmp_path):
    """A controller on an offscreen wh40k6 table, top view, and the scene's path."""
    path = write_scene(tmp_path, minimal_with(TERRAIN, MODELS))
    scene = load_scene(path)
    renderer = OffscreenRenderer(build_world(scene), scene, 640, 640, backend="tiny")
    controller = Controller(renderer.view)
    renderer.view.set_view("top")
    controller.renderer = renderer  # the tests that look at pixels draw through it
    yield controller, path
    renderer.close()


def colour_pixels(image: np.ndarray, colour) -> int:
    """How many pixels of a frame are (within 8 levels) this unlit overlay colour."""
    rgb = np.round(np.asarray(colour[:3]) * 255)
    return int((np.abs(image.astype(int) - rgb).max(axis=2) <= 8).sum())


def pixel(controller: Controller, model: str, dx: float = 0.0, dy: float = 0.0):
    """The pixel over a point (dx, dy) inches from the model's base centre, at its base
    height (where a drag of that model meets the table)."""
    x, y, z = controller.view.world.models[model].position
    pix, ok = controller.view.stage.project(np.array([[x + dx, y + dy, z]]))
    assert ok[0]
    return float(pix[0, 0]), float(pix[0, 1])


def mouse_drag(controller: Controller, model: str, dx: float, dy: float,
               shift: bool = False, steps: int = 4):
    """Press on the model, move the pointer in steps, release: what a mouse drag sends."""
    assert controller.press(*pixel(controller, model), shift=shift)
    for i in range(1, steps + 1):
        controller.drag(*pixel(controller, model, dx * i / steps, dy * i / steps))
    return controller.release(*pixel(controller, model, dx, dy))


def test_a_drag_moves_the_model_and_its_verdicts_are_those_of_los(table, tmp_path, capsys):
    controller, _ = table
    check = mouse_drag(controller, "sgt", 0.0, 3.0, shift=True)
    assert check.ok and check.distance == pytest.approx(3.0, abs=0.01)
    assert check.allowance == 6.0 and check.left == pytest.approx(3.0, abs=0.01)
    world, scene = controller.view.world, controller.view.scene
    assert tuple(world.models["sgt"].position[:2]) == pytest.approx((12, 9), abs=0.01)
    assert tuple(world.models["mate"].position[:2]) == pytest.approx((14, 9), abs=0.01)
    assert scene.model("sgt").at == pytest.approx((12, 9), abs=0.01)
    assert "moved sgt" in controller.view.info[0]
    controller.select("sgt")
    shown = {line.target: line.verdict.to_dict() for line in controller.view.lines}
    moved = tmp_path / "moved.yaml"
    save_scene(scene, moved)
    capsys.readouterr()
    assert main(["los", str(moved), "--from", "sgt", "--json"]) == 0
    reports = {r["target"]: r["verdict"] for r in json.loads(capsys.readouterr().out)}
    assert set(shown) == {"boy", "boy-2"}
    for target, verdict in shown.items():  # los adds the system's id to the same verdict
        assert {k: v for k, v in reports[target].items() if k != "system"} == verdict
    assert {v["status"] for v in shown.values()} == {"clear", "hidden"}
    assert controller.key("z")  # undo puts both back, redo moves them again
    assert tuple(controller.view.world.models["mate"].position[:2]) == pytest.approx((14, 6))
    assert controller.key("y")
    assert tuple(controller.view.world.models["mate"].position[:2]) == pytest.approx(
        (14, 9), abs=0.01)


def test_an_illegal_drag_is_refused_with_its_rule_and_the_model_stays(table):
    controller, _ = table
    check = mouse_drag(controller, "sgt", 0.0, 8.0, shift=True)
    assert not check.ok and check.rule == "wh40k6 §7.2" and "at most 6" in check.reason
    assert tuple(controller.view.world.models["sgt"].position[:2]) == pytest.approx((12, 6))
    assert "sgt stays" in controller.view.info[0] and "wh40k6 §7.2" in controller.view.info[1]
    alone = mouse_drag(controller, "sgt", 0.0, 4.0)  # out of coherency with its mate
    assert not alone.ok and alone.rule == "wh40k6 §3"
    assert controller.view.drag_path is None and not controller.moves.undo_steps


def test_the_drag_path_is_drawn_in_its_verdict_colour_while_dragging(table):
    from battlesight.viewer import palette

    controller, _ = table
    assert controller.press(*pixel(controller, "sgt"), shift=True)
    controller.drag(*pixel(controller, "sgt", 0.0, 2.0))
    path = controller.view.drag_path
    assert path is not None and path.check.ok
    legal = controller.renderer.render()
    assert colour_pixels(legal, palette.MOVE_LEGAL) > 50
    assert colour_pixels(legal, palette.MOVE_ILLEGAL) == 0
    controller.drag(*pixel(controller, "sgt", 0.0, 9.0))
    refused = controller.renderer.render()
    assert colour_pixels(refused, palette.MOVE_ILLEGAL) > 50
    assert controller.key("escape") and controller.view.drag_path is None
    assert colour_pixels(controller.renderer.render(), palette.MOVE_ILLEGAL) == 0


def test_difficult_terrain_gives_the_chance_of_the_highest_of_2d6(table):
    controller, _ = table
    scene = controller.view.scene
    check = judge_move(scene, {"sgt": (12.0, 11.0), "mate": (14.0, 11.0)})
    assert check.ok and check.chance_rule == "wh40k6 §6.1"  # difficult terrain (core.paths)
    assert check.chance == pytest.approx(1 - (4 / 6) ** 2)  # 5" needs a 5 or 6 on either die
    open_ground = judge_move(scene, {"sgt": (16.0, 6.0), "mate": (18.0, 6.0)})
    assert open_ground.ok and open_ground.chance is None


def test_range_rings_and_the_hover_distance(table):
    controller, _ = table
    controller.select("sgt")
    texts = [ring.text for ring in controller.view.rings]
    assert 'boltgun 24"' in texts and 'move 6"' in texts
    controller.hover(*pixel(controller, "boy"))
    board = controller.view.judge.board
    expected = board.ruleset.distance(board, "sgt", "boy")
    assert f'sgt to boy: {expected:.1f}"' in controller.view.info[-1]


def test_the_moves_bench_rows_on_a_small_table():
    from battlesight.bench.moves import format_moves_bench, moves_bench
    from battlesight.cli.commands.bench import ONLY

    assert "moves" in ONLY  # battlesight bench --only moves
    figures = moves_bench(seed=1, models=12, pieces=4, repeat=1)
    assert figures["models"] == 12 and figures["enemies"] == 6
    for key in ("refresh_after_move_s", "refresh_after_move_cpu_s", "drag_check_model_s",
                "drag_check_unit_s", "window_drag_frame_s", "window_release_s"):
        assert 0 < figures[key] < 30, key
    assert "budget 50 ms" in format_moves_bench(figures)


def test_a_ranked_unit_moves_as_one_block_and_takes_its_formation_along():
    from tests.helpers import RULESET_EXAMPLES

    scene = load_scene(RULESET_EXAMPLES["whfb6"])
    with OffscreenRenderer(build_world(scene), scene, 480, 320, backend="tiny") as renderer:
        controller = Controller(renderer.view)
        renderer.view.set_view("top")
        alone = mouse_drag(controller, "halb-1", 0.0, 2.0)
        assert not alone.ok and alone.rule == "whfb6 §7" and "one block" in alone.reason
        block = mouse_drag(controller, "halb-1", 0.0, 2.0, shift=True)
        assert block.ok and block.allowance == 4.0
        assert scene.unit("halberdiers")["formation"]["front"] == [24.0, 13.0]
        again = mouse_drag(controller, "halb-1", 0.0, 1.0, shift=True)  # from the new front
        assert again.ok and again.distance == pytest.approx(1.0, abs=0.01)
        assert controller.key("z") and scene.unit("halberdiers")["formation"]["front"] == [
            24.0, 13.0]
