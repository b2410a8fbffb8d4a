"""The digest's wall diagrams come out of the geometry (wmh2 §5.5, T12-T14): walls of four
heights between a viewer and targets of each base size, decided by casting lines between the
standard volumes against the wall mesh, never by a table of thresholds.

Diagram (target right behind the wall, both on the ground): a wall under 1.75" blocks nothing;
1.75-2.25" hides small bases; 2.25-2.75" hides small and medium; over 2.75" hides all.
"""

from __future__ import annotations

import pytest
from battlesight.rulesets.wmh2.bodies import bodies
from battlesight.rulesets.wmh2.rules import base_radius
from battlesight.rulesets.wmh2.sight import line_of_sight

from tests.tables import Wmh2Table

OX, OY = 10.0, 24.0
THIN = 0.02  # a thin wall, as in the diagrams
BEHIND = 0.1  # gap between the wall and the target's base

#: wall height -> base sizes it hides (the diagram of wmh2 §5.5)
DIAGRAM = {1.5: set(), 2.0: {30}, 2.5: {30, 40}, 3.0: {30, 40, 50}}


def sees(viewer: int, target: int, wall_height: float, wall_x: float = 9.0,
         target_x: float | None = None, thickness: float = THIN):
    if target_x is None:
        target_x = wall_x + thickness / 2 + BEHIND + base_radius(target)
    sb = (Wmh2Table().model("A", (OX, OY), viewer).model("B", (OX + target_x, OY), target)
          .wall("wall", (OX + wall_x, OY - 5), (OX + wall_x, OY + 5), wall_height,
                thickness=thickness))
    world = sb.world()
    return line_of_sight(world, bodies(world), "A", "B")


@pytest.mark.parametrize("height", sorted(DIAGRAM))
@pytest.mark.parametrize("target", [30, 40, 50])
def test_four_walls_large_viewer(height, target):
    s = sees(50, target, height)
    hidden = target in DIAGRAM[height]
    assert s.visible is not hidden
    if hidden:
        assert s.blocked_by == {"wall": s.lines}  # every line, and only the wall
    else:
        p, q = s.line
        t = (OX + 9.0 - p[0]) / (q[0] - p[0])
        assert p[2] + t * (q[2] - p[2]) > height  # the proving line passes over the wall


@pytest.mark.parametrize("viewer", [30, 40])
@pytest.mark.parametrize("height", sorted(DIAGRAM))
def test_four_walls_other_viewers(viewer, height):
    for target in (30, 40, 50):
        assert sees(viewer, target, height).visible is (target not in DIAGRAM[height])


def test_t12_low_wall_blocks_nothing():
    assert sees(30, 30, 1.5, target_x=10.0, thickness=0.1).visible


@pytest.mark.parametrize("height,expected", [
    (2.0, {30: False, 40: True, 50: True}),
    (2.5, {30: False, 40: False, 50: True}),
    (3.0, {30: False, 40: False, 50: False}),
])
def test_t13_wall_heights_target_behind_the_wall(height, expected):
    for target, visible in expected.items():
        assert sees(30, target, height, target_x=10.0).visible is visible


def test_t14_thresholds_are_not_absolute():
    assert not sees(50, 30, 2.0, wall_x=9.0, target_x=10.0).visible  # max z ~1.8-1.9
    assert sees(50, 30, 2.0, wall_x=5.0, target_x=10.0).visible  # max z ~2.3
    assert not sees(40, 30, 2.0, wall_x=9.0, target_x=10.0).visible
