"""Write scenes back to YAML: ``scene_to_dict`` is the inverse of ``scene_from_dict``.

Every known key is written explicitly (defaults included) and unknown keys are kept, so
``load(save(load(x))) == load(x)``. Optional keys that are unset (``unit``, ``floor``, ``eye``,
``profile``, ``deployment``) are left out.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .checks import plain
from .limits import MAX_YAML_DEPTH
from .model import ModelSpec, Scene, TerrainPiece
from .output import write_output


def _number(x: float) -> int | float:
    """Write whole floats as ints (72 rather than 72.0)."""
    return int(x) if isinstance(x, float) and x.is_integer() and abs(x) < 2**53 else x


def piece_to_dict(piece: TerrainPiece) -> dict[str, Any]:
    """One terrain entry: id, type, then its data as written."""
    return {"id": piece.id, "type": piece.type, **plain(piece.data)}


def model_to_dict(model: ModelSpec) -> dict[str, Any]:
    """One model entry with every set field and its extra keys."""
    out: dict[str, Any] = {"id": model.id}
    if model.unit is not None:
        out["unit"] = model.unit
    out["player"] = model.player
    out["at"] = [_number(v) for v in model.at]
    if model.floor is not None:
        out["floor"] = model.floor
    out["facing"] = _number(model.facing)
    base = model.base
    if "base" not in model.measured:  # a mesh model's own base and height stay its own
        out["base"] = ([_number(v) for v in base] if isinstance(base, (tuple, list))
                       else _number(base))
    if "height" not in model.measured:
        out["height"] = _number(model.height)
    if model.eye is not None:
        out["eye"] = _number(model.eye)
    out["shape"] = model.shape
    for key in ("units", "up", "scale", "parts", "z"):
        if getattr(model, key) is not None:
            out[key] = plain(getattr(model, key))
    if model.profile is not None:
        out["profile"] = model.profile
    out.update(plain(model.extra))
    return out


def scene_to_dict(scene: Scene) -> dict[str, Any]:
    """The scene as plain YAML-ready data (dicts, lists, numbers, strings)."""
    out: dict[str, Any] = {
        "format": scene.format,
        "name": scene.name,
        "ruleset": scene.ruleset,
        "table": [_number(v) for v in scene.table],
        "terrain": [piece_to_dict(p) for p in scene.terrain],
    }
    if scene.units:
        out["units"] = plain(scene.units)
    out["models"] = [model_to_dict(m) for m in scene.models]
    if scene.deployment is not None:
        out["deployment"] = plain(scene.deployment)
    out.update(plain(scene.extra))
    return out


#: Characters YAML reads as line breaks: PyYAML writes them raw inside single-quoted scalars
#: when allow_unicode is on, and they then read back as spaces.
_YAML_BREAKS = ("\x85", "\u2028", "\u2029")


class _SceneDumper(yaml.SafeDumper):
    """Safe dumper that double-quotes (and so escapes) strings holding YAML line breaks."""

    def represent_str(self, data: str) -> yaml.ScalarNode:
        if any(ch in data for ch in _YAML_BREAKS):
            return self.represent_scalar("tag:yaml.org,2002:str", data, style='"')
        return super().represent_str(data)


    def represent_numpy(self, data: Any) -> yaml.Node:
        """numpy scalars and arrays (a generated scene's numbers) as plain numbers/lists."""
        return self.represent_data(data.tolist())


_SceneDumper.add_representer(str, _SceneDumper.represent_str)
_SceneDumper.add_multi_representer(np.generic, _SceneDumper.represent_numpy)
_SceneDumper.add_multi_representer(np.ndarray, _SceneDumper.represent_numpy)


def _dump(data: dict[str, Any]) -> str:
    try:
        return yaml.dump(data, Dumper=_SceneDumper, sort_keys=False, default_flow_style=None,
                         allow_unicode=True, width=100)
    except RecursionError:  # only a scene built in Python can get here: files are bounded
        raise ValueError(f"scene data nested deeper than {MAX_YAML_DEPTH} levels cannot be "
                         "saved") from None


def scene_to_yaml(scene: Scene) -> str:
    """The scene as YAML text."""
    return _dump(scene_to_dict(scene))


def save_scene(scene: Scene, path: str | os.PathLike[str]) -> Path:
    """Write the scene to ``path`` safely (``output.write_output``: a temporary file beside
    it, then a rename; links, FIFOs and devices refused; a replaced file keeps its mode)."""
    return write_output(path, scene_to_yaml(scene))
