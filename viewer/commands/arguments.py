"""argparse types for numbers in a range, and a parser whose errors are one line.

``int_in(lo, hi)`` and ``float_in(lo, hi)`` refuse what does not parse, NaN, infinities and
values out of range, so every number a command reads from its arguments is checked before any
work (bounds from ``scenes.limits``). ``OneLineParser`` reports any argument error as
``battlesight CMD: message`` and exits 2.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import NoReturn

from battlesight.scenes.limits import shorten, shown


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (no usage block), exit code 2."""

    def error(self, message: str) -> NoReturn:
        hint = f" (see {self.prog} --help)"
        self.exit(2, shorten(f"{self.prog}: {message}", 400 - len(hint)) + hint + "\n")


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

