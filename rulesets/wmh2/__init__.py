"""WARMACHINE/HORDES MK II on the shared rules core (rules page: docs/rules/wmh2.md)."""

from .ruleset import WMH2

__all__ = ["WMH2"]
