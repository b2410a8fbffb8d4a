"""The phase engine: game turns, player turns, phases and steps, actions and the event log.

`Game(scene, ruleset, seed)` starts at game turn 1, the first player's first phase. Actions
are mappings such as `{do: move, unit: tac-1, to: {...}}`. `legal(action)` says whether the
action may be taken now and why not; `apply(action)` refuses an illegal action with the reason
(never an exception for a rules problem), or resolves it through the ruleset, which updates the
board (scene + world) and appends events with the dice rolled. Every die comes from one seeded
`Roller`, so the same scene, seed and actions replay identically.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from battlesight.scenes.errors import SceneBuildError, SceneProblem

from .action_keys import action_problems
from .board import Board
from .dice import Roller
from .ruleset import CORE_ACTIONS, Phase, Ruleset, Step, get_ruleset
from .ruling import Ruling

if TYPE_CHECKING:
    from battlesight.geometry.world import World
    from battlesight.scenes.model import Scene


@dataclass
class Action:
    """One thing a player asks to do: `kind` plus its parameters."""

    kind: str
    unit: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    player: int | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any] | Action) -> Action:
        if isinstance(data, Action):
            return data
        if not isinstance(data, dict):
            raise ValueError(f"an action must be a mapping, got {data!r}")
        rest = dict(data)
        kind = rest.pop("do", None) or rest.pop("action", None)
        if not kind:
            raise ValueError(f"an action needs 'do': {data!r}")
        if not isinstance(kind, str):
            raise ValueError(f"'do' must be the name of an action, got {kind!r}")
        unit = rest.pop("unit", None)
        player = rest.pop("player", None)
        return cls(str(kind), None if unit is None else str(unit), rest, player)

    def get(self, key: str, default: Any = None) -> Any:
        return self.params.get(key, default)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"do": self.kind}
        if self.unit is not None:
            out["unit"] = self.unit
        if self.player is not None:
            out["player"] = self.player
        out.update(self.params)
        return out


#: Parameters the systems read as an id (model, unit, terrain piece, weapon, spell...) ...
ID_PARAMS = ("target", "model", "feature", "weapon", "spell", "power", "pick", "order",
             "reaction")
#: ... as a number ...
NUMBER_PARAMS = ("facing", "stop_at", "amount", "files")
#: ... and as a plan offset [dx, dy].
OFFSET_PARAMS = ("by",)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and \
        math.isfinite(value)


def param_problem(action: Action) -> str | None:
    """Why the parameters of an action have the wrong type (a list where an id goes, text
    where a number goes...), or None. Systems then read them without tripping over types."""
    for key in ID_PARAMS:
        value = action.params.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
            return f"'{action.kind}': '{key}' must be an id, got {value!r}"
    for key in NUMBER_PARAMS:
        value = action.params.get(key)
        if value is not None and not _is_number(value):
            return f"'{action.kind}': '{key}' must be a number, got {value!r}"
    for key in OFFSET_PARAMS:
        value = action.params.get(key)
        if key in action.params and not (isinstance(value, (list, tuple)) and len(value) == 2
                                         and all(_is_number(v) for v in value)):
            return f"'{action.kind}': '{key}' must be [dx, dy] in inches, got {value!r}"
    return None


@dataclass
class Event:
    """One entry of the log."""

    seq: int
    game_turn: int
    player: int
    phase: str
    step: str
    kind: str
    unit: str | None
    data: dict[str, Any]
    rolls: list[dict[str, Any]]
    changes: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq, "game_turn": self.game_turn, "player": self.player,
            "phase": self.phase, "step": self.step, "kind": self.kind, "unit": self.unit,
            "data": self.data, "rolls": self.rolls, "changes": self.changes,
        }


@dataclass
class Result:
    """What `apply` did: ok, the reason when refused, the events it added."""

    ok: bool
    reason: str
    events: list[Event]
    rule: str = ""


@dataclass
class UnitState:
    """Per-unit game state: `turn` flags are cleared at the start of the owner's player turn;
    `status` persists (gone to ground, falling back, locked, reserves...)."""

    id: str
    player: int
    starting_models: int
    turn: dict[str, Any] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    phase_start_models: int = 0


class Game:
    """A game in progress on one scene."""

    def __init__(
        self, scene: Scene, ruleset: Ruleset | str | None = None, seed: int = 0,
        world: World | None = None, first_player: int | None = None,
    ):
        if ruleset is None:
            ruleset = scene.ruleset
        self.ruleset = get_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
        if world is None:
            from battlesight.scenes.build import build_world

            world = build_world(scene)
        self.board = Board(scene, world, self.ruleset)
        self.board.take_changes()  # the log keeps what happens to the table from here on
        self.seed = int(seed)
        self.roller = Roller(self.seed)
        players = sorted({m.player for m in scene.models})
        if not players:  # a valid scene for sight questions, but nobody to take a turn
            raise SceneBuildError([SceneProblem(
                scene.file, scene.line_of("models"), "models",
                "a game needs the models of at least one player; the scene has none")])
        if first_player is not None and first_player in players:
            players.remove(first_player)
            players.insert(0, first_player)
        self.turn_order: list[int] = players
        self.game_turn = 1
        self.player_index = 0
        self.phase_index = 0
        self.step_index = 0
        self.over = False
        self.winner: int | None = None
        self.log: list[Event] = []
        self.units: dict[str, UnitState] = {
            u: UnitState(u, self.board.unit_player(u), len(self.board.unit_models(u, True, False)))
            for u in self.board.unit_ids()
        }
        self.ruleset.start_game(self)
        self.emit("game_start", seed=self.seed, ruleset=self.ruleset.id,
                  turn_order=list(self.turn_order))
        self._start_turn()

    # ---- where we are -----------------------------------------------------------------------

    @property
    def active_player(self) -> int:
        return self.turn_order[self.player_index]

    @property
    def phase(self) -> Phase:
        return self.ruleset.phases[self.phase_index]

    @property
    def step(self) -> Step:
        return self.phase.steps[self.step_index]

    def where(self) -> str:
        return (f"game turn {self.game_turn}, player {self.active_player}, "
                f"{self.phase.name} phase, {self.step.name} step")

    def unit(self, unit_id: str) -> UnitState:
        return self.units[unit_id]

    # ---- actions ----------------------------------------------------------------------------

    def legal(self, action: dict[str, Any] | Action) -> tuple[bool, str]:
        """(allowed, reason why not or '')."""
        ruling = self._check(action)
        return ruling.ok, ruling.reason

    def _check(self, action: dict[str, Any] | Action) -> Ruling:
        try:
            act = Action.from_dict(action)
        except ValueError as exc:
            return Ruling(False, "", str(exc))
        unknown = action_problems(self.ruleset, act.to_dict())
        if unknown:  # a misspelt name is said as such, never as a question of timing
            return Ruling(False, "", "; ".join(message for _, message in unknown))
        if self.over:
            return Ruling(False, "", "the game is over")
        if act.player is not None and act.player != self.active_player and \
                self.step.actor == "active":
            return Ruling(False, "", f"it is player {self.active_player}'s turn, "
                                     f"not player {act.player}'s")
        if act.kind in CORE_ACTIONS:
            return Ruling(True, "")
        if act.kind not in self.step.actions:
            allowed = ", ".join((*self.step.actions, *CORE_ACTIONS))
            return Ruling(False, self.phase.rule,
                          f"'{act.kind}' is not allowed now ({self.where()}); allowed: {allowed}")
        if act.unit is not None and act.unit not in self.units:
            return Ruling(False, "", f"no unit {act.unit!r}")
        problem = param_problem(act)
        if problem is not None:
            return Ruling(False, "", problem)
        try:
            return self.ruleset.legal(self, act)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
            # a parameter of a shape the system does not read (`to: [x, y]` where it wants
            # `{model: [x, y]}`...): a refusal that says so, never an exception
            why = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
            return Ruling(False, "", f"malformed '{act.kind}' action {act.to_dict()}: {why}")

    def apply(self, action: dict[str, Any] | Action) -> Result:
        """Resolve an action, or refuse it with the reason (logged as a 'refused' event)."""
        start = len(self.log)
        ruling = self._check(action)
        if not ruling.ok:
            data = action.to_dict() if isinstance(action, Action) else dict(action)
            self.emit("refused", unit=data.get("unit"), action=data, reason=ruling.reason,
                      rule=ruling.rule)
            return Result(False, ruling.reason, self.log[start:], ruling.rule)
        act = Action.from_dict(action)
        if act.kind == "next":
            self.advance()
        elif act.kind == "end_phase":
            self.advance(whole_phase=True)
        else:
            self.ruleset.apply(self, act)
        return Result(True, "", self.log[start:])

    def play(self, actions: list[dict[str, Any]]) -> list[Result]:
        return [self.apply(a) for a in actions]

    # ---- progression ------------------------------------------------------------------------

    def advance(self, whole_phase: bool = False) -> None:
        """Go to the next step; past the last step, the next phase; past the last phase, the
        next player's turn; past the last player, the next game turn."""
        if not whole_phase and self.step_index + 1 < len(self.phase.steps):
            self.step_index += 1
            self.emit("step", step=self.step.name)
            self.ruleset.on_step_start(self)
            return
        self.ruleset.on_phase_end(self)
        if self.over:
            return
        if self.phase_index + 1 < len(self.ruleset.phases):
            self.phase_index += 1
            self.step_index = 0
            self._start_phase()
            return
        self.emit("turn_end")
        self.player_index += 1
        if self.player_index >= len(self.turn_order):
            self.player_index = 0
            self.ruleset.on_game_turn_end(self)
            if self.over:
                return
            self.game_turn += 1
            self.turn_order = self.ruleset.turn_order(self)
        self._start_turn()

    def _start_turn(self) -> None:
        self.phase_index = 0
        self.step_index = 0
        for state in self.units.values():
            if state.player == self.active_player:
                state.turn = {}
        self.emit("turn_start")
        self.ruleset.on_turn_start(self)
        self._start_phase()

    def _start_phase(self) -> None:
        for state in self.units.values():
            state.phase_start_models = len(self.board.unit_models(state.id))
        self.emit("phase", phase=self.phase.name)
        self.ruleset.on_phase_start(self)

    def end(self, reason: str, winner: int | None = None) -> None:
        if not self.over:
            self.over = True
            self.winner = winner
            self.emit("game_end", reason=reason, winner=winner)

    # ---- log --------------------------------------------------------------------------------

    def emit(self, kind: str, unit: str | None = None, **data: Any) -> Event:
        """Append an event with the dice rolled since the last one."""
        rolls = [r.to_dict() for r in self.roller.take_log()]
        phase = self.ruleset.phases[self.phase_index].name if self.ruleset.phases else ""
        step = (self.ruleset.phases[self.phase_index].steps[self.step_index].name
                if self.ruleset.phases else "")
        event = Event(len(self.log) + 1, self.game_turn, self.active_player, phase, step, kind,
                      unit, data, rolls, self.board.take_changes())
        self.log.append(event)
        return event

    def log_dicts(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.log]
