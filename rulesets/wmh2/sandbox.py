"""Small MK II tables built in code (the digest's diagram scenarios, tests, experiments).

`Sandbox` collects terrain pieces and models as scene entries and builds the world with the
scene builder, so what it tests is what a scene file would give. Models face +x unless told
otherwise (the digest's convention, wmh2 §14) and get the standard height of their base.
"""

from __future__ import annotations

from typing import Any

from battlesight.geometry.world import World
from battlesight.scenes.build import build_world
from battlesight.scenes.model import ModelSpec, Scene, TerrainPiece

from .bodies import standardise
from .rules import size_class, volume_height

FACING_PLUS_X = 270.0  # facing 0 looks along +y, 90 along -x (docs/scene-format.md)


class Sandbox:
    """A scene under construction and the world built from it."""

    def __init__(self, size: tuple[float, float] = (48.0, 48.0)):
        self.scene = Scene(name="sandbox", ruleset="wmh2", table=size)
        self._n = 0

    def _piece(self, pid: str, kind: str, **data: Any) -> Sandbox:
        self.scene.terrain.append(TerrainPiece(pid, kind, data))
        return self

    def wall(self, pid: str, start, end, height: float, thickness: float = 0.05,
             **data: Any) -> Sandbox:
        return self._piece(pid, "wall", **{"from": list(start), "to": list(end),
                                           "height": height, "thickness": thickness, **data})

    def box(self, pid: str, at, size, **data: Any) -> Sandbox:
        """A block models can stand on (a plateau of height size[2])."""
        return self._piece(pid, "box", at=list(at), size=list(size), **data)

    def hill(self, pid: str, at, size, height: float, top: float = 1.0,
             **data: Any) -> Sandbox:
        return self._piece(pid, "hill", at=list(at), size=list(size), height=height, top=top,
                           **data)

    def forest(self, pid: str, polygon, height: float = 4.0, **data: Any) -> Sandbox:
        return self._piece(pid, "forest", polygon=[list(p) for p in polygon], height=height,
                           **data)

    def model(self, mid: str, at, base: float = 30, *, facing: float = FACING_PLUS_X,
              player: int = 1, unit: str | None = None, profile: str | None = "trooper",
              **extra: Any) -> Sandbox:
        size = size_class(base)
        spec = ModelSpec(mid, unit, player, (float(at[0]), float(at[1])), None, facing, base,
                         volume_height(size), None, "cylinder", profile, dict(extra))
        self.scene.models.append(spec)
        return self

    def unit(self, uid: str, player: int, profile: str | None = None, **data: Any) -> Sandbox:
        self.scene.units.append({"id": uid, "player": player,
                                 **({"profile": profile} if profile else {}), **data})
        return self

    def world(self) -> World:
        world = build_world(self.scene)
        standardise(world)
        return world

    def board(self):
        from battlesight.rulesets.core.board import Board
        from battlesight.rulesets.core.ruleset import get_ruleset

        return Board(self.scene, self.world(), get_ruleset("wmh2"))

    def game(self, seed: int = 1, **kw: Any):
        from battlesight.rulesets.core.game import Game

        return Game(self.scene, "wmh2", seed, world=self.world(), **kw)
