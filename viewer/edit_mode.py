"""Edit mode of the viewer: terrain pieces picked, dragged, turned, snapped, added, deleted,
undone and saved on the drawn table, with the layout figures and the heatmap kept current.

`EditMode` turns pixels and key names into `viewer.editing.LayoutEditor` calls, so tests drive
it without a display (through `interact.Controller`). A drag is previewed by shifting the
dragged nodes; after each final change the world is rebuilt from the edited scene
(`scenes.build.build_world`, a few tens of milliseconds) and only the pieces and models that
changed are drawn again. `LiveFigures` is the editor's `LiveAnalysis` with the analysis handed
to the controller's `heatmap.Analyser` (a worker thread in the window, synchronous in tests).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from battlesight.scenes.build import build_world
from battlesight.scenes.model import TERRAIN_TYPES
from battlesight.scenes.piece_edits import piece_centre

from .editing import DEFAULTS, Change, LayoutEditor, LiveAnalysis
from .heatmap import Analyser

if TYPE_CHECKING:
    from .interact import Controller

KINDS = tuple(kind for kind in TERRAIN_TYPES if kind in DEFAULTS)  # what `k` cycles through
ROTATE_KEYS = {"[": 1, "]": -1}  # counter-clockwise, clockwise
EDIT_HELP = [
    "-- edit mode (t leaves it) --",
    "click a piece: select   drag a piece: move (snaps on release)",
    "[ / ] turn the selected piece by the step   g snap it to the grid",
    "a add a piece at the mouse   k next kind to add",
    "x / delete remove it   z / ctrl+z undo   y / ctrl+y redo",
    "s / ctrl+s save to the scene file   esc drop the drag or selection",
]


def toggle_edit(controller: Controller) -> bool:
    """Turn a controller's edit mode on (a new EditMode of its scene the first time) or off;
    False when there is no scene to edit."""
    if controller.editing:
        controller.edit.leave()
        dirty = controller.edit.editor.dirty
        controller.say("edit mode off" + (" (unsaved edits: ctrl+s saves)" if dirty else ""))
        return True
    if getattr(controller.view.scene, "terrain", None) is None:
        controller.say("edit mode needs a scene file")
        return False
    if controller.edit is None:
        controller.edit = EditMode(controller)
        if controller.analysis_scene is controller.view.scene:  # analysed at once
            controller.edit.live.analysis = controller.analysis
    else:
        controller.edit.enter()
    controller.say("edit mode: click or drag terrain pieces (keys in the help, ? shows it)")
    controller.edit.show_figures()
    return True


class LiveFigures(LiveAnalysis):
    """The editor's LiveAnalysis (a refresh after every final change), analysing through an
    Analyser; whoever the Analyser reports to sets `analysis`."""

    def __init__(self, editor: LayoutEditor, analyser: Analyser):
        self.analyser = analyser
        super().__init__(editor, analyser.grid, on_update=None)

    def refresh(self):
        """Ask for the analysis of the editor's scene (delivered now or on a later poll)."""
        self.analyser.request(self.editor.scene)
        return self.analysis


def _changed_ids(old: list, new: list) -> set[str]:
    """Ids of the items (terrain pieces or models) added, removed or changed."""
    before, after = {i.id: i for i in old}, {i.id: i for i in new}
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


