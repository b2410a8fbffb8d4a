"""What the MK II sight rules know of a model: its standard volume (a vertical cylinder of its
base class, wmh2 §4), where it stands (elevation under the base centre, wmh2 §5.4 A3), its
facing and arc, and the advantages and states that change sight (Stealth, Incorporeal,
Eyeless Sight, knocked down).

`bodies(source)` reads them from a `Board` (typed profiles and game state) or from a bare
`World` (the scene data the world keeps on each model), so `los_report` works with either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry.volumes import cylinder_volume
from battlesight.geometry.world import World
from battlesight.rulesets.core.profiles import load_data

from .rules import CLASS_NAME, base_radius, size_class, volume_height

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


@dataclass(frozen=True)
class Body:
    """A model as the sight rules see it (plan centre xy, standing elevation z)."""

    id: str
    xy: np.ndarray
    z: float
    size: int
    facing: float = 0.0
    arc: float = 180.0
    player: int | None = None
    stealth: bool = False
    incorporeal: bool = False
    knocked_down: bool = False
    eyeless: bool = False

    @property
    def radius(self) -> float:
        return base_radius(self.size)

    @property
    def height(self) -> float:
        return volume_height(self.size)

    @property
    def top(self) -> float:
        return self.z + self.height

    @property
    def forward(self) -> np.ndarray:
        """Unit plan vector of the facing (0 looks along +y, 90 along -x)."""
        a = math.radians(self.facing)
        return np.array([-math.sin(a), math.cos(a)])

    @property
    def size_name(self) -> str:
        return CLASS_NAME[self.size]

    def in_front(self, points: np.ndarray) -> np.ndarray:
        """(n,) bool: plan points in the closed front half-plane (all for a 360 degree arc)."""
        pts = np.atleast_2d(np.asarray(points, float))[:, :2]
        if self.arc >= 360.0:
            return np.ones(len(pts), dtype=bool)
        return (pts - self.xy) @ self.forward >= -1e-9

    def faces(self, other: Body) -> bool:
        """Some part of the other's base lies in this model's front arc (wmh2 §4, A5)."""
        if self.arc >= 360.0:
            return True
        return float((other.xy - self.xy) @ self.forward) + other.radius >= -1e-9


_FLAG_KEYWORDS = {"stealth": "stealth", "incorporeal": "incorporeal",
                  "eyeless": "eyeless sight"}


def _arc(keywords: set[str], data: dict[str, Any]) -> float:
    if "360" in keywords or "360 front arc" in keywords:
        return 360.0
    return float(data.get("arc", 180.0))


def bodies(source: Board | World, ids: list[str] | None = None) -> dict[str, Body]:
    """A Body for every model on the table (or for `ids`)."""
    world = source if isinstance(source, World) else source.world
    out: dict[str, Body] = {}
    for mid in ids if ids is not None else list(world.models):
        placed = world.models[mid]
        if isinstance(source, World):
            keywords, status = _world_keywords(placed.data), dict(placed.data)
            base = placed.data.get("base", 30)
        else:
            state = source.model(mid)
            keywords, status = set(state.profile.keywords), state.status
            base = state.spec.base
            if status.get("lost_incorporeal"):
                keywords.discard("incorporeal")
        base = tuple(base) if isinstance(base, list) else base
        flags = {k: kw in keywords for k, kw in _FLAG_KEYWORDS.items()}
        out[mid] = Body(mid, np.asarray(placed.position[:2], float), float(placed.position[2]),
                        size_class(base), float(placed.facing), _arc(keywords, placed.data),
                        placed.player, flags["stealth"], flags["incorporeal"],
                        bool(status.get("knocked_down")), flags["eyeless"])
    return out


def _world_keywords(data: dict[str, Any]) -> set[str]:
    """Keywords of a bare world model: its profile's (from the ruleset data) and inline ones."""
    keywords = {str(k).lower() for k in data.get("keywords") or []}
    profile = load_data("wmh2")["models"].get(str(data.get("profile")))
    if profile:
        keywords |= {str(k).lower() for k in profile.get("keywords") or []}
    return keywords


def standardise(world: World) -> int:
    """Give every model of the world the standard cylinder of its base class (wmh2 §4:
    'whatever the sculpt, it occupies only the standard volume'); returns how many changed.
    Models keep their place, facing and elevation."""
    changed = 0
    for mid in list(world.models):
        placed = world.models[mid]
        base = placed.data.get("base", 30)
        base = tuple(base) if isinstance(base, list) else base
        height = volume_height(size_class(base))
        bounds = placed.volume.mesh.bounds
        if abs(bounds[1][2] - height) < 1e-6 and set(placed.volume.part_names) <= {"base", "body"}:
            continue
        volume = cylinder_volume(base, height, 0.9 * height)
        world.remove_model(mid)
        world.add_model(mid, volume, tuple(placed.position[:2]), placed.facing,
                        z=float(placed.position[2]), player=placed.player, unit=placed.unit,
                        data=placed.data)
        changed += 1
    return changed


def within_of(source: Board | World, model: str, distance: float) -> list[str]:
    """Other models whose base is within `distance` of this model's base (edge to edge,
    equality counts); the model itself is never in its own area (wmh2 §3)."""
    bd = bodies(source)
    me = bd[model]
    return [m for m, b in bd.items() if m != model and
            float(np.linalg.norm(b.xy - me.xy)) - b.radius - me.radius <= distance + 1e-9]
