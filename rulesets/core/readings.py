"""Named readings of ambiguous rules, switchable per call.

Where a system's rulebook reads more than one way, its ruleset declares a `Reading` (id
`wh40k6.A2`, the rule, the question, the digest's choice as the default, the alternatives,
each a short value name and one sentence). A `Readings` value (an immutable mapping id ->
chosen value, defaults filled in) says which reading a judgement is under: the front door
sets it for the length of a call with `use(...)`, and each decision point asks its own
`Reading` for the current value (`A2.current()`, `A2.means("seen-only")`). Work that a board
keeps between calls (`Board.sight_memo`) is keyed by `current_key()`, so a switched reading
never reuses an answer worked out under another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")

#: what a reading can change: the sight verdict (`los`, and everything that judges sight),
#: a shooting attack (`shoot`: range, odds, cover by unit), or the game's other steps (`play`)
SCOPES = ("sight", "shoot", "play")


@dataclass(frozen=True)
class Alternative:
    """One answer to a reading's question: a short value name and one sentence."""

    value: str
    text: str

    def to_dict(self) -> dict[str, str]:
        return {"value": self.value, "text": self.text}


@dataclass(frozen=True)
class Reading:
    """One switchable ambiguity of a system's rules.

    id: `<system>.<register id>`; rule: the section it concerns (`wh40k6 §5.1`); question:
    what is unclear; default: the digest's choice; alternatives: the other answers, each of
    which changes what the code decides; scope: what it can change (`SCOPES`); code: where
    the choice is made.
    """

    id: str
    rule: str
    question: str
    default: Alternative
    alternatives: tuple[Alternative, ...]
    scope: str = "sight"
    code: str = ""

    def __post_init__(self) -> None:
        if not self.alternatives:
            raise ValueError(f"reading {self.id!r}: a reading has at least one alternative")
        values = self.values
        if len(set(values)) != len(values):
            raise ValueError(f"reading {self.id!r}: value names repeat: {', '.join(values)}")
        if self.scope not in SCOPES:
            raise ValueError(f"reading {self.id!r}: scope must be one of {', '.join(SCOPES)}")
        if "." not in self.id or not self.rule.startswith(self.system):
            raise ValueError(f"reading {self.id!r}: the id is '<system>.<register id>' and "
                             "the rule cites that system")

    @property
    def system(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def values(self) -> tuple[str, ...]:
        """Every value name, the default first."""
        return (self.default.value, *(a.value for a in self.alternatives))

    def alternative(self, value: str) -> Alternative:
        """The answer named `value` (the default included); ValueError naming the known."""
        for alt in (self.default, *self.alternatives):
            if alt.value == value:
                return alt
        raise ValueError(f"reading {self.id} has no value {value!r}; values: "
                         f"{', '.join(self.values)}")

    def current(self) -> str:
        """The value this reading has in the judgement under way (its default outside one)."""
        return current_readings().get(self.id, self.default.value)

    def means(self, value: str) -> bool:
        """Whether the judgement under way reads this rule as `value` (a value it declares)."""
        self.alternative(value)
        return self.current() == value

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "rule": self.rule, "question": self.question,
                "default": self.default.to_dict(),
                "alternatives": [a.to_dict() for a in self.alternatives],
                "scope": self.scope, "code": self.code}


