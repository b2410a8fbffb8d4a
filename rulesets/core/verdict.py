"""The one sight judgement's answer (`Verdict`) and a listed modifier (`Modifier`).

Every surface (the `los` and `shoot` commands, `demo`, `analyze`, the pictures, the window and
the Python API) takes its answer to "does A see B, how much, in what cover, and why" from
`Ruleset.judge(board, pairs)`, which returns one `Verdict` per ordered pair. The viewer only
maps `Verdict.status` to a colour and `Verdict.label` to words; it never re-decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .ruling import Cover, _plain, cover_value_text

if TYPE_CHECKING:
    from battlesight.geometry.visibility import Visibility

#: Cover kinds that are the rule's own name for the bonus (MK II); other kinds read 'cover'.
NAMED_KINDS = frozenset({"concealment", "elevation"})

#: Verdict.status values, in the order a picture's legend lists them.
STATUSES = ("clear", "cover", "hidden")


def share_text(share: float) -> str:
    """A share as a whole percentage for people: '62%'; a share that rounds to 0% or 100%
    without being none or all reads '<1%' / '>99%' (a seen model never reads '0% seen')."""
    if 0.0 < share < 0.005:
        return "<1%"
    if 0.995 <= share < 1.0:
        return ">99%"
    return f"{round(100 * share)}%"


@dataclass(frozen=True)
class Modifier:
    """One modifier that applies to a roll or a characteristic, with the rule that gives it.

    name:  what it is, as a player says it ('aiming', 'cover', 'long range').
    value: the change (+2, -1, 4 for a 4+ save, ...), in the system's own terms.
    rule:  system and section, e.g. 'wmh2 §6'.
    applies_to: what it changes ('to_hit', 'def', 'save', 'to_wound', ...).
    """

    name: str
    value: Any
    rule: str
    applies_to: str = ""

    @property
    def text(self) -> str:
        """How a player reads it: '4+ save', '+4 DEF', '-1 to hit', '+1 save'."""
        shown = cover_value_text(self.value, self.applies_to or "")
        return f"{shown} save" if self.applies_to == "save" else shown

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, "value": _plain(self.value), "rule": self.rule}
        if self.applies_to:
            out["applies_to"] = self.applies_to
        out["text"] = self.text
        return out


def cover_modifiers(cover: Cover | None, name: str = "cover") -> list[Modifier]:
    """The one modifier a cover verdict gives (none when not in cover or without a value)."""
    if cover is None or not cover.in_cover or cover.value is None:
        return []
    return [Modifier(name, cover.value, cover.rule, cover.effect)]


@dataclass
class Verdict:
    """A ruleset's answer for one ordered pair (observer -> target).

    visible:         whether the observer has line of sight to the target by the rule.
    seen_share:      the share of the target that counts under the rule (0..1), as the rule
                     measures it (the parts that count, from the sight points it allows).
    geometric_share: the plain ray-cast share of the whole target from the observer's eye.
    cover:           the cover the target has against the observer (None when not visible or
                     the system judges none); `Cover.rule` cites it.
    reason:          one sentence saying why.
    rule:            system and section of the sight rule that decided `visible`.
    blockers:        owner id -> share of the target it hides (geometric, first blocker).
    modifiers:       modifiers this sight gives an attack (cover DEF, to-hit penalties, ...).
    details:         system-specific facts (the proving line, arc, models seen, ...).
    visibility:      the plain ray cast behind `geometric_share` (the eye's view of the whole
                     target: sample points, blockers), for pictures; not serialised.
    """

    observer: str
    target: str
    visible: bool
    seen_share: float
    geometric_share: float
    reason: str
    rule: str
    cover: Cover | None = None
    blockers: dict[str, float] = field(default_factory=dict)
    modifiers: list[Modifier] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    visibility: Visibility | None = field(default=None, repr=False, compare=False)

    @property
    def in_cover(self) -> bool:
        return bool(self.visible and self.cover is not None and self.cover.in_cover)

    @property
    def status(self) -> str:
        """'clear', 'cover' or 'hidden': what a picture colours the sight line."""
        if not self.visible:
            return "hidden"
        return "cover" if self.in_cover else "clear"

    @property
    def cover_text(self) -> str:
        """'cover 4+ (ruin-1)', 'concealment +2 DEF (wood-1)', or '' when not in cover: the
        bonus is named as the system names it (MK II's concealment and elevation are not
        cover), else 'cover'."""
        if not self.in_cover:
            return ""
        assert self.cover is not None
        value = self.cover.value
        word = self.cover.kind if self.cover.kind in NAMED_KINDS else "cover"
        text = word if value is None else f"{word} {cover_value_text(value, self.cover.effect)}"
        return text + (f" ({self.cover.source})" if self.cover.source else "")

    @property
    def label(self) -> str:
        """Short text for a sight line: '62% seen, cover 4+ (ruin-1)', '100% seen, clear',
        'not visible'. The share is `seen_share`, the one the rule counts."""
        if not self.visible:
            return "not visible"
        pct = f"{share_text(self.seen_share)} seen"
        return f"{pct}, {self.cover_text}" if self.in_cover else f"{pct}, clear"

    def outcome(self) -> tuple:
        """What a player takes from the verdict: seen or not, the cover and the modifiers it
        gives (another reading is reported when this changes, not when a share moves)."""
        return (self.visible, self.cover_text,
                tuple(tuple(sorted(m.to_dict().items())) for m in self.modifiers))

    def to_dict(self) -> dict[str, Any]:
        return {
            "observer": self.observer,
            "target": self.target,
            "visible": self.visible,
            "status": self.status,
            "seen_share": round(float(self.seen_share), 4),
            "geometric_share": round(float(self.geometric_share), 4),
            "cover": self.cover.to_dict() if self.cover is not None else None,
            "reason": self.reason,
            "rule": self.rule,
            "blockers": [{"id": k, "share": round(float(v), 4)} for k, v in self.blockers.items()],
            "modifiers": [m.to_dict() for m in self.modifiers],
            "details": _plain(self.details),
            "label": self.label,
            "cover_text": self.cover_text,
        }
