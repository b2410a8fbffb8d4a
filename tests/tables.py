"""The tests' one scene builder: a table for any system, built entry by entry in code.

`TableBuilder` collects terrain pieces and models as scene-file entries and hands them to the
real scene builder, so what a test checks is what a scene file would give: as a dict
(`to_dict`, the scene format), a file (`write`), a `Scene`, a `World`, a `Board`, a `Game` or a
loaded `Battlefield`. `Wmh2Table` is the same with MK II's conventions (the digest's diagram
scenarios): models face +x (wmh2 §14) and get the standard height of their base.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from battlesight.geometry.world import World
from battlesight.scenes.build import build_world
from battlesight.scenes.model import DEFAULT_HEIGHT, ModelSpec, Scene, TerrainPiece

FACING_PLUS_X = 270.0  # facing 0 looks along +y, 90 along -x (docs/scene-format.md)


class TableBuilder:
    """A scene under construction for one system, and what is built from it."""

    wall_thickness = 0.5
    forest_height = 6.0
    facing = 0.0
    profile: str | None = None

    def __init__(self, ruleset: str = "wh40k6", size: tuple[float, float] = (48.0, 48.0),
                 name: str = "test table"):
        self.scene = Scene(name=name, ruleset=ruleset, table=size)

    # ---- terrain ----------------------------------------------------------------------------

    def piece(self, pid: str, kind: str, **data: Any) -> TableBuilder:
        """Any terrain piece, its keys as a scene file writes them."""
        self.scene.terrain.append(TerrainPiece(pid, kind, data))
        return self

    def wall(self, pid: str, start, end, height: float, thickness: float | None = None,
             **data: Any) -> TableBuilder:
        thickness = self.wall_thickness if thickness is None else thickness
        return self.piece(pid, "wall", **{"from": list(start), "to": list(end),
                                          "height": height, "thickness": thickness, **data})

    def box(self, pid: str, at, size, **data: Any) -> TableBuilder:
        """A block models can stand on (a plateau of height size[2])."""
        return self.piece(pid, "box", at=list(at), size=list(size), **data)

    def hill(self, pid: str, at, size, height: float, top: float = 1.0,
             **data: Any) -> TableBuilder:
        return self.piece(pid, "hill", at=list(at), size=list(size), height=height, top=top,
                          **data)

    def forest(self, pid: str, polygon, height: float | None = None,
               **data: Any) -> TableBuilder:
        height = self.forest_height if height is None else height
        return self.piece(pid, "forest", polygon=[list(p) for p in polygon], height=height,
                          **data)

    # ---- models and units -------------------------------------------------------------------

    def model_height(self, base: float) -> float:
        """The height a model of this base gets when the test gives none."""
        return DEFAULT_HEIGHT

    def model(self, mid: str, at, base: float = 30, *, facing: float | None = None,
              player: int = 1, unit: str | None = None, profile: str | None = "",
              height: float | None = None, **extra: Any) -> TableBuilder:
        """A cylinder model; facing, profile and height default to the builder's."""
        spec = ModelSpec(mid, unit, player, (float(at[0]), float(at[1])), None,
                         self.facing if facing is None else facing, base,
                         self.model_height(base) if height is None else height, None,
                         "cylinder", self.profile if profile == "" else profile, dict(extra))
        self.scene.models.append(spec)
        return self

    def unit(self, uid: str, player: int, profile: str | None = None,
             **data: Any) -> TableBuilder:
        self.scene.units.append({"id": uid, "player": player,
                                 **({"profile": profile} if profile else {}), **data})
        return self

    # ---- what is built ----------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The scene as a scene file's mapping."""
        from battlesight.scenes.save import scene_to_dict

        return scene_to_dict(self.scene)

    def write(self, folder: Path, name: str = "scene.yaml") -> Path:
        """The scene saved as a file in folder; its path."""
        from battlesight.scenes.save import save_scene

        path = Path(folder) / name
        save_scene(self.scene, path)
        return path

    def world(self) -> World:
        return build_world(self.scene)

    def board(self):
        from battlesight.rulesets.core.board import Board
        from battlesight.rulesets.core.ruleset import get_ruleset

        return Board(self.scene, self.world(), get_ruleset(self.scene.ruleset))

    def game(self, seed: int = 1, **kw: Any):
        from battlesight.rulesets.core.game import Game

        return Game(self.scene, self.scene.ruleset, seed, world=self.world(), **kw)

    def battlefield(self):
        from battlesight.api import Battlefield

        return Battlefield(self.scene, self.world())


class Wmh2Table(TableBuilder):
    """A MK II table: models face +x and stand as tall as their base's size class (wmh2 §14),
    walls are thin, woods 4" tall; its world carries the standard volumes (wmh2 §5)."""

    wall_thickness = 0.05
    forest_height = 4.0
    facing = FACING_PLUS_X
    profile = "trooper"

    def __init__(self, size: tuple[float, float] = (48.0, 48.0)):
        super().__init__("wmh2", size, name="sandbox")

    def model_height(self, base: float) -> float:
        from battlesight.rulesets.wmh2.rules import size_class, volume_height

        return volume_height(size_class(base))

    def world(self) -> World:
        from battlesight.rulesets.wmh2.bodies import standardise

        world = super().world()
        standardise(world)
        return world
