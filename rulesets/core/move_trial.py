"""Whether models may move to new places, judged by the scene's ruleset as a game would.

`MoveTrial(scene, unit)` sets up a game on a copy of the scene (so nothing shown changes) and
puts it in the step where the unit's player moves it; `check({model: (x, y)})` then asks the
system's own move legality (`Ruleset.legal` on its move action, as `play` does: the path
checks of `core.paths` where the system moves models along paths, the allowance, coherency,
formations) and says how far the move goes, what is left of the allowance, and the chance
where dice decide (`core.paths.check_path`: 40k difficult terrain). The window's drags judge
through it; `Battlefield.move` checks one model's path with the same `check_path`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .game import Action, Game
from .moves import Dest, kept_floor
from .paths import check_path
from .ruling import Ruling

if TYPE_CHECKING:
    from battlesight.scenes.model import Scene

    from .board import Board

#: the action each system moves a unit with in its movement step (wmh2: a full advance)
MOVE_KINDS = ("move", "advance")
Point = tuple[float, float]


@dataclass
class MoveVerdict:
    """The ruleset's answer for one move: allowed or not, the rule and why, the longest
    straight distance a moving model's base centre goes (inches), the allowance (None where
    the system gives none), and the chance the move succeeds where dice decide (None: no dice)."""

    ok: bool
    rule: str
    reason: str
    distance: float
    allowance: float | None
    chance: Fraction | None = None
    chance_rule: str = ""

    @property
    def left(self) -> float | None:
        """Allowance left after this move (None without an allowance)."""
        return None if self.allowance is None else self.allowance - self.distance

    def summary(self) -> str:
        """One line: the move so far and what is left, or the refusal with its rule."""
        text = f'moved {self.distance:.1f}"'
        if self.allowance is not None:
            text += f' of {self.allowance:g}" ({max(0.0, self.left):.1f}" left)'
        if not self.ok:
            return f"{text}: not allowed, {self.reason} [{self.rule}]"
        if self.chance is not None:
            text += f"; {float(self.chance):.0%} chance [{self.chance_rule}]"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "rule": self.rule, "reason": self.reason,
                               "distance": round(self.distance, 4),
                               "allowance": self.allowance}
        if self.chance is not None:
            out["chance"] = float(self.chance)
            out["chance_rule"] = self.chance_rule
        return out


class MoveTrial:
    """A game of a copy of `scene` standing in the step where `unit` moves (see the module
    docstring); one per drag, then `check` on every pointer move."""

    def __init__(self, scene: Scene, unit: str):
        trial = copy.deepcopy(scene)
        player = next(m.player for m in trial.models if (m.unit or m.id) == unit)
        self.game = Game(trial, first_player=player)
        self.unit = unit
        self.kind = self._reach_move_step(player)
        self.allowance = self.game.ruleset.unit_allowance(self.game, unit)

    def _reach_move_step(self, player: int) -> str | None:
        """Advance to the first step of the player's turn that takes a move action."""
        game = self.game
        for _ in range(64):
            kind = next((k for k in MOVE_KINDS if k in game.step.actions), None)
            if kind is not None and game.active_player == player:
                return kind
            game.advance()
        return None

    def start(self, model: str) -> Point:
        """Where a model stands in the trial (its base centre)."""
        return tuple(self.game.board.outline(model).center)

    def check(self, dests: dict[str, Point]) -> MoveVerdict:
        """The ruleset's verdict on moving these models of the unit to these plan points."""
        game = self.game
        distance = max((float(np.hypot(*np.subtract(at, self.start(m))))
                        for m, at in dests.items()), default=0.0)
        if self.kind is None:
            return MoveVerdict(False, game.ruleset.phases[0].rule if game.ruleset.phases else "",
                             f"{game.ruleset.id} has no move action", distance, None)
        try:
            params = game.ruleset.move_params(game, self.unit, dests)
        except ValueError as refusal:
            rule, why = refusal.args
            return MoveVerdict(False, rule, why, distance, self.allowance)
        ruling: Ruling = game.ruleset.legal(game, Action(self.kind, unit=self.unit,
                                                         params=params))
        check = MoveVerdict(ruling.ok, ruling.rule, ruling.reason, distance, self.allowance)
        if ruling.ok:
            odds = self._dice(dests)
            if odds is not None:
                check.chance, check.chance_rule = odds
        return check

    def _dice(self, dests: dict[str, Point]) -> tuple[Fraction, str] | None:
        """The chance the dice let the whole move finish (the unit rolls once: its least
        likely model's), and the rule; None where no dice decide or the system moves models
        otherwise than along paths."""
        board, ruleset = self.game.board, self.game.ruleset
        least = None
        for m, at in dests.items():
            profile = board.profile(m)
            rules = ruleset.path_rules(profile)
            if rules is None:
                return None
            dest = Dest(at, kept_floor(board.world, at, board.floor_of(m)))
            path = check_path(board, m, dest, ruleset.move_allowance(profile), rules,
                              movers=tuple(dests))
            if path.allowed and path.chance < 1 and (least is None or path.chance < least[0]):
                least = (path.chance, path.rule)
        return least


def moved_to(board: Board, model: str, to: Point, whole_unit: bool = False
             ) -> dict[str, Point]:
    """Where the movers go when `model` goes to `to`: itself, or (whole_unit) every model of
    its unit on the table, each by the same step (the unit keeps its formation)."""
    world = board.world
    step = np.subtract(to, world.models[model].position[:2])
    movers = [m for m in board.unit_models(board.unit_of(model)) if m in world.models] \
        if whole_unit else [model]
    return {m: (float(world.models[m].position[0] + step[0]),
                float(world.models[m].position[1] + step[1])) for m in movers}


def judge_move(scene: Scene, dests: dict[str, Point]) -> MoveVerdict:
    """One move judged on its own (scripts, `Battlefield.move`): the models must be of one
    unit."""
    units = {next((m.unit or m.id) for m in scene.models if m.id == d) for d in dests}
    if len(units) != 1:
        raise ValueError(f"a move takes the models of one unit, got {sorted(units)}")
    return MoveTrial(scene, units.pop()).check(dests)
