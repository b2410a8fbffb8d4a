"""The board: a scene and its world seen through a ruleset (profiles, wounds, outlines).

`Board` keeps the scene (what is saved), the world (what rays see) and each model's state
(typed profile, wounds left) in step: moving or removing a model updates all three.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .groups import Groups, groups_of
from .measure import Outline, gap

if TYPE_CHECKING:
    from battlesight.geometry.placed import TerrainEntry
    from battlesight.geometry.types import TerrainGeometry
    from battlesight.geometry.world import World
    from battlesight.scenes.model import ModelSpec, Scene, TerrainPiece

    from .ruleset import Ruleset

T = TypeVar("T")


@dataclass
class ModelState:
    """One model: its scene entry, typed profile, wounds left, whether it is on the table."""

    spec: ModelSpec
    profile: Any
    wounds: int
    alive: bool = True
    on_table: bool = True
    status: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def unit(self) -> str:
        return self.spec.unit or self.spec.id

    @property
    def player(self) -> int:
        return self.spec.player


class Board:
    """Scene + world + model states for one ruleset."""

    def __init__(self, scene: Scene, world: World, ruleset: Ruleset):
        self.scene = scene
        self.world = world
        self.ruleset = ruleset
        self.models: dict[str, ModelState] = {}
        for spec in scene.models:
            profile = ruleset.load_profile(ruleset.raw_profile(scene, spec), spec)
            state = ModelState(spec, profile, ruleset.starting_wounds(profile))
            left = spec.extra.get("wounds_left")
            if isinstance(left, int) and 0 < left <= state.wounds:
                state.wounds = left
            state.on_table = spec.id in world.models
            self.models[spec.id] = state
        self._spare: dict[str, Any] = {}  # volumes of models taken off the table, by id
        #: what moved or left since take_changes; None until someone keeps a log (a Game)
        self._changes: list[dict[str, Any]] | None = None
        #: sight work shared by the judgements on this board, keyed by what it depends on
        #: (model positions), so moves never read stale entries
        self.sight_memo: dict[tuple, Any] = {}
        #: (kind, model id) -> (the placed volume and terrain count it was made for, value)
        self._per_model: dict[tuple[str, str], tuple[tuple, Any]] = {}
        self._unit_models: dict[tuple[str, bool, bool], list[str]] = {}
        self._per_unit: dict[tuple[str, str], tuple[tuple, Any]] = {}
        self._unit_ids: list[str] | None = None  # models never change unit
        #: units inside a terrain piece instead of on the table (aos2 garrisons): {unit:
        #: piece}, seen and measured through it by the ruleset's judgement; the scene sets
        #: them up, a game's actions change them
        self.inside: dict[str, str] = dict(ruleset.units_inside(self))

    # ---- lookups ----------------------------------------------------------------------------

    def model(self, model_id: str) -> ModelState:
        try:
            return self.models[model_id]
        except KeyError:
            raise KeyError(f"no model {model_id!r}") from None

    def profile(self, model_id: str) -> Any:
        return self.model(model_id).profile

    def unit_ids(self) -> list[str]:
        """Every unit that has or had models, in scene order."""
        if self._unit_ids is None:
            self._unit_ids = list(dict.fromkeys(m.unit for m in self.models.values()))
        return list(self._unit_ids)

    def has_unit(self, unit_id: str) -> bool:
        return any(m.unit == unit_id for m in self.models.values())

    def unit_models(self, unit_id: str, alive: bool = True, on_table: bool = True) -> list[str]:
        """Ids of the unit's models (alive / on the table unless asked otherwise), in scene
        order; kept until a model moves, leaves the table or is removed."""
        key = (unit_id, alive, on_table)
        if key not in self._unit_models:
            self._unit_models[key] = [
                m.id for m in self.models.values()
                if m.unit == unit_id and (m.alive or not alive) and (m.on_table or not on_table)
            ]
        return list(self._unit_models[key])

    def unit_player(self, unit_id: str) -> int:
        for m in self.models.values():
            if m.unit == unit_id:
                return m.player
        raise KeyError(f"no unit {unit_id!r}")

    def unit_of(self, model_id: str) -> str:
        return self.model(model_id).unit

    def units_of(self, player: int) -> list[str]:
        return [u for u in self.unit_ids() if self.unit_player(u) == player]

    def enemies_of(self, player: int) -> list[str]:
        return [u for u in self.unit_ids() if self.unit_player(u) != player]

    # ---- per-model cache --------------------------------------------------------------------

    def per_model(self, kind: str, model_id: str, make: Callable[[], T]) -> T:
        """make(), kept for the life of the board under (kind, model_id) until the model is
        moved, taken off or put back (every such change places a new volume in the world) or a
        terrain piece is added. For work that depends on the model's place and the terrain
        only: geometry, never a rule reading (those keep their own explicit keys)."""
        stamp = (self.world.models.get(model_id), len(self.world.terrain))
        hit = self._per_model.get((kind, model_id))
        if hit is not None and hit[0][0] is stamp[0] and hit[0][1] == stamp[1]:
            return hit[1]
        value = make()
        self._per_model[(kind, model_id)] = (stamp, value)
        return value

    def per_unit(self, kind: str, unit_id: str, make: Callable[[], T]) -> T:
        """make(), kept under (kind, unit_id) until one of the unit's models on the table moves,
        leaves or comes back (as `per_model`, for the unit's models together)."""
        stamp = tuple(self.world.models.get(m) for m in self.unit_models(unit_id))
        hit = self._per_unit.get((kind, unit_id))
        if hit is not None and len(hit[0]) == len(stamp) and \
                all(a is b for a, b in zip(hit[0], stamp, strict=True)):
            return hit[1]
        value = make()
        self._per_unit[(kind, unit_id)] = (stamp, value)
        return value

    # ---- geometry ---------------------------------------------------------------------------

    def outline(self, model_id: str) -> Outline:
        """The model's footprint where it stands now (kept until it moves)."""
        return self.per_model("outline", model_id, lambda: self._make_outline(model_id))

    def _make_outline(self, model_id: str) -> Outline:
        state = self.model(model_id)
        spec = state.spec
        placed = self.world.models.get(model_id)
        if placed is not None:
            center = (float(placed.position[0]), float(placed.position[1]))
            z, facing = float(placed.position[2]), float(placed.facing)
        else:
            center, z, facing = (float(spec.at[0]), float(spec.at[1])), 0.0, float(spec.facing)
        rect = self.ruleset.is_vehicle(state.profile) and not spec.is_round
        return Outline(center, z, float(spec.height), spec.base_radii_in, facing, rect)

    def pieces_under(self, model_id: str) -> list[TerrainEntry]:
        """Terrain pieces whose footprint any part of the model's base meets, in scene order
        (one query of the world's footprint index, kept until the model moves)."""
        ids = self.per_model("under", model_id,
                             lambda: self.world.footprints.under(self.outline(model_id).shape))
        return [self.world.terrain[i] for i in ids]

    @property
    def groups(self) -> Groups:
        """The terrain pieces as the rules count them (`groups.Groups`: a `group` of shapes is
        one piece), rebuilt only when a terrain piece is added."""
        return groups_of(self.world)

    def pieces_in(self, model_id: str) -> list[str]:
        """The pieces (group names, or shape ids) whose outline any part of the model's base
        meets, in scene order: the base between two wall boxes of a grouped ruin is in it."""
        return self.per_model("in", model_id,
                              lambda: self.groups.under(self.outline(model_id).shape))

    def position(self, model_id: str) -> np.ndarray:
        return np.asarray(self.world.models[model_id].position, float)

    def eye(self, model_id: str) -> np.ndarray:
        return np.asarray(self.world.models[model_id].eye, float)

    def gap(self, a: str, b: str, mode: str | None = None) -> float:
        return gap(self.outline(a), self.outline(b), mode or self.ruleset.measure_mode)

    def unit_gap(self, unit_a: str, unit_b: str, mode: str | None = None) -> float:
        """Closest distance between two units' models (inf if either has none)."""
        a, b = self.unit_models(unit_a), self.unit_models(unit_b)
        return min((self.gap(x, y, mode) for x in a for y in b), default=float("inf"))

    def floor_of(self, model_id: str) -> int | None:
        return self.model(model_id).spec.floor

    # ---- changes ----------------------------------------------------------------------------

    def move(
        self, model_id: str, at: tuple[float, float], facing: float | None = None,
        floor: int | None = None,
    ) -> None:
        """Move a model on the world and in the scene (floor None = the ground or surface)."""
        state = self.model(model_id)
        self._unit_models.clear()
        at = (float(at[0]), float(at[1]))
        if model_id in self.world.models:
            self.world.move_model(model_id, at, facing, floor=floor)
        else:
            volume = self._spare.pop(model_id)
            self.world.add_model(
                model_id, volume, at, state.spec.facing if facing is None else facing,
                floor=floor, player=state.player, unit=state.unit,
            )
            state.on_table = True
        state.spec.at = at
        state.spec.floor = floor or None
        if facing is not None:
            state.spec.facing = float(facing) % 360.0
        placed = self.world.models[model_id]
        self._journal({"model": model_id, "at": [round(at[0], 4), round(at[1], 4)],
                       "z": round(float(placed.position[2]), 4),
                       "facing": round(float(placed.facing), 3)})

    def take_off(self, model_id: str) -> None:
        """Remove a model from the table but keep it (reserves, embarked)."""
        state = self.model(model_id)
        self._unit_models.clear()
        if model_id in self.world.models:
            self._spare[model_id] = self.world.models[model_id].volume
            self.world.remove_model(model_id)
        state.on_table = False
        self._journal({"model": model_id, "off_table": True})

    def remove(self, model_id: str) -> None:
        """A casualty: off the world and out of the scene."""
        state = self.model(model_id)
        self._unit_models.clear()
        if model_id in self.world.models:
            self.world.remove_model(model_id)
        state.alive = False
        state.on_table = False
        self.scene.models = [m for m in self.scene.models if m.id != model_id]
        self._journal({"model": model_id, "removed": True})

    def add_piece(self, piece: TerrainPiece, geometry: TerrainGeometry, data: dict[str, Any]
                  ) -> None:
        """A terrain piece the game puts on the table (a wreck): into the world (with its rules
        `data`) and the scene (what is saved), journalled as `{terrain: ID, added: {type, ...
        the scene entry}}` so that `battlesight replay` draws it where the game made it."""
        self.world.add_terrain(piece.id, piece.type, geometry, data)
        self.scene.terrain.append(piece)
        self._journal({"terrain": piece.id, "added": {"type": piece.type, **piece.data}})

    def _journal(self, change: dict[str, Any]) -> None:
        if self._changes is not None:
            self._changes.append(change)

    def take_changes(self) -> list[dict[str, Any]]:
        """Every change to the table since the last call, in order: a model placed
        `{model, at, z, facing}`, taken off `{model, off_table}` or a casualty
        `{model, removed}`, a piece put on the table `{terrain, added}` (the log's `changes`,
        which `battlesight replay` draws). The first
        call starts the journal: a board nobody logs (the viewer's, the API's) keeps none."""
        changes, self._changes = self._changes or [], []
        return changes

    def set_wounds(self, model_id: str, wounds: int) -> None:
        state = self.model(model_id)
        state.wounds = wounds
        full = self.ruleset.starting_wounds(state.profile)
        if wounds < full:
            state.spec.extra["wounds_left"] = wounds
        else:
            state.spec.extra.pop("wounds_left", None)
