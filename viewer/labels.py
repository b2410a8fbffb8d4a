"""Screen labels laid out: every box inside the frame, no two boxes overlapping.

Pure numpy (no Panda3D): anchors are pixels (x right, y down), boxes are (x0, y0, x1, y1)
pixels. `layout` places labels greedily in the order given (the first ones get the places
nearest their anchors): candidate positions ring the anchor at growing distances, each pushed
inside the frame; the first free one wins, preferring places that cover no other label's
anchor. A label placed away from its anchor gets a leader line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

PAD = 2.0  # pixels of clear space kept around each box
EDGE = 3.0  # pixels between a box and the frame's edge
#: ring distances (in label heights) of candidate places, and directions per ring
RINGS = (0.0, 1.0, 2.0, 3.5, 5.0, 7.0, 9.5, 12.5, 16.0, 20.0)
DIRECTIONS = 16


@dataclass
class Placed:
    """A label as laid out: its box, the baseline its text starts at, and whether it was
    moved far enough from its anchor to need a leader line."""

    index: int
    box: tuple[float, float, float, float]
    baseline: tuple[float, float]
    leader: bool


def _candidates(anchor: np.ndarray, w: float, h: float, gap: float) -> np.ndarray:
    """(k, 2) top-left corners to try, nearest first: the four corners by the anchor, above
    and below it, then rings of DIRECTIONS places at growing distances."""
    ax, ay = anchor
    near = [(ax + gap, ay - gap - h), (ax - gap - w, ay - gap - h), (ax + gap, ay + gap),
            (ax - gap - w, ay + gap), (ax - w / 2, ay - gap - h), (ax - w / 2, ay + gap),
            (ax + gap, ay - h / 2), (ax - gap - w, ay - h / 2)]
    out = list(near)
    for ring in RINGS[1:]:
        r = ring * h + gap
        for k in range(DIRECTIONS):
            t = 2 * math.pi * k / DIRECTIONS - math.pi / 4  # start up and to the right
            cx, cy = ax + r * math.cos(t) * 1.6, ay - r * math.sin(t)
            out.append((cx - w / 2, cy - h / 2))
    return np.array(out, dtype=np.float64)


def _overlaps(box: np.ndarray, boxes: np.ndarray) -> bool:
    if not len(boxes):
        return False
    return bool(((box[0] < boxes[:, 2]) & (boxes[:, 0] < box[2])
                 & (box[1] < boxes[:, 3]) & (boxes[:, 1] < box[3])).any())


def layout(anchors: np.ndarray, sizes: np.ndarray, width: float, height: float,
           blocked: list[tuple[float, float, float, float]] = (), descent: float = 0.25
           ) -> list[Placed]:
    """Place labels of sizes (n, 2) (text width, text height in pixels) near anchors (n, 2)
    in a width x height frame, keeping clear of `blocked` boxes (legend panels). A label
    with no free place left, or whose text box does not fit the frame, is left out.
    `descent` is the share of the height below the baseline."""
    anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    sizes = np.asarray(sizes, dtype=np.float64).reshape(-1, 2)
    taken = np.array(list(blocked), dtype=np.float64).reshape(-1, 4)
    placed: list[Placed] = []
    for i, (anchor, (tw, th)) in enumerate(zip(anchors, sizes, strict=True)):
        w, h = tw + 2 * PAD, th + 2 * PAD
        if w > width - 2 * EDGE or h > height - 2 * EDGE:
            continue
        others = np.delete(anchors, i, axis=0)
        corners = _candidates(anchor, w, h, gap=4.0)
        corners[:, 0] = np.clip(corners[:, 0], EDGE, width - EDGE - w)
        corners[:, 1] = np.clip(corners[:, 1], EDGE, height - EDGE - h)
        best = fallback = None
        for x, y in corners:
            box = np.array([x, y, x + w, y + h])
            if _overlaps(box, taken):
                continue
            covers = len(others) and ((others[:, 0] > box[0]) & (others[:, 0] < box[2])
                                      & (others[:, 1] > box[1]) & (others[:, 1] < box[3])).any()
            if not covers:
                best = box
                break
            fallback = box if fallback is None else fallback
        box = best if best is not None else fallback
        if box is None:
            continue
        taken = np.vstack([taken, box[None]])
        gap = _box_distance(box, anchor)
        placed.append(Placed(i, tuple(float(v) for v in box),
                             (float(box[0] + PAD), float(box[3] - PAD - descent * th)),
                             leader=gap > 0.6 * h + 4.0))
    return placed


def _box_distance(box: np.ndarray, point: np.ndarray) -> float:
    """Pixels from a point to the nearest point of a box (0 inside)."""
    dx = max(box[0] - point[0], 0.0, point[0] - box[2])
    dy = max(box[1] - point[1], 0.0, point[1] - box[3])
    return math.hypot(dx, dy)


def leader_end(box: tuple[float, float, float, float], anchor: np.ndarray) -> tuple[float, float]:
    """Where a leader line from the anchor meets the box: its nearest point."""
    x0, y0, x1, y1 = box
    return float(np.clip(anchor[0], x0, x1)), float(np.clip(anchor[1], y0, y1))


def edge_anchor(point: np.ndarray, width: float, height: float,
                inset: float = 2.0) -> np.ndarray:
    """The point on the frame's bottom edge below a pixel (clamped into the frame): where a
    hidden model's marker sits."""
    x = float(np.clip(point[0] if np.isfinite(point[0]) else width / 2, inset, width - inset))
    return np.array([x, height - inset])
