"""Check parsed scene data against scene format v1 and build a Scene.

``build_scene`` checks everything it can and reports every problem; it returns a Scene only
when there is none. Key paths name list items by id when they have one (``terrain[wall-1]``,
``models[sgt].floor``) and by index otherwise (``models[3]``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from battlesight.geometry import planar

from .build import BUILD_ERRORS, mesh_model_of, world_problems
from .checks import Checker, is_int, is_number, item_line, line_of, plain, show
from .footprints import base_half_extents, piece_footprint
from .groups import conflicts
from .limits import MAX_MODELS, MAX_TABLE_SIDE, MAX_TERRAIN_PIECES
from .mesh_keys import MESH_KEYS, check_mesh_keys, check_parts
from .model import (
    DEFAULT_BASE_MM,
    DEFAULT_FACING,
    DEFAULT_HEIGHT,
    DEFAULT_SHAPE,
    FORMAT_VERSION,
    MODEL_SHAPES,
    TERRAIN_TYPES,
    ModelSpec,
    Scene,
    TerrainPiece,
)
from .paths import resolve_mesh_file
from .systems import is_system, system_ids
from .terrain_checks import check_piece_data

#: items of one list whose key lines are recorded (scenes hold at most this many pieces)
MAX_LISTED = max(MAX_MODELS, MAX_TERRAIN_PIECES)

TOP_KEYS = ("format", "name", "ruleset", "table", "terrain", "models", "units", "deployment")
HUMANOID_MIN_HEIGHT = 0.24  # two base thicknesses (geometry.volumes)
MODEL_KEYS = ("id", "unit", "player", "at", "floor", "facing", "base", "height", "eye", "shape",
              "profile", "units", "up", "scale", "parts", "z")


def _item_path(list_name: str, item: Any, index: int) -> str:
    ident = item.get("id") if isinstance(item, dict) else None
    if isinstance(ident, str) and ident.strip():
        return f"{list_name}[{ident}]"
    return f"{list_name}[{index}]"


def _list(ck: Checker, data: dict, key: str, limit: int | None = None) -> list:
    """``data[key]`` as a list (absent or null -> []); at most ``limit`` items."""
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        ck.add(line_of(data, key), key, f"must be a list, got {show(value)}")
        return []
    if limit is not None and len(value) > limit:
        ck.add(line_of(data, key), key, f"has {len(value)} entries (at most {limit})")
        return []
    return value


class _Ids:
    """Ids used by terrain and models (one namespace)."""

    def __init__(self, ck: Checker):
        self.ck = ck
        self.seen: dict[str, tuple[str, int | None]] = {}

    def claim(self, ident: str, line: int | None, path: str) -> None:
        if ident in self.seen:
            where, first = self.seen[ident]
            at = f" at line {first}" if first is not None else ""
            self.ck.add(line, f"{path}.id", f"duplicate id {ident!r} (already used by {where}{at})")
        else:
            self.seen[ident] = (path.split("[")[0], line)


def _item_id(ck: Checker, m: dict, path: str, ids: _Ids) -> str | None:
    ident = ck.string(m, "id", path, required=True)
    if ident is not None:
        ids.claim(ident, line_of(m, "id"), path)
    return ident


# -- terrain ---------------------------------------------------------------------------------

def _check_piece(ck: Checker, m: Any, index: int, line: int | None,
                 ids: _Ids) -> TerrainPiece | None:
    path = _item_path("terrain", m, index)
    if not isinstance(m, dict):
        ck.add(line, path, f"a terrain piece must be a mapping, got {show(m)}")
        return None
    ident = _item_id(ck, m, path, ids)
    kind = m.get("type")
    if "type" not in m:
        ck.missing(m, path, "type")
        return None
    if kind not in TERRAIN_TYPES:
        ck.add(line_of(m, "type"), f"{path}.type",
               f"unknown terrain type {show(kind)} (expected one of {', '.join(TERRAIN_TYPES)})")
        return None
    before = len(ck.problems)
    check_piece_data(ck, m, path, kind)
    ck.string(m, "group", path)  # shapes of one group count as one piece (scene-format.md)
    if ident is None or len(ck.problems) > before:
        return None
    data = {k: plain(v) for k, v in m.items() if k not in ("id", "type")}
    return TerrainPiece(ident, kind, data, line=line_of(m), folder=ck.scene_dir)


def _check_groups(ck: Checker, raw: list) -> None:
    """A group is one piece with one set of rules data: its shapes give the same value for a
    rules key, or leave it out (`scenes.groups.conflicts`)."""
    items = {m["id"]: (m, _item_path("terrain", m, i)) for i, m in enumerate(raw)
             if isinstance(m, dict) and isinstance(m.get("id"), str)}
    for ident, key, message in conflicts((i, plain(m)) for i, (m, _) in items.items()):
        m, path = items[ident]
        ck.add(line_of(m, key), f"{path}.{key}", message)


# -- units and deployment --------------------------------------------------------------------

def _check_units(ck: Checker, units: list) -> dict[str, dict]:
    by_id: dict[str, dict] = {}
    for i, u in enumerate(units):
        path = _item_path("units", u, i)
        if not isinstance(u, dict):
            ck.add(item_line(units, i), path, f"a unit must be a mapping, got {show(u)}")
            continue
        ident = ck.string(u, "id", path, required=True)
        if "player" in u and not is_int(u["player"]):
            ck.add(line_of(u, "player"), f"{path}.player",
                   f"must be a whole number, got {show(u['player'])}")
        ck.string(u, "profile", path)
        ck.string(u, "name", path)
        form = u.get("formation")
        if form is not None:
            fpath = f"{path}.formation"
            if not isinstance(form, dict):
                ck.add(line_of(u, "formation"), fpath, f"must be a mapping, got {show(form)}")
            else:
                ck.point(form, "front", fpath)
                ck.number(form, "facing", fpath)
                for key in ("files", "ranks"):
                    if key in form and (not is_int(form[key]) or form[key] < 1):
                        ck.add(line_of(form, key), f"{fpath}.{key}",
                               f"must be a whole number of at least 1, got {show(form[key])}")
        if ident is None:
            continue
        if ident in by_id:
            first = line_of(by_id[ident], "id")
            at = f" (first at line {first})" if first is not None else ""
            ck.add(line_of(u, "id"), f"{path}.id", f"duplicate unit id {ident!r}{at}")
        else:
            by_id[ident] = u
    return by_id


def _check_deployment(ck: Checker, data: dict) -> None:
    dep, line = data.get("deployment"), line_of(data, "deployment")
    if dep is None:
        return
    if isinstance(dep, str):
        if not dep.strip():
            ck.add(line, "deployment", "map name must not be empty")
        return
    if not isinstance(dep, dict):
        ck.add(line, "deployment",
               f"must be a map name or a mapping of player -> polygon, got {show(dep)}")
        return
    for player, poly in dep.items():
        key, pline = f"deployment[{player}]", line_of(dep, player)
        if not is_int(player):
            ck.add(pline, key, f"player must be a whole number, got {show(player)}")
        ck.polygon_value(poly, pline, key)


# -- models ----------------------------------------------------------------------------------

def _check_base(ck: Checker, m: dict, path: str) -> float | tuple[float, float] | None:
    if "base" not in m:
        return DEFAULT_BASE_MM
    base, line = m["base"], line_of(m, "base")
    if isinstance(base, list):
        vals = ck.numbers_value(base, line, f"{path}.base", 2, positive=True)
        return None if vals is None else (vals[0], vals[1])
    return ck.number_value(base, line, f"{path}.base", positive=True)


def _check_model(ck: Checker, m: Any, index: int, line: int | None, ids: _Ids,
                 units: dict[str, dict]) -> ModelSpec | None:
    path = _item_path("models", m, index)
    if not isinstance(m, dict):
        ck.add(line, path, f"a model must be a mapping, got {show(m)}")
        return None
    ident = _item_id(ck, m, path, ids)
    unit_id = ck.string(m, "unit", path) if m.get("unit") is not None else None
    unit = units.get(unit_id) if unit_id is not None else None
    unit_player = unit.get("player") if unit is not None else None
    player = m.get("player", unit_player)
    if "player" in m:
        if not is_int(player):
            ck.add(line_of(m, "player"), f"{path}.player",
                   f"must be a whole number, got {show(player)}")
        elif is_int(unit_player) and unit_player != player:
            ck.add(line_of(m, "player"), f"{path}.player",
                   f"player {player} differs from player {unit_player} of its unit {unit_id!r}"
                   + (f" (line {line_of(unit, 'player')})" if line_of(unit, "player") else ""))
    elif not is_int(unit_player):
        ck.missing(m, path, "player", " (give it on the model or on its unit)")
    profile = ck.string(m, "profile", path) if "profile" in m else None
    if "profile" not in m and unit is not None and isinstance(unit.get("profile"), str):
        profile = unit["profile"]
    at = ck.point(m, "at", path, required=True)
    floor = m.get("floor")
    if floor is not None and (not is_int(floor) or floor < 0):
        ck.add(line_of(m, "floor"), f"{path}.floor",
               f"must be a whole number >= 0 (0 = ground), got {show(floor)}")
    facing = ck.number(m, "facing", path)
    base = _check_base(ck, m, path)
    height = ck.number(m, "height", path, positive=True)
    height = DEFAULT_HEIGHT if "height" not in m else height
    eye = ck.number(m, "eye", path, positive=True)
    if eye is not None and height is not None and eye > height and (
            "height" in m or m.get("shape", DEFAULT_SHAPE) in MODEL_SHAPES):
        ck.add(line_of(m, "eye"), f"{path}.eye",
               f"eye {eye:g} is above the model's height {height:g}")
    shape = ck.string(m, "shape", path) if "shape" in m else DEFAULT_SHAPE
    if shape == "humanoid" and height is not None and height <= HUMANOID_MIN_HEIGHT:
        ck.add(line_of(m, "height"), f"{path}.height",
               f"a humanoid must be taller than {HUMANOID_MIN_HEIGHT:g}\", got {height:g}")
    mesh_file = None
    if shape is not None and shape not in MODEL_SHAPES:
        try:
            mesh_file = resolve_mesh_file(shape, ck.scene_dir)
        except ValueError as exc:
            ck.add(line_of(m, "shape"), f"{path}.shape",
                   f"shape is not {' or '.join(MODEL_SHAPES)} and is not a usable mesh: {exc}")
    before = len(ck.problems)
    options = _mesh_options(ck, m, path, shape, mesh_file)
    z = ck.number(m, "z", path)
    if z is not None and m.get("floor") is not None:
        ck.add(line_of(m, "z"), f"{path}.z", "give floor or z, not both (z picks the surface "
                                             "of a mesh piece nearest to that height)")
    if at is None or base is None:
        return None  # nothing to place; the problems are recorded
    # With other problems the model is still returned (placeholders for bad values) so that
    # the placement checks run too; build_scene returns no Scene when there is any problem.
    extra = {k: plain(v) for k, v in m.items() if k not in MODEL_KEYS}
    spec = ModelSpec(
        id=ident or "", unit=unit_id, player=player if is_int(player) else 0, at=at,
        floor=floor if is_int(floor) and floor >= 0 else None,
        facing=DEFAULT_FACING if facing is None else _turn(facing), base=base,
        height=DEFAULT_HEIGHT if height is None else float(height), eye=eye,
        shape=str(shape or DEFAULT_SHAPE), profile=profile, extra=extra, line=line_of(m),
        z=z, **options)
    if mesh_file is not None and len(ck.problems) == before:
        _measure_mesh(ck, m, path, spec)
    return spec


def _mesh_options(ck: Checker, m: dict, path: str, shape: str | None,
                  mesh_file: Path | None) -> dict:
    """The ModelSpec fields of a mesh shape's reading keys (units, up, scale, parts), checked;
    refused on a cylinder or humanoid, which have no file to read."""
    given = [k for k in (*MESH_KEYS, "parts") if k in m]
    if shape is None or shape in MODEL_SHAPES:
        for key in given:
            ck.add(line_of(m, key), f"{path}.{key}",
                   f"{key!r} says how to read a mesh file; shape {shape!r} has none")
        return {}
    check_mesh_keys(ck, m, path)
    parts = check_parts(ck, m, path, mesh_file)
    scale = m.get("scale")
    return {"units": m.get("units"), "up": m.get("up"), "parts": parts,
            "scale": float(scale) if is_number(scale) else None}


def _measure_mesh(ck: Checker, m: dict, path: str, spec: ModelSpec) -> None:
    """A mesh model's own height and base, where the scene gives none (the build reports a
    mesh it cannot make)."""
    measured = tuple(k for k in ("height", "base") if k not in m)
    if not measured:
        return
    spec.measured = measured
    try:
        found = mesh_model_of(spec, ck.scene_dir)
    except BUILD_ERRORS:
        return
    if "height" in measured:
        spec.height = found.height
    if "base" in measured:
        spec.base = found.base_mm
    if spec.eye is not None and spec.eye > spec.height:
        ck.add(line_of(m, "eye"), f"{path}.eye",
               f"eye {spec.eye:g} is above the model's height {spec.height:.3g} (its mesh's)")


def _turn(degrees: float) -> float:
    """An angle as written, or reduced to [0, 360) when it is a full turn or more."""
    return degrees if abs(degrees) < 360.0 else degrees % 360.0


def _check_piece_on_table(ck: Checker, piece: TerrainPiece, m: dict,
                          table: tuple[float, float], path: str) -> None:
    """A piece must overlap the table (it may hang over an edge, like a hill at the edge)."""
    foot = piece_footprint(piece)
    lo, hi = foot.min(axis=0), foot.max(axis=0)
    if hi[0] > 0 and hi[1] > 0 and lo[0] < table[0] and lo[1] < table[1]:
        return
    key = next((k for k in ("at", "from", "polygon") if k in m), "")
    ck.add(line_of(m, key) if key else line_of(m), f"{path}.{key}" if key else path,
           f"{piece.type} lies wholly off the {table[0]:g}x{table[1]:g} table "
           f"(it spans x {lo[0]:g}..{hi[0]:g}, y {lo[1]:g}..{hi[1]:g})")


def _check_on_table(ck: Checker, model: ModelSpec, m: dict, table: tuple[float, float],
                    path: str) -> None:
    ry, rx = model.base_radii_in
    ex, ey = base_half_extents(ry, rx, model.facing)
    x, y = model.at
    tol = 1e-6
    if x - ex < -tol or y - ey < -tol or x + ex > table[0] + tol or y + ey > table[1] + tol:
        ck.add(line_of(m, "at"), f"{path}.at",
               f"model base at [{x:g}, {y:g}] is not wholly on the "
               f"{table[0]:g}x{table[1]:g} table")


def _check_floor(ck: Checker, model: ModelSpec, m: dict, ruins: list[TerrainPiece],
                 all_ruins_ok: bool, path: str, meshes: bool = False) -> None:
    floor = model.floor
    if not floor:
        return
    pt = np.array([model.at])
    under = [r for r in ruins if planar.covers(pt, piece_footprint(r))[0]]
    line = line_of(m, "floor")
    if not under:
        if all_ruins_ok and not meshes:  # a mesh building's storeys are found by its build
            ck.add(line, f"{path}.floor",
                   f"floor {floor} but the model does not stand inside any ruin's footprint")
        return
    if any(len(r.data.get("floors") or []) >= floor for r in under):
        return
    names = " or ".join(repr(r.id) for r in under)
    most = max(len(r.data.get("floors") or []) for r in under)
    ck.add(line, f"{path}.floor",
           f"ruin {names} has no floor {floor} (it has {most} upper floor{'s' * (most != 1)}, "
           "numbered from 1)")


# -- scene -----------------------------------------------------------------------------------

def _check_top(ck: Checker, data: dict) -> tuple[str | None, tuple[float, float] | None]:
    if "format" in data:
        fmt = data["format"]
        if not is_int(fmt) or fmt != FORMAT_VERSION:
            ck.add(line_of(data, "format"), "format",
                   f"unsupported format {show(fmt)} (this version reads format {FORMAT_VERSION})")
    if "name" in data and not isinstance(data["name"], str):
        ck.add(line_of(data, "name"), "name", f"must be a string, got {show(data['name'])}")
    ruleset = data.get("ruleset")
    if "ruleset" not in data:
        ck.add(line_of(data), "ruleset",
               f"missing required key 'ruleset' (one of {', '.join(system_ids())})")
    elif not is_system(ruleset):
        ck.add(line_of(data, "ruleset"), "ruleset",
               f"unknown ruleset {show(ruleset)} (expected one of {', '.join(system_ids())})")
        ruleset = None
    table = None
    if "table" not in data:
        ck.add(line_of(data), "table", "missing required key 'table' ([width, depth] in inches)")
    else:
        vals = ck.numbers_value(data["table"], line_of(data, "table"), "table", 2, positive=True)
        table = None if vals is None else (vals[0], vals[1])
        if table is not None and max(table) > MAX_TABLE_SIDE:
            ck.add(line_of(data, "table"), "table",
                   f"a table side is at most {MAX_TABLE_SIDE:g}\", got {show(data['table'])}")
            table = None
    return ruleset, table


def build_scene(data: Any, file: str, scene_dir: Path | None = None, default_name: str = "",
                root_line: int | None = None, build: bool = True) -> tuple[Scene | None, list]:
    """Check parsed data; return (Scene or None, problems). The Scene is None if any problem.

    build=False leaves out what only building the world finds (builder refusals, standing
    points): `build_world` raises those, as the same problems, when the world is first built."""
    ck = Checker(file, scene_dir)
    if not isinstance(data, dict):
        kind = ("an empty document" if data is None else "a list" if isinstance(data, list)
                else "a string" if isinstance(data, str) else f"the value {show(data)}")
        ck.add(getattr(data, "line", None) or root_line, "scene",
               f"a scene must be a YAML mapping of keys (format, table, terrain, ...), got {kind}")
        return None, ck.problems
    ruleset, table = _check_top(ck, data)
    ids = _Ids(ck)
    raw_terrain = _list(ck, data, "terrain", MAX_TERRAIN_PIECES)
    pieces, ruins_ok = [], True
    for i, item in enumerate(raw_terrain):
        piece = _check_piece(ck, item, i, item_line(raw_terrain, i), ids)
        if piece is not None:
            if table is not None:
                _check_piece_on_table(ck, piece, item, table, _item_path("terrain", item, i))
            pieces.append(piece)
        elif isinstance(item, dict) and item.get("type") == "ruin":
            ruins_ok = False
    _check_groups(ck, raw_terrain)
    ruins = [p for p in pieces if p.type == "ruin"]
    raw_units = _list(ck, data, "units", MAX_MODELS)
    units = _check_units(ck, raw_units)
    raw_models = _list(ck, data, "models", MAX_MODELS)
    models = []
    for i, item in enumerate(raw_models):
        model = _check_model(ck, item, i, item_line(raw_models, i), ids, units)
        if model is None:
            continue
        path = _item_path("models", item, i)
        if table is not None:
            _check_on_table(ck, model, item, table, path)
        _check_floor(ck, model, item, ruins, ruins_ok, path,
                     any(p.type == "mesh" for p in pieces))
        models.append(model)
    _check_deployment(ck, data)
    if ck.problems or ruleset is None or table is None:
        return None, ck.problems
    scene = Scene(
        name=data.get("name", default_name), ruleset=ruleset, table=table, terrain=pieces,
        models=models, units=[plain(u) for u in raw_units],
        deployment=plain(data.get("deployment")),
        extra={k: plain(v) for k, v in data.items() if k not in TOP_KEYS},
        format=FORMAT_VERSION, lines=key_lines(data))
    # what the format accepts, the builders must build: the world is built here (its meshes
    # are cached for the command that follows), every refusal a problem at its key
    _, problems = world_problems(scene, file, scene_dir) if build else (None, [])
    if problems:
        return None, problems
    return scene, ck.problems


def key_lines(data: dict) -> dict[str, int]:
    """Line of each key path of a scene read from a file, three levels deep
    (``models[sgt].stats.WS``, ``terrain[wood-1].trunks[0]``); {} for plain dicts."""
    out: dict[str, int] = {}

    def walk(value: Any, path: str, depth: int) -> None:
        if depth == 0:
            return
        if isinstance(value, dict):
            for k in value:
                line = line_of(value, k)
                sub = f"{path}.{k}" if path else str(k)
                if line is not None:
                    out[sub] = line
                walk(value[k], sub, depth - 1)
        elif isinstance(value, list):
            for i, item in enumerate(value[:MAX_LISTED]):
                sub = _item_path(path, item, i)
                line = item_line(value, i)
                if line is not None:
                    out.setdefault(sub, line)
                walk(item, sub, depth - 1)

    walk(data, "", 5)
    return out

