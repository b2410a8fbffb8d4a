"""What every importer shares: its options, its one-line refusal, reading JSON with the line
of a syntax error, and turning other tools' plan coordinates (y down, inches) into the table's.

An importer reads one file and returns scene data (a plain dict in scene format v1); the
`battlesight import` command runs the same gate as `validate` on it before anything is written.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from battlesight.scenes.errors import SceneError, SceneProblem
from battlesight.scenes.limits import MAX_COORDINATE, MAX_INT, MAX_YAML_BYTES, shorten, shown
from battlesight.scenes.textfiles import file_label, is_stdio, read_stdin

#: decimals kept for coordinates written into a scene (a thousandth of an inch)
DECIMALS = 3
#: corners of an outline closer than this (inches) along its length are one cut of its strips
STRIP_TOLERANCE = 0.02


@dataclass(frozen=True)
class SystemImport:
    """What a game system tells the importers (declared in `rulesets/<id>/importing.py`, handed
    over by the command): its names for a roster's stat lines, weapons and bases, how its units
    stand, and the rules keys of a layout's terrain traits.

    stats: characteristic name as BattleScribe data prints it (lower case) -> the scene's stat
    key; unit_profiles: the profile typeNames that hold a unit's stat line; weapon_keys: a
    weapon profile's characteristic (lower case) -> the key of an inline weapon entry (empty:
    weapons are written by name, the names the system's data knows); keywords: whether a
    unit's categories become its `keywords`; bases: base diameter (mm) by a word of the unit's
    type or categories, "default" for the rest; unit_gap: inches between the bases of one unit
    (under its coherency); traits: a layout trait or piece type (`difficult_ground`, `ruins`)
    -> the rules keys it gives a piece.
    """

    stats: dict[str, str] = field(default_factory=dict)
    unit_profiles: tuple[str, ...] = ()
    weapon_keys: dict[str, str] = field(default_factory=dict)
    keywords: bool = False
    bases: dict[str, float] = field(default_factory=lambda: {"default": 25.0})
    unit_gap: float = 1.0
    traits: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: a roster's `gameSystemName` (lower case) this system reads: a regular expression, and one
    #: for the games named alike that it does not (Kill Team, Warcry, ...); `edition`: the
    #: edition a name's "Nth Edition" must give, where it gives one
    roster_games: str = ""
    roster_not: str = ""
    edition: int | None = None

    @property
    def reads_rosters(self) -> bool:
        return bool(self.stats and self.unit_profiles)


@dataclass
class ImportOptions:
    """What the user gives beside the file (`battlesight import` arguments).

    ruleset: the scene's system (None: the format's own default); system: what that system
    tells the importers (`SystemImport`, filled in by the command); mods: the folder of TTS's
    cached OBJ files; model_tags / terrain_tags: how TTS objects are told apart; bases: base
    sizes (mm) by unit or model name, over the per-system table; zones and blocked: where the
    roster's player may set up, the footprints to keep clear of, the bases already there
    (x, y, radius) and the ids in use (filled in by the command from the --onto scene);
    table: that scene's table; mesh_folder: where converted meshes go, beside the scene;
    force: read a roster whose game system is not the scene's (`--force`).
    """

    ruleset: str | None = None
    system: SystemImport = field(default_factory=SystemImport)
    mods: Path | None = None
    model_tags: tuple[str, ...] = ("model", "mini", "miniature")
    model_tags_given: bool = False  # --model-tag named them: no figure is found by its size
    terrain_tags: tuple[str, ...] = ("terrain",)
    bases: dict[str, Any] = field(default_factory=dict)
    player: int = 1
    zone: np.ndarray | None = None
    blocked: list[np.ndarray] = field(default_factory=list)
    taken: list[tuple[float, float, float]] = field(default_factory=list)
    taken_ids: list[str] = field(default_factory=list)
    mesh_folder: str = "meshes"
    table: tuple[float, float] | None = None
    force: bool = False  # read a roster of another game system anyway (a warning, not a refusal)


@dataclass
class Imported:
    """An importer's result: the scene data, and the mesh files it converted (name -> bytes,
    written beside the scene)."""

    scene: dict[str, Any]
    files: dict[str, bytes] = field(default_factory=dict)
    #: what was read differently or left out, each a one-line `FILE: KEY: message`
    warnings: list[str] = field(default_factory=list)


def refuse(file: Path | str, key: str, message: str, line: int | None = None) -> SceneError:
    """The one-line refusal of an input an importer cannot read: `FILE:LINE: KEY: message`
    (`FILE: KEY: message` where the format has no lines; `<stdin>` for `-`)."""
    return SceneError([SceneProblem(file_label(file), line, key, message)])


def source_name(path: Path) -> str:
    """The input's file name as `x-source` keeps it (`<stdin>` for `-`)."""
    return file_label(path) if is_stdio(path) else path.name


