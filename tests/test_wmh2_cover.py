"""MK II defence bonuses (wmh2 §6): T28 cover, T29 elevated targets, forest and cloud
concealment, the non-stacking default, melee behind obstacles, terrain defaults per type, and
the share seen reported as information beside the all-or-nothing rule."""

from __future__ import annotations

from battlesight.rulesets.wmh2.bodies import bodies
from battlesight.rulesets.wmh2.cover import defence
from battlesight.rulesets.wmh2.sight import Cloud
from battlesight.rulesets.wmh2.terrain import piece_rules

from tests.tables import Wmh2Table

OX, OY = 10.0, 20.0


def at(x: float, y: float = 0.0) -> tuple[float, float]:
    return (OX + x, OY + y)


def bonus(sb: Wmh2Table, kind: str = "ranged", a: str = "A", b: str = "B", **kw):
    world = sb.world()
    bd = bodies(world)
    return defence(world, bd[a], bd[b], kind, **kw)


def walled(sb: Wmh2Table, height: float = 1.5, **data) -> Wmh2Table:
    return sb.wall("wall", at(9, -5), at(9, 5), height, thickness=0.1, **{"cover": "cover",
                                                                          **data})


# ---- T28 ---------------------------------------------------------------------------------------


def test_t28_cover_within_one_inch_of_an_obscuring_wall():
    d = bonus(walled(Wmh2Table().model("A", at(0)).model("B", at(10), player=2)))
    assert d.total == 4 and d.parts[0]["kind"] == "cover" and d.parts[0]["source"] == "wall"
    assert d.parts[0]["rule"] == "wmh2 §6"
    assert 0 < d.obscured["wall"] < 1  # partial: the bonus is all-or-nothing anyway


def test_t28_too_far_from_the_wall():
    d = bonus(walled(Wmh2Table().model("A", at(0)).model("B", at(12), player=2)))
    assert d.total == 0


def test_t28_attacker_to_the_side_sees_no_wall_in_the_way():
    d = bonus(walled(Wmh2Table().model("A", at(9.5, 8), facing=180).model("B", at(10),
                                                                       player=2)))
    assert d.total == 0 and d.obscured["wall"] == 0


def test_t28_melee_behind_an_obstacle_is_plus_two():
    d = bonus(walled(Wmh2Table().model("A", at(0)).model("B", at(10), player=2)), "melee")
    assert d.total == 2 and d.parts[0]["kind"] == "obstacle"


# ---- T29 ---------------------------------------------------------------------------------------


def _hill(height: float) -> Wmh2Table:
    return Wmh2Table().hill("hill", at(10), (6, 6), height).model("A", at(0)) \
        .model("B", at(10), player=2)


def test_t29_elevated_target():
    assert bonus(_hill(1.0)).total == 2
    assert bonus(_hill(0.5)).total == 0
    both = bonus(walled(Wmh2Table().hill("hill", at(10.5), (4, 6), 1.0)).model("A", at(0))
                 .model("B", at(10), player=2))
    assert both.total == 6 and {p["kind"] for p in both.parts} == {"cover", "elevated"}
    assert bonus(_hill(1.0), "melee").total == 0  # only against ranged and magic


# ---- concealment, stacking, clouds -------------------------------------------------------------


FOREST = [at(8, -3), at(14, -3), at(14, 3), at(8, 3)]


def test_forest_gives_concealment_to_models_inside():
    d = bonus(Wmh2Table().forest("wood", FOREST).model("A", at(0)).model("B", at(9.5), player=2))
    assert d.total == 2 and d.parts[0]["kind"] == "concealment"
    outside = bonus(Wmh2Table().forest("wood", FOREST).model("A", at(0))
                    .model("B", at(7.3), player=2))
    assert outside.total == 0


def test_cover_and_concealment_do_not_stack_by_default():
    sb = walled(Wmh2Table().forest("wood", FOREST).model("A", at(0)).model("B", at(9.7),
                                                                          player=2))
    d = bonus(sb)
    assert d.total == 4 and "does not add" in d.notes[0]
    assert bonus(sb, stack=True).total == 6


def test_cloud_gives_concealment_inside():
    sb = Wmh2Table().model("A", at(0)).model("B", at(10), player=2)
    assert bonus(sb, clouds=[Cloud("smoke", at(10), 1.5)]).total == 2


def test_camouflage_adds_two_unless_eyeless_sight():
    sb = walled(Wmh2Table().model("A", at(0)).model("B", at(10), player=2))
    assert bonus(sb, camouflage=True).total == 6
    eyeless = walled(Wmh2Table().model("A", at(0), keywords=["Eyeless Sight"])
                     .model("B", at(10), player=2))
    assert bonus(eyeless, camouflage=True).total == 4


# ---- terrain data -----------------------------------------------------------------------------


def test_terrain_defaults_and_scene_keys():
    sb = (Wmh2Table().wall("low", at(0, 5), at(4, 5), 0.9).wall("tall", at(0, 8), at(4, 8), 2.5)
          .hill("hill", at(10), (4, 4), 1.0).forest("wood", FOREST)
          .wall("hedge", at(0, 12), at(4, 12), 1.2, cover="concealment", obstacle=True)
          .box("house", at(20), (3, 3, 4)))
    world = sb.world()
    low, tall = piece_rules(world, "low"), piece_rules(world, "tall")
    assert (low.cover, low.obstacle, low.obstruction) == ("cover", True, False)
    assert (tall.obstacle, tall.obstruction) == (False, True)
    hill, wood = piece_rules(world, "hill"), piece_rules(world, "wood")
    assert hill.cover is None and hill.elevation
    assert wood.forest and wood.rough and wood.cover == "concealment"
    hedge = piece_rules(world, "hedge")
    assert hedge.cover == "concealment" and hedge.obstacle
    assert piece_rules(world, "house").obstruction


# ---- the share seen is information -------------------------------------------------------------


def _judge(sb: Wmh2Table, observer: str, target: str):
    board = sb.board()
    return board.ruleset.judge(board, [(observer, target)])[0]


def test_verdict_keys_shares_and_cover():
    out = _judge(walled(Wmh2Table().model("A", at(0)).model("B", at(10), player=2)), "A", "B")
    assert out.visible is True and out.rule == "wmh2 §5.2"
    assert len(out.details["line"]) == 2 and len(out.details["line"][0]) == 3
    assert 0.0 < out.seen_share < 1.0  # the share of tested lines that pass the wall
    assert out.details["def_bonus"] == 4 and out.cover.value == 4
    assert out.cover.in_cover and out.cover.effect == "def"
    assert [(m.name, m.value, m.text) for m in out.modifiers] == [("cover (wall)", 4, "+4 DEF")]
    blocked = _judge(Wmh2Table().model("A", at(0)).model("C", at(5), 50)
                     .model("B", at(10), player=2), "A", "B")
    assert blocked.visible is False and blocked.details["line"] is None
    assert blocked.details["blocked_by"][0] == {"id": "C", "kind": "model", "share": 1.0}
    assert blocked.seen_share == 0.0 and blocked.cover is None and not blocked.modifiers
