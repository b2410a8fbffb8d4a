"""wh40k6 cover from ray-cast geometry: digest scenarios S05-S11, S14, S18, S25."""

from __future__ import annotations

import math

import numpy as np
import pytest
from battlesight.rulesets.core.measure import Outline
from battlesight.rulesets.wh40k6.cover import FirerView, barrage_cover, decide
from battlesight.rulesets.wh40k6.profile import parse_weapon
from battlesight.rulesets.wh40k6.shooting import ShotContext, analyse, model_save
from battlesight.rulesets.wh40k6.special import coherent, engaged
from battlesight.rulesets.wh40k6.vehicles import (
    FacingView,
    max_penetration,
    shot_facing,
    vehicle_cover,
    weapon_can_bear,
)

from tests.rules_helpers import Table

CTX = ShotContext(samples=400)


def ring(target, radius, angles):
    tx, ty = target
    return [(tx - radius * math.cos(math.radians(a)), ty + radius * math.sin(math.radians(a)))
            for a in angles]


def target_line(report, model):
    return next(t for t in report.targets if t.model == model)


def wall_table(height: float) -> Table:
    """Five firers on an 18" arc; a low wall 3" in front of the target on firer 1's line."""
    target = (40.0, 24.0)
    firers = ring(target, 18.0 + 2 * 0.63, [-40, -20, 0, 20, 40])
    t = Table()
    t.squad("dev", 1, "devastator-marine", firers, weapons=["lascannon", "boltgun"])
    t.model("sm", "tgt", 2, target, "tactical-marine")
    d = np.subtract(target, firers[0]) / np.linalg.norm(np.subtract(target, firers[0]))
    mid = np.asarray(target) - d * 3.0
    n = np.array([-d[1], d[0]])
    t.wall("low-wall", mid - 0.6 * n, mid + 0.6 * n, height, thickness=0.2)
    return t


def test_s05_marine_behind_a_low_wall():
    board = wall_table(0.72).board()
    report = analyse(board, "dev", "tgt", ShotContext(weapon="lascannon", samples=600))
    vis = report.visibility
    hidden = [1 - vis[(f, "sm")].visible_fraction for f in board.unit_models("dev")]
    assert hidden[0] == pytest.approx(0.30, abs=0.06)
    assert max(hidden[1:]) < 0.05
    line = target_line(report, "sm")
    assert line.cover.in_cover and line.cover.value == 4 and line.cover.source == "low-wall"
    assert line.cover.rule == "wh40k6 §5.2"
    assert line.save.kind == "cover" and line.save.need == 4  # lascannon AP2
    bolt = analyse(board, "dev", "tgt", ShotContext(weapon="boltgun", samples=600))
    assert target_line(bolt, "sm").save.kind == "armour"  # boltgun AP5: 3+ armour is best


def test_s06_threshold_is_inclusive_and_blind_firers_count():
    board = wall_table(0.72).board()
    views = [FirerView("dev-1", True, 0.20, {"low-wall": 0.20})] + \
        [FirerView(f"dev-{i}", True, 0.0) for i in range(2, 6)]
    assert not decide(board, "sm", views).in_cover
    views[0] = FirerView("dev-1", True, 0.25, {"low-wall": 0.25})
    assert decide(board, "sm", views).value == 4
    blind = [FirerView("dev-1", True, 0.0), FirerView("dev-2", False, 1.0, {"low-wall": 1.0})]
    assert decide(board, "sm", blind).in_cover  # A2: literal, generous reading


def test_s07_area_terrain_crater():
    t = Table()
    t.crater("crater", (30, 24), (6, 6))
    t.model("gm", "guard", 2, (30, 24), "imperial-guardsman")
    t.model("gm2", "guard2", 2, (50, 24), "imperial-guardsman")
    t.model("rhino", "rhino", 2, (30, 30), "rhino", base=(120, 90), height=2.5, hull=True)
    t.squad("tac", 1, "tactical-marine", [(30, 10), (31.5, 10)])
    board = t.board()
    line = target_line(analyse(board, "tac", "guard", CTX), "gm")
    assert line.visible_fraction > 0.95
    assert (line.cover.value, line.cover.kind, line.cover.source) == (5, "area", "crater")
    assert line.cover.rule == "wh40k6 §5.4"
    gtg = analyse(board, "tac", "guard", ShotContext(gone_to_ground=True, samples=400))
    assert target_line(gtg, "gm").cover.value == 3  # +2 in area terrain
    open_ground = analyse(board, "tac", "guard2", ShotContext(gone_to_ground=True, samples=400))
    assert target_line(open_ground, "gm2").cover.value == 6
    t.squad("dev", 1, "devastator-marine", [(30, 40)], weapons=["lascannon"])
    board = t.board()
    rhino = target_line(analyse(board, "dev", "rhino", CTX), "rhino")
    assert not rhino.cover.in_cover  # area terrain never makes a vehicle obscured


