"""The real window on a real X server (Xvfb, Mesa's software OpenGL as a VM or a laptop
without drivers has it): the screen is read from outside (`import -window root`, not the
renderer's own screenshot) to see the table drawn, a preset key change the view, the selected
model's sight lines in their verdict colours, a mouse drag of a model draw its move's path in
the colour of the rules' verdict, and q close the window. Skipped, saying why,
only where Xvfb, xdotool or ImageMagick's import cannot be had (CI installs them)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("panda3d")
Image = pytest.importorskip("PIL.Image")

from battlesight.viewer import palette  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "scenes" / "examples" / "demo.yaml"
TOOLS = ("Xvfb", "xdotool", "import")
MISSING = [tool for tool in TOOLS if shutil.which(tool) is None]
needs_x = pytest.mark.skipif(bool(MISSING), reason=f"no {', '.join(MISSING)} here (apt-get "
                             "install xvfb xdotool imagemagick; .ci/run installs them)")
SCREEN = (800, 500)


@pytest.fixture
def display():
    """A fresh Xvfb server; its DISPLAY value."""
    server = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0",
                               f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    number = server.stdout.readline().strip()
    assert number.isdigit(), "Xvfb did not start"
    yield f":{number}"
    server.terminate()
    server.wait(timeout=10)


def grab(env: dict) -> np.ndarray:
    """The whole X screen as (h, w, 3) uint8, read from the server."""
    png = subprocess.run(["import", "-window", "root", "png:-"], env=env, check=True,
                         capture_output=True, timeout=20).stdout
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def colour_pixels(image: np.ndarray, colour, tolerance: int = 10) -> int:
    rgb = np.round(np.asarray(colour[:3]) * 255)
    return int((np.abs(image.astype(int) - rgb).max(axis=2) <= tolerance).sum())


def drawn(image: np.ndarray) -> float:
    """Share of the screen that is neither black nor the window's background colour."""
    background = np.round(np.asarray(palette.BACKGROUND[:3]) * 255)
    off = (np.abs(image.astype(int) - background).max(axis=2) > 12) & (image.max(axis=2) > 12)
    return float(off.mean())


def open_view(env: dict, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "battlesight", "view", str(DEMO), "--size",
                             f"{SCREEN[0]}x{SCREEN[1]}", *extra], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def window_offsets(model: str, dy: float) -> np.ndarray:
    """(2, 2) window pixels of the model's base and of the point dy inches up the table from
    it, in the window's top view with the model selected (the same view made offscreen at the
    window's size: the legend of its sight lines moves the table right)."""
    from battlesight.scenes import load_scene
    from battlesight.scenes.build import build_world
    from battlesight.viewer.interact import Controller
    from battlesight.viewer.render import OffscreenRenderer

    scene = load_scene(DEMO)
    with OffscreenRenderer(build_world(scene), scene, *SCREEN, backend="tiny") as renderer:
        Controller(renderer.view).select(model)
        renderer.view.set_view("top")
        x, y, z = renderer.view.world.models[model].position
        pix, _ = renderer.view.stage.project(np.array([[x, y, z], [x, y + dy, z]]))
    return pix


def on_screen(env: dict, offsets: np.ndarray) -> list[list[str]]:
    """Window pixels as screen pixels (xdotool's arguments)."""
    found = subprocess.run(["xdotool", "search", "--name", "battlesight",
                            "getwindowgeometry", "--shell"], env=env, check=True,
                           capture_output=True, text=True, timeout=20).stdout
    geometry = dict(line.split("=") for line in found.split() if "=" in line)
    origin = np.array([int(geometry["X"]), int(geometry["Y"])])
    return [[str(int(v)) for v in origin + p] for p in offsets]


def press(env: dict, key: str) -> None:
    """A key press as X delivers it: the pointer over the window (no window manager: the
    focus follows the pointer), then the key."""
    subprocess.run(["xdotool", "mousemove", str(SCREEN[0] // 2), str(SCREEN[1] // 2), "key",
                    key], env=env, check=True, timeout=20)


def wait_for(condition, seconds: float, what: str):
    """condition()'s first answer that is not None or False, polled for `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = condition()
        if value is not None and value is not False:
            return value
        time.sleep(0.3)
    pytest.fail(f"timed out waiting for {what}")


@needs_x
def test_the_window_draws_the_table_takes_keys_and_quits(display):
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT)}
    env.pop("BATTLESIGHT_RENDERER", None)
    view = open_view(env, "--select", "sgt")
    drag = window_offsets("sgt", 3.0)  # while the window opens
    try:
        first = wait_for(lambda: (lambda im: im if drawn(im) > 0.3 else None)(grab(env)), 40,
                         "the table on the screen")
        # the sight lines of sgt, in the window's table area (right of the legend)
        table = first[:, SCREEN[0] // 3:]
        assert colour_pixels(table, palette.RULING["cover"]) > 40  # amber: boy-3 behind ruin-1
        assert colour_pixels(table, palette.RULING["hidden"]) > 40  # magenta: hidden boyz
        press(env, "1")
        top = wait_for(lambda: (lambda im: im if np.abs(im.astype(int) - first).mean() > 3
                                else None)(grab(env)), 20, "the top view")
        assert drawn(top) > 0.3
        assert colour_pixels(top, palette.MOVE_ILLEGAL) == 0
        start, end = on_screen(env, drag)
        # the window reads the pointer once a frame: each step waits for a frame or two
        subprocess.run(["xdotool", "mousemove", *start, "sleep", "1", "mousedown", "1",
                        "sleep", "1", "mousemove", start[0], str(int(start[1]) - 8), "sleep",
                        "0.5", "mousemove", *end], env=env, check=True, timeout=20)
        dragging = wait_for(lambda: (lambda im: im if colour_pixels(
            im, palette.MOVE_ILLEGAL) > 30 else None)(grab(env)), 20, "the refused drag path")
        assert colour_pixels(dragging, palette.MOVE_ILLEGAL) > 30  # sgt alone: coherency
        subprocess.run(["xdotool", "mouseup", "1"], env=env, check=True, timeout=20)
        press(env, "q")
        assert view.wait(timeout=20) == 0
    finally:
        if view.poll() is None:
            view.kill()
    err = view.stderr.read()
    assert "battlesight view: window: software OpenGL (llvmpipe" in err, err


@needs_x
def test_the_tiny_display_is_the_last_fallback(display):
    env = {**os.environ, "DISPLAY": display, "PYTHONPATH": str(ROOT),
           "BATTLESIGHT_RENDERER": "tiny"}
    view = open_view(env)
    try:
        wait_for(lambda: drawn(grab(env)) > 0.3, 40, "the table drawn by the tiny display")
        press(env, "Escape")  # nothing selected: esc quits
        assert view.wait(timeout=20) == 0
    finally:
        if view.poll() is None:
            view.kill()
    assert "window: Panda3D's tiny software display, because BATTLESIGHT_RENDERER=tiny" \
        in view.stderr.read()


def test_no_display_that_works_is_one_line_and_exit_2():
    env = {**os.environ, "DISPLAY": ":97531", "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-m", "battlesight", "view", str(DEMO)], env=env,
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no window could be opened on :97531" in lines[0], lines
