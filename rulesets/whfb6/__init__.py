"""Warhammer Fantasy Battle 6th edition on the shared rules core (docs/rules/whfb6.md)."""

from .ruleset import WHFB6

__all__ = ["WHFB6"]
