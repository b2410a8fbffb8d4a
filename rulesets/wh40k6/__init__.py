"""Warhammer 40,000 6th edition on the shared rules core (rules page: docs/rules/wh40k6.md)."""

from .ruleset import WH40K6

__all__ = ["WH40K6"]
