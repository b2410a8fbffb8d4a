"""Where pictures are drawn without a display: pick a Panda3D pipe and make offscreen buffers.

The only module that chooses a graphics back end. Order: ``headlessgl`` (EGL, e.g. Mesa
llvmpipe or a GPU) then ``tiny`` (Panda3D's software renderer, always there). The environment
variable ``BATTLESIGHT_RENDERER`` (``auto``, ``headlessgl`` or ``tiny``) overrides the choice.
The interactive window (`open_window`) tries hardware OpenGL, software OpenGL, then Panda3D's
tiny display, always double-buffered (a window without a back buffer shows black on Mesa).
"""

from __future__ import annotations

import atexit
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from panda3d.core import (
    FrameBufferProperties,
    GraphicsEngine,
    GraphicsOutput,
    GraphicsPipe,
    GraphicsPipeSelection,
    Texture,
    TypeRegistry,
    WindowProperties,
    loadPrcFileData,
)

ENV_VAR = "BATTLESIGHT_RENDERER"
BACKENDS = ("headlessgl", "tiny")

PRC = """
window-type offscreen
load-display p3headlessgl
aux-display p3tinydisplay
audio-library-name null
notify-level-device fatal
notify-level-display error
notify-level-egldisplay fatal
notify-level-x11display fatal
sync-video false
framebuffer-multisample false
"""

_configured = False
_pipes: dict[str, GraphicsPipe | None] = {}
_broken: set[str] = set()
last_backend: str | None = None  # the back end of the latest buffer made


class RenderUnavailable(RuntimeError):
    """No Panda3D back end could draw here."""


def configure() -> None:
    """Load the offscreen configuration once per process (before any pipe or ShowBase)."""
    global _configured
    if not _configured:
        loadPrcFileData("battlesight-offscreen", PRC)
        atexit.register(_close_all)
        _configured = True


def _close_all() -> None:
    """Close every output while Python is still alive (Panda's own exit-time teardown can
    reach Python objects after the interpreter is gone)."""
    GraphicsEngine.get_global_ptr().remove_all_windows()


def has_display() -> bool:
    """Whether an onscreen window can be opened here (X11 / Wayland, or not Linux)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def configure_window(width: int, height: int, onscreen: bool | None = None) -> bool:
    """Configuration for ShowBase (the interactive viewer): an onscreen OpenGL window where a
    display exists, else the same offscreen pipes as `configure`. Returns whether onscreen."""
    global _configured
    onscreen = has_display() if onscreen is None else onscreen
    if onscreen:
        prc = PRC.replace("window-type offscreen", "window-type onscreen").replace(
            "load-display p3headlessgl", "load-display pandagl\naux-display p3headlessgl")
    else:
        backend = requested_backend()
        prc = PRC if backend != "tiny" else PRC.replace("load-display p3headlessgl",
                                                        "load-display p3tinydisplay")
    loadPrcFileData("battlesight-window", prc + f"\nwin-size {int(width)} {int(height)}\n"
                    "window-title battlesight\n")
    if not _configured:
        atexit.register(_close_all)
        _configured = True
    return onscreen


def requested_backend(backend: str | None = None) -> str:
    """The back end asked for: the argument, else $BATTLESIGHT_RENDERER, else 'auto'."""
    name = (backend or os.environ.get(ENV_VAR) or "auto").strip().lower()
    if name not in ("auto", *BACKENDS):
        raise ValueError(f"unknown renderer {name!r}; use auto, headlessgl or tiny")
    return name


def _make_pipe(name: str) -> GraphicsPipe | None:
    if name in _pipes:
        return _pipes[name]
    configure()
    selection = GraphicsPipeSelection.get_global_ptr()
    pipe = None
    try:
        if name == "headlessgl":
            pipe = selection.make_module_pipe("p3headlessgl")
        else:
            selection.load_aux_modules()  # aux-display p3tinydisplay (see PRC)
            handle = TypeRegistry.ptr().find_type("TinyOffscreenGraphicsPipe")
            pipe = selection.make_pipe(handle) if handle else None
    except Exception:  # noqa: BLE001 - a missing library means "not this back end"
        pipe = None
    if pipe is not None and not pipe.is_valid():
        pipe = None
    _pipes[name] = pipe
    return pipe


def candidates(backend: str | None = None) -> list[str]:
    """Back ends to try, in order."""
    name = requested_backend(backend)
    return [b for b in BACKENDS if b not in _broken] if name == "auto" else [name]


def offscreen_pipe(backend: str | None = None) -> tuple[GraphicsPipe, str]:
    """The first pipe that can be made among the candidates, and its back end name."""
    for name in candidates(backend):
        pipe = _make_pipe(name)
        if pipe is not None:
            return pipe, name
    raise RenderUnavailable("no offscreen renderer works here")


def engine() -> GraphicsEngine:
    """The process's graphics engine."""
    configure()
    return GraphicsEngine.get_global_ptr()


@dataclass
class Offscreen:
    """An offscreen buffer whose colour is copied to RAM after every frame."""

    buffer: GraphicsOutput
    texture: Texture
    backend: str
    width: int
    height: int

    def read_rgb(self) -> np.ndarray:
        """(h, w, 3) uint8 image of the last frame, top row first."""
        return texture_rgb(self.texture)

    def close(self) -> None:
        """Release the buffer."""
        if self.buffer is not None:
            engine().remove_window(self.buffer)
            self.buffer = None


def texture_rgb(texture: Texture) -> np.ndarray:
    """(h, w, 3) uint8 copy of a texture's RAM image, top row first (alpha dropped: the
    framebuffer's alpha is not an image's transparency)."""
    data = texture.get_ram_image_as("RGB")
    h, w = texture.get_y_size(), texture.get_x_size()
    image = np.frombuffer(memoryview(data), dtype=np.uint8).reshape(h, w, 3)
    return np.ascontiguousarray(image[::-1])


