"""Damage capacity (wmh2 §9.1, §9.2): a row of boxes (troopers have one), a warjack's damage
grid with system boxes, or a warbeast's life spiral with its aspects.

A grid is six columns marked from the top: a d6 picks the column, a full column passes the
rest to the next one on the right (6 wraps to 1). A spiral is six branches filled from the
outside in: a d6 picks the branch, a full branch passes on to the next. A system (or aspect)
is crippled when all its boxes are marked; the model is destroyed when every box is.
The marks live in the model's status (`track`), the boxes left in the board's wounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

    from .profile import Profile

RULE_DAMAGE = "wmh2 §9.1"
RULE_GRID = "wmh2 §9.2 (damage grid)"
RULE_SPIRAL = "wmh2 §9.2 (life spiral)"
SYSTEMS = {"L": "left arm", "R": "right arm", "H": "head", "M": "movement", "C": "cortex",
           "A": "arc node"}
ASPECTS = {"M": "mind", "B": "body", "S": "spirit"}


@dataclass
class Marked:
    """What one damage application did."""

    points: int
    start: int | None = None  # column or branch rolled (1-6)
    boxes: list[str] = field(default_factory=list)
    crippled: list[str] = field(default_factory=list)
    destroyed: bool = False
    left: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"points": self.points, "start": self.start, "boxes": list(self.boxes),
                "crippled": list(self.crippled), "destroyed": self.destroyed,
                "left": self.left}


def track_of(profile: Profile) -> list[str] | None:
    return profile.grid or profile.spiral


def marks(board: Board, model: str) -> list[list[bool]]:
    """The marked boxes of a grid or spiral (created unmarked on first use)."""
    state = board.model(model)
    track = track_of(state.profile)
    if track is None:
        return []
    if "track" not in state.status:
        state.status["track"] = [[False] * len(col) for col in track]
    return state.status["track"]


def crippled(board: Board, model: str) -> set[str]:
    """Names of the crippled systems (grid) or aspects (spiral)."""
    state = board.model(model)
    track = track_of(state.profile)
    if track is None:
        return set()
    names = SYSTEMS if state.profile.grid else ASPECTS
    marked = marks(board, model)
    letters: dict[str, list[bool]] = {}
    for col, ticks in zip(track, marked, strict=True):
        for letter, tick in zip(col, ticks, strict=True):
            if letter in names:
                letters.setdefault(letter, []).append(tick)
    return {names[k] for k, v in letters.items() if all(v)}


def apply_damage(board: Board, model: str, points: int, start: int | None = None) -> Marked:
    """Mark `points` damage on a model; `start` is the column/branch die (grids and spirals).
    A destroyed model is removed from the table."""
    state = board.model(model)
    out = Marked(points, start)
    if points <= 0:
        out.left = state.wounds
        return out
    track = track_of(state.profile)
    before = crippled(board, model)
    if track is None:
        left = max(0, state.wounds - points)
        out.boxes = ["box"] * (state.wounds - left)
        board.set_wounds(model, left)
    else:
        ticks = marks(board, model)
        col = (start or 1) - 1
        todo = points
        for _ in range(6):
            column = ticks[col]
            for i, tick in enumerate(column):
                if todo and not tick:
                    column[i] = True
                    out.boxes.append(track[col][i])
                    todo -= 1
            if not todo:
                break
            col = (col + 1) % 6
        left = sum(not t for column in ticks for t in column)
        board.set_wounds(model, left)
        out.crippled = sorted(crippled(board, model) - before)
    out.left = board.model(model).wounds
    if out.left <= 0:
        out.destroyed = True
        board.remove(model)
    return out


def heal(board: Board, model: str, points: int) -> int:
    """Remove up to `points` damage (boxes of a spiral from the inside out); returns how
    many were removed."""
    state = board.model(model)
    full = board.ruleset.starting_wounds(state.profile)
    healed = min(points, full - state.wounds)
    if healed <= 0:
        return 0
    if track_of(state.profile) is not None:
        todo = healed
        for column in marks(board, model):
            for i in range(len(column) - 1, -1, -1):
                if todo and column[i]:
                    column[i] = False
                    todo -= 1
    board.set_wounds(model, state.wounds + healed)
    return healed
