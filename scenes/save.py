"""Write scenes back to YAML: ``scene_to_dict`` is the inverse of ``scene_from_dict``.

The full form writes every known key explicitly (defaults included) and keeps unknown keys, so
``load(save(load(x))) == load(x)``. Optional keys that are unset (``unit``, ``floor``, ``eye``,
``profile``, ``deployment``) are left out. `save_scene` writes a scene read from a file onto
that file's own text instead, rewriting only what changed (`kept_yaml`), so a user's comments
and formatting survive a save from the window.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from .checks import plain
from .model import (
    DEFAULT_BASE_MM,
    DEFAULT_FACING,
    DEFAULT_HEIGHT,
    DEFAULT_SHAPE,
    ModelSpec,
    Scene,
    TerrainPiece,
)
from .output import write_output
from .validate import build_scene
from .yamldump import dump_yaml
from .yamlpatch import CannotPatch, patch_yaml, same
from .yamlread import parse_yaml, read_text


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


def scene_to_yaml(scene: Scene) -> str:
    """The scene as YAML text, in full (every default written)."""
    return dump_yaml(scene_to_dict(scene))


def kept_yaml(scene: Scene, source: str | os.PathLike[str],
              target: str | os.PathLike[str]) -> str | None:
    """The text of the scene file ``source`` with only what differs from ``scene`` rewritten
    (``yamlpatch``: comments, key order and formatting stay), as it is to be read at
    ``target``. None when source is no valid scene file now, or when the patched text would
    not read back at target as exactly ``scene``: the caller writes the full form then."""
    target = Path(target)
    text, _ = read_text(source, str(source))
    base = None if text is None else _read_scene(text, target)
    if base is None:
        return None
    wanted = scene_to_dict(scene)
    try:
        patched = patch_yaml(text, scene_to_dict(base), _short_new_models(wanted, base, scene))
    except (CannotPatch, yaml.YAMLError):
        return None
    again = _read_scene(patched, target)
    return patched if again is not None and same(scene_to_dict(again), wanted) else None


def _short_new_models(data: dict[str, Any], base: Scene, scene: Scene) -> dict[str, Any]:
    """data with the models that base lacks written as a user would: without the keys that
    hold the format's default or their unit's value (the reload check in `kept_yaml` holds
    the result to the same scene)."""
    old = {m.id for m in base.models}
    models = []
    for entry in data["models"]:
        if entry["id"] not in old:
            unit = scene.unit(entry["unit"]) if "unit" in entry else None
            implied = {"facing": DEFAULT_FACING, "base": DEFAULT_BASE_MM,
                       "height": DEFAULT_HEIGHT, "shape": DEFAULT_SHAPE,
                       **{k: unit[k] for k in ("player", "profile") if unit and k in unit}}
            entry = {k: v for k, v in entry.items() if k not in implied
                     or not same(v, implied[k])}
        models.append(entry)
    return {**data, "models": models}


def _read_scene(text: str, target: Path) -> Scene | None:
    """The scene a text holds, read as the file target would be (its folder for mesh files,
    its name as the default name); None when it has any problem."""
    data, problems = parse_yaml(text, str(target))
    if data is None or problems:
        return None
    scene, problems = build_scene(data, str(target), scene_dir=target.parent,
                                  default_name=target.stem, build=False)
    return None if problems else scene


def scene_text(scene: Scene, path: str | os.PathLike[str], keep: bool = True) -> str:
    """What `save_scene` writes at path: the scene's own file kept with only the changes
    rewritten (keep, when the scene was read from a file), else the full form."""
    kept = kept_yaml(scene, scene.path, path) if keep and scene.path is not None else None
    return kept if kept is not None else scene_to_yaml(scene)


def save_scene(scene: Scene, path: str | os.PathLike[str], keep: bool = True) -> Path:
    """Write the scene to ``path`` safely (``output.write_output``: a temporary file beside
    it, then a rename; links, FIFOs and devices refused; a replaced file keeps its mode).

    A scene read from a file is written as that file's text with only what changed rewritten
    (`kept_yaml`); one made in code or imported, or with keep=False, in full."""
    return write_output(path, scene_text(scene, path, keep))
