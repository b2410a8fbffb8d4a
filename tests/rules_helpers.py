"""Tiny tables for the rules tests: a Scene and a matching World built side by side.

The World is built directly from trimesh primitives (cylinders for models, boxes for walls,
ruin walls and floors, an area volume for forests), so the tests do not depend on the scene
builder; the Scene holds the same models and pieces for the Board and the Game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import trimesh
from battlesight.geometry.types import ModelVolume, TerrainGeometry
from battlesight.geometry.world import World
from battlesight.rulesets.core.dice import Roller
from battlesight.scenes.footprints import rectangle, segment_rectangle
from battlesight.scenes.model import MM_PER_INCH, ModelSpec, Scene, TerrainPiece

BASE_THICKNESS = 0.125


def model_volume(radii: tuple[float, float], height: float, eye: float | None = None,
                 weapon: bool = False, box: bool = False) -> ModelVolume:
    """A base + body volume (a cylinder, or a box for hulls), optionally with a gun sticking
    forward from the body labelled 'weapon'."""
    along, across = radii
    parts = []
    if box:
        body = trimesh.creation.box([2 * across, 2 * along, height])
        body.apply_translation([0, 0, height / 2])
        parts.append((body, 1))
    else:
        base = trimesh.creation.cylinder(radius=across, height=BASE_THICKNESS, sections=32)
        base.apply_scale([1.0, along / across, 1.0])
        base.apply_translation([0, 0, BASE_THICKNESS / 2])
        body = trimesh.creation.cylinder(radius=across * 0.8, height=height - BASE_THICKNESS,
                                         sections=32)
        body.apply_scale([1.0, along / across, 1.0])
        body.apply_translation([0, 0, BASE_THICKNESS + (height - BASE_THICKNESS) / 2])
        parts += [(base, 0), (body, 1)]
    if weapon:
        gun = trimesh.creation.box([0.2, 1.6, 0.2])
        gun.apply_translation([0, along + 0.8, height * 0.6])
        parts.append((gun, 2))
    mesh = trimesh.util.concatenate([p for p, _ in parts])
    face_part = np.concatenate([np.full(len(p.faces), k) for p, k in parts])
    names = ("base", "body", "weapon")
    eye_z = 0.9 * height if eye is None else eye
    return ModelVolume(mesh, face_part, names, np.array([0.0, 0.0, eye_z]))


def _box(center: tuple[float, float, float], size: tuple[float, float, float],
         rotation: float = 0.0) -> trimesh.Trimesh:
    box = trimesh.creation.box(size)
    box.apply_transform(trimesh.transformations.rotation_matrix(np.radians(rotation), [0, 0, 1]))
    box.apply_translation(center)
    return box


class Table:
    """Builds a Scene and a World together."""

    def __init__(self, ruleset: str = "wh40k6", size: tuple[float, float] = (72.0, 48.0),
                 units: list[dict[str, Any]] | None = None):
        self.scene = Scene(name="test", ruleset=ruleset, table=size, units=list(units or []))
        self.world = World(size)

    # ---- terrain ----------------------------------------------------------------------------

    def wall(self, piece_id: str, start, end, height: float, thickness: float = 0.5,
             **data: Any) -> Table:
        a, b = np.asarray(start, float), np.asarray(end, float)
        length = float(np.linalg.norm(b - a))
        angle = np.degrees(np.arctan2(b[1] - a[1], b[0] - a[0]))
        mid = (a + b) / 2
        solid = _box((mid[0], mid[1], height / 2), (length, thickness, height), angle)
        foot = segment_rectangle(a, b, thickness)
        self._add(piece_id, "wall", TerrainGeometry(solid, footprint=foot),
                  {"from": list(start), "to": list(end), "height": height,
                   "thickness": thickness, **data})
        return self

    def box(self, piece_id: str, at, size: tuple[float, float, float], **data: Any) -> Table:
        solid = _box((at[0], at[1], size[2] / 2), size)
        self._add(piece_id, "box", TerrainGeometry(solid, footprint=rectangle(at, *size[:2])),
                  {"at": list(at), "size": list(size), **data})
        return self

    def ruin(self, piece_id: str, at, size: tuple[float, float], floors=(3.0,),
             height: float = 8.0, walls=("north", "west"), **data: Any) -> Table:
        w, d = size
        x, y = at
        t = 0.3
        meshes = []
        sides = {"north": ((x, y + d / 2), (w, t)), "south": ((x, y - d / 2), (w, t)),
                 "east": ((x + w / 2, y), (t, d)), "west": ((x - w / 2, y), (t, d))}
        for side in walls:
            (cx, cy), (sx, sy) = sides[side]
            meshes.append(_box((cx, cy, height / 2), (sx, sy, height)))
        slabs = [_box((x, y, z - 0.1), (w, d, 0.2)) for z in floors]
        ground = _box((x, y, 0.01), (w, d, 0.02))
        geometry = TerrainGeometry(
            trimesh.util.concatenate(meshes + slabs),
            stand=trimesh.util.concatenate([ground, *slabs]),
            floors=(0.0, *floors), footprint=rectangle(at, w, d),
        )
        self._add(piece_id, "ruin", geometry,
                  {"at": list(at), "size": list(size), "floors": list(floors),
                   "height": height, "walls": list(walls), **data})
        return self

    def forest(self, piece_id: str, polygon, height: float = 6.0, **data: Any) -> Table:
        from battlesight.geometry import terrain

        poly = np.asarray(polygon, float)
        built = terrain.forest(poly, height, trunks=0)
        self._add(piece_id, "forest", TerrainGeometry(None, area=built.area, footprint=poly),
                  {"polygon": poly.tolist(), "height": height, **data})
        return self

    def crater(self, piece_id: str, at, size: tuple[float, float], **data: Any) -> Table:
        self._add(piece_id, "crater", TerrainGeometry(None, footprint=rectangle(at, *size)),
                  {"at": list(at), "size": list(size), **data})
        return self

    def _add(self, piece_id: str, kind: str, geometry: TerrainGeometry, data: dict) -> None:
        rules = {k: v for k, v in data.items()
                 if k not in ("at", "size", "from", "to", "polygon", "height", "thickness",
                              "floors", "walls")}
        self.world.add_terrain(piece_id, kind, geometry, rules)
        self.scene.terrain.append(TerrainPiece(piece_id, kind, data))

    # ---- models -----------------------------------------------------------------------------

    def model(self, model_id: str, unit: str, player: int, at, profile: str | None = None,
              *, base: float | tuple[float, float] = 32.0, height: float = 1.6,
              facing: float = 0.0, floor: int | None = None, weapon: bool = False,
              eye: float | None = None, **extra: Any) -> Table:
        spec = ModelSpec(model_id, unit, player, (float(at[0]), float(at[1])), floor, facing,
                         base, height, eye, "cylinder", profile, dict(extra))
        radii = spec.base_radii_in
        box = isinstance(base, (tuple, list)) and extra.get("hull", False)
        volume = model_volume(radii, height, spec.eye_height, weapon, box=bool(box))
        self.world.add_model(model_id, volume, spec.at, facing, floor=floor, player=player,
                             unit=unit)
        self.scene.models.append(spec)
        return self

    def squad(self, unit: str, player: int, profile: str, points, **kw: Any) -> Table:
        for i, p in enumerate(points):
            self.model(f"{unit}-{i + 1}", unit, player, p, profile, **kw)
        return self

    def board(self):
        from battlesight.rulesets.core.board import Board
        from battlesight.rulesets.core.ruleset import get_ruleset

        return Board(self.scene, self.world, get_ruleset(self.scene.ruleset))

    def game(self, seed: int = 1, **kw: Any):
        from battlesight.rulesets.core.game import Game

        return Game(self.scene, self.scene.ruleset, seed, world=self.world, **kw)



def inches(mm: float) -> float:
    return mm / MM_PER_INCH


class ScriptedRoller(Roller):
    """A Roller whose dice come from a script (then from its seeded generator once it runs
    out)."""

    def __init__(self, faces: list[int], seed: int = 0):
        super().__init__(seed)
        self.faces = list(faces)

    def _face(self, sides: int) -> int:
        return self.faces.pop(0) if self.faces else super()._face(sides)
