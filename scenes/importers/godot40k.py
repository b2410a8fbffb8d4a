"""`godot40k`: terrain layouts of BigBobbo's warhammer-40k-godot (`40k/terrain_layouts/*.json`).

Two generations of the file are read. Both describe a 44" x 60" portrait board, y down, inches.
- `pieces` with `piece_class`: an `area` (a footprint `polygon`, `traits`, `is_objective`)
  becomes an `area` piece; a `feature` (the L / U outline of ruin walls as a `polygon`,
  `height_inches`) becomes the boxes that make up its outline; a feature joins the `group`
  of its `parent_area_id`, so an area and its walls are one terrain piece, and areas that
  share a `link_group` are one group too.
- `pieces` with `position`, `size`, `rotation` and `walls` (`local_start` / `local_end`)
  become rectangular ruins with the named walls.
The table is the board as given (44 x 60); y is flipped (the table's y runs up). The file's
deployment names (`recommended_deployments`) and objective areas are kept under `x-source`:
battlesight's maps are those of its own ruleset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from battlesight.geometry.ruins import WALL_THICKNESS

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
    slug,
    source_name,
)

NAME = "godot40k"
BOARD = (44.0, 60.0)
DEFAULT_RULESET = "wh40k6"
#: `height` words of the older files, inches (the newer give `height_inches`)
HEIGHTS = {"low": 1.5, "medium": 3.0, "tall": 5.0}


def read(path: Path, options: ImportOptions) -> Imported:
    """The scene of one layout file."""
    data = read_json(path, NAME)
    rd = Reader(path)
    if not isinstance(data, dict):
        raise rd.fail("layout", "must be a JSON object with 'pieces'")
    raw = rd.items(data, "pieces", "", default=None)
    if raw is None:
        raise rd.fail("pieces", "missing: this is not a warhammer-40k-godot terrain layout")
    ruleset = options.ruleset or DEFAULT_RULESET
    ids = Ids()
    terrain: list[dict[str, Any]] = []
    objectives = []
    names: dict[str, str] = {}
    groups: dict[str, str] = {}  # a piece's file id -> its group (its id, or its link group)
    for i, piece in enumerate(raw):
        path_i = f"pieces[{i}]"
        if not isinstance(piece, dict):
            raise rd.fail(path_i, "must be an object")
        key = str(piece.get("id", i))
        names[key] = ids.new(piece.get("id", f"piece-{i}"))
        link = piece.get("link_group")
        groups[key] = f"link-{slug(link)}" if isinstance(link, str) and link.strip() \
            else names[key]
    for i, piece in enumerate(raw):
        path_i = f"pieces[{i}]"
        ident = names[str(piece.get("id", i))]
        if "polygon" in piece:
            made = _polygon_piece(rd, piece, path_i, ident, groups, ids, options.system.traits)
        else:
            made = _rect_piece(rd, piece, path_i, ident, ids, options.system.traits)
        terrain += made
        if piece.get("is_objective"):
            at = flip_y([rd.point(piece.get("position", _centre(rd, piece, path_i)),
                                  f"{path_i}.position")], BOARD[1])[0]
            objectives.append({"at": [r(at[0]), r(at[1])], "piece": ident,
                               "role": str(piece.get("objective_role", ""))})
    source: dict[str, Any] = {"format": NAME, "file": source_name(path)}
    for key in ("id", "name", "description"):
        if isinstance(data.get(key), str):
            source[key] = data[key]
    if isinstance(data.get("recommended_deployments"), list):
        source["deployments"] = [str(d) for d in data["recommended_deployments"]]
    if objectives:
        source["objectives"] = objectives
    name = data.get("name") if isinstance(data.get("name"), str) else path.stem
    scene = {"format": 1, "name": name, "ruleset": ruleset, "table": list(BOARD),
             "terrain": terrain, "x-source": source}
    return Imported(scene)


def _centre(rd: Reader, piece: dict, path: str) -> list[float]:
    poly = np.array([rd.point(p, f"{path}.polygon") for p in rd.items(piece, "polygon", path)])
    return list(poly.mean(axis=0)) if len(poly) else [0.0, 0.0]


def _height(rd: Reader, piece: dict, path: str) -> float:
    if "height_inches" in piece:
        h = rd.number(piece, "height_inches", path)
    else:
        word = piece.get("height", "tall")
        if isinstance(word, (int, float)) and not isinstance(word, bool):
            h = float(word)
        elif str(word).lower() in HEIGHTS:
            h = HEIGHTS[str(word).lower()]
        else:
            raise rd.fail(f"{path}.height",
                          f"unknown height {word!r} (expected {', '.join(HEIGHTS)} or inches)")
    if not h > 0:
        raise rd.fail(f"{path}.height_inches", f"must be above 0, got {h:g}")
    return h


def _rules(piece: dict, traits: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The rules keys the system gives a piece's traits and its type (`SystemImport.traits`)."""
    out: dict[str, Any] = {}
    for word in [*(piece.get("traits") or []), str(piece.get("type", "")).lower()]:
        out.update(traits.get(str(word), {}))
    return out