class EditMode:
    """The edit-mode state of a Controller: an editor of its view's scene, the selected piece,
    the kind `a` adds, a press or drag in progress."""

    def __init__(self, controller: Controller, grid: float = 1.0, rotation_step: float = 15.0):
        self.controller = controller
        self.view = controller.view
        self.editor = LayoutEditor(self.view.scene, grid, rotation_step)
        self.view.scene = self.editor.scene  # the same scene, the one analysed from now on
        self._shown = self.editor.scene  # what the drawn nodes show
        self.active = True
        self.selected: str | None = None
        self.kind = 0  # index into KINDS
        self._press: tuple[str, tuple[float, float]] | None = None
        self._dragging = False
        self._shifted: set[str] = set()  # nodes a drag preview moved
        self._unsubscribe = self.editor.on_change(self._changed)
        self.live = LiveFigures(self.editor, controller.analyser)

    # ---- on and off ---------------------------------------------------------------------

    def enter(self) -> None:
        self.active = True
        self._highlight()

    def leave(self) -> None:
        self.cancel()
        self.active = False
        self.view.highlight = None
        self.show_figures()
        self.view.refresh()

    def close(self) -> None:
        """Stop listening to the editor (the controller drops this edit mode)."""
        self.leave()
        self._unsubscribe()
        self.live.unsubscribe()

    # ---- picking ------------------------------------------------------------------------

    def pick(self, px: float, py: float) -> str | None:
        """The piece under a pixel: the first solid or area terrain the mouse ray meets, else
        the piece whose outline holds the table point under the pixel (`LayoutEditor.pick`)."""
        world = self.view.world
        origin, direction = self.view.stage.ray(px, py)
        best, best_dist = None, np.inf
        for scene, ids in ((world.solid_scene, world.solid_ids),
                           (world.area_scene, world.area_ids)):
            if not ids:
                continue
            dist, hit = scene.first_hit(origin[None], direction[None])
            if hit[0] >= 0 and dist[0] < best_dist:
                best, best_dist = ids[int(hit[0])], float(dist[0])
        if best is not None and any(p.id == best for p in self.editor.pieces):
            return best
        at = self.view.table_point(px, py)
        return None if at is None else self.editor.pick(at)

    def table_point(self, px: float, py: float) -> tuple[float, float] | None:
        """The table point under a pixel, kept on the table."""
        at = self.view.table_point(px, py)
        if at is None:
            return None
        width, depth = self.view.world.table
        return float(np.clip(at[0], 0.0, width)), float(np.clip(at[1], 0.0, depth))

    def select(self, piece_id: str | None) -> None:
        self.selected = piece_id
        self._highlight()
        self.show_figures()

    # ---- mouse --------------------------------------------------------------------------

    def click(self, px: float, py: float) -> str | None:
        """Select the piece under a pixel (None: nothing there, the selection is dropped)."""
        piece = self.pick(px, py)
        self.select(piece)
        return piece

    def press(self, px: float, py: float) -> bool:
        """Button down: True when a piece is under the pointer (a drag may move it)."""
        piece, at = self.pick(px, py), self.table_point(px, py)
        self._press = None if piece is None or at is None else (piece, at)
        return self._press is not None

    def drag(self, px: float, py: float) -> None:
        """The pointer moved with the button down: the pressed piece follows it (a preview)."""
        at = self.table_point(px, py)
        if self._press is None or at is None:
            return
        piece, start = self._press
        if not self._dragging:
            if self.selected != piece:
                self.select(piece)
            self.editor.begin_drag(piece, start)
            self._dragging = True
        try:
            self.editor.drag_to(at)
        except ValueError as error:  # the piece cannot go there: it stays where it was
            self.controller.say(f"cannot move {piece} there", str(error))

    def release(self, px: float, py: float) -> str | None:
        """Button up: drop the dragged piece (snapped to the grid, one undo step), or select
        the pressed one when it was not dragged."""
        press, self._press = self._press, None
        if press is None:
            return None
        piece = press[0]
        if not self._dragging:
            self.select(piece)
            return piece
        self._press = press
        self.drag(px, py)
        self._press, self._dragging = None, False
        self.editor.end_drag()
        x, y = piece_centre(self.editor.piece(piece))
        self.controller.say(f"moved {piece} to ({x:g}, {y:g})")
        return piece

    def cancel(self) -> bool:
        """Put a dragged piece back; True when there was a drag."""
        self._press = None
        if not self._dragging:
            return False
        self._dragging = False
        self.editor.cancel_drag()
        return True

    # ---- keys ---------------------------------------------------------------------------

    def key(self, name: str) -> bool:
        """An edit-mode key (see EDIT_HELP); False when it is not one."""
        actions = {
            "g": self.snap, "a": self.add, "k": self.next_kind, "x": self.delete,
            "delete": self.delete, "backspace": self.delete, "z": self.undo,
            "control-z": self.undo, "y": self.redo, "control-y": self.redo,
            "shift-z": self.redo, "s": self.save, "control-s": self.save,
        }
        if name in ROTATE_KEYS:
            step = ROTATE_KEYS[name] * self.editor.rotation_step
            actions[name] = lambda: self.rotate(step)
        if name == "escape":
            if self.cancel():
                return True
            if self.selected is not None:
                self.select(None)
                return True
            return False
        action = actions.get(name)
        if action is None:
            return False
        try:
            return action()
        except (ValueError, KeyError) as error:
            self.controller.say(f"{name}: not done", str(error).strip("'\""))
            return False

    def _need_selection(self) -> str | None:
        if self.selected is None:
            self.controller.say("select a terrain piece first (click it)")
        return self.selected

    def rotate(self, degrees: float) -> bool:
        """Turn the selected piece counter-clockwise by degrees."""
        piece = self._need_selection()
        if piece is None:
            return False
        self.editor.rotate(piece, degrees)
        self.controller.say(f"turned {piece} by {degrees:+g} deg")
        return True

    def snap(self) -> bool:
        """Snap the selected piece to the grid (and its rotation to the step)."""
        piece = self._need_selection()
        if piece is None:
            return False
        self.editor.snap(piece)
        self.controller.say(f"snapped {piece} to the {self.editor.grid or 1:g}\" grid")
        return True

    def add(self, kind: str | None = None, at: tuple[float, float] | None = None) -> bool:
        """Add a piece of `kind` (default: the one `k` chose) at a table point (default: under
        the pointer, else the table's middle), snapped to the grid; it becomes the selection."""
        kind = kind or KINDS[self.kind]
        if at is None and self.controller.pointer is not None:
            at = self.table_point(*self.controller.pointer)
        if at is None:
            at = tuple(v / 2.0 for v in self.view.world.table)
        step = self.editor.grid or 1.0
        at = (round(at[0] / step) * step, round(at[1] / step) * step)
        piece = self.editor.add(kind, at)
        self.select(piece)
        self.controller.say(f"added {piece} at ({at[0]:g}, {at[1]:g})")
        return True

    def next_kind(self) -> bool:
        self.kind = (self.kind + 1) % len(KINDS)
        self.controller.say(f"a adds a {KINDS[self.kind]}")
        self.show_figures()
        return True

    def delete(self) -> bool:
        piece = self._need_selection()
        if piece is None:
            return False
        self.editor.delete(piece)
        self.controller.say(f"deleted {piece} (z undoes)")
        return True

    def undo(self) -> bool:
        done = self.editor.undo()
        self.controller.say("undone" if done else "nothing to undo")
        return done

    def redo(self) -> bool:
        done = self.editor.redo()
        self.controller.say("redone" if done else "nothing to redo")
        return done

    def save(self) -> bool:
        """Write the edited scene back to its file."""
        try:
            path = self.editor.save()
        except OSError as error:
            self.controller.say("save failed", str(error))
            return False
        self.controller.say(f"saved {path}")
        self.show_figures()
        return True

    # ---- drawing ------------------------------------------------------------------------

    def _changed(self, change: Change) -> None:
        if change.final and change.action != "save":
            self._redraw()
        elif not change.final:
            self._preview()

    def _preview(self) -> None:
        """Shift the nodes of what moved since the last redraw (a drag translates)."""
        old, new = self._shown, self.editor.scene
        before = {p.id: p for p in old.terrain}
        terrain = {p.id: tuple(piece_centre(p) - piece_centre(before[p.id]))
                   for p in new.terrain if p.id in before and p != before[p.id]}
        at = {m.id: m.at for m in old.models}
        models = {m.id: (m.at[0] - at[m.id][0], m.at[1] - at[m.id][1])
                  for m in new.models if m.id in at and m.at != at[m.id]}
        self._shifted |= set(terrain) | set(models)
        self.view.offset_nodes(terrain, models)
        self._highlight()

    def _redraw(self) -> None:
        """Draw the edited scene: rebuild the world, redraw the pieces and models that
        changed (or that a preview shifted)."""
        old, new = self._shown, self.editor.scene
        terrain = _changed_ids(old.terrain, new.terrain) | (
            self._shifted & {p.id for p in [*old.terrain, *new.terrain]})
        models = _changed_ids(old.models, new.models) | (
            self._shifted & {m.id for m in [*old.models, *new.models]})
        self._shifted = set()
        self._shown = new
        if self.selected is not None and all(p.id != self.selected for p in new.terrain):
            self.selected = None
        self.view.update_world(build_world(new), new, terrain, models)
        self._highlight()
        self.controller.world_edited()

    def _highlight(self) -> None:
        """Outline the selected piece at the table and at its top."""
        piece = self.selected
        if not self.active or piece is None or all(p.id != piece for p in self.editor.pieces):
            self.view.highlight = None
        else:
            top = 0.0
            entry = self.view.world.terrain.get(piece)
            for mesh in () if entry is None else (entry.geometry.solid, entry.geometry.area,
                                                   entry.geometry.stand):
                if mesh is not None and len(mesh.faces):
                    top = max(top, float(mesh.bounds[1][2]))
            heights = (0.05, top + 0.05) if top > 0.3 else (0.05,)
            self.view.highlight = (self.editor.footprint(piece), heights)
        self.view.refresh()

    def show_figures(self) -> None:
        """Put the figures panel up (in edit mode) or away."""
        c = self.controller
        lines = self.panel(c.analysis, c.analyser.pending, c.analysis_error) if self.active \
            else []
        if lines != self.view.figures:
            self.view.figures = lines
            self.view.refresh()

    def panel(self, analysis, pending: bool, error: str | None) -> list[str]:
        """The figures panel: what is being edited and the layout figures."""
        lines = [f"Edit mode: {len(self.editor.pieces)} pieces, a adds a {KINDS[self.kind]}",
                 f"selected: {self.selected}" if self.selected else "click a piece to select it"]
        if analysis is not None:
            f = analysis.figures
            exposure = "  ".join(f"player {p} {v:.3f}" for p, v in f["exposure"].items())
            lines += [f"zone-to-zone exposure {f['zone_to_zone_exposure']:.3f}",
                      f"zone exposure  {exposure}",
                      f"fairness {f['fairness']:+.3f}",
                      f"longest lane {f['longest_lane']:.1f}\"",
                      f"blocking {f['blocking_area']:.0%} of the table, {f['grid']:g}\" grid"]
        elif error and not pending:
            lines.append(f"no figures: {error}"[:72])
        if pending:
            lines.append("analysing the layout ...")
        if self.editor.dirty:
            lines.append("unsaved edits (s saves)")
        return lines
