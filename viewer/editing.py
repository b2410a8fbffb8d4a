"""The layout editing model behind the viewer: pure Python, no Panda3D.

`LayoutEditor(scene)` holds a copy of a scene and edits its terrain: pick a piece at a table
point, drag it (its geometry keys `at`, `from`/`to` or `polygon` move), rotate it, snap it to
the grid, add a piece of any scene terrain type with sensible defaults, delete it, change its
keys; every edit is one undo step and is validated like a scene file (a bad edit raises
ValueError and changes nothing). Models standing on a moved ruin, box or hill (base centre on
its footprint) move and turn with it, so models on ruin floors stay valid. `save()` writes the
scene back through `scenes.save_scene`.

Listeners registered with `on_change(callback)` get a `Change` after every edit (during a drag
too, with `final=False`), so a window can redraw the piece and refresh the heatmap and the
figures; `LiveAnalysis` does the refresh: it re-runs the layout analysis after each final change.

Typical window wiring::

    editor = LayoutEditor(load_scene(path), grid=1.0)
    live = LiveAnalysis(editor, grid=2.0,
                        on_update=lambda a: view.set_heatmap(a.fields["exposure"]))
    piece = editor.pick((x, y))           # mouse down on the table
    editor.begin_drag(piece, (x, y))      # then drag_to((x, y)) on each mouse move
    editor.end_drag()                     # mouse up: snapped, one undo step, figures refresh
    editor.rotate(piece, 15); editor.undo(); editor.redo(); editor.save()
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from battlesight.geometry import planar
from battlesight.geometry.plan import rotation_2d, signed_area
from battlesight.scenes import save_scene
from battlesight.scenes.errors import SceneError
from battlesight.scenes.footprints import piece_footprint
from battlesight.scenes.loader import scene_from_dict
from battlesight.scenes.model import TERRAIN_TYPES, ModelSpec, Scene, TerrainPiece
from battlesight.scenes.piece_edits import piece_centre, rotated, translated
from battlesight.scenes.save import scene_to_dict

from battlesight.analysis import LayoutAnalysis, analyze_scene
from battlesight.analysis.maps import system

#: Geometry of a new piece of each kind, centred on the origin (moved to where it is added).
DEFAULTS: dict[str, dict[str, Any]] = {
    "wall": {"from": [-3, 0], "to": [3, 0], "height": 2.5, "thickness": 0.5},
    "box": {"at": [0, 0], "size": [4, 4, 4], "rotation": 0},
    "ruin": {"at": [0, 0], "size": [8, 6], "rotation": 0, "floors": [3], "height": 6,
             "walls": ["north", "west"], "windows": True},
    "hill": {"at": [0, 0], "size": [8, 6], "height": 2, "rotation": 0},
    "forest": {"polygon": [[3, 0], [1.5, 2.6], [-1.5, 2.6], [-3, 0], [-1.5, -2.6], [1.5, -2.6]],
               "height": 5},
    "crater": {"at": [0, 0], "radius": 2.5, "depth": 0.5},
    "mesh": {"file": "terrain/statue.glb", "at": [0, 0], "rotation": 0, "scale": 1},
}
PICK_TOLERANCE = 0.25  # inches around a footprint that still pick it (thin walls)
CARRIED_BY = ("ruin", "box", "hill")  # models standing on these move and turn with them

State = tuple[list[TerrainPiece], list[ModelSpec]]  # what an undo step restores


@dataclass(frozen=True)
class Change:
    """What happened: action ('move', 'rotate', 'snap', 'add', 'delete', 'edit', 'undo',
    'redo', 'drag', 'save'), the piece concerned (None for undo/redo/save), and whether the
    edit is complete (False while a drag is in progress)."""

    action: str
    piece: str | None
    final: bool = True


class LayoutEditor:
    """Edits the terrain of a scene with undo/redo (see the module docstring).

    grid: step (inches) that `snap` and `end_drag` snap a piece's reference point to (None:
    no snapping on drop); rotation_step: degrees a snapped rotation is rounded to.
    """

    def __init__(self, scene: Scene, grid: float | None = 1.0, rotation_step: float = 15.0):
        self.scene = copy.deepcopy(scene)
        self.grid = grid
        self.rotation_step = rotation_step
        self.dirty = False
        self._undo: list[State] = []
        self._redo: list[State] = []
        self._listeners: list[Callable[[Change], None]] = []
        self._drag: tuple[str, np.ndarray, State] | None = None

    # ---- listeners --------------------------------------------------------------------------

    def on_change(self, callback: Callable[[Change], None]) -> Callable[[], None]:
        """Call callback(change) after every edit; returns a function that unregisters it."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback)

    def _emit(self, change: Change) -> None:
        for callback in list(self._listeners):
            callback(change)

    # ---- queries ----------------------------------------------------------------------------

    @property
    def pieces(self) -> list[TerrainPiece]:
        """The terrain pieces, in file order."""
        return self.scene.terrain

    def piece(self, piece_id: str) -> TerrainPiece:
        """The piece with this id; KeyError naming it when there is none."""
        return self.scene.piece(piece_id)

    def footprint(self, piece_id: str) -> np.ndarray:
        """(k, 2) plan outline of a piece."""
        return piece_footprint(self.piece(piece_id))

    def pick(self, at: tuple[float, float]) -> str | None:
        """The piece under a table point (within PICK_TOLERANCE of its outline): the smallest
        such piece, the later one in the file on a tie; None when there is none."""
        point = np.asarray(at, dtype=np.float64).reshape(1, 2)
        best, best_area = None, np.inf
        for piece in self.pieces:
            poly = piece_footprint(piece)
            if planar.distance(point, poly)[0] <= PICK_TOLERANCE:
                area = abs(signed_area(poly))
                if area <= best_area:
                    best, best_area = piece.id, area
        return best

    # ---- edits ------------------------------------------------------------------------------

    def move(self, piece_id: str, dx: float, dy: float) -> None:
        """Translate a piece (and the models standing on it) by (dx, dy) inches."""
        self._commit("move", piece_id, self._translated(self._state(), piece_id, dx, dy))

    def move_to(self, piece_id: str, at: tuple[float, float]) -> None:
        """Move a piece so that its reference point (at, a wall's middle, a forest's mean)
        lands on `at`."""
        cx, cy = piece_centre(self.piece(piece_id))
        self.move(piece_id, float(at[0]) - cx, float(at[1]) - cy)

    def rotate(self, piece_id: str, degrees: float,
               about: tuple[float, float] | None = None) -> None:
        """Turn a piece (and the models standing on it) counter-clockwise by degrees about its
        reference point (or `about`)."""
        self._commit("rotate", piece_id, self._rotated(self._state(), piece_id, degrees, about))

    def snap(self, piece_id: str, step: float | None = None) -> None:
        """Snap a piece's reference point to the grid (step, default `grid`) and its rotation
        to `rotation_step`."""
        self._commit("snap", piece_id, self._snapped(self._state(), piece_id, step))

    def add(self, kind: str, at: tuple[float, float], piece_id: str | None = None,
            **data: Any) -> str:
        """Add a piece of a scene terrain type centred on `at`: DEFAULTS geometry, the
        ruleset's usual rules data (cover, area...), then `data` on top. Returns its id."""
        if kind not in TERRAIN_TYPES:
            raise ValueError(f"unknown terrain type {kind!r}; types: {', '.join(TERRAIN_TYPES)}")
        piece_id = piece_id or self._new_id(kind)
        if piece_id in self._ids():
            raise ValueError(f"id {piece_id!r} is taken")
        base = translated(DEFAULTS[kind], float(at[0]), float(at[1]))
        setup = system(self.scene.ruleset).setup_rules
        rules = setup.data.get(kind, {}) if setup is not None else {}
        terrain = [*self.pieces, TerrainPiece(piece_id, kind, {**base, **rules, **data})]
        self._commit("add", piece_id, (terrain, self.scene.models))
        return piece_id

    def delete(self, piece_id: str) -> None:
        """Remove a piece."""
        self.piece(piece_id)
        terrain = [p for p in self.pieces if p.id != piece_id]
        self._commit("delete", piece_id, (terrain, self.scene.models))

    def set(self, piece_id: str, **data: Any) -> None:
        """Change keys of a piece (height=3, cover=4...); a value of None removes the key."""
        new = {**self.piece(piece_id).data, **data}
        new = {k: v for k, v in new.items() if v is not None}
        terrain = [replace(p, data=new) if p.id == piece_id else p for p in self.pieces]
        self._commit("edit", piece_id, (terrain, self.scene.models))

    # ---- dragging ---------------------------------------------------------------------------

    def begin_drag(self, piece_id: str, at: tuple[float, float]) -> None:
        """Start dragging a piece from table point `at`."""
        self.piece(piece_id)
        self._drag = (piece_id, np.asarray(at, dtype=np.float64), self._state())

    def drag_to(self, at: tuple[float, float]) -> None:
        """Move the dragged piece with the pointer (a preview: no undo step yet)."""
        if self._drag is None:
            raise ValueError("no drag in progress")
        piece_id, start, before = self._drag
        dx, dy = np.asarray(at, dtype=np.float64) - start
        self._apply(self._translated(before, piece_id, float(dx), float(dy)))
        self._emit(Change("drag", piece_id, final=False))

    def end_drag(self) -> None:
        """Drop the dragged piece: snap it to the grid (when set); one undo step."""
        if self._drag is None:
            raise ValueError("no drag in progress")
        piece_id, _, before = self._drag
        state = self._snapped(self._state(), piece_id) if self.grid else self._state()
        try:
            self._apply(state)
        except ValueError:
            self.cancel_drag()  # the piece goes back; no undo step is left half-made
            raise
        self._drag = None
        self._undo.append(before)
        self._redo.clear()
        self._emit(Change("move", piece_id))

    def cancel_drag(self) -> None:
        """Put the dragged piece back where the drag began."""
        if self._drag is not None:
            piece_id, _, before = self._drag
            self._drag = None
            self._apply(before)
            self._emit(Change("move", piece_id))

    # ---- history and saving -----------------------------------------------------------------

    @property
    def can_undo(self) -> bool:
        return bool(self._undo)

    @property
    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo(self) -> bool:
        """Undo the last edit; False when there is none."""
        if not self._undo:
            return False
        self._redo.append(self._state())
        self._apply(self._undo.pop())
        self._emit(Change("undo", None))
        return True

    def redo(self) -> bool:
        """Redo the last undone edit; False when there is none."""
        if not self._redo:
            return False
        self._undo.append(self._state())
        self._apply(self._redo.pop())
        self._emit(Change("redo", None))
        return True

    def save(self, path: str | Path | None = None) -> Path:
        """Write the scene safely (``scenes.output``) to path, default the file it came from,
        once the validator has accepted it as it would read it there. Returns the path."""
        target = Path(path) if path is not None else self.scene.path
        if target is None:
            raise ValueError("the scene has no file; give a path")
        scene_from_dict(scene_to_dict(self.scene), str(target), scene_dir=target.parent)
        save_scene(self.scene, target)
        self.scene.path = target
        self.dirty = False
        self._emit(Change("save", None))
        return target

    # ---- internals --------------------------------------------------------------------------

    def _state(self) -> State:
        return copy.deepcopy((self.scene.terrain, self.scene.models))

    def _ids(self) -> set[str]:
        return {p.id for p in self.pieces} | {m.id for m in self.scene.models}

    def _carried(self, state: State, piece_id: str) -> np.ndarray:
        """(n_models,) bool: the models standing on the piece (base centre on its footprint;
        ruins, boxes and hills), which move with it."""
        terrain, models = state
        piece = _find(terrain, piece_id)
        if piece.type not in CARRIED_BY or not models:
            return np.zeros(len(models), dtype=bool)
        return planar.covers(np.array([m.at for m in models], float), piece_footprint(piece))

    def _translated(self, state: State, piece_id: str, dx: float, dy: float) -> State:
        terrain, models = state
        carried = self._carried(state, piece_id)
        terrain = [replace(p, data=translated(p.data, dx, dy)) if p.id == piece_id else p
                   for p in terrain]
        models = [replace(m, at=(_r(m.at[0] + dx), _r(m.at[1] + dy))) if c else m
                  for m, c in zip(models, carried, strict=True)]
        return terrain, models

    def _rotated(self, state: State, piece_id: str, degrees: float,
                 about: tuple[float, float] | None = None) -> State:
        terrain, models = state
        piece = _find(terrain, piece_id)
        centre = piece_centre(piece) if about is None else np.asarray(about, dtype=np.float64)
        carried = self._carried(state, piece_id)
        terrain = [replace(p, data=rotated(p.type, p.data, degrees, about)) if p.id == piece_id
                   else p for p in terrain]
        turn = rotation_2d(degrees)
        moved = []
        for m, c in zip(models, carried, strict=True):
            if c:
                x, y = turn @ (np.asarray(m.at, dtype=np.float64) - centre) + centre
                m = replace(m, at=(_r(x), _r(y)), facing=_r((m.facing + degrees) % 360.0))
            moved.append(m)
        return terrain, moved

    def _snapped(self, state: State, piece_id: str, step: float | None = None) -> State:
        piece = _find(state[0], piece_id)
        step = step or self.grid or 1.0
        cx, cy = piece_centre(piece)
        state = self._translated(state, piece_id, round(cx / step) * step - cx,
                                 round(cy / step) * step - cy)
        piece = _find(state[0], piece_id)
        if "rotation" in piece.data and self.rotation_step:
            turn = float(piece.data["rotation"])
            target = round(turn / self.rotation_step) * self.rotation_step
            state = self._rotated(state, piece_id, target - turn)
        return state

    def _new_id(self, kind: str) -> str:
        taken = self._ids()
        n = 1
        while f"{kind}-{n}" in taken:
            n += 1
        return f"{kind}-{n}"

    def _commit(self, action: str, piece_id: str | None, state: State) -> None:
        before = self._state()
        self._apply(state)
        self._undo.append(before)
        self._redo.clear()
        self._emit(Change(action, piece_id))

    def _apply(self, state: State) -> None:
        """Validate the scene in this state and take it (ValueError and no change if bad)."""
        terrain, models = copy.deepcopy(state)
        data = scene_to_dict(replace(self.scene, terrain=terrain, models=models))
        try:
            checked = scene_from_dict(data, file=str(self.scene.path or "<editor>"),
                                      scene_dir=self.scene.scene_dir)
        except SceneError as error:
            raise ValueError(str(error.problems[0]) if error.problems else str(error)) from None
        self.scene = replace(checked, path=self.scene.path)
        self.dirty = True


def _find(terrain: list[TerrainPiece], piece_id: str) -> TerrainPiece:
    for piece in terrain:
        if piece.id == piece_id:
            return piece
    raise KeyError(piece_id)


def _r(value: float) -> float | int:
    v = round(float(value), 3)
    return int(v) if v.is_integer() else v


class LiveAnalysis:
    """Re-runs the layout analysis after every final change of an editor and hands the result
    to on_update (e.g. to redraw the heatmap and the figures panel)."""

    def __init__(self, editor: LayoutEditor, grid: float = 2.0,
                 on_update: Callable[[LayoutAnalysis], None] | None = None):
        self.editor, self.grid, self.on_update = editor, grid, on_update
        self.analysis: LayoutAnalysis | None = None
        self.refresh()
        self.unsubscribe = editor.on_change(self._changed)

    def _changed(self, change: Change) -> None:
        if change.final and change.action != "save":
            self.refresh()

    def refresh(self) -> LayoutAnalysis:
        """Analyse the editor's scene now."""
        self.analysis = analyze_scene(self.editor.scene, self.grid)
        if self.on_update is not None:
            self.on_update(self.analysis)
        return self.analysis
