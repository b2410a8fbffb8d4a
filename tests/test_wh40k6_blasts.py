"""Blasts and templates by floor in a multi-floor ruin (digest §6.3, §8.7, scenario S26),
resolved through `resolve_shooting` and the phase engine: only the models on the declared
floor are hit and take the wounds; a marker over a spot without flooring on that floor hits
the highest level there; outside the ruin a marker hits normally; a barrage hits the highest
floor under the hole; a template reaches the firer's floor or one above or below."""

from __future__ import annotations

import numpy as np
import trimesh
from battlesight.geometry.types import TerrainGeometry
from battlesight.rulesets.core.game import Game
from battlesight.rulesets.wh40k6.resolve import floors_at, resolve_shooting
from battlesight.rulesets.wh40k6.shooting import ShotContext, analyse
from battlesight.scenes.footprints import rectangle

from tests.rules_helpers import ScriptedRoller, Table

GROUND = {"orks-1": (29.5, 28.0), "orks-2": (30.8, 28.0)}
FLOOR_1 = {"orks-3": (29.5, 28.0), "orks-4": (30.8, 28.0), "orks-5": (30.15, 29.1)}


def ruin_table(weapon: str = "missile launcher (frag)", firer_at=(30.0, 16.0),
               upper: bool = False) -> Table:
    """A three-level ruin (floors at 3" and 6", walls north and west) with two Orks on the
    ground and three on floor 1 (the same plan spots); a marine with `weapon` to the south."""
    t = Table()
    t.ruin("ruin", (30, 30), (8, 8), floors=(3.0, 6.0))
    for m, at in GROUND.items():
        t.model(m, "orks", 2, at, "ork-boy")
    for m, at in FLOOR_1.items():
        t.model(m, "orks", 2, at, "ork-boy", floor=1)
    if upper:
        t.model("orks-6", "orks", 2, (30.15, 29.1), "ork-boy", floor=2)
    t.model("dev", "dev", 1, firer_at, "devastator-marine", weapons=[weapon])
    return t


def blast(t: Table, dice: list[int], floor: int | None = None):
    board = t.board()
    report = analyse(board, "dev", "orks", ShotContext(samples=200, floor=floor))
    assert report.eligible, report.reason
    out = resolve_shooting(board, report, ScriptedRoller(dice, seed=3), floor=floor)
    step = next(s for s in out.steps if "blast" in s)
    return board, out, step


def test_floors_with_flooring_under_a_point():
    board = ruin_table().board()
    assert floors_at(board, (30.0, 30.0)) == [0, 1, 2]
    assert floors_at(board, (10.0, 10.0)) is None  # open ground


def test_blast_declared_at_floor_1_hits_only_floor_1():
    board, out, step = blast(ruin_table(), [1], floor=1)  # scatter die: hit
    assert sorted(step["under"]) == sorted(FLOOR_1) and step["floor"] == 1
    assert step["rule"] == "wh40k6 §6.3" and out.hits == 3
    assert set(out.casualties) <= set(FLOOR_1)
    wounded = {s["model"] for s in out.steps if "model" in s}
    assert wounded and wounded <= set(FLOOR_1)  # wounds only to floor-1 models
    assert all(board.model(m).alive for m in GROUND)


def test_blast_defaults_to_the_aimed_models_floor():
    board, out, step = blast(ruin_table(), [1])
    assert step["declared"] == 0 and sorted(step["under"]) == sorted(GROUND)
    assert out.hits == 2 and set(out.casualties) <= set(GROUND)


