"""Ranked units (whfb6 §3): a block of files and ranks on square bases, placed by the centre
of its front edge and its facing; wheels, advances, casualty removal, facings of a block.

The scene's `formation: {front, facing, files, ranks}` is the truth. The scene's model list
gives the ids, roles and the order in which models fill the slots (front rank first, each rank
from the unit's left). At game start every model within `KEEP_TOLERANCE` of its slot stays
where the scene put it (hand-written scenes round 20 mm to 0.8"); a model further off is moved
onto its slot and a `formation` event names it. After any move the models are laid out anew.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.measure import Outline, vehicle_facing

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.game import Game

RULE_FORMATION = "whfb6 §3"
KEEP_TOLERANCE = 0.25
COMMAND_ROLES = ("champion", "standard", "musician")


@dataclass(frozen=True)
class Formation:
    """A block: front-edge centre, facing (degrees), files, file width and rank depth (in)."""

    front: tuple[float, float]
    facing: float
    files: int
    width: float
    depth: float

    @property
    def forward(self) -> np.ndarray:
        t = math.radians(self.facing)
        return np.array([-math.sin(t), math.cos(t)])

    @property
    def right(self) -> np.ndarray:
        t = math.radians(self.facing)
        return np.array([math.cos(t), math.sin(t)])

    @property
    def frontage(self) -> float:
        return self.files * self.width

    def ranks(self, n: int) -> int:
        return max(1, math.ceil(n / self.files))

    def slots(self, n: int) -> list[tuple[float, float]]:
        """Centres of n models, rank by rank from the unit's left; a short last rank is
        centred."""
        out = []
        front = np.asarray(self.front, float)
        for i in range(n):
            rank, file = divmod(i, self.files)
            in_rank = min(self.files, n - rank * self.files)
            offset = (file - (in_rank - 1) / 2.0) * self.width
            p = front - self.forward * (rank + 0.5) * self.depth + self.right * offset
            out.append((float(p[0]), float(p[1])))
        return out

    def centre(self, n: int) -> np.ndarray:
        return np.asarray(self.front) - self.forward * self.ranks(n) * self.depth / 2.0

    def hull(self, n: int, z: float = 0.0) -> Outline:
        """The block as a rectangle (for facings and distances)."""
        c = self.centre(n)
        return Outline((float(c[0]), float(c[1])), z, 1.0,
                       (self.ranks(n) * self.depth / 2.0, self.frontage / 2.0), self.facing, True)

    def corners(self, n: int) -> dict[str, np.ndarray]:
        f = np.asarray(self.front, float)
        half = self.right * self.frontage / 2.0
        back = self.forward * self.ranks(n) * self.depth
        return {"front_left": f - half, "front_right": f + half,
                "rear_left": f - half - back, "rear_right": f + half - back}

    def advanced(self, distance: float) -> Formation:
        p = np.asarray(self.front) + self.forward * distance
        return replace(self, front=(float(p[0]), float(p[1])))

    def wheeled(self, angle: float) -> tuple[Formation, float]:
        """Wheel by `angle` degrees (+ = to the left, counter-clockwise) about the inner front
        corner; the cost is the arc of the outer corner (whfb6 §3)."""
        if abs(angle) < 1e-9:
            return self, 0.0
        pivot = np.asarray(self.front) + (-1 if angle > 0 else 1) * self.right * self.frontage / 2
        t = math.radians(angle)
        rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        front = pivot + rot @ (np.asarray(self.front) - pivot)
        new = replace(self, front=(float(front[0]), float(front[1])),
                      facing=(self.facing + angle) % 360.0)
        return new, abs(t) * self.frontage

    def to_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items()}


def from_dict(data: dict[str, Any]) -> Formation:
    return Formation(tuple(data["front"]), float(data["facing"]), int(data["files"]),
                     float(data["width"]), float(data["depth"]))


def base_size(board: Board, model: str) -> tuple[float, float]:
    """(width across, depth along) of a model's square base in inches."""
    along, across = board.model(model).spec.base_radii_in
    return 2 * across, 2 * along


