"""Where the aos2 rules read more than one way, and the reading this package implements (the
digest's ambiguity and translation register, §15; ids are its numbers)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity

AMBIGUITIES = (
    Ambiguity(
        "2", "aos2 §5.1",
        "Which MONSTER or WAR MACHINE gets no cover: Wounds more than 8 (seed) or 8 or more?",
        ("Wounds more than 8", "Wounds 8 or more"), "Wounds more than 8",
        "rulesets/aos2/rules.py COVER_WOUNDS_LIMIT"),
    Ambiguity(
        "4", "aos2 §5.1", "Must every model of the unit be in the same terrain feature?",
        ("each model may be in a different feature", "all in the same feature"),
        "each model may be in a different feature", "rulesets/aos2/cover.py"),
    Ambiguity(
        "5", "aos2 §5.1", "What is 'wholly on or within' a feature?",
        ("the whole base outline inside the footprint, or standing on its floor",
         "the base centre inside the footprint"),
        "the whole base outline inside the footprint, or standing on its floor",
        "rulesets/aos2/cover.py wholly_within"),
    Ambiguity(
        "12", "aos2 §4.1", "What may block a model's sight of its target?",
        ("its own unit is transparent, everything else is opaque",
         "every model and piece blocks"),
        "its own unit is transparent, everything else is opaque",
        "rulesets/aos2/sight.py RULE_OWN_UNIT"),
)
