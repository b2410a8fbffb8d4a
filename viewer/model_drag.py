"""Models moved in the window: a press on a model, a drag (shift: its whole unit, keeping
formation), the move judged live by the ruleset (`rulesets.core.move_trial.MoveTrial`), and on
release the model placed where it stands (ruin floor, hill, mesh storey) with its sight lines
judged again; every move one undo step.

`ModelDrag` turns pixels into moves on a `SceneView`, so tests drive it (through
`interact.Controller`) without a display. The drag preview shifts the model nodes; a release
moves the models on the view's Board (`Board.move`: world and scene) and redraws only them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from battlesight.rulesets.core.move_trial import MoveTrial, MoveVerdict, moved_to
from battlesight.rulesets.core.moves import kept_floor

if TYPE_CHECKING:
    from .interact import Controller

#: {model: ((x, y), floor, facing)}: where models stand, what an undo step puts back
Places = dict[str, tuple[tuple[float, float], int | None, float]]


@dataclass
class DragPath:
    """What the table shows during a drag: each mover's start and end (3D points, base
    height) and the ruleset's verdict on the move so far."""

    starts: np.ndarray
    ends: np.ndarray
    check: MoveVerdict


class ModelDrag:
    """The models-in-motion state of a Controller: the press, the drag in progress and the
    move history."""

    def __init__(self, controller: Controller):
        self.controller = controller
        self._press: tuple[str, bool, np.ndarray] | None = None  # model, shift, table point
        self._trial: MoveTrial | None = None
        self._movers: list[str] = []
        self.dests: dict[str, tuple[float, float]] = {}
        self.check: MoveVerdict | None = None
        self._trials: dict[tuple[str, int], MoveTrial] = {}  # by unit and world shown
        self._allowances: dict[tuple[str, int], float | None] = {}  # kept across moves
        self.undo_steps: list[tuple[Places, Places]] = []  # (before, after)
        self.redo_steps: list[tuple[Places, Places]] = []

    @property
    def view(self):
        return self.controller.view

    @property
    def dragging(self) -> bool:
        return self._trial is not None

    def trial(self, unit: str) -> MoveTrial:
        """The unit's MoveTrial on the table shown (made once per unit until models move)."""
        key = (unit, id(self.view.world))
        if key not in self._trials:
            self._trials[key] = MoveTrial(self.view.scene, unit)
        return self._trials[key]

    def allowance(self, model: str) -> float | None:
        """The model's unit's move allowance under the scene's rules (None: no scene); kept
        per unit while the world shown stays (a move does not change it)."""
        if self.view.scene is None or model not in self.view.world.models:
            return None
        unit = self.view.world.models[model].unit or model
        key = (unit, id(self.view.world))
        if key not in self._allowances:
            self._allowances[key] = self.trial(unit).allowance
        return self._allowances[key]

    # ---- the mouse ----------------------------------------------------------------------

    def press(self, px: float, py: float, shift: bool = False) -> bool:
        """Button down: True when a model of a scene is under the pointer (a drag moves it)."""
        model = self.controller.pick_model(px, py)
        if model is None or self.view.scene is None:
            self._press = None
            return False
        at = self._plane_point(px, py, float(self.view.world.models[model].position[2]))
        self._press = None if at is None else (model, shift, at)
        return self._press is not None

    def drag(self, px: float, py: float) -> MoveVerdict | None:
        """The pointer moved with the button down: the movers follow it, the move is judged
        and drawn (path coloured by the verdict, the summary in the info panel)."""
        if self._press is None:
            return None
        model, shift, start = self._press
        world = self.view.world
        at = self._plane_point(px, py, float(world.models[model].position[2]))
        if at is None:
            return self.check
        if self._trial is None:
            self._trial = self.trial(world.models[model].unit or model)
        to = world.models[model].position[:2] + at[:2] - start[:2]
        self.dests = moved_to(self.view.judge.board, model, tuple(to), shift)
        self._movers = list(self.dests)
        self.check = self._trial.check(self.dests)
        self.controller.message = f"moving {model}" + (" and its unit" if shift else "")
        self.view.info = [self.controller.message, self.check.summary()]
        self._preview()  # draws the info panel too: one redraw a pointer move
        return self.check

    def release(self, px: float, py: float) -> MoveVerdict | None:
        """Button up: a legal move is made (one undo step), an illegal one put back with its
        refusal shown; a press without a drag is a click (`Controller.click`: select, target,
        ruler point). Returns the verdict (None for a click)."""
        if self._press is None:
            return None
        model = self._press[0]
        if self._trial is None:
            self._press = None
            self.controller.click(px, py)
            return None
        check = self.drag(px, py)
        dests, self._press, self._trial = self.dests, None, None
        legal = check is not None and check.ok
        self._clear_preview(redraw=not legal)  # a move made redraws when it is placed
        if legal:
            self.place({m: (at, None, None) for m, at in dests.items()}, record=True)
            self.controller.say(f"moved {model}", check.summary())
        else:
            self.controller.say(f"{model} stays", check.summary() if check else "")
        return check

    def cancel(self) -> bool:
        """Drop a drag in progress (the models go back); True when there was one."""
        dragging = self._trial is not None
        self._press, self._trial = None, None
        if dragging:
            self._clear_preview()
        return dragging

    # ---- moves and history --------------------------------------------------------------

    def place(self, places: dict[str, tuple[tuple[float, float], int | None, float | None]],
              record: bool = False) -> None:
        """Put models at plan points (floor None: the floor each keeps where it is there,
        see `kept_floor`; facing None: unchanged) on the view's board, redraw them, judge the
        sight lines again and let the heatmap and figures follow."""
        board, world = self.view.judge.board, self.view.world
        self._trials.clear()
        before = self._places(places)
        for m, (at, floor, facing) in places.items():
            floor = kept_floor(world, at, board.floor_of(m)) if floor is None else floor
            board.move(m, at, facing, floor=floor)
        after = self._places(places)
        self._carry_formations(before, after)
        if record:
            self.undo_steps.append((before, after))
            self.redo_steps.clear()
        self.view.update_world(world, self.view.scene, models=set(places), redraw=False)
        self.controller.models_moved()  # the one redraw of the overlays

    def _carry_formations(self, before: Places, after: Places) -> None:
        """A unit whose models all moved by one step takes its `formation:` front along
        (the scene's truth of a ranked block, whfb6 §3, which a game lays the models out by)."""
        board, scene = self.view.judge.board, self.view.scene
        for unit in {board.unit_of(m) for m in after}:
            entry = scene.unit(unit) or {}
            form = entry.get("formation")
            members = board.unit_models(unit)
            if not isinstance(form, dict) or "front" not in form or set(members) - set(after):
                continue
            steps = {tuple(np.round(np.subtract(after[m][0], before[m][0]), 6)) for m in members}
            if len(steps) == 1:
                dx, dy = map(float, next(iter(steps)))
                front = form["front"]
                form["front"] = [round(float(front[0]) + dx, 4), round(float(front[1]) + dy, 4)]

    def _places(self, models) -> Places:
        board = self.view.judge.board
        return {m: (tuple(board.model(m).spec.at), board.floor_of(m),
                    float(board.model(m).spec.facing)) for m in models}

    def undo(self) -> bool:
        """Put the last moved models back; False when there is no move to undo."""
        return self._step(self.undo_steps, self.redo_steps, 0)

    def redo(self) -> bool:
        """Make the last undone move again; False when there is none."""
        return self._step(self.redo_steps, self.undo_steps, 1)

    def _step(self, source: list, target: list, side: int) -> bool:
        """Take a step off one history onto the other and put the models at its `side`
        (0: before the move, 1: after it)."""
        if not source:
            return False
        step = source.pop()
        target.append(step)
        self.place(_exact(step[side]))
        return True

    # ---- drawing ------------------------------------------------------------------------

    def _preview(self) -> None:
        world = self.view.world
        offsets, starts, ends = {}, [], []
        for m, at in self.dests.items():
            placed = world.models[m]
            floor = kept_floor(world, at, self.view.judge.board.floor_of(m))
            try:
                z = world.stand_height(at, floor)
            except ValueError:
                z = float(placed.position[2])
            x, y, z0 = map(float, placed.position)
            offsets[m] = (at[0] - x, at[1] - y, z - z0)
            starts.append((x, y, z0))
            ends.append((at[0], at[1], z))
        self.view.offset_nodes({}, offsets)
        self.view.drag_path = DragPath(np.array(starts), np.array(ends), self.check)
        self.view.refresh()

    def _clear_preview(self, redraw: bool = True) -> None:
        self.view.offset_nodes({}, dict.fromkeys(self._movers, (0.0, 0.0, 0.0)))
        self.view.drag_path = None
        self._movers, self.dests = [], {}
        if redraw:
            self.view.refresh()

    def _plane_point(self, px: float, py: float, z: float) -> np.ndarray | None:
        """Where the ray through a pixel meets the plane at height z (the dragged base's)."""
        origin, direction = self.view.stage.ray(px, py)
        if abs(direction[2]) < 1e-9:
            return None
        t = (z - origin[2]) / direction[2]
        return None if t <= 0 else origin + t * direction


def _exact(places: Places) -> dict:
    """Places as `place` takes them, floors and facings given (an undo puts back exactly)."""
    return {m: (at, floor or 0, facing) for m, (at, floor, facing) in places.items()}
