"""The viewer's camera moves by mouse: orbit around the focus, pan over the table, zoom with
the wheel, home to the iso preset. A mixin of `interact.Controller` (its `view` is a
SceneView); no Panda3D input here."""

from __future__ import annotations

import math

import numpy as np

from .cameras import Orbit, preset_orbit


class CameraMoves:
    """Orbit, pan, zoom and home on a controller's view (`self.view`)."""

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
        self.view.set_orbit(Orbit(focus, o.heading, o.pitch, o.distance, o.fov, o.ortho))

    def zoom(self, steps: float) -> None:
        """Wheel: positive steps move closer."""
        o = self._orbit()
        dist = float(np.clip(o.distance * 0.85 ** steps, 2.0, 2000.0))
        self.view.set_orbit(Orbit(o.focus, o.heading, o.pitch, dist, o.fov, o.ortho))

    def home(self) -> None:
        table = self.view.world.table
        self.view.set_orbit(preset_orbit("iso", table, self.view.stage.view_aspect))
