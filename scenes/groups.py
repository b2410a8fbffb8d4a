"""Grouped terrain pieces in the scene: which piece a shape belongs to, and the rules keys a
group's shapes must agree on (docs/scene-format.md, "Grouped pieces").

`rulesets.core.groups` reads the groups of a built world; this module is what `validate`
and `TerrainPiece.group` need from the scene alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: keys a group's shapes may not give different values for: a group has one set of rules data
RULES_KEYS = ("cover", "feature", "area", "based", "difficult", "dangerous", "impassable",
              "forest", "rough", "concealment", "cloud", "kind", "obstacle", "elevation")


def group_name(piece_id: str, data: Mapping[str, Any]) -> str:
    """The piece a shape belongs to: its `group` name, else its own id (so a shape whose id
    names a group belongs to it)."""
    name = data.get("group")
    return name if isinstance(name, str) and name.strip() else piece_id


def conflicts(pieces: Iterable[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, str, str]]:
    """(shape id, key, message) for each shape of a group whose rules key differs from the
    value an earlier shape of the group gave (shapes may leave a key out)."""
    seen: dict[tuple[str, str], tuple[str, Any]] = {}
    out = []
    for piece_id, data in pieces:
        name = group_name(piece_id, data)
        for key in RULES_KEYS:
            if key not in data:
                continue
            first = seen.setdefault((name, key), (piece_id, data[key]))
            if first[1] != data[key]:
                out.append((piece_id, key, f"group {name!r} already has {key} {first[1]!r} "
                            f"(from {first[0]!r}): every shape of a group gives the same "
                            f"{key}, or leaves it out"))
    return out
