"""A played game as frames: the scene's models glide along their moves, shots fly from firer to
target (hits bright with a burst at the target, misses grey and wide), casualties fade out, a
caption says what happened and the camera frames each beat's action.

    from battlesight.viewer.replay import replay_frames
    for image in replay_frames(world, scene, beats, fps=30):  # (h, w, 3) uint8 each
        ...

The beats come from `viewer.replay_timeline` (a `play --log` file); the world is the scene as
it was before the game, and each beat moves its nodes, never the world: nothing is judged
again, the log is drawn as the game played it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from panda3d.core import NodePath, TransparencyAttrib

from . import geom, lighting, palette
from .cameras import Orbit, fit_orbit, world_orbit
from .overlays import draw_legend, panel, text_width
from .render import OffscreenRenderer
from .replay_timeline import Beat
from .scenegraph import draw_terrain
from .stage import add_text

#: Camera angles of the action shots (degrees): the iso view's heading, a steeper pitch.
ACTION_PITCH = -58.0
#: The smallest area (inches across) a beat's camera frames, so a lone model is not a close-up.
MIN_FRAME = 18.0
HIT: palette.Colour = (1.00, 0.93, 0.35, 1.0)
MISS: palette.Colour = (0.62, 0.62, 0.66, 0.85)
LINE_RADIUS = 0.09
#: While models move or fade, their shadows are redrawn every this many frames.
SHADOW_EVERY = 3


def smooth(t: float) -> float:
    """Smoothstep of t clipped to [0, 1]: eases in and out."""
    t = min(max(t, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


@dataclass
class Pose:
    """Where a model is drawn: (x, y, z) and facing (degrees)."""

    at: np.ndarray
    facing: float


class ReplayStage:
    """An offscreen SceneView whose model nodes hang from pivots the replay moves."""

    def __init__(self, world, scene, width: int, height: int, backend: str | None = None,
                 multisamples: int = 2, look: lighting.Look | None = None):
        self.world = world
        self.renderer = OffscreenRenderer(world, scene, width, height, backend, look,
                                          multisamples=multisamples)
        view = self.renderer.view
        view.show_legend = False
        view.refresh()
        self.view = view
        self.start: dict[str, Pose] = {}
        self.pivots: dict[str, NodePath] = {}
        root = view.graph.root
        for model_id, model in world.models.items():
            pose = Pose(np.asarray(model.position, float).copy(), float(model.facing))
            pivot = root.attach_new_node(f"replay-{model_id}")
            pivot.set_pos(*map(float, pose.at))
            pivot.set_h(pose.facing)
            for node in (view.graph.models.get(model_id), view.graph.rings.get(model_id)):
                if node is not None:
                    node.wrt_reparent_to(pivot)
            pivot.set_transparency(TransparencyAttrib.M_alpha)
            self.start[model_id] = pose
            self.pivots[model_id] = pivot
        self.fx = lighting.unlit(root.attach_new_node("replay-fx"))  # exact colours, no shadow
        self.fx.set_light_off(1)
        self.fx.set_transparency(TransparencyAttrib.M_alpha)
        self.hud = view.stage.overlay.attach_new_node("replay-hud")

    def place(self, model_id: str, pose: Pose, alpha: float = 1.0) -> None:
        pivot = self.pivots[model_id]
        pivot.set_pos(*map(float, pose.at))
        pivot.set_h(pose.facing)
        if alpha <= 0.0:
            pivot.hide()
        else:
            pivot.show()
            pivot.set_alpha_scale(alpha)

    def grab(self, shadows: bool = True) -> np.ndarray:
        """Draw one frame and read it: (h, w, 3) uint8. One pass, where `render` draws two
        to be sure of the first frame on pipes whose copy to RAM lands a frame late; in a
        video such a pipe shifts frames by one, which nobody sees. shadows=False keeps the
        last shadow map (nothing moved since: the depth pass is a fifth of a lit frame)."""
        from . import platform

        buffer = self._shadow_buffer()
        if buffer is not None:
            buffer.set_active(shadows)
        platform.engine().render_frame()
        return self.renderer.target.read_rgb()

    def _shadow_buffer(self):
        """The key light's shadow buffer in the lit look (None in the flat one)."""
        if not hasattr(self, "_shadows"):
            sun = self.view.stage.root.find("**/key-light")
            gsg = self.renderer.target.buffer.get_gsg()
            self._shadows = None
            if not sun.is_empty() and gsg is not None and hasattr(sun.node(),
                                                                  "get_shadow_buffer"):
                self._shadows = sun.node().get_shadow_buffer(gsg)
        return self._shadows

    def close(self) -> None:
        self.renderer.close()


