"""Small whfb6 / aos2 scenes built in code (helpers shared by the test_whfb6_* and
test_aos2_* files), and the whfb6 formation rules they rest on (whfb6 §3)."""

from __future__ import annotations

import math
from typing import Any

from battlesight.rulesets.core.board import Board
from battlesight.rulesets.core.game import Game
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.rulesets.whfb6.formation import Formation, casualties, rank_sizes
from battlesight.scenes.build import build_world
from battlesight.scenes.loader import scene_from_dict
from battlesight.scenes.model import MM_PER_INCH, Scene


def scene(ruleset: str, terrain: list[dict] | None = None, units: list[dict] | None = None,
          models: list[dict] | None = None, table: tuple[float, float] = (72, 48)) -> Scene:
    return scene_from_dict({"format": 1, "name": "t", "ruleset": ruleset, "table": list(table),
                            "terrain": terrain or [], "units": units or [],
                            "models": models or []})


def board(s: Scene) -> Board:
    return Board(s, build_world(s), get_ruleset(s.ruleset))


def game(s: Scene, seed: int = 1) -> Game:
    return Game(s, s.ruleset, seed)


def block(unit: str, player: int, profile: str, front: tuple[float, float], facing: float,
          files: int, ranks: int, base: float = 20.0, height: float = 1.2,
          **model: Any) -> tuple[dict, list[dict]]:
    """A ranked unit entry and its models on their formation slots."""
    size = base / MM_PER_INCH
    form = Formation(front, facing, files, size, size)
    entry = {"id": unit, "player": player, "profile": profile,
             "formation": {"front": list(front), "facing": facing, "files": files,
                           "ranks": ranks}}
    models = [{"id": f"{unit}-{i + 1}", "unit": unit, "at": [round(x, 4), round(y, 4)],
               "facing": facing, "base": base, "height": height, **model}
              for i, (x, y) in enumerate(form.slots(files * ranks))]
    return entry, models


def loose(unit: str, player: int, profile: str, points: list[tuple[float, float]],
          base: float = 32.0, height: float = 1.5, facing: float = 0.0,
          **model: Any) -> list[dict]:
    return [{"id": f"{unit}-{i + 1}", "unit": unit, "player": player, "at": list(p),
             "facing": facing, "base": base, "height": height, "profile": profile, **model}
            for i, p in enumerate(points)]


def test_slots_follow_the_front_edge_and_facing():
    form = Formation((10.0, 10.0), 0.0, 5, 1.0, 1.0)
    slots = form.slots(10)
    assert slots[0] == (8.0, 9.5) and slots[4] == (12.0, 9.5) and slots[5] == (8.0, 8.5)
    turned = Formation((10.0, 10.0), 180.0, 5, 1.0, 1.0).slots(5)
    assert math.isclose(turned[0][0], 12.0) and math.isclose(turned[0][1], 10.5)


def test_wheel_costs_the_outer_corner_arc():
    form = Formation((10.0, 10.0), 0.0, 5, 1.0, 1.0)
    new, cost = form.wheeled(90.0)
    assert math.isclose(cost, math.pi / 2 * 5)
    assert math.isclose(new.facing, 90.0)
    assert math.isclose(new.front[0], 7.5) and math.isclose(new.front[1], 12.5)


def test_example_scene_formations_are_kept_and_checked():
    from battlesight.scenes import EXAMPLES_DIR
    from battlesight.scenes.loader import load_scene

    g = game(load_scene(EXAMPLES_DIR / "whfb6_village.yaml"))
    assert not [e for e in g.log if e.kind == "formation"]
    assert g.unit("halberdiers").status["formation"]["files"] == 5


def test_formation_regenerates_models_far_from_their_slots():
    entry, models = block("b", 1, "archers", (20, 10), 0, 5, 2)
    models[3]["at"] = [30.0, 30.0]
    g = game(scene("whfb6", units=[entry], models=models))
    moved = [e for e in g.log if e.kind == "formation"]
    assert moved and moved[0].data["moved"] == ["b-4"]
    size = 20 / MM_PER_INCH
    assert math.dist(g.board.outline("b-4").center, (20 + size, 10 - size / 2)) < 1e-6


def test_casualties_come_from_the_rear_sparing_command_models():
    order = [f"m{i}" for i in range(10)]
    roles = {"m0": "standard", "m9": "musician"}
    assert casualties(order, 3, roles) == ["m8", "m7", "m6"]
    assert rank_sizes(14, 5) == [5, 5, 4]
