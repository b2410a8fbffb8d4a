"""Where the whfb6 rules read more than one way, and the reading this package implements (the
digest's ambiguity and translation register, §14; ids are its numbers)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity

AMBIGUITIES = (
    Ambiguity(
        "1", "whfb6 §7", "What stops a unit marching?",
        ("any enemy unit within 8\" that is not fleeing",
         "such an enemy, unless the enemies within 8\" are marching too"),
        "any enemy unit within 8\" that is not fleeing",
        "rulesets/whfb6/movement.py note_march_blocks"),
    Ambiguity(
        "4", "whfb6 §8.5", "Shooting panic: casualties of 'more than a quarter' or 25% or more?",
        ("strictly more than a quarter", "a quarter or more"), "strictly more than a quarter",
        "rulesets/whfb6/tables.py PANIC_STRICTLY_MORE"),
    Ambiguity(
        "6", "whfb6 §8.4", "May a wound take both an armour save and a ward save?",
        ("armour save first, then the ward save", "only the ward save"),
        "armour save first, then the ward save", "rulesets/whfb6/shooting.py save_needs"),
    Ambiguity(
        "8", "whfb6 §9.1", "A great weapon against chargers: chargers first or strikes last?",
        ("the great weapon strikes last unless it charged", "chargers strike first"),
        "the great weapon strikes last unless it charged", "rulesets/whfb6/combat.py"),
    Ambiguity(
        "fear-pursuit", "whfb6 §7, §11",
        "Does a pursuit or overrun charge into a fear or terror causer need a test?",
        ("no test; the rules apply normally the next turn", "the usual fear or terror test"),
        "no test; the rules apply normally the next turn",
        "rulesets/whfb6/pursuit.py NO_FEAR_TEST"),
)
