"""argparse types for numbers in a range, and a parser whose errors are one line.

``int_in(lo, hi)`` and ``float_in(lo, hi)`` refuse what does not parse, NaN, infinities and
values out of range, so every number a command reads from its arguments is checked before any
work (bounds from ``scenes.limits``). ``OneLineParser`` reports any argument error as
``battlesight CMD: message`` and exits 2. ``add_reading_arguments`` / ``chosen_readings``: the
``--reading ID=VALUE`` and ``--readings all`` options, checked against the scene's system.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from battlesight.cli.errors import UsageError
from battlesight.scenes.limits import shorten, shown

if TYPE_CHECKING:
    from battlesight.rulesets.core.readings import Readings
    from battlesight.rulesets.core.ruleset import Ruleset


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block), exit code 2."""

    def error(self, message: str) -> NoReturn:
        hint = f" (see {self.prog} --help)"
        self.exit(2, shorten(f"{self.prog}: {message}", 400 - len(hint)) + hint + "\n")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        """As argparse's, but arguments a sub-command does not know are refused by that
        sub-command's parser (`battlesight play: unrecognized arguments: ...`), not the top's."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            self._owner_of_extras(parsed).error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed

    def _owner_of_extras(self, parsed: argparse.Namespace) -> argparse.ArgumentParser:
        """The deepest chosen sub-command's parser (this one when none was chosen)."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                chosen = action.choices.get(getattr(parsed, action.dest, None) or "")
                if chosen is not None:
                    owner = chosen._owner_of_extras(parsed) \
                        if isinstance(chosen, OneLineParser) else chosen
                    return owner
        return self


def _bounds(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"between {lo:,} and {hi:,}"
    return f"at least {lo:,}" if lo is not None else f"at most {hi:,}"


def int_in(lo: int | None = None, hi: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number within [lo, hi] (either end may be open)."""
    def parse(text: str) -> int:
        try:
            value = int(text.strip()) if len(text) <= 40 else None
        except ValueError:
            value = None
        if value is None:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {shown(text)}")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise argparse.ArgumentTypeError(f"must be {_bounds(lo, hi)}, got {shown(text)}")
        return value

    parse.__name__ = "whole number"
    return parse


def float_in(lo: float | None = None, hi: float | None = None, *,
             above: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number within [lo, hi] (above=True: strictly above lo)."""
    def parse(text: str) -> float:
        try:
            value = float(text) if len(text) <= 60 else math.nan
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {shown(text)}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"must be a finite number, got {shown(text)}")
        low = lo is not None and (value <= lo if above else value < lo)
        if low or (hi is not None and value > hi):
            what = f"above {lo:g}" + (f" and at most {hi:g}" if hi is not None else "") \
                if above else _bounds(lo, hi)
            raise argparse.ArgumentTypeError(f"must be {what}, got {shown(text)}")
        return value

    parse.__name__ = "number"
    return parse



def add_reading_arguments(parser: argparse.ArgumentParser, every: bool = False) -> None:
    """`--reading ID=VALUE` (repeatable): judge under that reading of an ambiguous rule; with
    `every`, also `--readings all`: report the verdicts every other reading would change."""
    parser.add_argument("--reading", action="append", default=[], metavar="ID=VALUE",
                        help="read an ambiguous rule another way, e.g. wh40k6.A2=seen-only "
                             "(repeatable; the rules page lists each system's readings)")
    if every:
        parser.add_argument("--readings", choices=["all"], default=None,
                            help="all: also judge under every other reading that could touch "
                                 "the verdict, and report those that change it")


def chosen_readings(texts: list[str] | None, ruleset: Ruleset) -> Readings:
    """The `--reading` arguments (ID=VALUE texts) as the scene system's readings; UsageError
    ('--reading: ...') for one that is malformed or that the system does not declare."""
    from battlesight.rulesets.core.readings import parse_assignments

    try:
        return ruleset.choose_readings(parse_assignments(texts))
    except ValueError as error:
        raise UsageError(f"--reading: {error}") from None
