"""Per-type checks of terrain pieces (scene format v1): required keys and their values.

wall: from, to, height (thickness); box: at, size [x, y, z]; ruin: at, size [x, y] or a
polygon, height, floors (increasing, below height), walls (sides, or edge numbers of a
polygon); hill: at, size, height; forest: polygon, height; crater: at, size or radius (depth,
rim); mesh: file, at (units, up, scale, size); area: polygon or at, size (height). Any piece:
rotation. Hills may give ``top`` (0 < top <= 1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from battlesight.geometry import polygon_ruins, ruins, terrain
from battlesight.geometry.primitives import BuildInputError, require_simple_polygon

from .checks import Checker, line_of, show
from .limits import MAX_TRUNKS
from .mesh_keys import check_mesh_keys
from .model import RUIN_SIDES
from .paths import resolve_mesh_file

# Limits of the mesh builders (geometry.terrain, geometry.ruins), checked here so that a scene
# that validates also builds; the ruin's, the forest's outline and trunks are the builders' own
# precondition functions (builder_check).
CRATER_RIM = 1.0  # default width of a crater's rim at its foot; must be below the radius


def builder_check(ck: Checker, m: dict, path: str, check: Callable[..., Any],
                  *args: Any, **kwargs: Any) -> bool:
    """Run a builder's own precondition (``geometry``: the function the builder calls too, so
    the two cannot disagree); its BuildInputError becomes a problem at the key it names."""
    try:
        check(*args, **kwargs)
    except BuildInputError as exc:
        key = exc.param if exc.param in m else ""
        ck.add(line_of(m, key) if key else line_of(m), f"{path}.{exc.param}", str(exc))
        return False
    return True


def _check_ruin_extras(ck: Checker, m: dict, path: str, size: Any, height: float | None) -> None:
    floors_ok, walls_ok = True, True
    if "floors" in m:
        key, line, floors = f"{path}.floors", line_of(m, "floors"), m["floors"]
        floors_ok = False
        if not isinstance(floors, list):
            ck.add(line, key, f"must be a list of floor heights, got {show(floors)}")
        else:
            vals = ck.numbers_value(floors, line, key, len(floors), positive=True) if floors else ()
            if vals is not None:
                if any(b <= a for a, b in zip(vals, vals[1:], strict=False)):
                    ck.add(line, key, f"floor heights must increase, got {show(floors)}")
                else:
                    floors_ok = True
    if "walls" in m:
        walls, line = m["walls"], line_of(m, "walls")
        walls_ok = False
        if not isinstance(walls, list) or any(w not in RUIN_SIDES for w in walls):
            ck.add(line, f"{path}.walls",
                   f"must be a list of sides from {', '.join(RUIN_SIDES)}, got {show(walls)}")
        elif len(set(walls)) != len(walls):
            ck.add(line, f"{path}.walls", f"names a side twice: {show(walls)}")
        else:
            walls_ok = True
    if floors_ok and walls_ok and size is not None and height is not None:
        builder_check(ck, m, path, ruins.check_ruin, size, height, m.get("floors") or (),
                      m.get("walls", ruins.SIDES))


def _check_outline(ck: Checker, m: dict, path: str, kind: str) -> list[tuple] | None:
    """A polygonal piece's ``polygon`` (a simple polygon), refused beside ``at``/``size``/
    ``rotation``, which only place a rectangle."""
    for key in ("at", "size", "rotation"):
        if key in m:
            ck.add(line_of(m, key), f"{path}.{key}",
                   f"a {kind} with a polygon takes no {key!r} (the polygon's points are on the "
                   "table already)")
    return ck.polygon_value(m["polygon"], line_of(m, "polygon"), f"{path}.polygon")


def _check_polygon_ruin(ck: Checker, m: dict, path: str) -> None:
    pts = _check_outline(ck, m, path, "ruin")
    height = ck.number(m, "height", path, required=True, positive=True, why=" for a ruin")
    floors = m.get("floors") or []
    if not isinstance(floors, list):
        ck.add(line_of(m, "floors"), f"{path}.floors",
               f"must be a list of floor heights, got {show(floors)}")
        return
    if floors and ck.numbers_value(floors, line_of(m, "floors"), f"{path}.floors", len(floors),
                                   positive=True) is None:
        return
    walls = m.get("walls")
    if walls is not None and (not isinstance(walls, list) or not all(
            isinstance(w, int) and not isinstance(w, bool) for w in walls)):
        ck.add(line_of(m, "walls"), f"{path}.walls",
               "must be a list of edge numbers for a polygonal ruin (edge 0 runs from the first "
               f"point to the second), got {show(walls)}")
        return
    if walls is not None and len(set(walls)) != len(walls):
        ck.add(line_of(m, "walls"), f"{path}.walls", f"names an edge twice: {show(walls)}")
        return
    if pts is not None and height is not None:
        builder_check(ck, m, path, polygon_ruins.check_polygon_ruin, pts, height, floors, walls)


def _check_ruin_flags(ck: Checker, m: dict, path: str) -> None:
    """A ruin's ``windows`` and ``broken`` are true or false: the builder reads any other value
    by its truth (``windows: "no"`` would give windows)."""
    for key in ("windows", "broken"):
        if key in m and not isinstance(m[key], bool):
            ck.add(line_of(m, key), f"{path}.{key}", f"must be true or false, got {show(m[key])}")


def _check_area(ck: Checker, m: dict, path: str) -> None:
    if "polygon" in m:
        _check_outline(ck, m, path, "area")
    else:
        why = " for an area (or give a polygon)"
        ck.point(m, "at", path, required=True, why=why)
        ck.numbers(m, "size", path, 2, required=True, positive=True, why=why)
    ck.number(m, "height", path, positive=True)


def _check_crater(ck: Checker, m: dict, path: str) -> None:
    ck.point(m, "at", path, required=True)
    radius = None
    if "radius" in m:
        radius = ck.number(m, "radius", path, positive=True)
    elif "size" in m:
        size, line = m["size"], line_of(m, "size")
        if isinstance(size, list):
            vals = ck.numbers_value(size, line, f"{path}.size", 2, positive=True)
            radius = None if vals is None else max(vals) / 2.0
        else:
            diameter = ck.number_value(size, line, f"{path}.size", positive=True)
            radius = None if diameter is None else diameter / 2.0
    else:
        ck.add(line_of(m), f"{path}.size", "missing required key 'size' or 'radius' for a crater")
    ck.number(m, "depth", path, positive=True)
    rim = ck.number(m, "rim", path, positive=True)
    rim = CRATER_RIM if "rim" not in m else rim
    if rim is not None and radius is not None and rim >= radius:
        key = "rim" if "rim" in m else "radius" if "radius" in m else "size"
        ck.add(line_of(m, key), f"{path}.{key}",
               f"crater rim ({rim:g}) must be narrower than its radius ({radius:g})")


def _check_mesh(ck: Checker, m: dict, path: str) -> None:
    ck.point(m, "at", path, required=True)
    file = ck.string(m, "file", path, required=True)
    if file is not None:
        try:
            resolve_mesh_file(file, ck.scene_dir)
        except ValueError as exc:
            ck.add(line_of(m, "file"), f"{path}.file", str(exc))
    check_mesh_keys(ck, m, path)  # units, up, scale: how the file is read
    ck.numbers(m, "size", path, (2, 3), positive=True)  # optional: plan size for footprints


def check_piece_data(ck: Checker, m: dict, path: str, kind: str) -> None:
    """Check the keys of one piece of a known type (id and type are checked by the caller)."""
    why = f" for a {kind}"
    if kind == "wall":
        a = ck.point(m, "from", path, required=True, why=why)
        b = ck.point(m, "to", path, required=True, why=why)
        ck.number(m, "height", path, required=True, positive=True, why=why)
        ck.number(m, "thickness", path, positive=True)
        if a is not None and a == b:
            ck.add(line_of(m, "to"), f"{path}.to", "wall has zero length (to equals from)")
    elif kind == "box":
        ck.point(m, "at", path, required=True, why=why)
        ck.numbers(m, "size", path, 3, required=True, positive=True, why=why)
    elif kind == "ruin" and "polygon" in m:
        _check_polygon_ruin(ck, m, path)
        _check_ruin_flags(ck, m, path)
    elif kind == "area":
        _check_area(ck, m, path)
    elif kind in ("ruin", "hill"):
        ck.point(m, "at", path, required=True, why=why)
        size = ck.numbers(m, "size", path, 2, required=True, positive=True, why=why)
        height = ck.number(m, "height", path, required=True, positive=True, why=why)
        if kind == "ruin":
            _check_ruin_extras(ck, m, path, size, height)
            _check_ruin_flags(ck, m, path)
        else:
            top = ck.number(m, "top", path, positive=True)
            if top is not None and top > 1:
                ck.add(line_of(m, "top"), f"{path}.top",
                       f"must be a fraction of the footprint in (0, 1], got {top:g}")
    elif kind == "forest":
        if "polygon" in m:
            pts = ck.polygon_value(m["polygon"], line_of(m, "polygon"), f"{path}.polygon")
            if pts is not None:
                builder_check(ck, m, path, require_simple_polygon, pts)
        else:
            ck.missing(m, path, "polygon", why)
        ck.number(m, "height", path, required=True, positive=True, why=why)
        builder_check(ck, m, path, terrain.check_trunks, m.get("trunks"), MAX_TRUNKS)
    elif kind == "crater":
        _check_crater(ck, m, path)
    elif kind == "mesh":
        _check_mesh(ck, m, path)
    ck.number(m, "rotation", path)