def end_poses(poses: dict[str, Pose], beat: Beat, world) -> dict[str, Pose]:
    """Where each moving model of a beat ends (z from the log, else the ground under it)."""
    out = {}
    for model_id, (x, y, z, facing) in beat.moves.items():
        if model_id not in poses:
            continue
        if z is None:
            z = float(world.stand_height((x, y)))
        out[model_id] = Pose(np.array([x, y, z]), poses[model_id].facing if facing is None
                             else float(facing))
    return out


def model_centre(world, model_id: str, pose: Pose) -> np.ndarray:
    """(3,) the middle of a model's volume drawn at pose."""
    model = world.models[model_id]
    lo, hi = model.volume.mesh.bounds
    return pose.at + np.array([0.0, 0.0, (lo[2] + hi[2]) / 2.0])


def beat_orbit(world, beat: Beat, before: dict[str, Pose], after: dict[str, Pose],
               aspect: float, overview: Orbit, image_aspect: float) -> Orbit:
    """The camera for a beat: the overview's heading, looking down on every model the beat is
    about (where it starts and where it ends) with a margin, never closer than a MIN_FRAME
    square nor wider than the overview; the whole table when it is about no model."""
    points = [p.at for m in beat.models() for p in (before.get(m), after.get(m)) if p]
    if not points:
        return overview
    pts = np.array(points)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    centre = (lo + hi) / 2.0
    half = np.maximum((hi - lo)[:2] / 2.0, MIN_FRAME / 2.0)
    corners = np.array([[centre[0] + sx * half[0], centre[1] + sy * half[1], z]
                        for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, hi[2] + 2.5)])
    orbit = fit_orbit(overview.heading, ACTION_PITCH, corners, aspect, margin=0.12,
                      image_aspect=image_aspect, fov=overview.fov)
    if orbit.distance > overview.distance:
        return overview
    return orbit


def blend(a: Orbit, b: Orbit, t: float) -> Orbit:
    """The orbit a fraction t of the way from a to b (focus, pitch and distance eased)."""
    u = smooth(t)
    ortho = None if a.ortho is None or b.ortho is None else a.ortho + (b.ortho - a.ortho) * u
    return Orbit(a.focus + (b.focus - a.focus) * u, a.heading + (b.heading - a.heading) * u,
                 a.pitch + (b.pitch - a.pitch) * u, a.distance + (b.distance - a.distance) * u,
                 b.fov, ortho)


def draw_shots(stage: ReplayStage, beat: Beat, poses: dict[str, Pose], t: float) -> None:
    """The beat's shot lines at time t of it: they fly out over [0.15, 0.5], hold, and the hits
    burst at their targets."""
    stage.fx.node().remove_all_children()
    reach = smooth((t - 0.15) / 0.35)
    if reach <= 0.0 or t > 0.95:
        return
    groups: dict[bool, tuple[list, list]] = {True: ([], []), False: ([], [])}
    bursts = []
    for i, shot in enumerate(beat.shots):
        if shot.firer not in poses or shot.target not in poses:
            continue
        start = model_centre(stage.world, shot.firer, poses[shot.firer])
        end = model_centre(stage.world, shot.target, poses[shot.target])
        if not shot.hit:  # a miss flies past, to one side of the target
            span = end - start
            side = np.array([-span[1], span[0], 0.0])
            norm = float(np.linalg.norm(side)) or 1.0
            end = end + side / norm * (1.0 + 0.4 * (i % 3)) * (1 if i % 2 else -1)
        starts, ends = groups[shot.hit]
        starts.append(start)
        ends.append(start + (end - start) * reach)
        if shot.hit and reach >= 1.0:
            bursts.append(end)
    for hit, (starts, ends) in groups.items():
        if starts:
            node = stage.fx.attach_new_node(geom.soup_node(
                "hits" if hit else "misses",
                geom.tubes_soup(np.array(starts), np.array(ends),
                                LINE_RADIUS * (1.0 if hit else 0.6))))
            node.set_color(*(HIT if hit else MISS))
    if bursts:
        pulse = 0.5 + 0.5 * math.sin(min(t, 0.9) * 12.0)
        node = stage.fx.attach_new_node(geom.soup_node(
            "bursts", geom.markers_soup(np.array(bursts), 0.45 + 0.25 * pulse)))
        node.set_color(*HIT)