def formation(game: Game, unit: str) -> Formation | None:
    data = game.unit(unit).status.get("formation")
    return from_dict(data) if data else None


def order(game: Game, unit: str) -> list[str]:
    """The unit's living models in slot order."""
    alive = set(game.board.unit_models(unit))
    return [m for m in game.unit(unit).status.get("order", []) if m in alive]


def set_formation(game: Game, unit: str, form: Formation, place: bool = True) -> list[dict]:
    """Store a unit's formation and (by default) lay its models out on their slots."""
    state = game.unit(unit)
    state.status["formation"] = form.to_dict()
    if not place:
        return []
    models = order(game, unit)
    moved = []
    for m, at in zip(models, form.slots(len(models)), strict=True):
        before = game.board.outline(m).center
        game.board.move(m, at, form.facing)
        moved.append({"model": m, "from": [round(v, 3) for v in before],
                      "to": [round(v, 3) for v in at]})
    return moved


def init_formations(game: Game) -> None:
    """Read each unit's `formation:` (whfb6 §3) and check or regenerate its models."""
    for unit, state in game.units.items():
        entry = game.board.scene.unit(unit) or {}
        models = game.board.unit_models(unit)
        state.status["order"] = list(models)
        spec = entry.get("formation")
        if not spec or not models:
            continue
        width, depth = base_size(game.board, models[0])
        form = Formation((float(spec["front"][0]), float(spec["front"][1])),
                         float(spec.get("facing", 0.0)) % 360.0, int(spec["files"]), width,
                         depth)
        slots = form.slots(len(models))
        off = [m for m, at in zip(models, slots, strict=True)
               if math.dist(game.board.outline(m).center, at) > KEEP_TOLERANCE]
        state.status["formation"] = form.to_dict()
        if off:
            set_formation(game, unit, form)
            game.emit("formation", unit, moved=off, rule=RULE_FORMATION,
                      reason=f"{len(off)} models were more than {KEEP_TOLERANCE}\" off their "
                             "slots and were placed on them")
        declared = int(spec.get("ranks", form.ranks(len(models))))
        if declared != form.ranks(len(models)):
            game.emit("formation", unit, rule=RULE_FORMATION,
                      reason=f"formation says {declared} ranks; {len(models)} models in "
                             f"{form.files} files make {form.ranks(len(models))}")


def rank_sizes(n: int, files: int) -> list[int]:
    full, rest = divmod(n, files)
    return [files] * full + ([rest] if rest else [])


def ranks_of(models: list[str], files: int, first: int) -> list[str]:
    """The models of the first `first` ranks."""
    return models[: files * first]


def casualties(models: list[str], n: int, roles: dict[str, str | None]) -> list[str]:
    """Which models to take off for n casualties: from the rear, command models last
    (whfb6 §8.5: standard bearer and musician stay in the front rank)."""
    plain = [m for m in reversed(models) if roles.get(m) not in COMMAND_ROLES]
    command = [m for m in reversed(models) if roles.get(m) in COMMAND_ROLES]
    return (plain + command)[:n]


def side_attacked(target: Formation, n: int, point: tuple[float, float]) -> str:
    """'front', 'flank' or 'rear': the facing of a block that a unit at `point` is in."""
    side = vehicle_facing(target.hull(n), np.asarray(point, float))
    return "flank" if side == "side" else side


def contact_edge(target: Formation, n: int, side: str,
                 towards: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """(centre of the attacked edge, facing unit vector a charger on it must look along)."""
    c = target.corners(n)
    if side == "front":
        return (c["front_left"] + c["front_right"]) / 2, -target.forward
    if side == "rear":
        return (c["rear_left"] + c["rear_right"]) / 2, target.forward
    left = (c["front_left"] + c["rear_left"]) / 2
    right = (c["front_right"] + c["rear_right"]) / 2
    if math.dist(left, towards) < math.dist(right, towards):
        return left, target.right
    return right, -target.right


def facing_of(direction: np.ndarray) -> float:
    """Facing in degrees of a plan direction (0 = +y, counter-clockwise)."""
    return math.degrees(math.atan2(-direction[0], direction[1])) % 360.0
