"""Camera poses: the presets (top, iso, edge1, edge2), a model's eye, and an orbit.

Pure numpy, no Panda3D: a pose is where the camera is, what it looks at and its field of view.
Views are written `top` (orthographic, straight down), `iso`, `edge1` (from the y = 0 edge),
`edge2` (from the far edge), `stream` (a 16:9 overview from the long side that fills the frame)
or `eye:MODEL[:TARGET]` (at MODEL's eye, looking at TARGET or along MODEL's facing). Presets
fit what stands on the table to the frame, centred, with a margin (`fit_orbit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

PRESETS = ("top", "iso", "edge1", "edge2", "stream")
OVERVIEW_FOV = 40.0  # degrees, across the narrower side of the image
STREAM_FOV = 30.0  # a longer lens for the stream preset: less foreshortening, fuller frame
EYE_FOV = 50.0
MARGIN = 0.06  # share of the half frame kept free around what a preset frames
STREAM_MARGIN = 0.025


@dataclass
class CameraPose:
    """position and target (3,), up (3,), fov across the narrower image side, near/far;
    `ortho` is the film height in inches of an orthographic view (None: perspective)."""

    position: np.ndarray
    target: np.ndarray
    up: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    fov: float = OVERVIEW_FOV
    near: float = 0.5
    far: float = 2000.0
    hide: str | None = None  # model id not drawn from this pose (the one whose eye it is)
    ortho: float | None = None

    def to_dict(self, width: int, height: int) -> dict:
        """What `render --json` prints of the camera drawn at width x height pixels."""
        out = {"position": [round(float(v), 4) for v in self.position],
               "target": [round(float(v), 4) for v in self.target],
               "up": [round(float(v), 4) for v in self.up],
               "projection": "orthographic" if self.ortho else "perspective",
               "image_size": [int(width), int(height)]}
        if self.ortho:
            out["film_size"] = [round(self.ortho * width / height, 4), round(self.ortho, 4)]
        else:
            out["fov"] = round(float(self.fov), 4)
        return out


@dataclass
class Orbit:
    """A camera circling focus: heading (degrees, 0 = from -y looking +y), pitch (degrees,
    negative looks down) and distance; `ortho` (film height per inch of distance) makes it an
    orthographic view whose film grows with the distance (so zooming still zooms)."""

    focus: np.ndarray
    heading: float
    pitch: float
    distance: float
    fov: float = OVERVIEW_FOV
    ortho: float | None = None

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(forward, right, up) unit vectors of the camera."""
        h, p = math.radians(self.heading), math.radians(self.pitch)
        forward = np.array([-math.sin(h) * math.cos(p), math.cos(h) * math.cos(p), math.sin(p)])
        up = np.array([0.0, 0.0, 1.0])
        if abs(self.pitch) > 89.0:  # straight down: keep +y (rotated by heading) up the image
            up = np.array([-math.sin(h), math.cos(h), 0.0])
        right = np.cross(forward, up)
        right /= np.linalg.norm(right)
        return forward, right, np.cross(right, forward)

    def pose(self) -> CameraPose:
        forward, _, up = self.basis()
        position = np.asarray(self.focus, float) - forward * self.distance
        near = max(0.05, min(1.0, self.distance / 200.0))
        film = None if self.ortho is None else self.ortho * self.distance
        return CameraPose(position, np.asarray(self.focus, float), up, self.fov, near,
                          ortho=film)


def _tangents(aspect: float, fov: float, image_aspect: float | None) -> tuple[float, float]:
    """tan of the half field of view across (x) and up (y) of a view `aspect` wide inside an
    image `image_aspect` wide (default the same) whose narrower side spans fov."""
    t = math.tan(math.radians(fov) / 2.0)
    image_aspect = aspect if image_aspect is None else image_aspect
    tan_y = t if image_aspect >= 1 else t / image_aspect
    return tan_y * aspect, tan_y


def _shift_range(side: np.ndarray, depth: np.ndarray, tan: float, limit: float,
                 d: float) -> tuple[float, float]:
    """The camera offsets along one image axis, at depth coordinate d, that keep every
    point's projection inside +-limit (empty when lo > hi)."""
    reach = limit * tan * (depth - d)
    return float((side - reach).max()), float((side + reach).min())