def draw_captions(stage: ReplayStage, beat: Beat) -> None:
    """The turn, player and phase (top left) and what happened (bottom centre)."""
    stage.hud.node().remove_all_children()
    view = stage.view
    width, height = view.stage.width, view.stage.height
    size = view.stage.text_px * 1.1
    colour = palette.player_colour(beat.player) if beat.player is not None else palette.TEXT
    draw_legend(stage.hud, beat.header, [(colour, f"player {beat.player}")]
                if beat.player is not None else [], x=12, y=12, size=size * 0.85)
    text = beat.caption
    while text_width(text, size) > width * 0.9 and len(text) > 8:
        text = text[:-4] + "..."
    box_w = text_width(text, size) + 2.0 * size
    box_h = size * 1.9
    x, y = (width - box_w) / 2.0, height - box_h - max(12.0, height * 0.04)
    panel(stage.hud, x, y, box_w, box_h)
    add_text(stage.hud, text, x + size, y + size * 1.3, size, palette.TEXT)


#: How the camera follows the game: each beat's action, or one fixed view of the whole table.
CAMERAS = ("action", "table", "top")


def replay_frames(world, scene, beats: list[Beat], fps: float = 30.0,
                  width: int = 1280, height: int = 720, backend: str | None = None,
                  camera: str = "action", multisamples: int = 2,
                  look: lighting.Look | None = None, pieces: Sequence = ()
                  ) -> Iterator[np.ndarray]:
    """Every frame of the replay, in order: (height, width, 3) uint8. camera: "action"
    frames each beat's models, "table" keeps the iso overview, "top" looks straight down;
    multisamples: anti-aliasing of the lit look (2 by default: a video's frames pass by, and
    4 costs about a fifth more time per frame on a CPU renderer); look: the lit look by
    default (`lighting.FLAT` for the flat one); pieces: the terrain entries the game added
    (`TerrainEntry`, a wreck; see `commands.replay.added_pieces`), drawn from the beat that
    adds each (`Beat.added`), never put into the world."""
    if camera not in CAMERAS:
        raise ValueError(f"camera must be one of {', '.join(CAMERAS)}, got {camera!r}")
    stage = ReplayStage(world, scene, width, height, backend, multisamples, look)
    try:
        view = stage.view
        aspect = view.stage.view_aspect
        image_aspect = view.stage.aspect
        overview = world_orbit(world, "top" if camera == "top" else "iso", aspect,
                               image_aspect)
        poses = {m: Pose(p.at.copy(), p.facing) for m, p in stage.start.items()}
        gone: set[str] = set()
        # a piece the game adds (a wreck) is drawn now, on the table as it was (its mat and
        # occlusion), and shown from its beat on
        draw_terrain(view.graph.root, pieces, view.graph, world, scene)
        added = {entry.id: view.graph.terrain[entry.id] for entry in pieces}
        for node in added.values():
            node.hide()
        shown, first = overview, True
        for beat in beats:
            after = end_poses(poses, beat, world)
            gone -= set(after)  # back on the table (from reserve, disembarked)
            goal = beat_orbit(world, beat, poses, after, aspect, overview, image_aspect) \
                if camera == "action" else overview
            frames = beat.frames(fps)
            draw_captions(stage, beat)
            for i in range(frames):
                t = i / frames
                glide = smooth((t - 0.05) / 0.7)
                # gone on the beat's last frame: its shadow map, the one the next frames
                # keep, is drawn without the casualties
                fade = 0.0 if i == frames - 1 else 1.0 - smooth((t - 0.65) / 0.3)
                now = dict(poses)
                for model_id, end in after.items():
                    a = poses[model_id]
                    turn = (end.facing - a.facing + 180.0) % 360.0 - 180.0
                    now[model_id] = Pose(a.at + (end.at - a.at) * glide,
                                         a.facing + turn * glide)
                for model_id, pose in now.items():
                    if model_id in gone:
                        continue
                    alpha = fade if model_id in beat.removed else 1.0
                    stage.place(model_id, pose, alpha)
                for piece_id in beat.added:  # as the vehicle it replaces fades
                    if piece_id in added and fade <= 0.5:
                        added[piece_id].show()
                draw_shots(stage, beat, now, t)
                view.set_orbit(blend(shown, goal, t / 0.3))
                # shadows follow what moves or fades, redrawn every SHADOW_EVERY frames and
                # on a beat's last frame (a lag of a frame or two nobody sees)
                changing = (after and 0.0 < glide < 1.0) or (
                    (beat.removed or beat.added) and 0.0 < fade < 1.0)
                shadows = (changing and i % SHADOW_EVERY == 0) or i == frames - 1
                yield stage.renderer.render() if first else stage.grab(shadows)
                first = False
            poses.update(after)
            gone |= set(beat.removed) & set(poses)
            for model_id in beat.removed:
                if model_id in stage.pivots:
                    stage.pivots[model_id].hide()
            shown = goal
    finally:
        stage.close()

