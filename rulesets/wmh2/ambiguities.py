"""Where the wmh2 rules read more than one way, and the reading this package implements (the
digest's ambiguity register, §17; ids are its numbers)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity

AMBIGUITIES = (
    Ambiguity(
        "A2", "wmh2 §5.4", "Elevation: '1\" or more' (seed) or 'more than 1\"' (English)?",
        ("1\" or more everywhere", "more than 1\""), "1\" or more everywhere",
        "rulesets/wmh2/rules.py ELEVATION_STEP"),
    Ambiguity(
        "A4", "wmh2 §3", "How are distances between models at different heights measured?",
        ("in plan, base edge to base edge", "in 3D"), "in plan, base edge to base edge",
        "rulesets/wmh2/ruleset.py measure_mode"),
    Ambiguity(
        "A5", "wmh2 §4", "Is a target partly in the front arc in it?",
        ("yes: any part of its base in the closed half-plane", "only its base centre counts"),
        "yes: any part of its base in the closed half-plane", "rulesets/wmh2/bodies.py faces"),
    Ambiguity(
        "A8", "wmh2 §2.5", "Out-of-formation troopers: full advance (p.18) or forced run (p.22)?",
        ("they must run toward the unit commander and lose their action",
         "they full advance toward the commander and lose their action"),
        "they must run toward the unit commander and lose their action",
        "rulesets/wmh2/active.py must_run"),
    Ambiguity(
        "A11", "wmh2 §6", "Do concealment and cover add up?",
        ("only the higher applies", "they stack"), "only the higher applies",
        "rulesets/wmh2/cover.py defence(stack=False)"),
    Ambiguity(
        "A13", "wmh2 §5.6", "Stealth: '5\" or more' or 'more than 5\"' away?",
        ("strictly more than 5\" for sight and attacks", "5\" or more"),
        "strictly more than 5\" for sight and attacks", "rulesets/wmh2/rules.py STEALTH_RANGE"),
)
