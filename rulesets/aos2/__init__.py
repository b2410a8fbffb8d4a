"""Age of Sigmar 2nd edition on the shared rules core (rules page: docs/rules/aos2.md)."""

from .ruleset import AOS2

__all__ = ["AOS2"]
