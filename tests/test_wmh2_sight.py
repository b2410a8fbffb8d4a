"""WARMACHINE MK II line of sight: the digest's test scenarios T1-T11, T15, T30 (wmh2 §14),
plus clouds, knocked-down and Incorporeal models, and the line that proves sight.

Conventions of the digest: models face +x, inches, ground z = 0. The digest places A at the
origin; here every layout is shifted by (10, 10) so it sits on the table.
"""

from __future__ import annotations

import numpy as np
import pytest
from battlesight.rulesets.wmh2.bodies import bodies
from battlesight.rulesets.wmh2.rules import base_radius
from battlesight.rulesets.wmh2.sight import Cloud, exemption, line_of_sight

from tests.tables import Wmh2Table

OX, OY = 10.0, 10.0
MEDIUM_R = base_radius(40)


def at(x: float, y: float = 0.0) -> tuple[float, float]:
    return (OX + x, OY + y)


def sees(sb: Wmh2Table, a: str = "A", b: str = "B", **kw):
    world = sb.world()
    return line_of_sight(world, bodies(world), a, b, **kw)


def plateau(sb: Wmh2Table, height: float, front_edge: float = MEDIUM_R) -> Wmh2Table:
    """A block whose top is `height`, ending at x = front_edge (the viewer's front edge)."""
    return sb.box("plateau", at(front_edge - 5.0), (10.0, 10.0, height))


# ---- T1 volumes ------------------------------------------------------------------------------


def test_t1_volumes_are_standard_cylinders_whatever_the_sculpt():
    sb = (Wmh2Table().hill("hill", at(20), (8, 8), 1.0)
          .model("small", at(0)).model("medium", at(20), 40).model("large", at(0, 6), 50))
    sb.scene.models[0].height = 3.0  # a tall sculpt: ignored
    world = sb.world()
    bd = bodies(world)
    small, medium, large = bd["small"], bd["medium"], bd["large"]
    assert small.radius == pytest.approx(0.5906, abs=1e-4)
    assert (small.z, small.top) == pytest.approx((0.0, 1.75))
    assert (medium.z, medium.top) == pytest.approx((1.0, 3.25), abs=2e-3)
    assert large.height == pytest.approx(2.75)
    assert world.models["small"].mesh.bounds[1][2] == pytest.approx(1.75)


# ---- T2 front arc ------------------------------------------------------------------------------


def test_t2_front_arc():
    assert not sees(Wmh2Table().model("A", at(0)).model("B", at(-5))).visible
    assert sees(Wmh2Table().model("A", at(0), facing=90).model("B", at(-5))).visible
    assert sees(Wmh2Table().model("A", at(0), keywords=["360"]).model("B", at(-5))).visible
    blind = sees(Wmh2Table().model("A", at(0)).model("B", at(-5)))
    assert blind.rule == "wmh2 §4" and not blind.in_arc


# ---- T3-T6 intervening models ----------------------------------------------------------------


def test_t3_equal_size_friendly_model_blocks():
    sb = Wmh2Table().model("A", at(0)).model("C", at(5), 40, unit="other").model("B", at(10), 40,
                                                                              player=2)
    s = sees(sb)
    assert not s.visible
    assert s.blocked_by == {"C": s.lines}
    assert s.rule == "wmh2 §5.1"


def test_t4_smaller_intervening_model_does_not_block():
    s = sees(Wmh2Table().model("A", at(0)).model("C", at(5), 40).model("B", at(10), 50))
    assert s.visible
    assert "C" in s.ignored and "smaller" in s.ignored["C"]


def test_t5_partial_screening_still_allows_sight():
    s = sees(Wmh2Table().model("A", at(0)).model("C", at(5), 40).model("B", at(10, 1.2)))
    assert s.visible
    p, q = s.line
    # the proving line clears C's base in plan
    d = q[:2] - p[:2]
    t = np.clip((np.array(at(5)) - p[:2]) @ d / (d @ d), 0, 1)
    assert np.linalg.norm(p[:2] + t * d - np.array(at(5))) >= MEDIUM_R - 1e-6


def test_t6_large_model_screens_a_small_target():
    s = sees(Wmh2Table().model("A", at(0), 40).model("C", at(8.5), 50).model("B", at(10.5)))
    assert not s.visible


# ---- T7-T11 elevation ------------------------------------------------------------------------


def test_t7_elevated_viewer_ignores_low_distant_models():
    sb = plateau(Wmh2Table(), 1.0).model("A", at(0), 40).model("C", at(5), 50).model("B", at(10))
    s = sees(sb)
    assert s.visible
    assert "not within 1\"" in s.ignored["C"]


def test_t8_elevated_viewer_blocked_by_larger_model_near_target():
    sb = plateau(Wmh2Table(), 1.0).model("A", at(0), 40).model("C", at(8.5), 50) \
        .model("B", at(10.5))
    assert not sees(sb).visible


@pytest.mark.parametrize("c_base", [40, 30])
def test_t9_elevated_viewer_ignores_no_larger_model_near_target(c_base):
    sb = plateau(Wmh2Table(), 1.0).model("A", at(0), 40).model("C", at(8.5), c_base) \
        .model("B", at(10.5))
    s = sees(sb)
    assert s.visible and "C" in s.ignored


def test_t9_on_the_ground_no_exemption():
    assert not sees(Wmh2Table().model("A", at(0), 40).model("C", at(8.5), 40)
                    .model("B", at(10.5))).visible


