"""Drawn while models move: the drag's path coloured by the ruleset's verdict with its
summary, and the range rings of the selected unit (each weapon's range and its move, measured
from the base edge). Geometry only (tubes), so the software renderer draws them too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from panda3d.core import NodePath

from . import geom, palette
from .overlays import LINE_RADIUS, _unlit
from .stage import ScreenLabel

RING_LIFT = 0.06  # inches over the base: rings stay over the table


@dataclass(frozen=True)
class RangeRing:
    """A circle of `radius` inches around a plan point at height z, and what it measures."""

    centre: tuple[float, float, float]
    radius: float
    text: str
    colour: palette.Colour


def _on_top(node: NodePath) -> None:
    node.set_bin("fixed", 40)
    node.set_depth_test(False)
    node.set_depth_write(False)


def draw_drag_path(parent: NodePath, path) -> list[ScreenLabel]:
    """Each mover's straight path (legal: cyan, refused: red-orange) and, at the lead
    mover's end, the move so far and what is left, or the rule that refuses it."""
    ok = path.check.ok
    colour = palette.MOVE_LEGAL if ok else palette.MOVE_ILLEGAL
    lift = np.array([0.0, 0.0, RING_LIFT])
    node = _unlit(parent, "drag-path", geom.tubes_soup(path.starts + lift, path.ends + lift,
                                                        LINE_RADIUS), colour)
    _on_top(node)
    ends = _unlit(parent, "drag-ends", geom.markers_soup(path.ends + lift, 0.2), colour)
    _on_top(ends)
    return [ScreenLabel(path.ends[0] + np.array([0.0, 0.0, 1.0]), path.check.summary(), colour,
                        kind="ruler")]


def draw_range_rings(parent: NodePath, rings: list[RangeRing], n: int = 96
                     ) -> list[ScreenLabel]:
    """The rings as thin tubes, each labelled on its +x side."""
    labels = []
    t = np.linspace(0.0, 2 * np.pi, n + 1)
    for i, ring in enumerate(rings):
        cx, cy, cz = ring.centre
        pts = np.column_stack([cx + ring.radius * np.cos(t), cy + ring.radius * np.sin(t),
                               np.full(n + 1, cz + RING_LIFT)])
        node = _unlit(parent, f"range-ring-{i}", geom.tubes_soup(pts[:-1], pts[1:],
                                                                 LINE_RADIUS * 0.5), ring.colour)
        _on_top(node)
        labels.append(ScreenLabel(np.array([cx + ring.radius, cy, cz + RING_LIFT]), ring.text,
                                  ring.colour, kind="ruler"))
    return labels
