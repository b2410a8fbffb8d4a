"""Where an action sends models: destinations parsed from `to:` / `by:` (shared by systems)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
        dx, dy = (float(v) for v in params["by"])
        for m in models:
            c = board.outline(m).center
            out[m] = Dest((c[0] + dx, c[1] + dy), board.floor_of(m))
    for key, value in (params.get("to") or {}).items():
        if key not in models:
            raise ValueError(f"{key!r} is not a model of {unit} on the table")
        if isinstance(value, dict):
            at = value.get("at", board.outline(key).center)
            out[key] = Dest((float(at[0]), float(at[1])), value.get("floor"), value.get("facing"))
        else:
            out[key] = Dest((float(value[0]), float(value[1])), None)
    if not out:
        raise ValueError("a move needs 'to: {model: [x, y]}' or 'by: [dx, dy]'")
    return out
