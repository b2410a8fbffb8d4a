"""aos2 cover, obstacles, garrisons and scenery on small tables (aos2 §5, §6; A-01, A-02,
A-04, A-05, A-07, A-08, A-27, A-29, A-30, A-33)."""

from __future__ import annotations

from fractions import Fraction

from battlesight.rulesets.aos2 import attacks, cover

from tests.test_whfb6_scenes import board, game, loose, scene

RUIN = {"id": "ruin", "type": "ruin", "at": [20, 20], "size": [12, 8], "height": 5,
        "walls": ["north"], "windows": True}
ROWS = [(x, y) for y in (18.0, 21.0) for x in (16.0, 18.0, 20.0, 22.0, 24.0)]


def _ten(points=ROWS, **kw):
    models = loose("u", 2, "archer", points, **kw)
    models += loose("s", 1, "archer", [(20, 4)])
    return board(scene("aos2", [RUIN], models=models))


def test_a01_every_model_wholly_within_a_ruin():
    b = _ten()
    c = cover.terrain_cover(b, "u")
    assert c.in_cover and c.value == 1 and c.source == "ruin"
    line = attacks.analyse(b, "s", "u").firers[0]
    assert line.need_save == 4  # save 5+ with +1


def test_a02_one_model_overhanging():
    pts = list(ROWS)
    pts[4] = (26 - 0.63 + 0.2, 21.0)  # overhangs the ruin edge by 0.2"
    assert not cover.terrain_cover(_ten(pts), "u").in_cover


def test_a04_no_cover_in_the_combat_after_charging():
    b = _ten()
    assert not cover.terrain_cover(b, "u", combat_after_charge=True).in_cover
    assert cover.terrain_cover(b, "u").in_cover  # the charged unit, or shot next turn


def test_a05_big_monster_never_gets_cover():
    b = _ten(stats={"move": 6, "wounds": 12, "bravery": 7, "save": 4}, keywords=["monster"])
    assert not cover.terrain_cover(b, "u").in_cover
    b = _ten(stats={"move": 6, "wounds": 8, "bravery": 7, "save": 4}, keywords=["monster"])
    assert cover.terrain_cover(b, "u").in_cover  # W 8: the seed's "more than 8"


WALL = {"id": "wall", "type": "wall", "from": [10, 20], "to": [30, 20], "height": 1,
        "thickness": 0.5, "obstacle": True}
BEHIND = [(x, 21.38) for x in (16, 18, 20, 22, 24)]


def _obstacle(targets, shooter):
    models = loose("u", 2, "archer", targets) + loose("s", 1, "archer", [shooter])
    return board(scene("aos2", [WALL], models=models))


def test_a07_obstacle_cover():
    b = _obstacle(BEHIND, (20, 9.12))
    c = cover.obstacle_cover(b, "s-1", "u")
    assert c.in_cover and c.source == "wall"
    assert not cover.save_bonus(b, "s-1", "u", missile=False).in_cover  # melee: never


def test_a07_one_model_too_far_from_the_obstacle():
    pts = list(BEHIND)
    pts[0] = (16, 22.38)
    assert not cover.obstacle_cover(_obstacle(pts, (20, 9.12)), "s-1", "u").in_cover


def test_a07_obstacle_behind_the_target():
    b = _obstacle(BEHIND, (20, 34.64))
    assert not cover.obstacle_cover(b, "s-1", "u").in_cover


def test_a30_cover_is_one_plus_one():
    b = _obstacle(BEHIND, (20, 9.12))
    assert cover.save_bonus(b, "s-1", "u", missile=True).value == 1


BUILDING = {"id": "keep", "type": "box", "at": [40, 30], "size": [6, 6, 4], "garrison": True}


def test_a08_garrison_defence():
    models = loose("g", 2, "archer", [(39, 30), (41, 30)])
    models += loose("s", 1, "archer", [(40, 27 - 17.5 - 0.63)])
    b = board(scene("aos2", [BUILDING], models=models))
    ctx = attacks.Context(garrisons={"g": "keep"})
    line = attacks.analyse(b, "s", "g", ctx).firers[0]
    assert line.can_fire and abs(line.distance - 17.5) < 1e-3  # measured to the feature
    assert line.need_hit == 4 and line.need_save == 4  # bow 3+ -1; save 5+ in cover
    assert line.cover.kind == "garrison"


def test_a27_mystic_shield_rerolls_ones_with_cover():
    b = _ten()
    plain = attacks.analyse(b, "s", "u").firers[0]
    shield = attacks.analyse(b, "s", "u", attacks.Context(mystic_shield=True)).firers[0]
    p_save = 1 - plain.p_save_fail
    assert 1 - shield.p_save_fail == p_save + Fraction(1, 6) * p_save


def test_a29_scenery_within_one_inch():
    arcane = {"id": "altar", "type": "box", "at": [10, 10], "size": [2, 2, 1],
              "scenery": "arcane"}
    inspiring = {"id": "statue", "type": "box", "at": [30, 10], "size": [2, 2, 1],
                 "scenery": "inspiring"}
    models = loose("w", 1, "archer", [(10, 11 + 0.8 + 0.63)])
    models += loose("i", 1, "archer", [(30, 11 + 1.1 + 0.63)])
    b = board(scene("aos2", [arcane, inspiring], models=models))
    assert cover.scenery_near(b, "w-1", "arcane") == "altar"
    assert cover.bravery_modifier(b, "i") == 0


def test_a29_mystical_negates_on_six_and_a33_terrain_is_no_target():
    mystical = {"id": "pool", "type": "box", "at": [10, 10], "size": [2, 2, 1],
                "scenery": "mystical"}
    models = loose("m", 2, "archer", [(10, 11 + 0.5 + 0.63)])
    models += loose("s", 1, "archer", [(10, 25)])
    g = game(scene("aos2", [mystical], models=models), seed=4)
    from battlesight.rulesets.aos2 import turn

    turn.allocate(g, "m", 1, "test")
    rolls = [r for e in g.log for r in e.rolls if "Mystical" in r["why"]]
    assert rolls and (g.board.model("m-1").alive == (rolls[0]["dice"][0] >= 6))
    g.play([{"do": "next"}] * 2)
    while g.phase.name != "shooting":
        g.apply({"do": "next"})
    r = g.apply({"do": "shoot", "unit": "s", "target": "pool", "player": g.active_player})
    assert not r.ok
