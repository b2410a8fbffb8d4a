"""The published JSON Schemas (`battlesight/schemas/*.schema.json`: the scene format and the
`los`, `shoot`, `analyze` and `render --json` reports), completed from the registry of game
systems.

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
#: the schemas the package ships, by name
NAMES = ("scene", "los", "shoot", "analyze", "render")


def schema(name: str) -> dict[str, Any]:
    """The bundled schema `name` ('scene', 'los', 'shoot', 'analyze', 'render'), its system
    ids and citation patterns those of the registered systems."""
    return json.loads(_filled(name, system_ids()))


@lru_cache(maxsize=16)
def _filled(name: str, ids: tuple[str, ...]) -> str:
    if name not in NAMES:
        raise ValueError(f"no schema {name!r} (schemas: {', '.join(NAMES)})")
    text = files("battlesight").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
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