def test_t10_half_inch_is_no_elevation():
    sb = plateau(Wmh2Table(), 0.5).model("A", at(0), 40).model("C", at(8.5), 50) \
        .model("B", at(10.5))
    s = sees(sb)
    assert not s.visible and not s.ignored


def test_t11_line_of_sight_is_not_symmetric():
    sb = (plateau(Wmh2Table(), 1.0).model("Bp", at(0), 40).model("C", at(8.5), 50)
          .model("Ap", at(10.5), facing=90))
    world = sb.world()
    bd = bodies(world)
    up = line_of_sight(world, bd, "Ap", "Bp")
    down = line_of_sight(world, bd, "Bp", "Ap")
    assert up.visible and "lower than the target" in up.ignored["C"]
    assert not down.visible


def test_elevation_exemption_rules_directly():
    sb = (plateau(Wmh2Table(), 1.0).model("A", at(0), 40).model("M", at(8.5), 50)
          .model("B", at(10.5)))
    bd = bodies(sb.world())
    assert exemption(bd["A"], bd["B"], bd["M"]) is None  # larger than A and within 1" of B
    assert "lower than the target" in exemption(bd["B"], bd["A"], bd["M"])  # T11's direction


# ---- T15 Stealth, Incorporeal, knocked down --------------------------------------------------


def test_t15_stealth_intervening_model():
    near = Wmh2Table().model("A", at(0)).model("C", at(6), 40, keywords=["Stealth"]) \
        .model("B", at(10))
    far = Wmh2Table().model("A", at(0)).model("C", at(7.5), 40, keywords=["Stealth"]) \
        .model("B", at(10))
    assert not sees(near).visible  # 4.622" from A: still intervening
    s = sees(far)
    assert s.visible and "Stealth" in s.ignored["C"]  # 6.122" > 5"


def test_incorporeal_is_never_intervening():
    sb = Wmh2Table().model("A", at(0)).model("C", at(5), 50, keywords=["Incorporeal"]) \
        .model("B", at(10))
    s = sees(sb)
    assert s.visible and "Incorporeal" in s.ignored["C"]


def test_knocked_down_model_does_not_block():
    sb = Wmh2Table().model("A", at(0)).model("C", at(5), 50).model("B", at(10))
    board = sb.board()
    assert not line_of_sight(board.world, bodies(board), "A", "B").visible
    board.model("C").status["knocked_down"] = True
    s = line_of_sight(board.world, bodies(board), "A", "B")
    assert s.visible and "knocked down" in s.ignored["C"]


# ---- T30 forests, clouds -------------------------------------------------------------------


FOREST = [at(5, -10), at(25, -10), at(25, 10), at(5, 10)]


def test_t30_forest_three_inches_in_or_out_never_through():
    assert sees(Wmh2Table().forest("f", FOREST).model("A", at(0)).model("B", at(7))).visible
    deep = sees(Wmh2Table().forest("f", FOREST).model("A", at(0)).model("B", at(9)))
    assert not deep.visible and deep.kinds == {"f": "forest"} and deep.rule == "wmh2 §5.6"
    # looking out of the forest works the same way
    assert sees(Wmh2Table().forest("f", FOREST).model("A", at(7), facing=90)
                .model("B", at(0))).visible
    thin = [at(5, -10), at(7, -10), at(7, 10), at(5, 10)]
    assert not sees(Wmh2Table().forest("f", thin).model("A", at(0)).model("B", at(12))).visible


def test_t30_eyeless_sight_ignores_forests():
    thin = [at(5, -10), at(7, -10), at(7, 10), at(5, 10)]
    for b in (7, 9, 12):
        forest = FOREST if b < 12 else thin
        sb = Wmh2Table().forest("f", forest).model("A", at(0), keywords=["Eyeless Sight"]) \
            .model("B", at(b))
        assert sees(sb).visible


def test_clouds_block_through_not_into():
    base = Wmh2Table().model("A", at(0)).model("B", at(10))
    cloud = Cloud("smoke", at(5), 1.5)
    s = sees(base, clouds=[cloud])
    assert not s.visible and s.kinds == {"smoke": "cloud"}
    assert sees(base, clouds=[Cloud("smoke", at(10), 1.5)]).visible  # B inside: seen into
    assert sees(base, clouds=[Cloud("smoke", at(5, 6), 1.5)]).visible  # off to the side


def test_proving_line_runs_from_front_half_of_a_to_b():
    s = sees(Wmh2Table().model("A", at(0)).model("B", at(10, 3)))
    p, q = s.line
    assert p[0] >= OX - 1e-6  # A faces +x: the line starts in its front half
    assert np.hypot(*(q[:2] - np.array(at(10, 3)))) <= base_radius(30) + 1e-6
    assert 0.0 <= q[2] <= 1.75 and 0.0 <= p[2] <= 1.75
    assert s.to_dict()["line"] is not None and s.to_dict()["visible_by_rule"]


def test_terrain_index_does_not_keep_its_world_alive():
    """The index cache is keyed weakly by the world; an index holding the world strongly kept
    every world (and its Embree scenes) alive, and a long session ran out of Embree devices."""
    import gc
    import weakref

    from battlesight.rulesets.wmh2.terrain import terrain_index

    world = plateau(Wmh2Table(), 2.0).world()
    assert terrain_index(world).world is world
    gone = weakref.ref(world)
    del world
    gc.collect()
    assert gone() is None
