"""Screen labels laid out: every box inside the frame, no two boxes overlapping.

Pure numpy (no Panda3D): anchors are pixels (x right, y down), boxes are (x0, y0, x1, y1)
pixels. `layout` places labels greedily in the order given (the first ones get the places
nearest their anchors): candidate positions ring the anchor at growing distances, each pushed
inside the frame; the first free one wins, preferring places no farther from their own
anchor than from any other model's point (so a label is never read as another model's), then
places that cover no other label's anchor. A label placed away from its anchor, or nearer
another model than its own (a crowd leaves no better place), gets a leader line.
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
TIE = 0.5  # pixels: a label this much farther from its own model than another's is a tie


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
    r = np.repeat(np.asarray(RINGS[1:]) * h + gap, DIRECTIONS)
    t = np.tile(2 * np.pi * np.arange(DIRECTIONS) / DIRECTIONS - np.pi / 4, len(RINGS) - 1)
    rings = np.stack([ax + r * np.cos(t) * 1.6 - w / 2, ay - r * np.sin(t) - h / 2], axis=1)
    return np.concatenate([np.array(near, dtype=np.float64), rings])


def _overlap_matrix(boxes: np.ndarray, taken: np.ndarray) -> np.ndarray:
    """(k, m) bool: boxes[i] overlaps taken[j]."""
    if not len(taken):
        return np.zeros((len(boxes), 0), dtype=bool)
    return ((boxes[:, None, 0] < taken[None, :, 2]) & (taken[None, :, 0] < boxes[:, None, 2])
            & (boxes[:, None, 1] < taken[None, :, 3]) & (taken[None, :, 1] < boxes[:, None, 3]))


def layout(anchors: np.ndarray, sizes: np.ndarray, width: float, height: float,
           blocked: list[tuple[float, float, float, float]] = (), descent: float = 0.25,
           points: np.ndarray | None = None) -> list[Placed]:
    """Place labels of sizes (n, 2) (text width, text height in pixels) near anchors (n, 2)
    in a width x height frame, keeping clear of `blocked` boxes (legend panels). A label
    with no free place left, or whose text box does not fit the frame, is left out.
    `descent` is the share of the height below the baseline; `points` (m, 2) are the pixels of
    every model a label could be taken to name (default: the anchors)."""
    anchors = np.asarray(anchors, dtype=np.float64).reshape(-1, 2)
    points = anchors if points is None else np.asarray(points, dtype=np.float64).reshape(-1, 2)
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
        boxes = np.concatenate([corners, corners + [w, h]], axis=1)  # (k, 4)
        free = ~_overlap_matrix(boxes, taken).any(axis=1)
        if not free.any():
            continue
        covers = np.zeros(len(boxes), dtype=bool)
        if len(others):
            covers = ((others[None, :, 0] > boxes[:, None, 0])
                      & (others[None, :, 0] < boxes[:, None, 2])
                      & (others[None, :, 1] > boxes[:, None, 1])
                      & (others[None, :, 1] < boxes[:, None, 3])).any(axis=1)
        own = _nearest_is_own(boxes, anchor, points)
        clear = free & ~covers  # a place that hides no other label's anchor
        choice = next(m for m in (free & own & ~covers, free & own, clear, free) if m.any())
        pick = int(np.argmax(choice))
        box = boxes[pick]
        taken = np.vstack([taken, box[None]])
        gap = _box_distance(box, anchor)
        placed.append(Placed(i, tuple(float(v) for v in box),
                             (float(box[0] + PAD), float(box[3] - PAD - descent * th)),
                             leader=gap > 0.6 * h + 4.0 or not own[pick]))
    return placed


def box_distances(boxes: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(k, m) pixels from each box (k, 4) to each point (m, 2): 0 inside."""
    dx = np.maximum(np.maximum(boxes[:, None, 0] - points[None, :, 0], 0.0),
                    points[None, :, 0] - boxes[:, None, 2])
    dy = np.maximum(np.maximum(boxes[:, None, 1] - points[None, :, 1], 0.0),
                    points[None, :, 1] - boxes[:, None, 3])
    return np.hypot(dx, dy)


def _nearest_is_own(boxes: np.ndarray, anchor: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(k,) bool: box k is no farther from its own anchor than from any other point (points
    within a pixel of the anchor are the anchor's own model; a tie, as over a row of models,
    counts as its own: the label sits over the row's middle, its model among the nearest)."""
    others = points[np.hypot(*(points - anchor).T) > 1.0] if len(points) else points
    own = box_distances(boxes, anchor[None])[:, 0]
    if not len(others):
        return np.ones(len(boxes), dtype=bool)
    return own <= box_distances(boxes, others).min(axis=1) + TIE


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