def test_s08_intervening_models():
    t = Table()
    t.model("ork", "boyz", 2, (30, 24), "ork-boy")
    t.model("ork-2", "boyz", 2, (30, 22.6), "ork-boy")  # hides the ork from the firer...
    t.model("shooter", "tac", 1, (10, 22.0), "tactical-marine")
    t.model("gretchin", "grots", 2, (26, 23.3), "gretchin", height=1.2)
    board = t.board()
    line = target_line(analyse(board, "tac", "boyz", CTX), "ork")
    assert line.cover.value == 5 and line.cover.kind == "models"
    assert line.cover.source == "grots" and line.cover.rule == "wh40k6 §5.3"
    # ...but a model of the target's own unit neither hides nor gives cover (A4)
    vis = analyse(board, "tac", "boyz", CTX).visibility[("shooter", "ork")]
    assert "ork-2" not in vis.blockers


def test_s08_gaps_own_unit_and_fully_visible():
    t = Table()
    t.model("ork", "boyz", 2, (30, 24), "ork-boy")
    t.model("shooter", "tac", 1, (10, 24), "tactical-marine")
    t.model("g1", "grots", 2, (20, 22.2), "gretchin")
    t.model("g2", "grots", 2, (20, 25.8), "gretchin")  # sight passes between g1 and g2
    board = t.board()
    line = target_line(analyse(board, "tac", "boyz", CTX), "ork")
    assert line.visible_fraction > 0.95
    assert (line.cover.value, line.cover.kind, line.cover.source) == (5, "gaps", "grots")
    own = Table()
    own.model("ork", "boyz", 2, (30, 24), "ork-boy")
    own.model("shooter", "tac", 1, (10, 24), "tactical-marine")
    own.model("mate", "tac", 1, (28.5, 24), "tactical-marine", height=1.0)
    board = own.board()
    line = target_line(analyse(board, "tac", "boyz", CTX), "ork")
    assert not line.cover.in_cover and line.visible_fraction > 0.95


def test_s09_forests():
    t = Table()
    t.forest("wood", [[18, 20], [22, 20], [22, 28], [18, 28]], height=4)
    t.model("ork", "boyz", 2, (30, 24), "ork-boy")
    t.model("shooter", "tac", 1, (10, 24), "tactical-marine")
    board = t.board()
    line = target_line(analyse(board, "tac", "boyz", CTX), "ork")
    assert (line.cover.value, line.cover.kind, line.cover.source) == (5, "forest", "wood")
    inside = Table()
    inside.forest("wood", [[26, 20], [34, 20], [34, 28], [26, 28]], height=4)
    inside.forest("ironbark", [[40, 20], [48, 20], [48, 28], [40, 28]], height=4,
                  feature="ironbark forest")
    inside.model("ork", "boyz", 2, (30, 24), "ork-boy")
    inside.model("nob", "nobz", 2, (44, 24), "ork-nob")
    inside.model("shooter", "tac", 1, (30, 10), "tactical-marine")
    board = inside.board()
    assert target_line(analyse(board, "tac", "boyz", CTX), "ork").cover.value == 5
    assert target_line(analyse(board, "tac", "nobz", CTX), "nob").cover.value == 3
    both = Table()
    both.forest("wood", [[18, 20], [22, 20], [22, 28], [18, 28]], height=4)
    both.wall("wall", (27, 22), (27, 26), 0.8, thickness=0.2)
    both.model("ork", "boyz", 2, (30, 24), "ork-boy")
    both.model("shooter", "tac", 1, (10, 24), "tactical-marine")
    line = target_line(analyse(both.board(), "tac", "boyz", CTX), "ork")
    assert line.cover.value == 4  # the best of 5+ (forest) and 4+ (wall)


def test_s10_templates_ignore_cover():
    flamer = parse_weapon({"name": "heavy flamer", "range": "Template", "S": 5, "AP": 4,
                           "type": "Assault 1"})
    t = Table()
    t.model("gm", "guard", 2, (30, 24), "imperial-guardsman")
    guard = t.board().profile("gm")
    from battlesight.rulesets.core.ruling import Cover

    ruin = Cover(True, 4, kind="terrain", source="ruin")
    save = model_save(guard, flamer.ap, ruin, flamer)
    assert save.need is None  # no cover (template) and no armour (AP4 vs 5+)