def read_bytes(path: Path, what: str) -> bytes:
    """The file's bytes (standard input's for `-`), at most MAX_YAML_BYTES (a layout or save
    is far smaller)."""
    too_big = f"is larger than {MAX_YAML_BYTES // (1024 * 1024)} MiB"
    if is_stdio(path):
        piped = read_stdin(MAX_YAML_BYTES)
        if piped is None:
            raise refuse(path, what, too_big)
        return piped
    if not path.is_file():
        raise refuse(path, what, "not found" if not path.exists() else "is not a regular file")
    with path.open("rb") as fh:
        data = fh.read(MAX_YAML_BYTES + 1)
    if len(data) > MAX_YAML_BYTES:
        raise refuse(path, what, too_big)
    return data


class _BadNumber(ValueError):
    """A JSON number no scene can hold: its text and why."""

    def __init__(self, text: str, why: str):
        super().__init__(why)
        self.text, self.why = text, why


def _bounded_int(text: str) -> int:
    """A JSON whole number within ``limits.MAX_INT``, as the scene reader bounds YAML's (so a
    4,301-digit number meets this refusal, not Python's int-string limit)."""
    value = int(text) if len(text) <= 40 else None
    if value is None or abs(value) > MAX_INT:
        raise _BadNumber(text, f"whole number too large (the limit is {MAX_INT:,})")
    return value


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _BadNumber(text, "number too large (not finite)")
    return value


def _no_constant(text: str) -> float:
    raise _BadNumber(text, "not a finite number (NaN and infinities are refused)")


def _line_of_text(text: str, token: str) -> int | None:
    """The line where `token` first stands as a JSON value (not inside a longer number)."""
    found = re.search(rf"(?<![\w.]){re.escape(token)}(?![\w.])", text)
    return None if found is None else text.count("\n", 0, found.start()) + 1


def read_json(path: Path, what: str, lenient: bool = False) -> Any:
    """Parsed JSON; a syntax error is refused at its line, and so is a number no scene can
    hold (NaN, infinities, whole numbers beyond ``limits.MAX_INT``), as in scene files.
    lenient: control characters (a raw newline or tab) inside strings are read as they are,
    as Tabletop Simulator's own parser reads its saves."""
    raw = read_bytes(path, what)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise refuse(path, what, f"is not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text, strict=not lenient, parse_int=_bounded_int,
                          parse_float=_finite_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise refuse(path, "json", exc.msg, exc.lineno) from None
    except _BadNumber as exc:
        raise refuse(path, "json", f"{shorten(exc.text, 40)}: {exc.why}",
                     _line_of_text(text, exc.text)) from None
    except RecursionError:
        raise refuse(path, "json", "nested too deeply") from None


class Reader:
    """Typed access to a JSON value with the key path of each refusal (`pieces[3].polygon`)."""

    def __init__(self, file: Path | str):
        self.file = file

    def fail(self, key: str, message: str) -> SceneError:
        return refuse(self.file, key, message)

    def get(self, m: Any, key: str, path: str, default: Any = ..., kind: type | tuple = object):
        if not isinstance(m, dict):
            raise self.fail(path, f"must be an object, got {shown(m)}")
        where = f"{path}.{key}" if path else key
        if key not in m or m[key] is None:
            if default is ...:
                raise self.fail(where, "missing")
            return default
        value = m[key]
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not math.isfinite(value):
                raise self.fail(where, f"must be a number, got {shown(value)}")
            return self.bounded(float(value), where)
        if not isinstance(value, kind):
            name = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__
                                                                             for k in kind)
            raise self.fail(where, f"must be {_article(name)}, got {shown(value)}")
        return value

    def bounded(self, value: float, where: str) -> float:
        """The number, refused beyond ``limits.MAX_COORDINATE`` as the scene gate refuses such
        coordinates (a layout's numbers are inches, degrees and scales on a table; one that
        large overflowed the outline arithmetic with numpy warnings)."""
        if abs(value) > MAX_COORDINATE:
            raise self.fail(where, f"{value:,.6g} is beyond {MAX_COORDINATE:,g}: no table is "
                                   "that large")
        return value

    def number(self, m: Any, key: str, path: str, default: Any = ...) -> float:
        return self.get(m, key, path, default, float)

    def items(self, m: Any, key: str, path: str, default: Any = ...) -> list:
        return self.get(m, key, path, [] if default is ... else default, list)

    def point(self, value: Any, path: str) -> tuple[float, float]:
        """[x, y] or {x, y} as two numbers."""
        if isinstance(value, dict):
            return self.number(value, "x", path), self.number(value, "y", path)
        if isinstance(value, (list, tuple)) and len(value) >= 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                for v in value[:2]):
            return (self.bounded(float(value[0]), f"{path}[0]"),
                    self.bounded(float(value[1]), f"{path}[1]"))
        raise self.fail(path, f"must be a point [x, y] or {{x, y}}, got {shown(value)}")


def _article(name: str) -> str:
    return ("an " if name[:1] in "aeiou" else "a ") + name


def r(value: float) -> float | int:
    """A coordinate rounded for the scene file, an int when whole."""
    v = round(float(value), DECIMALS)
    return int(v) if v.is_integer() else v