class Readings(Mapping[str, str]):
    """An immutable choice of reading per declared id (the defaults filled in)."""

    __slots__ = ("_declared", "_values")

    def __init__(self, declared: tuple[Reading, ...] = (),
                 chosen: Mapping[str, str] | None = None):
        """The declared readings' defaults, with `chosen` (id -> value) over them;
        ValueError for an id that is not declared or a value it does not have."""
        self._declared = {r.id: r for r in declared}
        values = {r.id: r.default.value for r in declared}
        for key, value in (chosen or {}).items():
            reading = self._declared.get(key)
            if reading is None:
                known = ", ".join(self._declared) or "none"
                raise ValueError(f"no reading {key!r}; readings: {known}")
            values[key] = reading.alternative(str(value)).value
        self._values = values

    def __getitem__(self, key: str) -> str:
        return self._values[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __hash__(self) -> int:
        return hash(self.key())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __repr__(self) -> str:
        return f"Readings({dict(self.changed())!r})"

    @property
    def declared(self) -> tuple[Reading, ...]:
        return tuple(self._declared.values())

    def changed(self) -> dict[str, str]:
        """The ids whose value is not the default, and their values."""
        return {k: v for k, v in self._values.items() if v != self._declared[k].default.value}

    def key(self) -> tuple[tuple[str, str], ...]:
        """A hashable key of the choice (only what differs from the defaults)."""
        return tuple(sorted(self.changed().items()))

    def with_value(self, reading_id: str, value: str) -> Readings:
        """The same choice with one reading switched."""
        return Readings(self.declared, {**self._values, reading_id: value})

    def variants(self, scopes: tuple[str, ...]) -> list[tuple[Reading, str, Readings]]:
        """(reading, value, readings) for each value other than the current one of each
        declared reading within `scopes`: what `--readings all` evaluates."""
        return [(r, v, self.with_value(r.id, v)) for r in self.declared if r.scope in scopes
                for v in r.values if v != self._values[r.id]]


_CURRENT: ContextVar[Readings | None] = ContextVar("battlesight_readings", default=None)
_DEFAULTS = Readings()


def current_readings() -> Readings:
    """The choice of readings of the judgement under way (every default outside one)."""
    return _CURRENT.get() or _DEFAULTS


def current_key() -> tuple[tuple[str, str], ...]:
    """What memo keys add so that work done under one reading is never reused under
    another."""
    return current_readings().key()


_EXPLORE: ContextVar[tuple[str, ...]] = ContextVar("battlesight_explore", default=())


@contextmanager
def use(readings: Readings, explore: tuple[str, ...] = ()) -> Iterator[Readings]:
    """Judge under `readings` until the block ends (nested blocks restore the outer one).
    explore: the scopes whose other readings a drawing surface asks about too (`render
    --readings all`: its judgement marks the lines another reading would change)."""
    token = _CURRENT.set(readings)
    flag = _EXPLORE.set(tuple(explore))
    try:
        yield readings
    finally:
        _EXPLORE.reset(flag)
        _CURRENT.reset(token)


def exploring() -> tuple[str, ...]:
    """The scopes whose other readings the surface under way asks about (none: only the
    readings chosen)."""
    return _EXPLORE.get()


def parse_assignments(texts: list[str] | None) -> dict[str, str]:
    """`ID=VALUE` texts (the `--reading` arguments) as a mapping; ValueError for one without
    '=' or given twice with different values."""
    out: dict[str, str] = {}
    for text in texts or ():
        key, sep, value = text.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key or not value:
            raise ValueError(f"expected ID=VALUE (for example wh40k6.A2=seen-only), got {text!r}")
        if out.get(key, value) != value:
            raise ValueError(f"{key} given twice: {out[key]} and {value}")
        out[key] = value
    return out


def differences(readings: Readings, scopes: tuple[str, ...], evaluate: Callable[[], list[T]],
                key: Callable[[T], Any]) -> tuple[list[T], list[list[dict[str, Any]]]]:
    """Every reading at once: `evaluate()` under `readings`, then once under each other value
    of each reading within `scopes` (one batched call per value, never one per result); per
    result, the entries whose `key` differs: {reading, value, rule, text, verdict}, `verdict`
    being the result under that value."""
    with use(readings):
        base = evaluate()
    keys = [key(r) for r in base]
    out: list[list[dict[str, Any]]] = [[] for _ in base]
    for reading, value, variant in readings.variants(scopes):
        with use(variant):
            results = evaluate()
        for i, (was, now) in enumerate(zip(keys, results, strict=True)):
            if key(now) != was:
                out[i].append({"reading": reading.id, "value": value, "rule": reading.rule,
                               "text": reading.alternative(value).text, "verdict": now})
    return base, out
