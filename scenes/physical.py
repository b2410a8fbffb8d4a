"""The `validate` warnings of tables no one could set up: overlapping bases, models on one spot,
a model inside a solid piece, or on a top or ruin floor too narrow for its base, a base size
that reads as inches. Warnings (`SceneWarning`): printed, errors under `validate --strict`.

Everything is measured in plan, on the base outlines `geometry.plan.base_outlines` draws, all
models at once through shapely STRtrees (400 models in some 40 ms). Two models overlap only on
the same level: the same floor (or mesh storey height `z`) and the same piece they stand on
(a box's or mesh's top, a ruin's upper floor), or both on the ground.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import shapely
from battlesight.geometry import plan
from battlesight.geometry.polygon_ruins import polygon_wall_plan
from battlesight.geometry.ruins import SIDES, wall_plan

from .footprints import piece_footprint
from .keys import SceneWarning
from .model import MM_PER_INCH, ModelSpec, Scene, TerrainPiece

__all__ = ["MIN_BASE_MM", "physical_warnings"]

#: The smallest base any system's models stand on (25 mm is the usual least; a base below this
#: was almost surely written in inches: `base: 1.25` is a 32 mm base).
MIN_BASE_MM = 10.0
#: How far two outlines must overlap to count (inches): bases in contact, as melee puts them,
#: touch and do not overlap; an outline drawn with 64 corners is this close to its curve.
OVERLAP_TOLERANCE = 0.01
#: Centres closer than this (inches) are one spot: a model copied with its `at` unchanged.
SAME_SPOT = 0.05
#: Pieces whose plan is solid from the table up (a ruin's walls are too): a model meeting one
#: is inside it, or, with its centre over it, stands on its top (a wall has none: a model
#: there stands on the table, in the wall).
SOLID_TYPES = ("wall", "box", "mesh")
#: Of those, the pieces a model stands on top of when its centre is over them.
TOPPED_TYPES = ("box", "mesh")


def _base_shapes(models: list[ModelSpec]) -> list[shapely.Polygon]:
    """Each model's base outline, its semi-axes shortened by OVERLAP_TOLERANCE so that
    touching bases do not meet."""
    radii = np.array([m.base_radii_in for m in models]) - OVERLAP_TOLERANCE
    outlines = plan.base_outlines(np.array([m.at for m in models]), np.maximum(radii, 1e-3),
                                  np.array([m.facing for m in models]))
    return list(shapely.polygons(outlines))


def _solid_shapes(scene: Scene) -> list[tuple[TerrainPiece, shapely.Geometry]]:
    """(piece, plan of its solid) for every piece whose solid rises from the table: walls,
    boxes and mesh pieces by their footprints, ruins by their walls' strips."""
    out = []
    for piece in scene.terrain:
        if piece.type in SOLID_TYPES:
            out.append((piece, shapely.Polygon(piece_footprint(piece))))
        elif piece.type == "ruin":
            strips = _ruin_walls(piece)
            if strips is not None:
                out.append((piece, strips))
    return out


def _ruin_walls(piece: TerrainPiece) -> shapely.Geometry | None:
    """The plan of a ruin's walls (their strips inside its outline), None for a ruin without
    walls or one the builder refuses (the gate reports that)."""
    d = piece.data
    try:
        if "polygon" in d:
            strips = polygon_wall_plan(d["polygon"], d["height"], d.get("floors") or (),
                                       d.get("walls"))
        else:
            strips = wall_plan(d["at"], d["size"], d.get("walls", SIDES),
                               float(d.get("rotation", 0.0) or 0.0))
    except (ValueError, KeyError, TypeError):
        return None
    return shapely.union_all([shapely.Polygon(s) for s in strips]) if strips else None


def _levels(scene: Scene, models: list[ModelSpec], centres: np.ndarray
            ) -> tuple[list[tuple], list[tuple[TerrainPiece, shapely.Geometry] | None]]:
    """Each model's level (floor, z, the piece it stands on) and that piece with the plan of
    what it stands on: the top of a box or mesh under its centre, or the upper floor of the
    ruin under it (a ruin's ground floor is the table's level)."""
    topped = [p for p in scene.terrain if p.type in (*TOPPED_TYPES, "ruin")]
    tops: list[tuple[TerrainPiece, shapely.Geometry] | None] = [None] * len(models)
    if topped:
        outlines = [shapely.Polygon(piece_footprint(p)) for p in topped]
        which, piece = shapely.STRtree(outlines).query(shapely.points(centres),
                                                       predicate="intersects")
        for w, k in sorted(zip(which.tolist(), piece.tolist(), strict=True)):  # file order
            if tops[w] is None and (topped[k].type != "ruin" or models[w].floor):
                tops[w] = (topped[k], outlines[k])
    levels = [(m.floor or 0, m.z, top[0].id if top is not None else None)
              for m, top in zip(models, tops, strict=True)]
    return levels, tops


