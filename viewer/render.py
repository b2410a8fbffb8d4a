"""Offscreen pictures of a battlefield: the library call under `battlesight render`.

    from battlesight.viewer.render import RenderSettings, render_scene, save_png
    image = render_scene(world, scene, RenderSettings(view="top", los="sgt"))  # (h, w, 3) uint8
    save_png(image, "overview.png")

Works without a display: `viewer.platform` picks EGL (headless GL) or the software renderer.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from battlesight.rulesets.core.chunks import judge_in_chunks
from battlesight.rulesets.core.unit_matrix import all_pairs, cell_facts, unit_matrix
from battlesight.scenes.output import (
    IncompleteWrite,
    folder_target,
    numbered_paths,
    write_output,
    write_outputs,
)

from . import lighting, platform
from .cameras import CameraPose, fit_orbit, frame_points, parse_view
from .heatmap import DEFAULT_GRID, normalise, scene_heat
from .matrix_view import half_line_dicts
from .overlays import ruler_ends
from .rulings import SightLine
from .sceneview import SceneView
from .stage import DrawnLabel

DEFAULT_FPS = 30.0
TURNTABLE_PITCH = -35.0


@dataclass
class RenderSettings:
    """What to draw and how big.

    view:     top | iso | edge1 | edge2 | stream | eye:MODEL[:TARGET]
    los:      model id whose sight lines to every enemy are drawn (with a legend); an eye
              view draws its own model's when los is None
    per_model: a line per target model (default: one per target unit, `rulings.drawn_sights`)
    target:   with los, the target whose sample points are drawn (seen / hidden)
    heatmap:  an (ny, nx) field over the table, or a field name (`heatmap.FIELDS`): "exposure"
              and the other layout-analysis fields (`battlesight analyze`), or "eyes"
    heatmap_grid: the layout analysis grid (inches) for a named field
    labels:   True / "model" labels every model, "unit" one label per unit (False: none)
    ruler:    two model ids (measured base edge to base edge) or two (3,) points
    matrix:   who sees whom: the top view with a line per pair of enemy units coloured by
              verdict, and the unit-by-unit grid `los --all` prints beside it (needs a scene)
    backend:  None (auto / $BATTLESIGHT_RENDERER), "headlessgl" or "tiny"
    lit, mat, grid, armies: the look (`lighting.Look`): the lit shader pipe where the back
              end has GLSL (False: the flat look), the table mat (auto, grass, desert, city,
              plain), its inch grid, and army colours by player number
    """

    width: int = 1280
    height: int = 720
    view: str = "iso"
    los: str | None = None
    target: str | None = None
    labels: bool | str = False
    legend: bool = True
    per_model: bool = False
    heatmap: np.ndarray | str | None = None
    heatmap_grid: float = DEFAULT_GRID
    ruler: tuple | None = None
    matrix: bool = False
    backend: str | None = None
    lit: bool = True
    mat: str = "auto"
    grid: bool = True
    armies: dict | None = None

    def look(self) -> lighting.Look:
        """The look these settings ask for (shaded where the back end can)."""
        return lighting.Look(self.lit, self.mat, self.grid, dict(self.armies or {}))


@dataclass
class Drawing:
    """What one picture shows, for `render --json`: the camera, the sight lines and the
    labels as laid out, and the who-sees-whom cells of a matrix picture with the unit lines
    drawn for them (`matrix_lines`: (cell, start, end) halves)."""

    camera: CameraPose
    width: int
    height: int
    lines: list[SightLine]
    labels: list[DrawnLabel]
    matrix: tuple[list[str], dict] | None = None
    matrix_lines: list = field(default_factory=list)

    def to_dict(self) -> dict:
        out = {"camera": self.camera.to_dict(self.width, self.height),
               "lines": [line.to_dict() for line in self.lines],
               "labels": [label.to_dict() for label in self.labels]}
        if self.matrix is not None:
            units, cells = self.matrix
            out["matrix"] = {"units": units, "cells": [c.to_dict() for c in cells.values()],
                             "lines": half_line_dicts(self.matrix_lines)}
        return out


class OffscreenRenderer:
    """A SceneView drawn into an offscreen buffer; keep one to render many frames cheaply."""

    def __init__(self, world, scene=None, width: int = 1280, height: int = 720,
                 backend: str | None = None, look: lighting.Look | None = None,
                 multisamples: int = lighting.MULTISAMPLES):
        """multisamples: anti-aliasing samples per pixel of the lit look (0: none; a video
        may trade some for speed: 4x costs about 60% more than none on llvmpipe)."""
        look = look or lighting.Look()
        self.target = platform.make_offscreen(width, height, backend,
                                              multisamples if look.shaded else 0)
        look = lighting.for_output(look, self.target.buffer)
        self.view = SceneView(world, scene, width, height, look)
        self.view.stage.attach(self.target.buffer)
        self._warm = False  # a GL pipe's first frame is drawn twice (see `render`)

    @property
    def backend(self) -> str:
        return self.target.backend

    def render(self) -> np.ndarray:
        """Draw one frame; (h, w, 3) uint8, top row first."""
        engine = platform.engine()
        if not self._warm and self.backend != "tiny":  # shadow map and programs, once
            if self.view.look.shaded and not lighting.warm_up(engine, self.view.stage):
                self.view.look = lighting.FLAT  # a driver refused the GLSL: the flat look
                self.view.build()
        self._warm = True
        engine.render_frame()
        if self.backend == "tiny":
            engine.render_frame()  # the copy to RAM lands one frame late on this pipe
        return self.target.read_rgb()

    def close(self) -> None:
        self.view.stage.detach(self.target.buffer)
        self.target.close()

    def __enter__(self) -> OffscreenRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def sight_observer(settings: RenderSettings) -> str | None:
    """Whose sight lines a picture draws: `los`, else the model whose eye an eye view looks
    through (a model's-eye view shows what that model sees, coloured by its verdicts)."""
    if settings.los is not None:
        return settings.los
    kind, model, _ = parse_view(settings.view)
    return model if kind == "eye" else None


def apply_settings(view: SceneView, settings: RenderSettings) -> None:
    """Set up a SceneView as the settings ask (KeyError names an unknown model)."""
    view.show_labels = settings.labels
    view.show_legend = settings.legend
    view.sight_per_model = settings.per_model
    if isinstance(settings.heatmap, str):
        heat = scene_heat(view.world, view.scene, settings.heatmap, settings.heatmap_grid)
        view.heatmap, view.heatmap_title, view.heatmap_notes = heat.field, heat.title, heat.notes
    elif settings.heatmap is not None:
        view.heatmap = normalise(settings.heatmap)
    if settings.ruler is not None:
        view.ruler = ruler_ends(view.world, *settings.ruler, view.judge.board)
    if settings.matrix:
        if view.scene is None:
            raise ValueError("a who-sees-whom matrix needs a scene (its units)")
        # every pair a chunk at a time, each verdict kept only as its cell's facts
        cells = [cell_facts(v.to_dict()) for chunk in judge_in_chunks(
            view.judge.ruleset, view.judge.board, all_pairs(view.scene, view.world))
            for v in chunk]
        view.matrix = unit_matrix(view.scene, cells)
    view.set_view("top" if settings.matrix else settings.view)
    view.show_sight_lines(sight_observer(settings), settings.target)


def render_scene(world, scene=None, settings: RenderSettings | None = None) -> np.ndarray:
    """One picture of the world as settings ask: (height, width, 3) uint8."""
    return render_scene_lines(world, scene, settings)[0]


def render_scene_lines(world, scene=None, settings: RenderSettings | None = None
                       ) -> tuple[np.ndarray, list[SightLine]]:
    """One picture and the sight lines drawn in it (their verdicts, as `render --json`)."""
    image, drawing = render_drawing(world, scene, settings)
    return image, drawing.lines


def render_drawing(world, scene=None, settings: RenderSettings | None = None
                   ) -> tuple[np.ndarray, Drawing]:
    """One picture and what it shows (`Drawing`: camera, sight lines, laid-out labels)."""
    settings = settings or RenderSettings()
    with OffscreenRenderer(world, scene, settings.width, settings.height,
                           settings.backend, settings.look()) as renderer:
        apply_settings(renderer.view, settings)
        image = renderer.render()
        view = renderer.view
        return image, Drawing(view.stage.pose, settings.width, settings.height,
                              list(view.lines), list(view.stage.drawn_labels), view.matrix,
                              list(view.matrix_lines))


def turntable_orbits(world, aspect: float, frames: int, image_aspect: float | None = None,
                     pitch: float = TURNTABLE_PITCH, heading: float = -35.0) -> list:
    """The Orbit of each turntable frame: once round the table, each frame fitted on its own
    to the table and everything on it (`cameras.fit_orbit`), so no frame cuts the table."""
    points = frame_points(world)
    centre = np.array([world.table[0] / 2.0, world.table[1] / 2.0, 0.0])
    return [fit_orbit(heading + 360.0 * i / frames, pitch, points, aspect,
                      image_aspect=image_aspect, focus=centre) for i in range(int(frames))]


def render_turntable(world, scene=None, settings: RenderSettings | None = None,
                     frames: int = 36, pitch: float = TURNTABLE_PITCH) -> list[np.ndarray]:
    """frames pictures orbiting the table once, each framed on its own (the view setting is
    ignored)."""
    settings = settings or RenderSettings()
    images = []
    with OffscreenRenderer(world, scene, settings.width, settings.height,
                           settings.backend, settings.look()) as renderer:
        apply_settings(renderer.view, settings)
        stage = renderer.view.stage
        for orbit in turntable_orbits(world, stage.view_aspect, frames, stage.aspect, pitch):
            renderer.view.set_orbit(orbit)
            images.append(renderer.render())
    return images


def png_bytes(image: np.ndarray) -> bytes:
    """An (h, w, 3) uint8 image as PNG bytes."""
    from PIL import Image

    buffer = io.BytesIO()
    # zlib level 2: a textured 1080p picture in 0.1 s instead of 0.3 s, 15% larger
    Image.fromarray(np.asarray(image, dtype=np.uint8)).save(buffer, format="PNG",
                                                            compress_level=2)
    return buffer.getvalue()


def save_png(image: np.ndarray, path: str | Path) -> Path:
    """Write an (h, w, 3) uint8 image as PNG (``scenes.output``: whole or not at all)."""
    return write_output(path, png_bytes(image))


def save_frames(images: list[np.ndarray], path: str | Path,
                fps: float = DEFAULT_FPS) -> list[Path]:
    """Write frames: an animated GIF when path ends in .gif, an H.264 video for .mp4 (through
    imageio-ffmpeg's bundled ffmpeg), else numbered PNGs (`name_000.png`, ...; a printf-style
    `name_%03d.png` numbers them where the pattern stands), all of them or none."""
    from PIL import Image

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".gif":
        first, *rest = [Image.fromarray(im).convert("P", palette=Image.ADAPTIVE) for im in images]
        buffer = io.BytesIO()
        first.save(buffer, format="GIF", save_all=True, append_images=rest,
                   duration=gif_delay_ms(fps), loop=0)
        return [write_output(path, buffer.getvalue())]
    if suffix == ".mp4":
        return [write_mp4(images, path, fps)]
    names = numbered_paths(path, len(images))
    return write_outputs({name: png_bytes(im) for name, im in zip(names, images, strict=True)})


def gif_delay_ms(fps: float) -> int:
    """A GIF frame's delay for fps: GIF counts in hundredths of a second (so 30 fps is 30 ms,
    33 fps), and players slow delays under 20 ms down to 100 ms, so 20 is the floor."""
    return max(20, 10 * round(100.0 / fps))


def write_mp4(images: list[np.ndarray], path: Path, fps: float = 12.0) -> Path:
    """Encode (h, w, 3) uint8 frames as H.264 MP4; written beside, then renamed."""
    height, width = images[0].shape[:2]
    return write_video(images, path, (width, height), fps)


def write_video(frames: Iterable[np.ndarray], path: str | Path, size: tuple[int, int],
                fps: float) -> Path:
    """Stream frames of `size` into an H.264 MP4 at path: encoded beside it, renamed over it
    only when the encoder took every frame and the file is a whole MP4 (`check_mp4`), so a
    full disk leaves the old file in place."""
    return write_output(path, lambda tmp: encode_mp4(frames, tmp, size, fps), check=check_mp4)


#: the boxes every playable MP4 holds at its top level
MP4_BOXES = (b"ftyp", b"mdat", b"moov")


def check_mp4(path: Path) -> None:
    """IncompleteWrite unless the file is a whole MP4: top-level boxes that end exactly at
    the end of the file, among them ftyp, mdat and moov (the index an encoder writes last)."""
    size = path.stat().st_size
    found, at = set(), 0
    with path.open("rb") as fh:
        while at < size:
            fh.seek(at)
            head = fh.read(16)
            length = int.from_bytes(head[:4], "big") if len(head) >= 8 else 0
            if length == 1 and len(head) == 16:  # a 64-bit size follows the type
                length = int.from_bytes(head[8:16], "big")
            elif length == 0 and len(head) >= 8:  # the last box runs to the end of the file
                length = size - at
            if length < 8 or at + length > size:
                raise IncompleteWrite(f"the video ends inside a box at byte {at:,} of "
                                      f"{size:,} (the encoder stopped: is the disk full?)")
            found.add(head[4:8])
            at += length
    missing = [b.decode() for b in MP4_BOXES if b not in found]
    if missing:
        raise IncompleteWrite(f"the video has no {', '.join(missing)} box (the encoder "
                              "stopped before the end: is the disk full?)")


def encode_mp4(frames: Iterable[np.ndarray], path: Path, size: tuple[int, int],
               fps: float) -> None:
    """Stream (h, w, 3) uint8 frames of `size` (width, height) into an H.264 MP4 at path
    (yuv420p, so every player shows it; sides padded to even numbers, as the codec needs),
    through imageio-ffmpeg's bundled ffmpeg. Frames may come from a generator."""
    import imageio_ffmpeg

    width, height = size
    even = (width + width % 2, height + height % 2)
    writer = imageio_ffmpeg.write_frames(
        str(path), even, fps=fps, codec="libx264", pix_fmt_out="yuv420p", quality=8,
        macro_block_size=1, ffmpeg_log_level="error", output_params=["-preset", "veryfast"],
    )
    sent = 0
    try:
        writer.send(None)
        for image in frames:
            frame = np.zeros((even[1], even[0], 3), dtype=np.uint8)
            frame[:height, :width] = image
            try:
                writer.send(np.ascontiguousarray(frame))
            except OSError:  # ffmpeg quit (its text is the library's, not the user's)
                raise IncompleteWrite(f"the video encoder stopped after {sent} frames (is the "
                                      "disk full?)") from None
            sent += 1
    finally:
        writer.close()


def render_demo_pictures(world, scene, out_dir: str | Path, observer: str | None = None,
                         size: tuple[int, int] = (1920, 1080)) -> list[Path]:
    """The pictures `battlesight demo` shows: the scene's overview (iso) and one model's
    sight lines (top view, with legend), as PNGs in out_dir, written when both are drawn.
    Returns their paths."""
    out = folder_target(out_dir)  # never through a symbolic link
    out.mkdir(parents=True, exist_ok=True)
    name = (getattr(scene, "path", None) and Path(scene.path).stem) or "scene"
    observer = observer or next(iter(world.models), None)
    width, height = size
    pictures = {out / f"{name}_overview.png":
                png_bytes(render_scene(world, scene, RenderSettings(width, height, "iso")))}
    if observer is not None:
        settings = RenderSettings(width, height, "top", los=observer)
        pictures[out / f"{name}_los_{observer}.png"] = png_bytes(
            render_scene(world, scene, settings))
    return write_outputs(pictures)  # both or neither