def _centred_shift(side: np.ndarray, depth: np.ndarray, tan: float, limit: float,
                   d: float) -> float:
    """The offset within the feasible range that centres the points' projections."""
    lo, hi = _shift_range(side, depth, tan, limit, d)
    for _ in range(50):  # the projections' max + min falls as the shift grows: bisect
        mid = (lo + hi) / 2.0
        ndc = (side - mid) / (tan * (depth - d))
        lo, hi = (mid, hi) if ndc.max() + ndc.min() > 0 else (lo, mid)
    return (lo + hi) / 2.0


def fit_orbit(heading: float, pitch: float, points: np.ndarray, aspect: float,
              margin: float = MARGIN, image_aspect: float | None = None,
              fov: float = OVERVIEW_FOV, ortho: bool = False,
              focus: np.ndarray | None = None) -> Orbit:
    """The Orbit looking along (heading, pitch) that frames every point (n, 3) as large as
    the frame allows with `margin` of the half frame left free on the tighter axis, and the
    points' projected box centred on both axes. Perspective: the camera moves forward while
    every point stays inside (the constraints split per image axis, so a bisection on depth
    with the feasible sideways interval in closed form is exact); orthographic: the film
    shrinks to the points' extent. The orbit's focus is where the view axis passes the depth
    of `focus` (default: the points' centre)."""
    pts = np.asarray(points, dtype=np.float64)
    probe = Orbit(np.zeros(3), heading, pitch, 1.0, fov)
    forward, right, up = probe.basis()
    side_x, side_y, depth = pts @ right, pts @ up, pts @ forward
    limit = 1.0 - margin
    centre = pts.mean(axis=0) if focus is None else np.asarray(focus, float)
    if ortho:
        view_aspect = aspect
        extent_x = float(np.ptp(side_x)) or 1.0
        extent_y = float(np.ptp(side_y)) or 1.0
        film_h = max(extent_y, extent_x / view_aspect) / limit  # of the view region
        a = (side_x.max() + side_x.min()) / 2.0
        b = (side_y.max() + side_y.min()) / 2.0
        # as far back as a perspective camera showing the same film at the focus would be
        # (so an orbit leaving the top view keeps the picture's scale), and above everything
        same = film_h / (2.0 * math.tan(math.radians(fov) / 2.0))
        d = min(float(centre @ forward) - same, float(depth.min()) - 5.0)
        camera = a * right + b * up + d * forward
        distance = float((centre - camera) @ forward)
        return Orbit(camera + forward * distance, heading, pitch, distance, fov,
                     ortho=film_h / distance)
    tan_x, tan_y = _tangents(aspect, fov, image_aspect)
    nearest = float(depth.min()) - 0.5  # the camera stays this far behind the nearest point
    lo, hi = nearest - 1e5, nearest
    for _ in range(60):
        mid = (lo + hi) / 2.0
        x_lo, x_hi = _shift_range(side_x, depth, tan_x, limit, mid)
        y_lo, y_hi = _shift_range(side_y, depth, tan_y, limit, mid)
        fits = x_lo <= x_hi + 1e-9 and y_lo <= y_hi + 1e-9
        lo, hi = (mid, hi) if fits else (lo, mid)
    d = lo
    a = _centred_shift(side_x, depth, tan_x, limit, d)
    b = _centred_shift(side_y, depth, tan_y, limit, d)
    camera = a * right + b * up + d * forward
    distance = max(float((centre - camera) @ forward), 1.0)
    return Orbit(camera + forward * distance, heading, pitch, distance, fov)


PRESET_ANGLES = {"top": (0.0, -90.0), "iso": (-35.0, -38.0), "edge1": (0.0, -28.0),
                 "edge2": (180.0, -28.0), "stream": (0.0, -52.0)}


def table_points(table: tuple[float, float], height: float = 2.0) -> np.ndarray:
    """(8, 3) corners of the table top (its sides reach 0.75" below) and `height` above."""
    width, depth = table
    return np.array([[x, y, z] for x in (0, width) for y in (0, depth) for z in (-0.75, height)],
                    dtype=np.float64)


