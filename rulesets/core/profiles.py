"""Profiles: each ruleset's YAML data (`rulesets/<id>/data/*.yaml`) merged with the inline
`stats:`, `weapons:` and `keywords:` a scene gives on a unit or a model.

A data file holds up to three mappings: `models` (name -> profile), `units` (name -> unit
profile; `model:` names the default model profile of its members) and `weapons` (name ->
weapon). A profile's `weapons` list holds weapon names or mappings; a mapping with a `name` found
in `weapons` is that weapon with the given keys overriding. Merging order, later wins:
the unit profile's default model, the model's own `profile`, the unit entry's inline keys, the
model's inline keys. `stats` merge key by key; `weapons` replace; `keywords` accumulate.
"""

from __future__ import annotations

import copy
import importlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from battlesight.scenes.model import ModelSpec
from battlesight.scenes.systems import system_package
from battlesight.scenes.yamlread import package_data

from .standard import STANDARD_LABEL

INLINE_KEYS = ("stats", "weapons", "keywords", "type", "rules")


class ProfileError(ValueError):
    """A profile or weapon name that the ruleset's data does not know, or bad inline data."""


def data_folder(ruleset_id: str) -> Path:
    """The `data/` folder of a registered system's package (KeyError for an unknown id)."""
    package = importlib.import_module(system_package(ruleset_id))
    return Path(package.__file__).resolve().parent / "data"


@lru_cache(maxsize=16)
def load_data(ruleset_id: str) -> dict[str, dict[str, Any]]:
    """All data files of a ruleset merged: {'models': {}, 'units': {}, 'weapons': {}}. They
    are the `data/*.yaml` of the system's package, wherever the registry finds it."""
    out: dict[str, dict[str, Any]] = {"models": {}, "units": {}, "weapons": {}}
    folder = data_folder(ruleset_id)
    for path in sorted(folder.glob("*.yaml")):
        data = package_data(path.read_text(encoding="utf-8")) or {}
        for section in out:
            for name, entry in (data.get(section) or {}).items():
                if name in out[section]:
                    raise ProfileError(f"{path.name}: {section} {name!r} defined twice")
                out[section][str(name)] = entry
    return out


def _copy(value: Any) -> Any:
    """A copy of plain data (dicts, lists, scalars) as read from YAML: deepcopy's result at
    a fraction of its cost (profiles are resolved for every model at every load)."""
    if type(value) is dict:
        return {k: _copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_copy(v) for v in value]
    if isinstance(value, (dict, list, set)):  # a LineDict and the like keep what they carry
        return copy.deepcopy(value)
    return value


def weapon(ruleset_id: str, entry: str | dict[str, Any]) -> dict[str, Any]:
    """A weapon entry resolved against the ruleset's weapon table."""
    table = load_data(ruleset_id)["weapons"]
    if isinstance(entry, str):
        if entry not in table:
            raise ProfileError(f"unknown weapon {entry!r} for {ruleset_id}")
        return {"name": entry, **_copy(table[entry])}
    if not isinstance(entry, dict) or "name" not in entry:
        raise ProfileError(f"a weapon needs a name: {entry!r}")
    base = _copy(table.get(str(entry["name"]), {}))
    base.update(entry)
    return base


def _merge(into: dict[str, Any], layer: dict[str, Any] | None, ruleset_id: str) -> None:
    if not layer:
        return
    for key, value in layer.items():
        if key == "stats":
            if not isinstance(value, dict):
                raise ProfileError(f"stats must be a mapping, got {value!r}")
            into.setdefault("stats", {}).update(value)
        elif key == "weapons":
            if not isinstance(value, list):
                raise ProfileError(f"weapons must be a list, got {value!r}")
            into["weapons"] = [weapon(ruleset_id, w) for w in value]
        elif key in ("keywords", "rules"):
            items = [value] if isinstance(value, str) else list(value or [])
            have = into.setdefault(key, [])
            have.extend(str(k) for k in items if str(k) not in have)
        elif key not in ("model",):
            into[key] = _copy(value)


def model_profile(ruleset_id: str, name: str) -> dict[str, Any]:
    data = load_data(ruleset_id)
    if name in data["models"]:
        return data["models"][name]
    if name in data["units"] and data["units"][name].get("model"):
        return data["models"][data["units"][name]["model"]]
    raise ProfileError(f"unknown profile {name!r} for {ruleset_id}")


def is_plain(spec: ModelSpec, unit: dict[str, Any] | None = None) -> bool:
    """Whether neither the model nor its unit entry names a profile or gives stats: the model
    is then judged as its system's standard model."""
    return (spec.profile is None and not spec.extra.get("stats")
            and not (unit or {}).get("profile") and not (unit or {}).get("stats"))


def profile_label(scene: Any, spec: ModelSpec) -> str:
    """What a report names a model's profile: its own or its unit's profile name, 'inline
    stats', or 'standard model (none given)'."""
    unit = scene.unit(spec.unit) if spec.unit else None
    if is_plain(spec, unit):
        return STANDARD_LABEL
    name = spec.profile or (unit or {}).get("profile")
    return str(name) if name else "inline stats"


def resolve(ruleset_id: str, spec: ModelSpec, unit: dict[str, Any] | None = None,
            standard: str | None = None) -> dict:
    """The merged raw profile of one model: name, stats, weapons (dicts), keywords, ...

    standard: the data profile a plain model (see `is_plain`) is given; without one a plain
    model is an error."""
    data = load_data(ruleset_id)
    out: dict[str, Any] = {"stats": {}, "weapons": [], "keywords": []}
    unit_profile_name = (unit or {}).get("profile")
    unit_profile = data["units"].get(str(unit_profile_name)) if unit_profile_name else None
    if unit_profile_name and unit_profile is None and unit_profile_name not in data["models"]:
        raise ProfileError(f"unknown unit profile {unit_profile_name!r} for {ruleset_id}")
    name = spec.profile
    if name is None and unit_profile is not None:
        name = unit_profile.get("model")
    if name is None and unit_profile_name in data["models"]:
        name = unit_profile_name
    plain = is_plain(spec, unit)
    if plain and standard is None:
        raise ProfileError(f"model {spec.id!r} has neither a profile nor inline stats")
    if plain:
        name = standard
        out["standard"] = True
    if name is not None:
        _merge(out, model_profile(ruleset_id, str(name)), ruleset_id)
    out["profile"] = name
    if unit_profile is not None:
        _merge(out, {k: v for k, v in unit_profile.items() if k in ("keywords", "rules")},
               ruleset_id)
    _merge(out, {k: v for k, v in (unit or {}).items() if k in INLINE_KEYS}, ruleset_id)
    _merge(out, {k: v for k, v in spec.extra.items() if k in INLINE_KEYS}, ruleset_id)
    if name is None and not spec.extra.get("stats") and not (unit or {}).get("stats"):
        raise ProfileError(f"model {spec.id!r} has neither a profile nor inline stats")
    return out