def flip_y(points: Sequence[Sequence[float]] | np.ndarray, depth: float) -> np.ndarray:
    """(k, 2) plan points of a y-down board turned into table coordinates (y up): y -> depth - y."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2).copy()
    p[:, 1] = depth - p[:, 1]
    return p


def points(poly: np.ndarray) -> list[list[float | int]]:
    """A polygon as the scene writes it."""
    return [[r(x), r(y)] for x, y in np.asarray(poly, dtype=np.float64)]


#: Latin letters that NFKD does not split into a base letter and an accent
_LETTERS = str.maketrans({"ß": "ss", "æ": "ae", "ø": "o", "œ": "oe", "đ": "d", "ð": "d",
                          "ł": "l", "þ": "th", "ı": "i"})


def slug(text: Any, fallback: str = "item") -> str:
    """An id from a name: lower case, accents dropped ('Ruïne große Ærø' ->
    'ruine-grosse-aero'), runs of other characters as one '-'."""
    plain = unicodedata.normalize("NFKD", str(text).lower().translate(_LETTERS))
    plain = "".join(c for c in plain if not unicodedata.combining(c))
    s = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")
    return s or fallback


class Ids:
    """Unique ids within one scene (a second 'ruin' becomes 'ruin-2')."""

    def __init__(self, taken: Sequence[str] = ()):
        self.used: set[str] = set(taken)

    def new(self, name: Any, fallback: str = "piece") -> str:
        base = slug(name, fallback)
        ident, n = base, 1
        while ident in self.used:
            n += 1
            ident = f"{base}-{n}"
        self.used.add(ident)
        return ident


def box_from_rectangle(corners: np.ndarray) -> tuple[list, list, float]:
    """(at, [sx, sy], rotation) of a rectangle given by its 4 corners in order."""
    c = np.asarray(corners, dtype=np.float64)
    at = c.mean(axis=0)
    e1, e2 = c[1] - c[0], c[2] - c[1]
    rot = math.degrees(math.atan2(e1[1], e1[0]))
    return [r(at[0]), r(at[1])], [r(np.hypot(*e1)), r(np.hypot(*e2))], r(rot)


def rectangles_of(poly: np.ndarray) -> list[np.ndarray]:
    """Rectangles (4 corners each) that make up a polygon made of straight runs, such as the L
    and U wall outlines of layout tools: the polygon is turned so its longest edge lies along
    x, cut into strips between its distinct x coordinates, each strip's part kept as the
    rectangle around it; turned back. Exact for rectilinear outlines; an outline that is not
    (a slanted cut) becomes the rectangles around its strips."""
    import shapely

    p = np.asarray(poly, dtype=np.float64)
    edges = np.roll(p, -1, axis=0) - p
    longest = edges[int(np.argmax(np.hypot(edges[:, 0], edges[:, 1])))]
    angle = math.atan2(longest[1], longest[0])
    c, s = math.cos(-angle), math.sin(-angle)
    turn = np.array([[c, -s], [s, c]])
    local = p @ turn.T
    # corners closer than STRIP_TOLERANCE along x are one cut: snap them to their mean, so
    # float noise in the file leaves no sliver of one run inside the next strip
    order = np.argsort(local[:, 0], kind="stable")
    clusters: list[list[int]] = []
    for i in order:
        if clusters and local[i, 0] - local[clusters[-1][-1], 0] <= STRIP_TOLERANCE:
            clusters[-1].append(int(i))
        else:
            clusters.append([int(i)])
    for members in clusters:
        local[members, 0] = local[members, 0].mean()
    xs = [float(local[m[0], 0]) for m in clusters]
    shape = shapely.Polygon(local).buffer(0)
    y_lo, y_hi = float(local[:, 1].min()) - 1.0, float(local[:, 1].max()) + 1.0
    out = []
    for x0, x1 in zip(xs[:-1], xs[1:], strict=True):
        part = shape.intersection(shapely.box(x0, y_lo, x1, y_hi))
        for g in getattr(part, "geoms", [part]):
            if g.is_empty or g.area < 1e-9:
                continue
            bx0, by0, bx1, by1 = g.bounds
            if min(bx1 - bx0, by1 - by0) < STRIP_TOLERANCE:  # a sliver left by a cut
                continue
            rect = np.array([[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]])
            out.append(rect @ turn)  # turn back (turn is orthonormal)
    return _merge_strips(out)


def _merge_strips(rects: list[np.ndarray]) -> list[np.ndarray]:
    """Neighbouring strips with the same extent across merged into one rectangle."""
    merged: list[np.ndarray] = []
    for rect in rects:
        if merged:
            last = merged[-1]
            if np.allclose(last[1], rect[0], atol=1e-6) and np.allclose(last[2], rect[3],
                                                                        atol=1e-6):
                merged[-1] = np.array([last[0], rect[1], rect[2], last[3]])
                continue
        merged.append(rect)
    return merged