def test_blast_over_a_spot_without_that_floor_hits_the_highest_level_there():
    t = Table()
    walls = trimesh.creation.box([8.0, 0.3, 8.0])
    walls.apply_translation([30, 34, 4])
    ground = trimesh.creation.box([8.0, 8.0, 0.02])
    ground.apply_translation([30, 30, 0.01])
    half = trimesh.creation.box([8.0, 4.0, 0.2])  # floor 1 over the north half only
    half.apply_translation([30, 32, 2.9])
    geometry = TerrainGeometry(trimesh.util.concatenate([walls, half]),
                               stand=trimesh.util.concatenate([ground, half]),
                               floors=(0.0, 3.0), footprint=rectangle((30, 30), 8, 8))
    t._add("ruin", "ruin", geometry, {"at": [30, 30], "size": [8, 8], "floors": [3.0]})
    t.model("orks-1", "orks", 2, (30.0, 29.0), "ork-boy")
    t.model("orks-2", "orks", 2, (30.0, 30.6), "ork-boy", floor=1)
    t.model("orks-3", "orks", 2, (33.0, 32.5), "ork-boy", floor=1)
    t.model("dev", "dev", 1, (30.0, 16.0), "devastator-marine",
            weapons=["missile launcher (frag)"])
    board = t.board()
    assert floors_at(board, (30.0, 29.0)) == [0] and floors_at(board, (30.0, 32.0)) == [0, 1]
    report = analyse(board, "dev", "orks", ShotContext(samples=200, floor=1))
    out = resolve_shooting(board, report, ScriptedRoller([1], seed=2), floor=1)
    step = next(s for s in out.steps if "blast" in s)
    assert step["floors_there"] == [0] and step["declared"] == 1
    assert step["under"] == ["orks-2"] and step["floor"] == 1  # not the ground model below
    assert board.model("orks-1").alive


def test_blast_outside_the_ruin_resolves_normally():
    t = Table()
    t.ruin("ruin", (30, 40), (8, 8), floors=(3.0,))
    t.squad("orks", 2, "ork-boy", [(29.4, 24.0), (30.7, 24.0)])
    t.model("dev", "dev", 1, (30.0, 14.0), "devastator-marine",
            weapons=["missile launcher (frag)"])
    board = t.board()
    report = analyse(board, "dev", "orks", ShotContext(samples=100, floor=1))
    out = resolve_shooting(board, report, ScriptedRoller([1], seed=2), floor=1)
    step = next(s for s in out.steps if "blast" in s)
    assert "floor" not in step and len(step["under"]) == 2 and out.hits == 2


def test_barrage_hits_the_highest_floor_under_the_hole():
    t = ruin_table("whirlwind vengeance", upper=True, firer_at=(30.0, 12.0))
    board = t.board()
    report = analyse(board, "dev", "orks", ShotContext(samples=200))
    line = next(ln for ln in report.firing)
    line.closest = "orks-5"  # aim the hole at (30.15, 29.1), where floors 0, 1 and 2 stand
    out = resolve_shooting(board, report, ScriptedRoller([1], seed=4))
    step = next(s for s in out.steps if "blast" in s)
    assert step["declared"] == 2 and step["under"] == ["orks-6"]


def test_template_by_floor_through_the_game():
    def game_with(floor: int | None) -> tuple[Game, object]:
        t = ruin_table("flamer", firer_at=(30.0, 24.5), upper=True)
        game = t.game(seed=5)
        while game.phase.name != "shooting":
            game.apply({"do": "next"})
        action = {"do": "shoot", "unit": "dev", "target": "orks"}
        if floor is not None:
            action["floor"] = floor
        return game, game.apply(action)

    game, result = game_with(2)  # from the ground: floor 2 is out of reach
    assert not result.ok and "one above or below" in result.reason
    assert result.rule == "wh40k6 §6.3"
    game, result = game_with(1)
    assert result.ok, result.reason
    shot = next(e for e in result.events if e.kind == "shoot").data["outcome"]
    assert 0 < shot["hits"] <= 3
    hit = {s["model"] for s in shot["steps"] if "model" in s}
    assert hit and hit <= set(FLOOR_1)
    game, result = game_with(None)  # the aimed (closest) model's floor: the ground
    shot = next(e for e in result.events if e.kind == "shoot").data["outcome"]
    assert 1 <= shot["hits"] <= 2
    assert {s["model"] for s in shot["steps"] if "model" in s} <= set(GROUND)
    assert np.isfinite(game.board.gap("dev", "orks-3"))