def test_s11_barrage_cover_from_marker_centre():
    t = Table()
    t.wall("wall", (30, 20), (30, 28), 1.2, thickness=0.3)
    t.model("sm", "tgt", 2, (32, 24), "tactical-marine")
    t.crater("crater", (50, 24), (6, 6))
    t.model("sm2", "tgt2", 2, (50, 24), "tactical-marine")
    board = t.board()
    cover = barrage_cover(board, (33.5, 24), "sm")  # marker on the marines' side of the wall
    assert not cover.in_cover
    behind = barrage_cover(board, (26, 24), "sm")  # a marker beyond the wall
    assert behind.in_cover and behind.value == 4
    assert barrage_cover(board, (51, 30), "sm2").value == 5  # area terrain, any direction
    t.model("rhino", "rhino", 2, (40, 10), "rhino", base=(120, 90), height=2.5, hull=True)
    t.model("wh", "whirl", 1, (40, 40), "tactical-marine")
    assert shot_facing(t.board(), "rhino", "wh", barrage=True) == "side"


def test_s14_vehicle_obscured_by_majority():
    t = Table()
    t.ruin("ruin", (30, 30), (4, 4), floors=(3.0,))
    t.model("pred", "pred", 2, (30, 24), "predator", base=(130, 90), height=2.5, hull=True)
    board = t.board()
    lascannon = parse_weapon({"name": "l", "range": 48, "S": 9, "AP": 2, "type": "Heavy 1"})
    bolt = parse_weapon({"name": "b", "range": 24, "S": 4, "AP": 5, "type": "Rapid Fire"})
    assert max_penetration(lascannon, 9, 13) and not max_penetration(bolt, 4, 13)

    def views(hidden: int) -> list[FacingView]:
        return [FacingView(f"l{i}", "front", 0.4 if i < hidden else 0.0,
                           {"ruin": 0.4} if i < hidden else {}, True, None) for i in range(5)]

    assert vehicle_cover(board, "pred", views(3)).value == 4
    assert not vehicle_cover(board, "pred", views(2)).in_cover
    blind = [FacingView(f"l{i}", "front", 1.0, {"ruin": 1.0}, False, "side") for i in range(5)]
    cover = vehicle_cover(board, "pred", blind)
    assert cover.value == 3  # the side is shot, cover 4+ improved by 1


def test_s18_weapon_arcs():
    t = Table()
    t.model("pred", "pred", 1, (30, 24), "predator", base=(130, 90), height=2.5, hull=True)
    board = t.board()
    eye = board.eye("pred")
    hull = parse_weapon({"name": "l", "range": 48, "S": 9, "AP": 2, "type": "Heavy 1",
                         "mount": "hull"})
    turret = parse_weapon({"name": "t", "range": 48, "S": 9, "AP": 2, "type": "Heavy 1",
                           "mount": "turret"})
    sponson = parse_weapon({"name": "s", "range": 48, "S": 5, "AP": 4, "type": "Heavy 3",
                            "mount": "sponson", "arc": 90})

    def at(bearing, dist=10.0, up=0.0):
        a = math.radians(bearing)
        return np.array([eye[0] - math.sin(a) * dist, eye[1] + math.cos(a) * dist, eye[2] + up])

    assert weapon_can_bear(board, "pred", hull, at(20))
    assert not weapon_can_bear(board, "pred", hull, at(30))
    assert weapon_can_bear(board, "pred", turret, at(170))
    assert weapon_can_bear(board, "pred", sponson, at(-90), side="right")
    assert not weapon_can_bear(board, "pred", sponson, at(0), side="right")
    assert weapon_can_bear(board, "pred", turret, at(0, 10, 10 * math.tan(math.radians(40))))
    assert not weapon_can_bear(board, "pred", turret, at(0, 10, 10 * math.tan(math.radians(60))))


def test_s25_coherency_and_engagement_across_floors():
    a = Outline((0.0, 0.0), 0.0, 1.2, (0.5, 0.5))
    r = 0.5

    def upper(gap, z=3.0):
        return Outline((2 * r + gap, 0.0), z, 1.6, (r, r))

    assert coherent(a, upper(5.5)) and not coherent(a, upper(6.0))
    b = upper(0.0)
    c = Outline((b.center[0] + 2 * r + 2.5, 0.0), 3.0, 1.6, (r, r))
    assert engaged(a, b) and not engaged(c, b)
