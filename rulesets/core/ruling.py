"""Rulings: a ruleset's verdicts, each with the rule that decided it and the geometry behind it.

Citations name the system and the section of its rules page in `docs/rules/`, e.g.
`wh40k6 §5.2`. `geometry` holds the numbers that led to the verdict (fractions obscured,
blocker ids, distances), so a viewer can draw them and a player can check them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Ruling:
    """A yes/no (or valued) verdict with its citation."""

    ok: bool
    rule: str
    reason: str = ""
    value: Any = None
    geometry: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.ok

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok, "rule": self.rule, "reason": self.reason}
        if self.value is not None:
            out["value"] = self.value
        if self.geometry:
            out["geometry"] = _plain(self.geometry)
        return out


@dataclass
class Cover:
    """Cover of one target model against one attack.

    value:  the system's number: a save (40k: 4 = 4+; AoS: +1 save), DEF bonus (WMH) or
            to-hit modifier (WHFB); None when not in cover.
    effect: what the value changes: 'save', 'save_mod', 'def', 'to_hit'.
    kind:   'terrain', 'models', 'area', 'forest', 'gaps', 'rule', 'none'.
    source: id of the piece or unit that gave it (None for special rules).
    obscured: the largest obscured fraction seen by any firer (0..1).
    """

    in_cover: bool
    value: int | None = None
    effect: str = "save"
    kind: str = "none"
    source: str | None = None
    rule: str = ""
    obscured: float = 0.0
    firer: str | None = None
    notes: list[str] = field(default_factory=list)

    @classmethod
    def none(cls, rule: str = "", obscured: float = 0.0, note: str = "") -> Cover:
        return cls(False, None, kind="none", rule=rule, obscured=obscured,
                   notes=[note] if note else [])

    def to_dict(self) -> dict[str, Any]:
        return {
            "in_cover": self.in_cover,
            "value": self.value,
            "effect": self.effect,
            "kind": self.kind,
            "source": self.source,
            "rule": self.rule,
            "obscured": round(self.obscured, 4),
            "firer": self.firer,
            "notes": list(self.notes),
        }


def _plain(value: Any) -> Any:
    """JSON-ready copy (numpy arrays and numbers become lists and floats)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):  # lists of ids are the common case: kept as they are
        return [v if type(v) is str else _plain(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    return value


#: How a cover value reads, by what it changes.
_COVER_FORMATS = {
    "save": "{}+", "def": "+{} DEF", "to_hit": "{:+d} to hit", "save_mod": "{:+d} save",
}


def cover_value_text(value: Any, effect: str = "save") -> str:
    """A cover value as a player reads it: '4+' (a save), '+4 DEF', '-1 to hit', '+1 save'."""
    try:
        return _COVER_FORMATS.get(effect, "{}").format(value)
    except (ValueError, TypeError):
        return str(value)
