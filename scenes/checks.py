"""Small value checks shared by the scene validator: numbers, points, polygons.

Each check reads ``mapping[key]``, reports a problem through the Checker when the value is
wrong, and returns the value converted (floats, tuples) or None.
"""

from __future__ import annotations

import math
import reprlib
from pathlib import Path
from typing import Any

import numpy as np
from battlesight.geometry.primitives import (
    BuildInputError,
    require_simple_polygon,
)

from .errors import SceneProblem
from .footprints import signed_area
from .limits import MAX_COORDINATE, MAX_POLYGON_POINTS

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxtuple = 3, 6, 4, 6
_SHORT.maxstring, _SHORT.maxother = 60, 40


def show(value: Any, limit: int = 60) -> str:
    """A short printable form of a YAML value for messages (bounded, one line)."""
    text = _SHORT.repr(value)
    text = " ".join(text.splitlines())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_number(value: Any) -> bool:
    """An int or float, but not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def is_int(value: Any) -> bool:
    """An int, but not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def line_of(mapping: Any, key: Any = None) -> int | None:
    """Line of ``key`` in a mapping read from a file (or of the mapping itself); else None."""
    lines = getattr(mapping, "lines", None)
    if key is not None and isinstance(lines, dict) and key in lines:
        return lines[key]
    return getattr(mapping, "line", None)


def item_line(seq: Any, index: int) -> int | None:
    """Line of item ``index`` of a sequence read from a file, else None."""
    lines = getattr(seq, "lines", None)
    if isinstance(lines, list) and index < len(lines):
        return lines[index]
    return getattr(seq, "line", None)


