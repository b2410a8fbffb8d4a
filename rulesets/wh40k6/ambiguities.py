"""Where the wh40k6 rules read more than one way (the digest's ambiguity register, §14.1; ids
are its numbers): the readings a call may switch (`READINGS`, each read at its decision point)
and the rows the code does not switch, with the reason (`AMBIGUITIES`)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity
from battlesight.rulesets.core.readings import Alternative as Alt
from battlesight.rulesets.core.readings import Reading

A1 = Reading(
    "wh40k6.A1", "wh40k6 §5.1", "How much of the body must be hidden for cover?",
    Alt("25-percent", "at least 25% of the body obscured, 25% included"),
    (Alt("any-part", "any part of the body hidden gives cover"),),
    code="rulesets/wh40k6/cover.py decide")
A2 = Reading(
    "wh40k6.A2", "wh40k6 §5.1",
    "Does a firer that cannot see the target model at all count toward its cover?",
    Alt("blind-counts", "a firer that cannot see the model counts as seeing it obscured"),
    (Alt("seen-only", "only firers that see the model count"),),
    scope="shoot", code="rulesets/wh40k6/cover.py decide")
A3 = Reading(
    "wh40k6.A3", "wh40k6 §5.1", "Is the occlusion by several pieces and models added up?",
    Alt("summed", "the shares hidden by every occluder are added up"),
    (Alt("largest-one", "one occluder alone must hide the share that gives cover"),),
    code="rulesets/wh40k6/cover.py decide")
A4 = Reading(
    "wh40k6.A4", "wh40k6 §4.4", "Do the target unit's own models hide or cover each other?",
    Alt("transparent", "the target's unit-mates are transparent and give no cover"),
    (Alt("block", "the target's unit-mates block sight and give 5+ like other models"),),
    code="rulesets/wh40k6/sight.py skip_models")
A5 = Reading(
    "wh40k6.A5", "wh40k6 §4.3", "What is a non-vehicle model's body?",
    Alt("body-only", "head, torso, arms and legs: not weapons, banners, antennae, wings, "
                     "tails or the base"),
    (Alt("whole-model", "the whole model, its gear and base included"),),
    code="rulesets/wh40k6/sight.py target_parts")
A6 = Reading(
    "wh40k6.A6", "wh40k6 §5.2", "What cover save does a hedge give (6+ once, 5+ twice)?",
    Alt("5+", "a hedge gives a 5+ cover save"), (Alt("6+", "a hedge gives a 6+ cover save"),),
    code="rulesets/wh40k6/terrain.py cover_value")
A7 = Reading(
    "wh40k6.A7", "wh40k6 §5.2", "What do purpose-built defences (fortifications) give?",
    Alt("chart", "the chart: fortifications 3+, derelict fortifications 4+"),
    (Alt("4+", "the prose: purpose-built defences give 4+"),),
    code="rulesets/wh40k6/terrain.py cover_value")
A8 = Reading(
    "wh40k6.A8", "wh40k6 §5.4",
    "Area terrain with a value of its own (a ruin's base, wreckage): which save?",
    Alt("piece-value", "the piece's own value, 5+ when it has none"),
    (Alt("always-5+", "area terrain always gives 5+"),),
    code="rulesets/wh40k6/terrain.py area_cover")
A10 = Reading(
    "wh40k6.A10", "wh40k6 §5.5", "When does a line of sight pass through a forest?",
    Alt("footprint", "when the line crosses the forest's footprint in plan, at any height"),
    (Alt("canopy", "only when the line passes through the forest's canopy volume"),),
    code="rulesets/wh40k6/cover.py view_of")
A11 = Reading(
    "wh40k6.A11", "wh40k6 §5.3", "Does shooting through the gaps of a third unit give cover?",
    Alt("gaps", "a line crossing a third unit's formation gives 5+, even fully visible"),
    (Alt("hidden-only", "only a model at least 25% hidden by the unit's models has cover"),),
    code="rulesets/wh40k6/cover.py model_cover")
A12 = Reading(
    "wh40k6.A12", "wh40k6 §4.5", "A hull-mounted weapon's 45 degree arc: total or either side?",
    Alt("45-total", "45 degrees in total, 22.5 either side of the hull's front"),
    (Alt("45-each-side", "45 degrees either side of the hull's front"),),
    scope="shoot", code="rulesets/wh40k6/vehicles.py weapon_can_bear")
A15 = Reading(
    "wh40k6.A15", "wh40k6 §5.9", "A vehicle is obscured for 'the majority' of firers: how many?",
    Alt("more-than-half", "strictly more than half of the firers able to hurt it"),
    (Alt("half-or-more", "at least half of the firers able to hurt it"),),
    scope="shoot", code="rulesets/wh40k6/vehicles.py vehicle_cover")
A21 = Reading(
    "wh40k6.A21", "wh40k6 §8.6", "Rapid fire and melta 'within half range': is half included?",
    Alt("inclusive", "a target at exactly half range is within half range"),
    (Alt("exclusive", "only a target closer than half range is within it"),),
    scope="shoot", code="rulesets/wh40k6/profile.py Weapon.within_half")
A29 = Reading(
    "wh40k6.A29", "wh40k6 §4.4",
    "Do vehicles and other units' models (not only a third unit's) block and give cover?",
    Alt("any-model", "any model outside the firing and target units blocks and gives 5+"),
    (Alt("non-vehicles-only", "a third unit's vehicles neither block nor give cover; its "
                              "other models do"),),
    code="rulesets/wh40k6/sight.py skip_models")

READINGS = (A1, A2, A3, A4, A5, A6, A7, A8, A10, A11, A12, A15, A21, A29)

_GAME = ("a step of the game's resolution (`play`), which rolls it this one way; the switchable "
         "readings are those that los and shoot judge")

AMBIGUITIES = (
    Ambiguity(
        "A9", "wh40k6 §5.4", "When is a model 'in' area terrain or a forest?",
        ("any part of its base inside the footprint", "its base centre inside"),
        "any part of its base inside the footprint", "rulesets/wh40k6/terrain.py overlaps",
        "the same overlap test is the terrain index every rule shares (difficult terrain, "
        "forests, ruins, moves); a second one would split those rules"),
    Ambiguity(
        "A13", "wh40k6 §4.5", "Which point of the firer decides the vehicle facing it hits?",
        ("its sight point", "its base centre"), "its sight point",
        "rulesets/wh40k6/vehicles.py shot_facing",
        "the facing struck is worked out in the attack's resolution from one point, not in a "
        "sight verdict; not made switchable yet"),
    Ambiguity(
        "A14", "wh40k6 §8.7", "Which facing does an ordinary blast hit?",
        ("the facing towards the firer", "the side facing"), "the facing towards the firer",
        "rulesets/wh40k6/resolve.py", _GAME),
    Ambiguity(
        "A16", "wh40k6 §8.9", "Damage results above 6?", ("explodes", "6 is the most"),
        "explodes", "rulesets/wh40k6/damage.py", _GAME),
    Ambiguity(
        "A18", "wh40k6 §8.9", "Crew Shaken: snap shots or no shooting?",
        ("snap shots only", "cannot shoot in the next shooting phase"), "snap shots only",
        "rulesets/wh40k6/damage.py", _GAME),
    Ambiguity(
        "A17", "wh40k6 §7.4", "Impact test with its modifier: when does it fail?",
        ("a modified 1 or less fails", "an unmodified 1 fails"), "a modified 1 or less fails",
        "rulesets/wh40k6/movement.py", _GAME),
    Ambiguity(
        "A19", "wh40k6 §8.5", "Must a precision shot's chosen model be visible?",
        ("in range is enough", "it must be visible too"), "in range is enough",
        "rulesets/wh40k6/resolve.py", _GAME),
    Ambiguity(
        "A20", "wh40k6 §11", "When does a flying monstrous creature test for Grounded?",
        ("when hit by any unit's shooting", "only while swooping"),
        "when hit by any unit's shooting", "rulesets/wh40k6/resolve.py", _GAME),
    Ambiguity(
        "A22", "wh40k6 §5.6", "Where is barrage cover judged from?",
        ("the marker centre, at the target's mid-height", "the marker centre, from above"),
        "the marker centre, at the target's mid-height", "rulesets/wh40k6/cover.py "
        "barrage_cover", "nothing in los, shoot or play calls it yet: barrages "
        "are not resolved, so there is no judgement to switch"),
    Ambiguity(
        "A23", "wh40k6 §6.3", "Climbing and moving in one ruin move",
        ("a 4-5 climbs one floor and moves roll - 3\"", "a 4-5 climbs or moves"),
        "a 4-5 climbs one floor and moves roll - 3\"", "rulesets/wh40k6/movement.py", _GAME),
    Ambiguity(
        "A24", "wh40k6 §6.4", "What cover do battlements give?",
        ("4+, as barricades", "none stated"), "4+, as barricades", "rulesets/wh40k6/terrain.py",
        "the seed gives no value at all; a scene sets its own with `cover:` on the piece"),
    Ambiguity(
        "A25", "wh40k6 §6.1", "Lethal terrain: impassable, or passable and deadly to end in?",
        ("only models that may cross pass over; ending there removes the model",
         "impassable to all"),
        "only models that may cross pass over; ending there removes the model",
        "rulesets/wh40k6/movement.py", _GAME),
    Ambiguity(
        "A26", "wh40k6 §7.3", "A jet pack's movement-phase move",
        ("6\" with the pack", "as the base unit type"), "6\" with the pack",
        "rulesets/wh40k6/movement.py", _GAME),
    Ambiguity(
        "A27", "wh40k6 §3", "Distance to an elevated flyer or skimmer",
        ("the closest 3D distance to the hull", "to the base"),
        "the closest 3D distance to the hull", "rulesets/wh40k6/ruleset.py distance",
        "the distance is the board's one measure, shared by range, charges and psychic "
        "powers; los prints plan and 3D distances side by side"),
    Ambiguity(
        "A28", "wh40k6 §8.5", "Blast wounds on models no firer sees",
        ("allowed, closest to the firer first", "only on models a firer sees"),
        "allowed, closest to the firer first", "rulesets/wh40k6/resolve.py", _GAME),
)
