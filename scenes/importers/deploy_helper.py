"""`deploy-helper`: wn-mitch/deploy-helper layouts (a `TerrainLayout` JSON file).

The board is `boardWidth` x `boardHeight` inches, origin top-left, y down. Each piece's shapes
are relative to its `position`: the first is its footprint, the rest its structures. As the
format's type definition says, `mirrored` (true or "horizontal": x -> -x, "vertical": y -> -y)
is applied first, then `rotation` (degrees, clockwise on the y-down board) about `position`.
- footprint: a rectangle (from `position`, `width` x `height`), polygon or circle becomes an
  `area` piece, or a `box` of the piece's `height` when the piece is `blocking` and has no
  structures (the file's older one-`shape` pieces);
- structures: a `line` becomes a `wall` (`thickness`, the piece's `height`), a rectangle or
  polygon the boxes of its outline, a circle an `area`.
Every shape of a piece shares its `group`, so it counts as one piece. `deploymentZones` become
the scene's `deployment` (the first zone player 1, the second player 2).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
from battlesight.scenes.footprints import CIRCLE_POINTS

from .common import (
    Ids,
    Imported,
    ImportOptions,
    Reader,
    box_from_rectangle,
    flip_y,
    points,
    r,
    read_json,
    rectangles_of,
    source_name,
)

NAME = "deploy-helper"
DEFAULT_RULESET = "wh40k6"
DEFAULT_HEIGHT = 3.0  # inches, for a piece without `height`
DEFAULT_THICKNESS = 1.0  # inches, the format's wall lines


class _Frame:
    """A piece's local shapes -> board coordinates (y down), then table coordinates."""

    def __init__(self, position: tuple[float, float], rotation: float, mirrored: Any,
                 depth: float):
        self.origin = np.asarray(position, dtype=np.float64)
        a = math.radians(rotation)
        c, s = math.cos(a), math.sin(a)
        self.turn = np.array([[c, -s], [s, c]])  # on a y-down board: clockwise on screen
        flip = {True: (-1.0, 1.0), "horizontal": (-1.0, 1.0), "vertical": (1.0, -1.0)}
        self.mirror = np.array(flip.get(mirrored, (1.0, 1.0)))
        self.depth = depth

    def table(self, local: Any) -> np.ndarray:
        p = np.asarray(local, dtype=np.float64).reshape(-1, 2) * self.mirror
        return flip_y(p @ self.turn.T + self.origin, self.depth)


def read(path: Path, options: ImportOptions) -> Imported:
    """The scene of one layout file."""
    data = read_json(path, NAME)
    rd = Reader(path)
    if not isinstance(data, dict) or "pieces" not in data:
        raise rd.fail("pieces", "missing: this is not a deploy-helper TerrainLayout")
    width = rd.number(data, "boardWidth", "", 60.0)
    depth = rd.number(data, "boardHeight", "", 44.0)
    if not (width > 0 and depth > 0):
        raise rd.fail("boardWidth", f"the board must be larger than 0, got {width:g} x {depth:g}")
    ids = Ids()
    terrain: list[dict[str, Any]] = []
    for i, piece in enumerate(rd.items(data, "pieces", "")):
        terrain += _piece(rd, piece, f"pieces[{i}]", ids, depth)
    scene: dict[str, Any] = {"format": 1, "name": str(data.get("name") or path.stem),
                             "ruleset": options.ruleset or DEFAULT_RULESET,
                             "table": [r(width), r(depth)], "terrain": terrain}
    zones = rd.items(data, "deploymentZones", "")
    if zones:
        scene["deployment"] = {}
        for k, zone in enumerate(zones[:2]):
            zpath = f"deploymentZones[{k}]"
            frame = _Frame(rd.point(rd.get(zone, "position", zpath), f"{zpath}.position"), 0.0,
                           False, depth)
            outline = _outline(rd, rd.get(zone, "shape", zpath, kind=dict), f"{zpath}.shape")
            scene["deployment"][k + 1] = points(frame.table(outline))
    source = {"format": NAME, "file": source_name(path)}
    for key in ("id", "source", "version"):
        if isinstance(data.get(key), str):
            source[key] = data[key]
    if zones:
        source["zones"] = [str(z.get("name", "")) for z in zones[:2] if isinstance(z, dict)]
    scene["x-source"] = source
    return Imported(scene)