def _polygon_piece(rd: Reader, piece: dict, path: str, ident: str, groups: dict[str, str],
                   ids: Ids, traits: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    raw = rd.items(piece, "polygon", path)
    if len(raw) < 3:
        raise rd.fail(f"{path}.polygon", f"needs at least 3 points, got {len(raw)}")
    poly = flip_y([rd.point(p, f"{path}.polygon[{k}]") for k, p in enumerate(raw)], BOARD[1])
    rules = _rules(piece, traits)
    own = groups.get(str(piece.get("id")), ident)
    if piece.get("piece_class", "area") == "area":
        return [{"id": ident, "type": "area", "polygon": points(poly), "group": own, **rules}]
    height = _height(rd, piece, path)
    parent = piece.get("parent_area_id")
    group = groups.get(str(parent), own) if parent is not None else own
    out = []
    for k, rect in enumerate(rectangles_of(poly)):
        at, (sx, sy), rot = box_from_rectangle(rect)
        out.append({"id": ident if k == 0 else ids.new(f"{ident}-{k + 1}"), "type": "box",
                    "at": at, "size": [sx, sy, r(height)], "rotation": rot, "group": group,
                    **rules})
    return out


def _rect_piece(rd: Reader, piece: dict, path: str, ident: str, ids: Ids,
                traits: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """An older file's piece: a `woods` a forest of its rectangle; otherwise a ruin with the
    walls that run along its edges, and a `wall` piece in the ruin's group for each wall
    inside it (layout_2's `wall_center`)."""
    x, y = rd.point(rd.get(piece, "position", path), f"{path}.position")
    size = rd.get(piece, "size", path, kind=list)
    sx, sy = rd.point(size, f"{path}.size")
    if not (sx > 0 and sy > 0):
        raise rd.fail(f"{path}.size", f"must be above 0, got {size!r}")
    rot = rd.number(piece, "rotation", path, 0.0)
    height = _height(rd, piece, path)
    rules = _rules(piece, traits)

    def placed(local: list[tuple[float, float]]) -> np.ndarray:
        # the file's turn is clockwise on its y-down board: the usual matrix in y-down axes
        c, s = np.cos(np.radians(rot)), np.sin(np.radians(rot))
        p = np.asarray(local, dtype=np.float64) @ np.array([[c, s], [-s, c]]) + [x, y]
        return flip_y(p, BOARD[1])

    if str(piece.get("type", "")).lower() == "woods":
        hx, hy = sx / 2, sy / 2
        poly = placed([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)])
        return [{"id": ident, "type": "forest", "polygon": points(poly), "height": r(height),
                 **rules}]
    sides: list[str] = []
    inner: list[dict[str, Any]] = []
    for k, wall in enumerate(rd.items(piece, "walls", path)):
        wpath = f"{path}.walls[{k}]"
        a = rd.point(rd.get(wall, "local_start", wpath), f"{wpath}.local_start")
        b = rd.point(rd.get(wall, "local_end", wpath), f"{wpath}.local_end")
        side = _side(a, b, sx, sy)
        if side is None:
            if max(abs(a[0]), abs(b[0])) > sx / 2 + 1e-3 or \
                    max(abs(a[1]), abs(b[1])) > sy / 2 + 1e-3:
                raise rd.fail(wpath, f"wall {a} -> {b} runs outside the {sx:g} x {sy:g} ruin")
            if np.hypot(b[0] - a[0], b[1] - a[1]) < 1e-3:
                raise rd.fail(wpath, f"wall {a} -> {b} has no length")
            ends = placed([a, b])
            inner.append({"id": ids.new(f"{ident}-{wall.get('id', f'wall-{k + 1}')}"),
                          "type": "wall", "from": [r(ends[0, 0]), r(ends[0, 1])],
                          "to": [r(ends[1, 0]), r(ends[1, 1])], "height": r(height),
                          "thickness": WALL_THICKNESS, "group": ident})
        elif side not in sides:
            sides.append(side)
    at = flip_y([[x, y]], BOARD[1])[0]
    # a y-down turn is clockwise on the table
    ruin = {"id": ident, "type": "ruin", "at": [r(at[0]), r(at[1])], "size": [r(sx), r(sy)],
            "rotation": r(-rot if rot else 0.0), "height": r(height), "walls": sides,
            **({"group": ident} if inner else {}), **rules}
    return [ruin, *inner]


def _side(a: tuple[float, float], b: tuple[float, float], sx: float, sy: float) -> str | None:
    """The ruin side a wall in the file's local frame (y down) runs along: y = +sy/2 is the
    south edge once y is flipped."""
    tol = 1e-3
    if abs(a[0] - b[0]) < tol and abs(abs(a[0]) - sx / 2) < tol:
        return "east" if a[0] > 0 else "west"
    if abs(a[1] - b[1]) < tol and abs(abs(a[1]) - sy / 2) < tol:
        return "south" if a[1] > 0 else "north"
    return None
