"""Where an action sends models: destinations parsed from `to:` / `by:`, and where a model
would stand there (shared by systems)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .measure import Outline
from .ruling import Ruling

if TYPE_CHECKING:
    from .board import Board


@dataclass
class Dest:
    """Where one model goes: plan point, floor (None = ground or surface), facing."""

    at: tuple[float, float]
    floor: int | None = None
    facing: float | None = None


def parse_destinations(board: Board, unit: str, params: dict[str, Any]) -> dict[str, Dest]:
    """{model: Dest} from an action's `to: {model: [x, y] | {at, floor, facing}}` or
    `by: [dx, dy]` (every model of the unit); raises ValueError on bad input."""
    models = board.unit_models(unit)
    out: dict[str, Dest] = {}
    if "by" in params:
        dx, dy = parse_point(params["by"], "by")
        for m in models:
            c = board.outline(m).center
            out[m] = Dest((c[0] + dx, c[1] + dy), board.floor_of(m))
    to = params.get("to") or {}
    if not isinstance(to, dict):
        raise ValueError(f"'to' must map models to points ({{model: [x, y]}}), got {to!r}")
    for key, value in to.items():
        if key not in models:
            raise ValueError(f"{key!r} is not a model of {unit} on the table")
        if isinstance(value, dict):
            at = value.get("at", board.outline(key).center)
            floor, facing = value.get("floor"), value.get("facing")
            if floor is not None and (isinstance(floor, bool) or not isinstance(floor, int)):
                raise ValueError(f"to: {key}: 'floor' must be a floor number, got {floor!r}")
            if facing is not None and not _number(facing):
                raise ValueError(f"to: {key}: 'facing' must be a number, got {facing!r}")
            out[key] = Dest(parse_point(at, f"to: {key}"), floor, facing)
        else:
            out[key] = Dest(parse_point(value, f"to: {key}"), None)
    if not out:
        raise ValueError("a move needs 'to: {model: [x, y]}' or 'by: [dx, dy]'")
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float, np.floating, np.integer)) and \
        not isinstance(value, bool) and math.isfinite(value)


def parse_point(value: Any, where: str) -> tuple[float, float]:
    """(x, y) from [x, y]; ValueError naming `where` otherwise."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(_number(v) for v in value):
        return float(value[0]), float(value[1])
    raise ValueError(f"{where}: expected [x, y] in inches, got {value!r}")


def kept_floor(world, at: tuple[float, float], floor: int | None) -> int | None:
    """The floor a model on `floor` stands on at `at`: the same one where it is there
    (a ruin floor, a mesh storey), else None (the ground or the surface beneath)."""
    if not floor:
        return None
    try:
        world.stand_height(at, floor)
    except ValueError:
        return None
    return floor


def outline_at(board: Board, model: str, dest: Dest) -> Outline:
    """The model's outline if it stood at dest (raises ValueError for an impossible floor)."""
    now = board.outline(model)
    z = board.world.stand_height(dest.at, dest.floor)
    facing = now.facing if dest.facing is None else float(dest.facing)
    return Outline(dest.at, z, now.height, now.radii, facing, now.rect)


def placement(board: Board, model: str, dest: Dest, table_rule: str,
              floor_rule: str) -> Outline | Ruling:
    """Where the model would stand at dest, or the refusal: off the table (`table_rule`), or
    on a floor that is not there (`floor_rule`)."""
    width, depth = board.world.table
    if not (0 <= dest.at[0] <= width and 0 <= dest.at[1] <= depth):
        return Ruling(False, table_rule, f"{model} would leave the table at {dest.at}")
    try:
        return outline_at(board, model, dest)
    except ValueError as exc:
        return Ruling(False, floor_rule, f"{model}: {exc}")
