"""Dice: exact probability distributions (computed, never simulated) and a seeded roller.

`Dist` is a finite distribution of integers with `Fraction` probabilities. The helpers build
the rolls the four systems use: a d6, sums of n dice, highest / lowest of n, n dice dropping
the highest, re-rolls, boosts (an extra die), target-number tests and leadership tests.
`Roller(seed)` rolls real dice for play and logs every roll, so a game replays identically.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

Number = int | float | Fraction


class Dist:
    """A distribution over integers: value -> probability (Fractions summing to 1)."""

    __slots__ = ("_p",)

    def __init__(self, probs: Mapping[int, Number]):
        total = Fraction(0)
        clean: dict[int, Fraction] = {}
        for value, p in probs.items():
            q = Fraction(p)
            if q:
                clean[int(value)] = clean.get(int(value), Fraction(0)) + q
                total += q
        if total != 1:
            raise ValueError(f"probabilities sum to {total}, not 1")
        self._p = dict(sorted(clean.items()))

    @classmethod
    def die(cls, sides: int = 6) -> Dist:
        """One fair die numbered 1..sides."""
        return cls({v: Fraction(1, sides) for v in range(1, sides + 1)})

    @classmethod
    def constant(cls, value: int) -> Dist:
        return cls({value: 1})

    @classmethod
    def from_outcomes(cls, outcomes: Iterable[int]) -> Dist:
        """Equally likely outcomes (e.g. an enumeration of all dice faces)."""
        counts: dict[int, int] = {}
        n = 0
        for o in outcomes:
            counts[o] = counts.get(o, 0) + 1
            n += 1
        return cls({v: Fraction(c, n) for v, c in counts.items()})

    @property
    def probs(self) -> dict[int, Fraction]:
        return dict(self._p)

    def __getitem__(self, value: int) -> Fraction:
        return self._p.get(value, Fraction(0))

    def __iter__(self):
        return iter(self._p.items())

    def __repr__(self) -> str:
        inner = ", ".join(f"{v}: {p}" for v, p in self._p.items())
        return f"Dist({{{inner}}})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Dist) and self._p == other._p

    def __hash__(self) -> int:
        return hash(tuple(self._p.items()))

    def __add__(self, other: Dist | int) -> Dist:
        """Sum of two independent rolls, or a shift by a constant."""
        if isinstance(other, int):
            return Dist({v + other: p for v, p in self._p.items()})
        out: dict[int, Fraction] = {}
        for a, pa in self._p.items():
            for b, pb in other._p.items():
                out[a + b] = out.get(a + b, Fraction(0)) + pa * pb
        return Dist(out)

    __radd__ = __add__

    def __sub__(self, other: int) -> Dist:
        return self + (-other)

    def map(self, fn: Callable[[int], int]) -> Dist:
        out: dict[int, Fraction] = {}
        for v, p in self._p.items():
            w = int(fn(v))
            out[w] = out.get(w, Fraction(0)) + p
        return Dist(out)

    def p(self, predicate: Callable[[int], bool]) -> Fraction:
        return sum((p for v, p in self._p.items() if predicate(v)), Fraction(0))

    def at_least(self, n: int) -> Fraction:
        return self.p(lambda v: v >= n)

    def at_most(self, n: int) -> Fraction:
        return self.p(lambda v: v <= n)

    def mean(self) -> Fraction:
        return sum((v * p for v, p in self._p.items()), Fraction(0))

    def times(self, n: int) -> Dist:
        """Sum of n independent copies."""
        out = Dist.constant(0)
        for _ in range(n):
            out = out + self
        return out


def d6() -> Dist:
    return Dist.die(6)


def d3() -> Dist:
    """A D6 halved rounding up (1-2 -> 1, 3-4 -> 2, 5-6 -> 3)."""
    return d6().map(lambda v: (v + 1) // 2)


def nd6(n: int, sides: int = 6) -> Dist:
    """Sum of n dice."""
    return Dist.die(sides).times(n)


@lru_cache(maxsize=256)
def _keep(n: int, keep: int, highest: bool, sides: int) -> Dist:
    faces = range(1, sides + 1)
    outcomes = (
        sum(sorted(roll, reverse=highest)[:keep]) for roll in itertools.product(faces, repeat=n)
    )
    return Dist.from_outcomes(outcomes)


def keep_highest(n: int, keep: int = 1, sides: int = 6) -> Dist:
    """Roll n dice, sum the `keep` highest (enumerated exactly; n <= 8)."""
    if not 0 < keep <= n <= 8:
        raise ValueError("need 0 < keep <= n <= 8")
    return _keep(n, keep, True, sides)


def keep_lowest(n: int, keep: int = 1, sides: int = 6) -> Dist:
    """Roll n dice, sum the `keep` lowest."""
    if not 0 < keep <= n <= 8:
        raise ValueError("need 0 < keep <= n <= 8")
    return _keep(n, keep, False, sides)


def highest_of(n: int, sides: int = 6) -> Dist:
    """The highest single die of n (e.g. 2D6 pick the highest)."""
    return keep_highest(n, 1, sides)


def lowest_of(n: int, sides: int = 6) -> Dist:
    return keep_lowest(n, 1, sides)


def drop_highest(n: int, drop: int = 1, sides: int = 6) -> Dist:
    """Sum of n dice after discarding the `drop` highest (e.g. 3D6 drop the highest)."""
    return keep_lowest(n, n - drop, sides)


def boosted(n: int, sides: int = 6) -> Dist:
    """n dice plus one extra die (a WARMACHINE boost)."""
    return nd6(n + 1, sides)


def reroll(dist: Dist, when: Callable[[int], bool], again: Dist | None = None) -> Dist:
    """Roll once; if `when(result)`, roll again (from `again`, default the same roll) and keep
    the second result. A die is never re-rolled twice."""
    again = dist if again is None else again
    p_re = dist.p(when)
    out: dict[int, Fraction] = {v: p for v, p in dist if not when(v)}
    for v, p in again:
        out[v] = out.get(v, Fraction(0)) + p_re * p
    return Dist(out)


def p_target(
    need: int | None, sides: int = 6, reroll_failed: bool = False, reroll_ones: bool = False,
    reroll_need: int | None = None,
) -> Fraction:
    """P(one die succeeds) for a target number `need`+ where a natural 1 always fails.

    need None (impossible) -> 0; need <= 1 is treated as 2+. reroll_failed re-rolls every
    failure; reroll_ones re-rolls a natural 1 only, needing `reroll_need` (default `need`).
    """
    if need is None or need > sides:
        return Fraction(0)
    need = max(2, need)
    p = Fraction(sides - need + 1, sides)
    if reroll_failed:
        return p + (1 - p) * p
    if reroll_ones:
        second = p_target(reroll_need if reroll_need is not None else need, sides)
        return p + Fraction(1, sides) * second
    return p


def p_leadership(ld: int, modifier: int = 0, double_one_passes: bool = True) -> Fraction:
    """P(2D6 <= ld + modifier), with a double 1 always passing (40k 'Insane Heroism')."""
    limit = ld + modifier
    ok = 0
    for a, b in itertools.product(range(1, 7), repeat=2):
        if a + b <= limit or (double_one_passes and a == b == 1):
            ok += 1
    return Fraction(ok, 36)


def binomial(n: int, p: Number) -> Dist:
    """Number of successes in n independent trials of probability p."""
    q = Fraction(p)
    out = Dist.constant(0)
    step = Dist({1: q, 0: 1 - q}) if 0 < q < 1 else Dist.constant(1 if q >= 1 else 0)
    for _ in range(n):
        out = out + step
    return out


@dataclass
class Roll:
    """One logged roll: what it was for and the faces."""

    why: str
    dice: list[int]
    sides: int = 6

    def to_dict(self) -> dict:
        return {"why": self.why, "dice": list(self.dice), "sides": self.sides}


@dataclass
class Roller:
    """Seeded dice for play: the same seed and the same calls give the same rolls.

    Python's Mersenne Twister with an integer seed is stable across platforms and versions.
    Every roll is appended to `log` (cleared by the caller when it takes the rolls).
    """

    seed: int = 0
    log: list[Roll] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def roll(self, n: int = 1, sides: int = 6, why: str = "") -> list[int]:
        dice = [self._face(sides) for _ in range(max(0, n))]
        self.log.append(Roll(why, dice, sides))
        return dice

    def _face(self, sides: int) -> int:
        """One die: the only source of randomness (tests script it by overriding this)."""
        return self._rng.randint(1, sides)

    def d6(self, n: int = 1, why: str = "") -> list[int]:
        return self.roll(n, 6, why)

    def one(self, why: str = "", sides: int = 6) -> int:
        return self.roll(1, sides, why)[0]

    def d3(self, why: str = "") -> int:
        return (self.one(why) + 1) // 2

    def total(self, n: int, why: str = "") -> int:
        return sum(self.d6(n, why))

    def direction(self, why: str = "") -> float:
        """A uniformly random direction in degrees (a scatter arrow), logged as 1..360."""
        return float(self.roll(1, 360, why)[0] % 360)

    def take_log(self) -> list[Roll]:
        out, self.log = self.log, []
        return out
