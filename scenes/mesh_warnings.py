"""The `validate` warnings of mesh files: a mesh whose size makes another unit far likelier
than its own (a "wall" 76 units tall read as inches is almost surely millimetres), and a mesh
model whose own base part is not the size of the scene's `base` (the rules measure `base`, the
picture and the sight volume show the part)."""

from __future__ import annotations

import math
from pathlib import Path

from battlesight.geometry.meshfile import UNITS, mesh_extents

from .build import BUILD_ERRORS, mesh_model_of
from .keys import SceneWarning
from .mesh_keys import mesh_reading
from .model import ModelSpec, Scene
from .paths import resolve_mesh_file

__all__ = ["PLAUSIBLE", "base_warnings", "unit_warnings"]

#: Heights (inches) a mesh's kind is plausibly, read in its units: outside these and inside
#: them in another unit, `validate` warns (a 76-unit wall is 76" as inches, 3" as mm).
PLAUSIBLE = {"terrain": (0.2, 30.0), "model": (0.3, 12.0)}


def _natural_height(path: Path, data: dict | ModelSpec) -> float:
    """Height of a mesh in inches as the scene reads it (units, scale, up)."""
    factor, y_up = mesh_reading(data)
    return float(mesh_extents(path, y_up=y_up)[2]) * factor


def _likelier_unit(height: float, units: str, kind: str) -> str | None:
    """A unit in which a mesh `height` inches tall (read in `units`) is a plausible size for
    its kind when it is not in its own; None when its own is plausible or none is."""
    lo, hi = PLAUSIBLE[kind]
    if lo <= height <= hi:
        return None
    raw = height / UNITS[units]
    typical = math.sqrt(lo * hi)
    fits = [u for u in UNITS if u != units and lo <= raw * UNITS[u] <= hi]
    return min(fits, key=lambda u: abs(math.log(raw * UNITS[u] / typical)), default=None)


#: How a warning names a unit ("read as in" reads badly).
_UNIT_WORDS = {"in": "inches", "mm": "mm", "cm": "cm", "m": "metres"}


def unit_warnings(scene: Scene) -> list[SceneWarning]:
    """A warning per mesh piece or mesh model whose size, read in its units, is implausible
    for its kind (PLAUSIBLE) while another unit makes it plausible, with the `units:` line to
    add. A model whose height is written is sized by it and not checked."""
    items: list[tuple[str, str, dict | ModelSpec, str, str]] = []
    for piece in scene.terrain:
        if piece.type == "mesh":
            items.append(("terrain", f"terrain[{piece.id}]", piece.data, piece.data["file"],
                          "file"))
    for spec in scene.models:
        if spec.is_mesh and "height" in spec.measured:
            items.append(("model", f"models[{spec.id}]", spec, spec.shape, "shape"))
    out: list[SceneWarning] = []
    for kind, path, data, file, file_key in items:
        try:
            height = _natural_height(resolve_mesh_file(file, scene.scene_dir), data)
        except (ValueError, OSError):
            continue  # the build reports a file it cannot read
        written = data.units if isinstance(data, ModelSpec) else data.get("units")
        units = written or "in"
        better = _likelier_unit(height, units, kind)
        if better is None:
            continue
        size = height / UNITS[units] * UNITS[better]
        line = scene.line_of(f"{path}.units") or scene.line_of(f"{path}.{file_key}")
        given = "set" if written else "add"
        out.append(SceneWarning(
            scene.file, line, f"{path}.units",
            f"this mesh {'piece' if kind == 'terrain' else 'model'} is {height:.3g}\" tall "
            f"read as {_UNIT_WORDS[units]}, {size:.3g}\" as {_UNIT_WORDS[better]}: its file is "
            f"most likely in {better} ({given} 'units: {better}')"))
    return out


def _mm(size: float | tuple[float, float] | list[float]) -> str:
    return f"{size:g} mm" if isinstance(size, int | float) else "x".join(
        f"{v:g}" for v in size) + " mm"


def _written(size: float | tuple[float, float]) -> str:
    """A base size as the scene writes it: 32, or [60, 35]."""
    return f"{size:g}" if isinstance(size, int | float) else "[" + ", ".join(
        f"{v:g}" for v in size) + "]"


def base_warnings(scene: Scene) -> list[SceneWarning]:
    """A warning per mesh model with a part labelled base whose size is not the scene's
    `base`: the rules measure the scene's, the picture and the sight volume keep the part."""
    out: list[SceneWarning] = []
    for spec in scene.models:
        if not spec.is_mesh or "base" in spec.measured:
            continue
        try:
            found = mesh_model_of(spec, scene.scene_dir)
        except BUILD_ERRORS:
            continue  # the build reports a mesh it cannot make
        if not found.base_disagrees:
            continue
        path = f"models[{spec.id}]"
        assert found.part_base_mm is not None
        out.append(SceneWarning(
            scene.file, scene.line_of(f"{path}.base"), f"{path}.base",
            f"its mesh has its own base part of {_mm(found.part_base_mm)}, not "
            f"{_mm(spec.base)}: the rules measure {_mm(spec.base)} while the picture and "
            f"the sight volume keep the part (give base: {_written(found.part_base_mm)}, or "
            "leave base out to measure the part)"))
    return out
