"""Input handling for the viewer window, written against a SceneView so it runs without a display.

Every handler takes pixels (x right, y down) or a key name, changes the SceneView and returns;
the window (`viewer.window`) only forwards Panda3D events here, and tests call the same methods
on an offscreen view. Edit mode (`t`, see `edit_mode`) takes clicks, drags and its keys first.
The heatmap is a field of the layout analysis (`heatmap.Analyser`: on a worker thread in the
window, whose result `poll()` hands over each frame; synchronous in tests) or the model-eyes one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .camera_moves import CameraMoves
from .edit_mode import EDIT_HELP, EditMode, toggle_edit
from .heat_follow import HeatAndFigures
from .heatmap import DEFAULT_GRID, Analyser, next_field
from .measuring import distance_text, range_rings
from .model_drag import ModelDrag
from .overlays import ruler_ends
from .sceneview import SceneView

HELP_HINT = ["F1 or ? keys and mouse   q quit"]  # the help panel, folded
HELP = [
    "Keys (? or F1 hides this)",
    "left-drag orbit, right/middle-drag pan, wheel zoom",
    "click a model: select it, sight lines to every enemy",
    "drag a model: move it (shift: its unit), judged by the rules",
    "z / y undo, redo moves (in edit mode: terrain edits)",
    "click an enemy or a line: why (blockers, rule) + samples",
    "click that enemy again to select it",
    "1 top   2 iso   3 edge 1   4 edge 2",
    "e eye view of the selected model (at its target)",
    "m ruler: click two models or two table points",
    "l labels   h heatmap (layout exposure)   j next heatmap field",
    "t edit terrain: move, turn, add, delete, undo, save",
    "tab next model   r / F5 reload the scene from disk",
    "esc drop the drag or selection (nothing to drop: quit)   q quit",
]
PRESET_KEYS = {"1": "top", "2": "iso", "3": "edge1", "4": "edge2"}
PICK_PX = 12.0  # how close (pixels) a click must be to a model or a sight line
Loader = Callable[[], tuple]  # () -> (world, scene)


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


class Controller(CameraMoves, HeatAndFigures):
    """The viewer's interaction state: selection, target, ruler, camera moves, reload, the
    heatmap shown, edit mode.

    grid: the layout analysis grid (inches); threaded: analyse on a worker thread (the window
    calls `poll()` every frame), else at once.
    """

    def __init__(self, view: SceneView, loader: Loader | None = None,
                 grid: float = DEFAULT_GRID, threaded: bool = False):
        self.view = view
        self.loader = loader
        self.selected: str | None = None
        self.target: str | None = None
        self.ruler_mode = False
        self.ruler_points: list = []
        self.message = ""
        self.pointer: tuple[float, float] | None = None  # the mouse, for keys that add there
        self.heat_name: str | None = None  # the heatmap field shown (None: none)
        self.analysis = None  # the newest LayoutAnalysis handed over
        self.analysis_scene = None  # the scene it (or analysis_error) is about
        self.analysis_error: str | None = None
        self.analyser = Analyser(grid, self._analysed, threaded)
        self.edit: EditMode | None = None
        self._reload_armed = False
        self.moves = ModelDrag(self)
        self._pressed: str | None = None  # what the left press went to: "model" or "piece"
        self.quit_requested = False  # q, or esc with nothing to drop: the window closes
        self.view.help = list(HELP_HINT)
        self.view.refresh()

    # ---- picking ------------------------------------------------------------------------

    def pick_model(self, px: float, py: float) -> str | None:
        """The model drawn nearest pixel (px, py): its axis (base to top) projected, within
        max(PICK_PX, its half height on screen); the nearest to the camera wins ties."""
        world, stage = self.view.world, self.view.stage
        best, best_key = None, None
        click = np.array([px, py], dtype=np.float64)
        cam = np.asarray(stage.camera.get_pos(stage.root))
        for model_id, model in world.models.items():
            if stage.pose is not None and stage.pose.hide == model_id:
                continue
            lo, hi = model.mesh.bounds
            centre = (lo + hi) / 2.0
            ends = np.array([[centre[0], centre[1], lo[2]], [centre[0], centre[1], hi[2]]])
            pix, ok = stage.project(ends)
            if not ok.any() or np.isnan(pix).any():
                continue
            reach = max(PICK_PX, 0.5 * float(np.linalg.norm(pix[1] - pix[0])))
            dist = _segment_distance(click, pix[0], pix[1])
            if dist <= reach:
                key = (round(dist / reach, 1), float(np.linalg.norm(centre - cam)))
                if best_key is None or key < best_key:
                    best, best_key = model_id, key
        return best

    def pick_line(self, px: float, py: float) -> str | None:
        """The target of the sight line drawn within PICK_PX of pixel (px, py), if any."""
        from .overlays import aim_point

        click = np.array([px, py], dtype=np.float64)
        best, best_d = None, PICK_PX
        for line in self.view.lines:
            pts, ok = self.view.stage.project(np.array([line.start, aim_point(self.view.world,
                                                                               line)]))
            if not ok.all():
                continue
            d = _segment_distance(click, pts[0], pts[1])
            if d <= best_d:
                best, best_d = line.target, d
        return best

    # ---- handlers -----------------------------------------------------------------------

    def click(self, px: float, py: float) -> str | None:
        """A left click (no drag): in edit mode a terrain piece; else ruler point, target
        (enemy or line) or selection. Returns the piece, model id or line target acted on."""
        if self.editing:
            piece = self.edit.click(px, py)
            if piece is not None:
                return piece
        model = self.pick_model(px, py)
        if self.ruler_mode:
            return self._ruler_click(px, py, model)
        targets = {ln.target for ln in self.view.lines}
        if model is not None and self.selected and model in targets and model != self.target:
            self.set_target(model)  # a second click on the same enemy selects it
            return model
        if model is not None:
            self.select(model)
            return model
        line = self.pick_line(px, py)
        if line is not None:
            self.set_target(line)
            return line
        return None

    @property
    def editing(self) -> bool:
        """Edit mode is on."""
        return self.edit is not None and self.edit.active

    def press(self, px: float, py: float, shift: bool = False) -> bool:
        """Left button down: True when a model (shift: its unit) or, in edit mode, a terrain
        piece is under the pointer (then `drag` moves it and `release` drops or selects it),
        False for a camera drag or click."""
        if self.moves.press(px, py, shift):
            self._pressed = "model"
        elif self.editing and self.edit.press(px, py):
            self._pressed = "piece"
        else:
            self._pressed = None
        return self._pressed is not None

    def drag(self, px: float, py: float) -> None:
        """The pointer moved during a press taken: the model or piece follows it."""
        if self._pressed == "model":
            self.moves.drag(px, py)
        elif self._pressed == "piece" and self.editing:
            self.edit.drag(px, py)

    def release(self, px: float, py: float):
        """Left button up after a press taken: the move judged and made (or refused), or the
        piece dropped (snapped); a press without a drag selects."""
        pressed, self._pressed = self._pressed, None
        if pressed == "model":
            return self.moves.release(px, py)
        return self.edit.release(px, py) if self.edit is not None else None

    def hover(self, px: float, py: float) -> str | None:
        """Mouse over a sight line: show why in the info panel (without changing the target);
        over another model: the selected model's distance to it, as the system measures."""
        line = self.pick_line(px, py)
        model = self.pick_model(px, py) if self.selected is not None else None
        other = model if model not in (None, self.selected) else None
        shown = line or self.target
        info = self._why(shown) if shown is not None else None
        if info is None and other is not None:
            info = self._model_info(self.selected)
        if info is None:
            return line
        if other is not None:
            info.append(distance_text(self.view, self.selected, other))
        if info != self.view.info:  # this runs on every mouse move
            self.view.info = info
            self.view.refresh()
        return line

    def select(self, model_id: str | None) -> None:
        """Select a model (None clears): its sight lines to every enemy."""
        self.selected, self.target = model_id, None
        self.view.show_sight_lines(model_id)
        self.view.info = [] if model_id is None else self._model_info(model_id)
        self.view.rings = [] if model_id is None else range_rings(
            self.view, model_id, self.moves.allowance(model_id))
        self.view.refresh()

    def set_target(self, target: str | None) -> None:
        """Show the sample points on target and why its line is ruled as it is."""
        self.target = target
        self.view.set_target(target)
        if target is not None:
            self._explain(target)

    def key(self, name: str) -> bool:
        """A key press by Panda3D name ('1', 'e', 'f5', 'escape', ...); True when handled."""
        name = name.lower()
        if name == "escape" and self.moves.cancel():
            self.say("move dropped")
            return True
        if self.editing and self.edit.key(name):
            return True
        if name not in ("r", "f5"):
            self._reload_armed = False
        if name in PRESET_KEYS:
            self.view.set_view(PRESET_KEYS[name])
        elif name == "e":
            return self.eye_view()
        elif name in ("r", "f5"):
            return self.reload()
        elif name == "q" or (name == "escape" and self.selected is None
                             and not self.ruler_mode and self.view.ruler is None):
            self.quit_requested = True
        elif name == "escape":
            self.ruler_mode, self.ruler_points = False, []
            self.view.set_ruler(None, None)
            self.select(None)
        elif name in ("z", "control-z") and not self.editing:  # edit mode: terrain undo
            done = self.moves.undo()
            self.say("move undone" if done else "no move to undo")
            return done
        elif name in ("y", "control-y", "shift-z") and not self.editing:
            done = self.moves.redo()
            self.say("move redone" if done else "no move to redo")
            return done
        elif name == "m":
            self.ruler_mode, self.ruler_points = not self.ruler_mode, []
            self.say("ruler: click two models or two table points" if self.ruler_mode
                      else "ruler off")
        elif name == "l":
            self.view.show_labels = not self.view.show_labels
            self.view.refresh()
        elif name == "h":
            self.show_heatmap(None if self.heat_name else "exposure")
        elif name == "j":
            self.show_heatmap(next_field(self.heat_name, self.analysis))
        elif name == "t":
            return self.toggle_edit()
        elif name == "control-s":
            if self.edit is None:
                self.say("nothing to save (t starts edit mode)")
                return False
            return self.edit.save()
        elif name == "tab":
            ids = list(self.view.world.models)
            if ids:
                i = (ids.index(self.selected) + 1) % len(ids) if self.selected in ids else 0
                self.select(ids[i])
        elif name in ("?", "f1", "shift-/"):
            folded = self.view.help == HELP_HINT
            self.view.help = list(HELP) + (list(EDIT_HELP) if self.editing else []) \
                if folded else list(HELP_HINT)
            self.view.refresh()
        else:
            return False
        return True

    def eye_view(self) -> bool:
        """Put the camera at the selected model's eye, looking at its target (or its front)."""
        if self.selected is None:
            self.say("select a model first (click it, or tab)")
            return False
        target = f":{self.target}" if self.target else ""
        self.view.set_view(f"eye:{self.selected}{target}")
        return True

    def reload(self) -> bool:
        """Read the scene again from disk (keeps the camera and, if still there, the selection).
        With unsaved edits it asks first: a second r drops them."""
        if self.loader is None:
            return False
        if self.edit is not None and self.edit.editor.dirty and not self._reload_armed:
            self._reload_armed = True
            self.say("unsaved edits: r again drops them and reloads, s saves them")
            return False
        self._reload_armed = False
        try:
            world, scene = self.loader()
        except Exception as error:  # noqa: BLE001 - a broken file must not close the window
            problems = [str(p) for p in getattr(error, "problems", [])] or [str(error)]
            self.say("reload failed, still showing the old scene", *problems[:6])
            return False
        selected, target = self.selected, self.target
        editing = self.editing
        if self.edit is not None:
            self.edit.close()
            self.edit = None
        self.view.replace_world(world, scene)
        if selected in world.models:
            self.select(selected)
            if target in world.models:
                self.set_target(target)
        else:
            self.select(None)
        if editing:
            self.toggle_edit()
        self._update_heat()
        self.say("reloaded")
        return True

    # ---- edit mode, heatmap and figures -------------------------------------------------

    def toggle_edit(self) -> bool:
        """Edit mode on or off (its edits stay shown, and saveable, when off)."""
        done = toggle_edit(self)
        if self.view.help != HELP_HINT:
            self.view.help = list(HELP) + (list(EDIT_HELP) if self.editing else [])
        return done

    def models_moved(self) -> None:
        """Models moved (a drag, an undo): the info panel and range rings of the selection,
        then the heatmap and figures as after a terrain edit (the model-eyes field is drawn
        again; the layout analysis is of the terrain alone, so its fields stand)."""
        if self.selected is not None and self.selected in self.view.world.models:
            self.view.info = self._model_info(self.selected)
            self.view.rings = range_rings(self.view, self.selected,
                                          self.moves.allowance(self.selected))
        self.view.refresh()
        if self.edit is not None:
            self.edit.editor.dirty = True  # saving writes the moves too
        self.world_edited()

    # ---- texts --------------------------------------------------------------------------

    def say(self, *lines: str) -> None:
        """Show a message in the info panel."""
        self.message = lines[0] if lines else ""
        self.view.info = list(lines)
        self.view.refresh()

    def _model_info(self, model_id: str) -> list[str]:
        m = self.view.world.models[model_id]
        x, y, z = m.position
        lines = [f"{model_id}: player {m.player}, unit {m.unit or '-'}",
                 f'at ({x:.1f}, {y:.1f}) on z {z:.1f}", facing {m.facing:.0f}',
                 f"sees {sum(ln.verdict.visible for ln in self.view.lines)} of "
                 f"{len(self.view.lines)} enemy models (by the rules)"]
        return lines

    def _why(self, target: str) -> list[str] | None:
        """The info panel's lines for the sight line to target (None: no such line)."""
        line = self.view.line_to(target)
        return None if line is None else [f"{line.observer} -> {target}", *line.why()]

    def _explain(self, target: str) -> None:
        info = self._why(target)
        if info is not None and info != self.view.info:
            self.view.info = info
            self.view.refresh()

    def _ruler_click(self, px: float, py: float, model: str | None) -> str | None:
        point = model if model is not None else self.view.ground_point(px, py)
        if point is None:
            return None
        self.ruler_points.append(point)
        if len(self.ruler_points) == 2:
            a, b = self.ruler_points
            if isinstance(a, str) != isinstance(b, str):  # a model and a point: use its base
                a, b = [self.view.world.models[p].position if isinstance(p, str) else p
                        for p in (a, b)]
            self.view.set_ruler(*ruler_ends(self.view.world, a, b, self.view.judge.board))
            self.ruler_points = []
        return model
