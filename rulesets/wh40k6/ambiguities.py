"""Where the wh40k6 rules read more than one way, and the reading this package implements
(the digest's ambiguity register, §14.1; ids are its numbers)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity

AMBIGUITIES = (
    Ambiguity(
        "A1", "wh40k6 §5.1", "How much of the body must be hidden for cover?",
        ("at least 25% obscured, inclusive", "any part of the body hidden"),
        "at least 25% obscured, inclusive", "rulesets/wh40k6/cover.py THRESHOLD"),
    Ambiguity(
        "A2", "wh40k6 §5.1",
        "Does a firer that cannot see the target model at all count toward its cover?",
        ("it counts as seeing the model at least 25% obscured",
         "only firers that see the model count"),
        "it counts as seeing the model at least 25% obscured",
        "rulesets/wh40k6/cover.py BLIND_FIRER_COUNTS"),
    Ambiguity(
        "A4", "wh40k6 §4.4", "Do the target unit's own models hide or cover each other?",
        ("they are transparent and give no cover", "they block like any other model"),
        "they are transparent and give no cover", "rulesets/wh40k6/sight.py skip_models"),
    Ambiguity(
        "A6", "wh40k6 §5.2", "What cover save does a hedge give?",
        ("5+", "6+"), "5+", "rulesets/wh40k6/terrain.py"),
    Ambiguity(
        "A8", "wh40k6 §5.4",
        "Area terrain with a value of its own (a ruin's base, wreckage): which save?",
        ("the piece's own value, 5+ when it has none", "always 5+"),
        "the piece's own value, 5+ when it has none", "rulesets/wh40k6/terrain.py"),
    Ambiguity(
        "A12", "wh40k6 §4.5", "A hull-mounted weapon's 45 degree arc: total or either side?",
        ("45 degrees in total (22.5 either side)", "45 degrees either side"),
        "45 degrees in total (22.5 either side)", "rulesets/wh40k6/vehicles.py"),
    Ambiguity(
        "A15", "wh40k6 §5.9", "A vehicle is obscured for 'the majority' of firers: how many?",
        ("strictly more than half of the firers able to hurt it", "at least half"),
        "strictly more than half of the firers able to hurt it",
        "rulesets/wh40k6/vehicles.py vehicle_cover"),
    Ambiguity(
        "A29", "wh40k6 §5.3",
        "Do vehicles and other units' models (not only a third unit's) block and give cover?",
        ("any model outside the firing and target units blocks and gives 5+",
         "only a third unit's non-vehicle models do"),
        "any model outside the firing and target units blocks and gives 5+",
        "rulesets/wh40k6/sight.py, cover.py MODEL_COVER"),
)
