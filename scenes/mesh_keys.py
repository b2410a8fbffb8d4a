"""The keys that say how to read a mesh file (``units``, ``up``, ``scale``, a model's
``parts``) and their checks (the warning when a mesh's size makes another unit far likelier
is `scenes.mesh_warnings`).

Terrain ``type: mesh`` pieces and models whose ``shape`` is a mesh file take the same three:
``units`` (mm, cm, m or in; default in), ``up`` (z or y; default z, and y for glTF/GLB, which
is y-up by specification) and ``scale`` (a plain factor on top of the units; default 1).
"""

from __future__ import annotations

from pathlib import Path

from battlesight.geometry.meshfile import UNITS, load_mesh_file, reading
from battlesight.geometry.partnames import LABELS

from .checks import Checker, line_of, show
from .model import ModelSpec

__all__ = ["MESH_KEYS", "UP_AXES", "check_mesh_keys", "check_parts", "mesh_reading"]

#: The keys of either kind of mesh that say how its file is read.
MESH_KEYS = ("units", "up", "scale")
UP_AXES = ("z", "y")


def check_mesh_keys(ck: Checker, m: dict, path: str) -> None:
    """Problems of ``units``, ``up`` and ``scale`` on a mesh piece or a mesh model."""
    if "units" in m and m["units"] not in UNITS:
        ck.add(line_of(m, "units"), f"{path}.units",
               f"must be one of {', '.join(UNITS)}, got {show(m['units'])}")
    if "up" in m and m["up"] not in UP_AXES:
        ck.add(line_of(m, "up"), f"{path}.up",
               f"must be z or y (the mesh's up axis; y: Unity, Tabletop Simulator, glTF), got "
               f"{show(m['up'])}")
    ck.number(m, "scale", path, positive=True)


def check_parts(ck: Checker, m: dict, path: str, mesh_file: Path | None) -> dict | None:
    """A model's ``parts`` map (node name -> label from geometry.partnames.LABELS), each name
    one the mesh file holds (when the file can be read; else the build reports the file)."""
    if "parts" not in m:
        return None
    parts, line = m["parts"], line_of(m, "parts")
    if not isinstance(parts, dict) or not parts:
        ck.add(line, f"{path}.parts", f"must be a mapping of node name -> part label, got "
                                      f"{show(parts)}")
        return None
    names: tuple[str, ...] = ()
    if mesh_file is not None:
        try:
            names = load_mesh_file(mesh_file, y_up=reading(up=m.get("up"))[1])[2]
        except (ValueError, OSError):
            names = ()
    ok = True
    for name, label in parts.items():
        key = f"{path}.parts.{name}"
        where = line_of(parts, name) or line
        if label not in LABELS:
            ck.add(where, key, f"part label must be one of {', '.join(LABELS)}, got "
                               f"{show(label)}")
            ok = False
        if names and name not in names:
            import difflib  # here: only a misspelt name needs it

            close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.6)
            hint = (f"; did you mean {' or '.join(repr(c) for c in close)}?" if close
                    else f" (it has {', '.join(repr(n) for n in names[:8])}"
                         f"{', ...' if len(names) > 8 else ''})")
            ck.add(where, key, f"the mesh has no node named {name!r}{hint}")
            ok = False
    return {str(k): str(v) for k, v in parts.items()} if ok else None


def mesh_reading(data: dict | ModelSpec) -> tuple[float, bool | None]:
    """(inches per file unit, y_up) of a mesh piece's data or a mesh model."""
    if isinstance(data, ModelSpec):
        return reading(data.units, data.up, data.scale)
    return reading(data.get("units"), data.get("up"), data.get("scale"))
