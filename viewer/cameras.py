"""Camera poses: the presets (top, iso, edge1, edge2), a model's eye, and an orbit.

Pure numpy, no Panda3D: a pose is where the camera is, what it looks at and its field of view.
Views are written `top`, `iso`, `edge1` (from the y = 0 edge), `edge2` (from the far edge) or
`eye:MODEL[:TARGET]` (at MODEL's eye, looking at TARGET or along MODEL's facing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

PRESETS = ("top", "iso", "edge1", "edge2")
OVERVIEW_FOV = 40.0  # degrees, across the narrower side of the image
EYE_FOV = 50.0


@dataclass
class CameraPose:
    """position and target (3,), up (3,), fov across the narrower image side, near/far."""

    position: np.ndarray
    target: np.ndarray
    up: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 1.0]))
    fov: float = OVERVIEW_FOV
    near: float = 0.5
    far: float = 2000.0
    hide: str | None = None  # model id not drawn from this pose (the one whose eye it is)


@dataclass
class Orbit:
    """A camera circling focus: heading (degrees, 0 = from -y looking +y), pitch (degrees,
    negative looks down) and distance."""

    focus: np.ndarray
    heading: float
    pitch: float
    distance: float
    fov: float = OVERVIEW_FOV

    def pose(self) -> CameraPose:
        h, p = math.radians(self.heading), math.radians(self.pitch)
        forward = np.array([-math.sin(h) * math.cos(p), math.cos(h) * math.cos(p), math.sin(p)])
        position = np.asarray(self.focus, float) - forward * self.distance
        up = np.array([0.0, 0.0, 1.0])
        if abs(self.pitch) > 89.0:  # straight down: keep +y (rotated by heading) up the image
            up = np.array([-math.sin(h), math.cos(h), 0.0])
        near = max(0.05, min(1.0, self.distance / 200.0))
        return CameraPose(position, np.asarray(self.focus, float), up, self.fov, near)


def _tangents(aspect: float, fov: float, image_aspect: float | None) -> tuple[float, float]:
    """tan of the half field of view across (x) and up (y) of a view `aspect` wide inside an
    image `image_aspect` wide (default the same) whose narrower side spans fov."""
    t = math.tan(math.radians(fov) / 2.0)
    image_aspect = aspect if image_aspect is None else image_aspect
    tan_y = t if image_aspect >= 1 else t / image_aspect
    return tan_y * aspect, tan_y


def fit_distance(orbit: Orbit, points: np.ndarray, aspect: float, margin: float = 0.06,
                 image_aspect: float | None = None) -> float:
    """The smallest orbit distance at which every point (n, 3) is in frame (bisection)."""
    tan_x, tan_y = _tangents(aspect, orbit.fov, image_aspect)
    limit = 1.0 - margin

    def fits(distance: float) -> bool:
        pose = Orbit(orbit.focus, orbit.heading, orbit.pitch, distance, orbit.fov).pose()
        forward = pose.target - pose.position
        forward /= np.linalg.norm(forward)
        right = np.cross(forward, pose.up)
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        rel = points - pose.position
        depth = rel @ forward
        if (depth <= pose.near).any():
            return False
        x = np.abs(rel @ right) / (depth * tan_x)
        y = np.abs(rel @ up) / (depth * tan_y)
        return bool((x <= limit).all() and (y <= limit).all())

    lo, hi = 1.0, 5000.0
    for _ in range(40):
        mid = (lo + hi) / 2.0
        lo, hi = (lo, mid) if fits(mid) else (mid, hi)
    return hi


PRESET_ANGLES = {"top": (0.0, -90.0), "iso": (-35.0, -38.0), "edge1": (0.0, -28.0),
                 "edge2": (180.0, -28.0)}


def preset_orbit(name: str, table: tuple[float, float], aspect: float = 16 / 9,
                 height: float = 2.0, image_aspect: float | None = None) -> Orbit:
    """The Orbit of a preset view that frames a width x depth table (and things `height` tall
    on it) in a view `aspect` wide (part of an image `image_aspect` wide)."""
    if name not in PRESET_ANGLES:
        raise ValueError(f"unknown view {name!r}; use {', '.join(PRESETS)} or eye:MODEL[:TARGET]")
    width, depth = table
    heading, pitch = PRESET_ANGLES[name]
    orbit = Orbit(np.array([width / 2.0, depth / 2.0, 0.0]), heading, pitch, 100.0)
    corners = np.array([[x, y, z] for x in (0, width) for y in (0, depth) for z in (0, height)],
                       dtype=np.float64)
    orbit.distance = fit_distance(orbit, corners, aspect, image_aspect=image_aspect)
    return orbit


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
    return preset_orbit(kind, world.table, aspect, image_aspect=image_aspect).pose()