def frame_points(world) -> np.ndarray:
    """What a camera frames: the table's corners and the bounding-box corners of every model
    and terrain piece standing on it (clipped to the table's plan, so a piece hanging over
    an edge does not pull the frame off the table)."""
    width, depth = world.table
    boxes = [np.asarray(m.mesh.bounds, float) for m in world.models.values()]
    for entry in world.terrain.values():
        g = entry.geometry
        for mesh in (g.solid, g.area, g.stand):
            if mesh is not None and len(mesh.faces):
                boxes.append(np.asarray(mesh.bounds, float))
    corners = [table_points(world.table, 0.0)]
    for (x0, y0, z0), (x1, y1, z1) in boxes:
        xs = np.clip([x0, x1], 0.0, width)
        ys = np.clip([y0, y1], 0.0, depth)
        corners.append(np.array([[x, y, z] for x in xs for y in ys for z in (z0, z1)]))
    return np.concatenate(corners)


def preset_heading(name: str, table: tuple[float, float]) -> tuple[float, float]:
    """(heading, pitch) of a preset; the stream view looks across the table's long side."""
    heading, pitch = PRESET_ANGLES[name]
    if name == "stream" and table[1] > table[0]:
        heading = 90.0
    return heading, pitch


def preset_orbit(name: str, table: tuple[float, float], aspect: float = 16 / 9,
                 height: float = 2.0, image_aspect: float | None = None,
                 points: np.ndarray | None = None) -> Orbit:
    """The Orbit of a preset view that frames a width x depth table (and `points`, default
    things `height` tall on it) in a view `aspect` wide (part of an image `image_aspect`
    wide). `top` is orthographic; `stream` fills a 16:9 frame from the long side."""
    if name not in PRESET_ANGLES:
        raise ValueError(f"unknown view {name!r}; use {', '.join(PRESETS)} or eye:MODEL[:TARGET]")
    heading, pitch = preset_heading(name, table)
    pts = table_points(table, height) if points is None else np.asarray(points, float)
    stream = name == "stream"
    return fit_orbit(heading, pitch, pts, aspect, STREAM_MARGIN if stream else MARGIN,
                     image_aspect, STREAM_FOV if stream else OVERVIEW_FOV, ortho=name == "top",
                     focus=np.array([table[0] / 2.0, table[1] / 2.0, 0.0]))


def facing_vector(facing: float) -> np.ndarray:
    """(3,) unit direction of a facing (0 = +y, 90 = -x)."""
    a = math.radians(facing)
    return np.array([-math.sin(a), math.cos(a), 0.0])


def eye_pose(world, model_id: str, target_id: str | None = None,
             fov: float = EYE_FOV) -> CameraPose:
    """The camera at a model's eye, looking at the centre of target (or along its facing)."""
    model = world.models[model_id]
    eye = np.asarray(model.eye, float)
    if target_id is not None:
        target = np.asarray(world.models[target_id].mesh.bounds.mean(axis=0), float)
    else:
        target = eye + facing_vector(model.facing) * 10.0
    if np.linalg.norm(target - eye) < 1e-6:
        target = eye + facing_vector(model.facing)
    return CameraPose(eye, target, np.array([0.0, 0.0, 1.0]), fov, near=0.05, hide=model_id)


def parse_view(view: str) -> tuple[str, str | None, str | None]:
    """'top' -> ('top', None, None); 'eye:a:b' -> ('eye', 'a', 'b'); raises ValueError."""
    text = view.strip()
    if text in PRESETS:
        return text, None, None
    if text.startswith("eye:"):
        parts = text.split(":")
        if len(parts) not in (2, 3) or not parts[1] or (len(parts) == 3 and not parts[2]):
            raise ValueError(f"bad view {view!r}; write eye:MODEL or eye:MODEL:TARGET")
        return "eye", parts[1], parts[2] if len(parts) == 3 else None
    raise ValueError(f"unknown view {view!r}; use {', '.join(PRESETS)} or eye:MODEL[:TARGET]")


def view_pose(world, view: str, aspect: float, image_aspect: float | None = None) -> CameraPose:
    """The pose of a view string for this world (ValueError/KeyError for bad names)."""
    kind, model, target = parse_view(view)
    if kind == "eye":
        for name in (model, target):
            if name is not None and name not in world.models:
                raise KeyError(name)
        return eye_pose(world, model, target)
    return world_orbit(world, kind, aspect, image_aspect).pose()


def world_orbit(world, name: str, aspect: float, image_aspect: float | None = None) -> Orbit:
    """The preset's Orbit framing this world's table and everything standing on it."""
    return preset_orbit(name, world.table, aspect, image_aspect=image_aspect,
                        points=frame_points(world))