def _where(m: ModelSpec, scene: Scene) -> str:
    line = scene.line_of(f"models[{m.id}]")
    return f"{m.id!r}" + (f" (line {line})" if line is not None else "")


def _overlaps(scene: Scene, models: list[ModelSpec], shapes: list[shapely.Polygon],
              centres: np.ndarray, levels: list[tuple]) -> Iterator[SceneWarning]:
    which, other = shapely.STRtree(shapes).query(shapes, predicate="intersects")
    for a, b in sorted(zip(which.tolist(), other.tolist(), strict=True)):
        if a >= b or levels[a] != levels[b]:
            continue
        first, later = models[a], models[b]
        key = f"models[{later.id}].at"
        apart = float(np.hypot(*(centres[a] - centres[b])))
        if apart < SAME_SPOT:
            yield SceneWarning(scene.file, scene.line_of(key), key,
                               f"stands on the same spot as {_where(first, scene)}, "
                               f"[{later.at[0]:g}, {later.at[1]:g}]: give it its own 'at'")
            continue
        fix = "move it clear of that base"
        if first.is_round and later.is_round:
            need = first.base_radii_in[0] + later.base_radii_in[0]
            fix = (f"move it {need - apart:.2f}\" further away (centres {apart:.2f}\" apart, "
                   f"{need:.2f}\" needed)")
        yield SceneWarning(scene.file, scene.line_of(key), key,
                           f"its base overlaps the base of {_where(first, scene)}: {fix}")


def _overhangs(scene: Scene, models: list[ModelSpec], shapes: list[shapely.Polygon],
               tops: list[tuple[TerrainPiece, shapely.Geometry] | None]
               ) -> Iterator[SceneWarning]:
    for m, base, top in zip(models, shapes, tops, strict=True):
        if top is None or top[1].buffer(OVERLAP_TOLERANCE).contains(base):
            continue
        piece = top[0]
        on = f"floor {m.floor}" if piece.type == "ruin" else "the top"
        key = f"models[{m.id}].at"
        yield SceneWarning(
            scene.file, scene.line_of(key), key,
            f"stands on {on} of {piece.type} {piece.id!r}, which is too narrow for its "
            f"{_mm(m)} base (the base hangs over its edge): move it wholly onto {on} or off "
            "the piece")


def _inside_solids(scene: Scene, models: list[ModelSpec], shapes: list[shapely.Polygon],
                   tops: list[tuple[TerrainPiece, shapely.Geometry] | None]
                   ) -> Iterator[SceneWarning]:
    solids = _solid_shapes(scene)
    if not solids:
        return
    tree = shapely.STRtree([s for _, s in solids])
    which, piece = tree.query(shapes, predicate="intersects")
    for w, k in sorted(zip(which.tolist(), piece.tolist(), strict=True)):
        m, solid = models[w], solids[k][0]
        on = tops[w][0] if tops[w] is not None else None
        if solid.type != "ruin" and (on is solid or m.floor or m.z is not None):
            continue  # on its top (`_overhangs`), or on a storey above it
        what = "the walls of ruin" if solid.type == "ruin" else solid.type
        key = f"models[{m.id}].at"
        yield SceneWarning(scene.file, scene.line_of(key), key,
                           f"its {_mm(m)} base is inside {what} {solid.id!r} (solid from the "
                           "table up): move it clear of the piece")


def _mm(m: ModelSpec) -> str:
    along, across = m.base_mm
    return f"{along:g} mm" if along == across else f"{along:g}x{across:g} mm"


def _inch_bases(scene: Scene, models: list[ModelSpec]) -> Iterator[SceneWarning]:
    for m in models:
        if "base" in m.measured or min(m.base_mm) >= MIN_BASE_MM:
            continue
        key = f"models[{m.id}].base"
        sizes = [v * MM_PER_INCH for v in m.base_mm]
        written = (f"{sizes[0]:g}" if m.is_round else
                   "[" + ", ".join(f"{v:g}" for v in sizes) + "]")
        yield SceneWarning(
            scene.file, scene.line_of(key), key,
            f"a {_mm(m)} base is smaller than any model's ({MIN_BASE_MM:g} mm and up): base "
            f"sizes are millimetres; if it is inches, write base: {written}")


def physical_warnings(scene: Scene) -> list[SceneWarning]:
    """A warning per physical mistake of the scene's models: a base that reads as inches,
    two models on one spot or with overlapping bases, a model on a top or ruin floor too narrow
    for its base, a model inside a solid piece."""
    models = list(scene.models)
    if not models:
        return []
    centres = np.array([m.at for m in models], dtype=np.float64)
    shapes = _base_shapes(models)
    levels, tops = _levels(scene, models, centres)
    return [*_inch_bases(scene, models), *_overlaps(scene, models, shapes, centres, levels),
            *_overhangs(scene, models, shapes, tops),
            *_inside_solids(scene, models, shapes, tops)]
