"""Input handling for the viewer window, written against a SceneView so it runs without a display.

Every handler takes pixels (x right, y down) or a key name, changes the SceneView and returns;
the window (`viewer.window`) only forwards Panda3D events here, and tests call the same methods
on an offscreen view.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .cameras import Orbit, preset_orbit
from .heatmap import exposure_field
from .overlays import ruler_ends
from .render import EXPOSURE_TITLE
from .sceneview import SceneView

HELP = [
    "Keys (? or F1 hides this)",
    "left-drag orbit, right/middle-drag pan, wheel zoom",
    "click a model: select it, sight lines to every enemy",
    "click an enemy or a line: why (blockers, rule) + samples",
    "click that enemy again to select it",
    "1 top   2 iso   3 edge 1   4 edge 2",
    "e eye view of the selected model (at its target)",
    "m ruler: click two models or two table points",
    "l labels   h exposure heatmap   tab next model",
    "r / F5 reload the scene from disk   esc clear",
]
PRESET_KEYS = {"1": "top", "2": "iso", "3": "edge1", "4": "edge2"}
PICK_PX = 12.0  # how close (pixels) a click must be to a model or a sight line
Loader = Callable[[], tuple]  # () -> (world, scene)


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


class Controller:
    """The viewer's interaction state: selection, target, ruler, camera moves, reload."""

    def __init__(self, view: SceneView, loader: Loader | None = None):
        self.view = view
        self.loader = loader
        self.selected: str | None = None
        self.target: str | None = None
        self.ruler_mode = False
        self.ruler_points: list = []
        self.message = ""
        self.view.help = list(HELP)
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
        """A left click (no drag): ruler point, target (enemy or line) or selection.
        Returns the model id or line target acted on, if any."""
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

    def hover(self, px: float, py: float) -> str | None:
        """Mouse over a sight line: show why in the info panel (without changing the target)."""
        line = self.pick_line(px, py)
        if line is not None:
            self._explain(line)
        elif self.target is not None:
            self._explain(self.target)
        return line

    def select(self, model_id: str | None) -> None:
        """Select a model (None clears): its sight lines to every enemy."""
        self.selected, self.target = model_id, None
        self.view.show_sight_lines(model_id)
        self.view.info = [] if model_id is None else self._model_info(model_id)
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
        if name in PRESET_KEYS:
            self.view.set_view(PRESET_KEYS[name])
        elif name == "e":
            return self.eye_view()
        elif name in ("r", "f5"):
            return self.reload()
        elif name == "escape":
            self.ruler_mode, self.ruler_points = False, []
            self.view.set_ruler(None, None)
            self.select(None)
        elif name == "m":
            self.ruler_mode, self.ruler_points = not self.ruler_mode, []
            self._say("ruler: click two models or two table points" if self.ruler_mode
                      else "ruler off")
        elif name == "l":
            self.view.show_labels = not self.view.show_labels
            self.view.refresh()
        elif name == "h":
            field = None if self.view.heatmap is not None else exposure_field(self.view.world)
            self.view.set_heatmap(field, EXPOSURE_TITLE)
        elif name == "tab":
            ids = list(self.view.world.models)
            if ids:
                i = (ids.index(self.selected) + 1) % len(ids) if self.selected in ids else 0
                self.select(ids[i])
        elif name in ("?", "f1", "shift-/"):
            self.view.help = [] if self.view.help else list(HELP)
            self.view.refresh()
        else:
            return False
        return True

    def eye_view(self) -> bool:
        """Put the camera at the selected model's eye, looking at its target (or its front)."""
        if self.selected is None:
            self._say("select a model first (click it, or tab)")
            return False
        target = f":{self.target}" if self.target else ""
        self.view.set_view(f"eye:{self.selected}{target}")
        return True

    def reload(self) -> bool:
        """Read the scene again from disk (keeps the camera and, if still there, the selection)."""
        if self.loader is None:
            return False
        try:
            world, scene = self.loader()
        except Exception as error:  # noqa: BLE001 - a broken file must not close the window
            problems = [str(p) for p in getattr(error, "problems", [])] or [str(error)]
            self._say("reload failed, still showing the old scene", *problems[:6])
            return False
        selected, target = self.selected, self.target
        self.view.replace_world(world, scene)
        if selected in world.models:
            self.select(selected)
            if target in world.models:
                self.set_target(target)
        else:
            self.select(None)
        self._say("reloaded")
        return True

    # ---- camera -------------------------------------------------------------------------

    def _orbit(self) -> Orbit:
        if self.view.orbit is not None:
            return self.view.orbit
        pose = self.view.stage.pose
        d = pose.target - pose.position
        dist = float(np.linalg.norm(d))
        heading = math.degrees(math.atan2(-d[0], d[1]))
        pitch = math.degrees(math.asin(max(-1.0, min(1.0, d[2] / max(dist, 1e-9)))))
        return Orbit(pose.target.copy(), heading, pitch, dist, pose.fov)

    def orbit(self, dx: float, dy: float) -> None:
        """Turn around the focus by a mouse drag of (dx, dy) pixels."""
        o = self._orbit()
        pitch = float(np.clip(o.pitch - dy * 0.3, -90.0, -2.0))
        self.view.set_orbit(Orbit(o.focus, o.heading - dx * 0.3, pitch, o.distance, o.fov))

    def pan(self, dx: float, dy: float) -> None:
        """Slide the focus over the table by a drag of (dx, dy) pixels."""
        o = self._orbit()
        scale = o.distance * 2 * math.tan(math.radians(o.fov) / 2) / self.view.stage.height
        h = math.radians(o.heading)
        right = np.array([math.cos(h), math.sin(h), 0.0])
        forward = np.array([-math.sin(h), math.cos(h), 0.0])
        focus = o.focus + (-dx * right + dy * forward) * scale
        self.view.set_orbit(Orbit(focus, o.heading, o.pitch, o.distance, o.fov))

    def zoom(self, steps: float) -> None:
        """Wheel: positive steps move closer."""
        o = self._orbit()
        dist = float(np.clip(o.distance * 0.85 ** steps, 2.0, 2000.0))
        self.view.set_orbit(Orbit(o.focus, o.heading, o.pitch, dist, o.fov))

    def home(self) -> None:
        table = self.view.world.table
        self.view.set_orbit(preset_orbit("iso", table, self.view.stage.view_aspect))

    # ---- texts --------------------------------------------------------------------------

    def _say(self, *lines: str) -> None:
        """Show a message in the info panel."""
        self.message = lines[0] if lines else ""
        self.view.info = list(lines)
        self.view.refresh()

    def _model_info(self, model_id: str) -> list[str]:
        m = self.view.world.models[model_id]
        x, y, z = m.position
        lines = [f"{model_id}: player {m.player}, unit {m.unit or '-'}",
                 f'at ({x:.1f}, {y:.1f}) on z {z:.1f}", facing {m.facing:.0f}',
                 f"sees {sum(ln.visibility.visible for ln in self.view.lines)} of "
                 f"{len(self.view.lines)} enemy models"]
        return lines

    def _explain(self, target: str) -> None:
        line = self.view.line_to(target)
        if line is None:
            return
        info = [f"{line.observer} -> {target}", *line.ruling.why()]
        if info != self.view.info:  # hover calls this on every mouse move
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
            self.view.set_ruler(*ruler_ends(self.view.world, a, b, self.view.classifier))
            self.ruler_points = []
        return model