def _piece(rd: Reader, piece: Any, path: str, ids: Ids, depth: float) -> list[dict[str, Any]]:
    shapes = rd.items(piece, "shapes", path, default=None)
    if shapes is None:
        shapes = [rd.get(piece, "shape", path, kind=dict)]  # the older one-shape pieces
    if not shapes:
        raise rd.fail(f"{path}.shapes", "has no shapes")
    frame = _Frame(rd.point(rd.get(piece, "position", path), f"{path}.position"),
                   rd.number(piece, "rotation", path, 0.0), piece.get("mirrored", False), depth)
    height = rd.number(piece, "height", path, DEFAULT_HEIGHT)
    if not height > 0:
        raise rd.fail(f"{path}.height", f"must be above 0, got {height:g}")
    blocking = bool(piece.get("blocking", True))
    group = ids.new(piece.get("id", path), "piece")
    out: list[dict[str, Any]] = []
    for k, shape in enumerate(shapes):
        spath = f"{path}.shapes[{k}]" if "shapes" in piece else f"{path}.shape"
        if not isinstance(shape, dict):
            raise rd.fail(spath, "must be an object")
        kind = shape.get("type")
        ident = group if k == 0 else ids.new(f"{group}-{k + 1}")
        if kind == "line":
            a = frame.table(rd.point(rd.get(shape, "start", spath), f"{spath}.start"))[0]
            b = frame.table(rd.point(rd.get(shape, "end", spath), f"{spath}.end"))[0]
            if np.allclose(a, b):
                raise rd.fail(spath, "a line needs two different points")
            out.append({"id": ident, "type": "wall", "from": [r(a[0]), r(a[1])],
                        "to": [r(b[0]), r(b[1])], "height": r(height),
                        "thickness": r(rd.number(shape, "thickness", spath, DEFAULT_THICKNESS)),
                        "group": group})
            continue
        outline = frame.table(_outline(rd, shape, spath))
        solid = (k > 0 or (blocking and len(shapes) == 1)) and kind != "circle"
        if not solid:
            out.append({"id": ident, "type": "area", "polygon": points(outline), "group": group})
            continue
        for j, rect in enumerate(rectangles_of(outline)):
            at, (sx, sy), rot = box_from_rectangle(rect)
            out.append({"id": ident if j == 0 else ids.new(f"{ident}-{j + 1}"), "type": "box",
                        "at": at, "size": [sx, sy, r(height)], "rotation": rot,
                        "group": group})
    return out


def _outline(rd: Reader, shape: dict, path: str) -> np.ndarray:
    """A shape's outline in its piece's local frame (y down)."""
    kind = shape.get("type")
    if kind == "rectangle":
        w, h = rd.number(shape, "width", path), rd.number(shape, "height", path)
        if not (w > 0 and h > 0):
            raise rd.fail(path, f"a rectangle must be larger than 0, got {w:g} x {h:g}")
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    if kind == "polygon":
        pts = rd.items(shape, "points", path)
        if len(pts) < 3:
            raise rd.fail(f"{path}.points", f"needs at least 3 points, got {len(pts)}")
        return np.array([rd.point(p, f"{path}.points[{i}]") for i, p in enumerate(pts)])
    if kind == "circle":
        radius = rd.number(shape, "radius", path)
        if not radius > 0:
            raise rd.fail(f"{path}.radius", f"must be above 0, got {radius:g}")
        t = np.linspace(0.0, 2.0 * math.pi, CIRCLE_POINTS, endpoint=False)
        return np.column_stack([radius * np.cos(t), radius * np.sin(t)])
    raise rd.fail(f"{path}.type",
                  f"unknown shape {kind!r} (expected rectangle, polygon, circle or line)")
