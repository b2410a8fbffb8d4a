"""The published JSON Schemas (`battlesight/schemas/*.schema.json`: the scene format and
every command's `--json` output), completed from the registry of game systems.

The files name no system: a node marked `"x-registry": "ids"` (a scene's `ruleset`, a
verdict's `system`) accepts any id-shaped text, and one marked `"citation"` (a rule cited by
its system and section) any such text before the section. `schema` fills them from the
registry (`scenes.systems.system_ids`): the ids become the node's `enum`, and the citation
pattern's id part becomes the alternation of the ids, so every registered system, an
installed one too, passes and nothing else does. Every user of the schema files reads them
through `schema`.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib.resources import files
from typing import Any

from battlesight.scenes.systems import system_ids

#: the id part of the files' own patterns, which `schema` replaces with the registered ids
ID_PATTERN = "[a-z][a-z0-9_]*"
#: how a schema file is named: `<name>.schema.json`
SUFFIX = ".schema.json"


@lru_cache(maxsize=1)
def names() -> tuple[str, ...]:
    """The schemas the package ships, by name (every `*.schema.json` of the folder)."""
    folder = files("battlesight").joinpath("schemas")
    return tuple(sorted(p.name.removesuffix(SUFFIX) for p in folder.iterdir()
                        if p.name.endswith(SUFFIX)))


def schema(name: str) -> dict[str, Any]:
    """The bundled schema `name` ('scene', 'los', 'shoot', 'analyze', 'render', 'validate',
    ...), its system ids and citation patterns those of the registered systems."""
    return json.loads(_filled(name, system_ids()))


@lru_cache(maxsize=32)
def _filled(name: str, ids: tuple[str, ...]) -> str:
    if name not in names():
        raise ValueError(f"no schema {name!r} (schemas: {', '.join(names())})")
    text = files("battlesight").joinpath("schemas", f"{name}{SUFFIX}").read_text("utf-8")
    return json.dumps(fill_registry(json.loads(text), ids))


def fill_registry(node: Any, ids: tuple[str, ...]) -> Any:
    """`node` with every `x-registry` mark filled from `ids` (see the module's docstring)."""
    if isinstance(node, list):
        return [fill_registry(item, ids) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: fill_registry(value, ids) for key, value in node.items()}
    mark = out.get("x-registry")
    if mark == "ids":
        out["enum"] = list(ids)
    elif mark == "citation":
        if ID_PATTERN not in out.get("pattern", ""):
            raise ValueError(f"a citation pattern must hold {ID_PATTERN!r}: {out.get('pattern')}")
        alternation = "(" + "|".join(re.escape(i) for i in ids) + ")"
        out["pattern"] = out["pattern"].replace(ID_PATTERN, alternation, 1)
    elif mark is not None:
        raise ValueError(f"unknown x-registry mark {mark!r}")
    return out