def _number_hint(value: Any) -> str:
    """For text that YAML did not read as a number ('1e6' needs a point: 1.0e6)."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return ""
        return " (YAML reads this as text: write it with a decimal point and a signed " \
               "exponent, e.g. 1.0e+6)"
    return ""


def _on_one_line(points: list[tuple]) -> bool:
    """Whether every point lies on one line (or on one spot): no outline encloses area."""
    offsets = np.asarray(points, dtype=np.float64) - np.asarray(points[0], dtype=np.float64)
    return int(np.linalg.matrix_rank(offsets, tol=1e-9)) < 2


class Checker:
    """Collects problems for one file."""

    def __init__(self, file: str, scene_dir: Path | None = None):
        self.file = file
        self.scene_dir = scene_dir
        self.problems: list[SceneProblem] = []

    def add(self, line: int | None, key: str, message: str) -> None:
        """Record one problem."""
        self.problems.append(SceneProblem(self.file, line, key, message))

    def missing(self, mapping: Any, path: str, key: str, why: str = "") -> None:
        """Record a missing required key (at the line of the mapping)."""
        self.add(line_of(mapping), f"{path}.{key}", f"missing required key {key!r}{why}")

    # -- numbers -------------------------------------------------------------------------
    def number_value(self, value: Any, line: int | None, key: str, *, positive: bool = False,
                     nonneg: bool = False) -> float | None:
        """Check one value is a finite number (> 0 or >= 0 when asked)."""
        if not is_number(value):
            self.add(line, key, f"must be a number, got {show(value)}{_number_hint(value)}")
            return None
        if not math.isfinite(value):
            self.add(line, key, f"must be a finite number, got {show(value)}")
            return None
        if abs(value) > MAX_COORDINATE:
            self.add(line, key, f"must be between -{MAX_COORDINATE:g} and {MAX_COORDINATE:g}, "
                                f"got {show(value)}")
            return None
        if positive and value <= 0:
            self.add(line, key, f"must be greater than 0, got {show(value)}")
            return None
        if nonneg and value < 0:
            self.add(line, key, f"must not be negative, got {show(value)}")
            return None
        return float(value)

    def number(self, m: Any, key: str, path: str, *, required: bool = False,
               positive: bool = False, why: str = "") -> float | None:
        """``m[key]`` as a finite number; None (and a problem if required) when absent."""
        if key not in m:
            if required:
                self.missing(m, path, key, why)
            return None
        return self.number_value(m[key], line_of(m, key), f"{path}.{key}", positive=positive)

    def numbers_value(self, value: Any, line: int | None, key: str, count: int | tuple[int, ...],
                      *, positive: bool = False) -> tuple[float, ...] | None:
        """Check a list of ``count`` finite numbers."""
        counts = (count,) if isinstance(count, int) else count
        want = " or ".join(str(c) for c in counts)
        if not isinstance(value, list) or len(value) not in counts:
            self.add(line, key, f"must be a list of {want} numbers, got {show(value)}")
            return None
        out = []
        for v in value:
            if not is_number(v) or not math.isfinite(v):
                self.add(line, key, f"must be a list of {want} finite numbers, got {show(value)}")
                return None
            if abs(v) > MAX_COORDINATE:
                self.add(line, key, f"values must be between -{MAX_COORDINATE:g} and "
                                    f"{MAX_COORDINATE:g}, got {show(value)}")
                return None
            if positive and v <= 0:
                self.add(line, key, f"values must be greater than 0, got {show(value)}")
                return None
            out.append(float(v))
        return tuple(out)

    def numbers(self, m: Any, key: str, path: str, count: int | tuple[int, ...], *,
                required: bool = False, positive: bool = False,
                why: str = "") -> tuple[float, ...] | None:
        """``m[key]`` as a tuple of ``count`` finite numbers."""
        if key not in m:
            if required:
                self.missing(m, path, key, why)
            return None
        return self.numbers_value(m[key], line_of(m, key), f"{path}.{key}", count,
                                  positive=positive)

    def point(self, m: Any, key: str, path: str, *, required: bool = False,
              why: str = "") -> tuple[float, float] | None:
        """``m[key]`` as an (x, y) point."""
        p = self.numbers(m, key, path, 2, required=required, why=why)
        return None if p is None else (p[0], p[1])

    def polygon_value(self, value: Any, line: int | None, key: str) -> list[tuple] | None:
        """Check a polygon: a list of at least 3 [x, y] points enclosing some area."""
        if not isinstance(value, list) or len(value) < 3:
            self.add(line, key, f"must be a list of at least 3 [x, y] points, got {show(value)}")
            return None
        if len(value) > MAX_POLYGON_POINTS:
            self.add(line, key, f"has {len(value)} points (at most {MAX_POLYGON_POINTS})")
            return None
        pts = []
        for i, v in enumerate(value):
            p = self.numbers_value(v, item_line(value, i), f"{key}[{i}]", 2)
            if p is None:
                return None
            pts.append(p)
        if abs(signed_area(pts)) < 1e-12 and _on_one_line(pts):
            self.add(line, key, "polygon has no area (its points are collinear or repeated)")
            return None
        try:
            require_simple_polygon(pts, key)
        except BuildInputError as error:
            self.add(line, key, str(error))
            return None
        return pts

    def string(self, m: Any, key: str, path: str, *, required: bool = False,
               why: str = "") -> str | None:
        """``m[key]`` as a non-empty string."""
        if key not in m:
            if required:
                self.missing(m, path, key, why)
            return None
        v = m[key]
        if not isinstance(v, str) or not v.strip():
            self.add(line_of(m, key), f"{path}.{key}", f"must be a non-empty string, got {show(v)}")
            return None
        return v


def plain(value: Any, _memo: dict[int, Any] | None = None) -> Any:
    """A copy with LineDict/LineList (and tuples) turned into plain dicts and lists.

    Containers shared through YAML aliases stay shared in the copy, so a document full of
    nested aliases ("billion laughs") costs no more to convert than to parse.
    """
    if not isinstance(value, (dict, list, tuple)):
        return value
    memo = {} if _memo is None else _memo
    key = id(value)
    if key in memo:
        return memo[key]
    if isinstance(value, dict):
        out: Any = {}
        memo[key] = out
        for k, v in value.items():
            out[k] = plain(v, memo)
    else:
        out = []
        memo[key] = out
        out.extend(plain(v, memo) for v in value)
    return out