def grab_rgb(output: GraphicsOutput) -> np.ndarray:
    """Render one more frame of any output (a window too) and return it as (h, w, 3)."""
    texture = Texture("battlesight-grab")
    output.add_render_texture(texture, GraphicsOutput.RTM_copy_ram)
    try:
        engine().render_frame()
        engine().render_frame()
        return texture_rgb(texture)
    finally:
        output.clear_render_textures()


def framebuffer(back_buffers: int = 0) -> FrameBufferProperties:
    """What every output asks for: 8-bit RGBA colour, 24-bit depth, no multisampling; a
    window also asks for a back buffer (it shows the frames it swaps in)."""
    fb = FrameBufferProperties()
    fb.set_rgb_color(True)
    fb.set_color_bits(24)
    fb.set_alpha_bits(8)
    fb.set_depth_bits(24)
    if back_buffers:
        fb.set_back_buffers(int(back_buffers))
    return fb


def make_offscreen(width: int, height: int, backend: str | None = None,
                   multisamples: int = 0) -> Offscreen:
    """A width x height offscreen buffer on the first back end that works; multisamples > 0
    asks GL back ends for an anti-aliased one (a plain buffer where that is refused)."""
    tried = []
    for name in candidates(backend):
        pipe = _make_pipe(name)
        if pipe is None:
            tried.append(f"{name}: no pipe")
            continue
        props = WindowProperties.size(int(width), int(height))
        buffer = None
        for samples in ((multisamples, 0) if multisamples and name != "tiny" else (0,)):
            fb = framebuffer()
            if samples:
                fb.set_multisamples(int(samples))
            buffer = engine().make_output(
                pipe, f"battlesight-{name}", 0, fb, props,
                GraphicsPipe.BF_refuse_window | GraphicsPipe.BF_refuse_parasite,
            )
            if buffer is not None:
                break
        if buffer is None:
            _broken.add(name)
            tried.append(f"{name}: no buffer")
            continue
        texture = Texture("battlesight-colour")
        buffer.add_render_texture(texture, GraphicsOutput.RTM_copy_ram)
        global last_backend
        last_backend = name
        return Offscreen(buffer, texture, name, int(width), int(height))
    raise RenderUnavailable("no offscreen renderer works here (" + "; ".join(tried) + ")")


def available_backends() -> list[str]:
    """Back ends whose pipe can be made here (buffers not tried)."""
    return [name for name in BACKENDS if _make_pipe(name) is not None]


#: the window's graphics, in the order tried: (name, Panda3D display module, environment)
WINDOW_CHOICES = (
    ("hardware OpenGL", "pandagl", {}),
    ("software OpenGL", "pandagl", {"LIBGL_ALWAYS_SOFTWARE": "1"}),
    ("Panda3D's tiny software display", "p3tinydisplay", {}),
)
SOFTWARE_GL = ("llvmpipe", "softpipe", "swrast", "software rasterizer")


def window_choices() -> list[tuple[str, str, dict[str, str]]]:
    """The window back ends to try: all of them, or only the tiny display where
    $BATTLESIGHT_RENDERER asks for tiny."""
    if requested_backend() == "tiny":
        return [WINDOW_CHOICES[-1]]
    return list(WINDOW_CHOICES)


def open_window(base, multisamples: int = 0) -> tuple[str, str]:
    """Open a ShowBase's onscreen window on the first back end that works, double-buffered
    (multisampled where `multisamples` and the driver allow): (back end name, the one line
    that says which and why). RenderUnavailable naming what each one said when none works."""
    selection = GraphicsPipeSelection.get_global_ptr()
    tried: list[str] = []
    for name, module, env in window_choices():
        os.environ.update(env)
        try:
            with _quiet_stderr():  # a second X module repeats Panda's type registration notes
                pipe = selection.make_module_pipe(module)
        except Exception:  # noqa: BLE001 - a missing library means "not this back end"
            pipe = None
        if pipe is None or not pipe.is_valid():
            tried.append(f"{name}: no pipe")
            continue
        opened = False
        for samples in ((multisamples, 0) if multisamples and module == "pandagl" else (0,)):
            fb = framebuffer(back_buffers=1)
            if samples:
                fb.set_multisamples(int(samples))
            if base.open_default_window(pipe=pipe, fbprops=fb, type="onscreen"):
                opened = True
                break
        if not opened:
            tried.append(f"{name}: no window")
            continue
        renderer = _renderer_name(base.win)
        software = any(s in renderer.lower() for s in SOFTWARE_GL)
        if module == "pandagl" and software:
            name = "software OpenGL"
        why = "; ".join(tried) if tried else ""
        if module == "pandagl" and software and not tried:
            why = "no hardware OpenGL driver for this display"
        if requested_backend() == "tiny":
            why = f"{ENV_VAR}=tiny"
        detail = f" ({renderer})" if renderer else ""
        return name, f"window: {name}{detail}" + (f", because {why}" if why else "")
    where = os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or "this display"
    raise RenderUnavailable(f"no window could be opened on {where} (" + "; ".join(tried)
                            + "); `battlesight render` draws offscreen")


@contextmanager
def _quiet_stderr():
    """File descriptor 2 to /dev/null for the block (what C++ prints there, too)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _renderer_name(window) -> str:
    """The GL driver's renderer string ('llvmpipe (LLVM 15.0.6, 256 bits)'), '' for others."""
    gsg = window.get_gsg() if window is not None else None
    try:
        return str(gsg.get_driver_renderer()).strip() if gsg is not None else ""
    except AttributeError:
        return ""
