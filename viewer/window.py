"""The interactive viewer: a ShowBase window showing a SceneView, its input sent to a Controller.

Nothing here decides anything: mouse and keys become `Controller` calls (which tests drive
without a window). In edit mode a left press on a terrain piece drags the piece instead of
turning the camera. The layout analysis runs on a worker thread; each frame hands a finished
one to the controller. Without a display the window is an offscreen buffer, which lets
`battlesight view --frames N --screenshot FILE` run the real window code headless.
"""

from __future__ import annotations

import sys
from pathlib import Path

from direct.showbase.ShowBase import ShowBase

from . import lighting, platform
from .heatmap import DEFAULT_GRID
from .interact import Controller, Loader
from .sceneview import SceneView

KEYS = ("1", "2", "3", "4", "e", "r", "f5", "escape", "q", "m", "l", "h", "j", "tab", "f1",
        "shift-/", "t", "[", "]", "g", "a", "k", "x", "delete", "backspace", "z", "y",
        "control-z", "control-y", "shift-z", "s", "control-s")
DRAG_PX = 4.0


class ViewerWindow(ShowBase):
    """`battlesight view`: orbit/pan/zoom, presets, selection, sight lines, ruler, reload."""

    def __init__(self, loader: Loader, width: int = 1280, height: int = 720,
                 view: str = "iso", onscreen: bool | None = None,
                 grid: float = DEFAULT_GRID, look: lighting.Look | None = None):
        self.onscreen = platform.configure_window(width, height, onscreen)
        ShowBase.__init__(self, windowType="none")
        if self.onscreen:  # which graphics and why, in one line (RenderUnavailable: none)
            shaded = look is None or look.shaded
            self.backend, line = platform.open_window(
                self, lighting.MULTISAMPLES if shaded else 0)
            print(f"battlesight view: {line}", file=sys.stderr)
        else:  # the same pipes as the offscreen renders (the software one's offscreen kind)
            self.pipe, self.backend = platform.offscreen_pipe()
            self._open(look, type="offscreen", pipe=self.pipe)
        world, scene = loader()
        w, h = self.win.get_x_size(), self.win.get_y_size()
        look = lighting.for_output(look or lighting.Look(), self.win)  # lit where GLSL is
        self.scene_view = SceneView(world, scene, w or width, h or height, look)
        # the player clicks a target model's own line for why: a line per model here, where
        # pictures draw one per unit
        self.scene_view.sight_per_model = True
        self.controller = Controller(self.scene_view, loader, grid=grid, threaded=True)
        self.disable_mouse()
        self.win.remove_all_display_regions()
        self.scene_view.stage.attach(self.win)
        self.scene_view.set_view(view)
        self._press: dict[str, tuple[float, float]] = {}
        self._dragged: set[str] = set()
        self._last: tuple[float, float] | None = None
        self._editing_drag = False  # the left press went to a model or piece drag
        for button in ("mouse1", "mouse2", "mouse3"):
            self.accept(button, self._down, [button])
            self.accept(f"{button}-up", self._up, [button])
        self.accept("shift-mouse1", self._down, ["mouse1", True])  # drag the whole unit
        self.accept("shift-mouse1-up", self._up, ["mouse1"])
        self.accept("wheel_up", self.controller.zoom, [1])
        self.accept("wheel_down", self.controller.zoom, [-1])
        for key in KEYS:
            self.accept(key, self.controller.key, [key])
        self.accept("window-event", self._window_event)
        self.task_mgr.add(self._update, "battlesight-mouse")

    def _open(self, look: lighting.Look | None, **window) -> None:
        """The default window, multisampled for the lit look on a GL pipe (a plain one where
        the driver refuses the samples)."""
        if (look is None or look.shaded) and getattr(self, "backend", None) != "tiny":
            fb = platform.framebuffer()
            fb.set_multisamples(lighting.MULTISAMPLES)
            if self.open_default_window(fbprops=fb, **window):
                return
        self.open_default_window(fbprops=platform.framebuffer(), **window)

    # ---- mouse --------------------------------------------------------------------------

    def mouse_pixels(self) -> tuple[float, float] | None:
        """The pointer in pixels (x right, y down), None when outside the window."""
        watcher = self.mouseWatcherNode
        if watcher is None or not watcher.has_mouse():
            return None
        m = watcher.get_mouse()
        stage = self.scene_view.stage
        return (m.x + 1) / 2 * stage.width, (1 - m.y) / 2 * stage.height

    def _down(self, button: str, shift: bool = False) -> None:
        pos = self.mouse_pixels()
        if pos is not None:
            self._press[button] = pos
            self._dragged.discard(button)
            self._last = pos
            if button == "mouse1":
                self._editing_drag = self.controller.press(*pos, shift=shift)

    def _up(self, button: str) -> None:
        start = self._press.pop(button, None)
        if button == "mouse1" and self._editing_drag:
            self._editing_drag = False
            self.controller.release(*(self.mouse_pixels() or self._last or start))
        elif button == "mouse1" and start is not None and button not in self._dragged:
            self.controller.click(*start)
        self._dragged.discard(button)

    def _update(self, task):
        if self.controller.quit_requested:
            self.userExit()
        self.controller.poll()
        pos = self.mouse_pixels()
        self.controller.pointer = pos
        if pos is None:
            return task.cont
        if self._last is not None and self._press:
            dx, dy = pos[0] - self._last[0], pos[1] - self._last[1]
            for button, start in self._press.items():
                if abs(pos[0] - start[0]) + abs(pos[1] - start[1]) > DRAG_PX:
                    self._dragged.add(button)
            if "mouse1" in self._dragged and self._editing_drag:
                if dx or dy:
                    self.controller.drag(*pos)
            elif "mouse1" in self._dragged and (dx or dy):
                self.controller.orbit(dx, dy)
            elif self._dragged & {"mouse2", "mouse3"} and (dx or dy):
                self.controller.pan(dx, dy)
        elif pos != self._last:
            self.controller.hover(*pos)
        self._last = pos
        return task.cont

    def _window_event(self, window) -> None:
        if window is not self.win:
            return
        w, h = self.win.get_x_size(), self.win.get_y_size()
        stage = self.scene_view.stage
        if w > 0 and h > 0 and (w, h) != (stage.width, stage.height):
            self.scene_view.resize(w, h)
            self.scene_view.apply_view()

    # ---- headless runs ------------------------------------------------------------------

    def run_frames(self, frames: int, screenshot: str | Path | None = None) -> None:
        """Step the task manager `frames` times (no event loop), then save a screenshot
        (after the layout analysis in progress, if any, has been drawn)."""
        for _ in range(max(1, frames)):
            self.task_mgr.step()
        if self.controller.analyser.pending:
            self.controller.finish()
            self.task_mgr.step()
        if screenshot is not None:
            from .render import save_png

            save_png(platform.grab_rgb(self.win), screenshot)


def run_viewer(loader: Loader, width: int = 1280, height: int = 720, view: str = "iso",
               select: str | None = None, frames: int | None = None,
               screenshot: str | Path | None = None, heatmap: str | None = None,
               grid: float = DEFAULT_GRID, edit: bool = False,
               look: lighting.Look | None = None) -> ViewerWindow:
    """Open the viewer; with frames, run that many frames and return instead of looping.
    heatmap: a field to show from the start (`heatmap.FIELDS`); edit: start in edit mode;
    look: the lit look's mat, grid and army colours (`render`'s look options)."""
    app = ViewerWindow(loader, width, height, view, grid=grid, look=look)
    if select is not None:
        app.controller.select(select)
    if heatmap is not None:
        app.controller.show_heatmap(heatmap)
    if edit:
        app.controller.toggle_edit()
    if frames is None:
        app.run()
    else:
        app.run_frames(frames, screenshot)
    return app
