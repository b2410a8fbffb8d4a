"""Where the whfb6 rules read more than one way (the digest's ambiguity and translation
register, §14; ids are its numbers): the readings a call may switch (`READINGS`, each read at
its decision point) and the rows the code reads one way only, with the reason
(`AMBIGUITIES`)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity
from battlesight.rulesets.core.readings import Alternative as Alt
from battlesight.rulesets.core.readings import Reading

R4 = Reading(
    "whfb6.4", "whfb6 §8.5",
    "Shooting panic: casualties of 'more than a quarter' or 25% or more?",
    Alt("more-than-quarter", "strictly more than a quarter of the unit (the seed)"),
    (Alt("quarter-or-more", "a quarter of the unit or more (the English 25%)"),),
    scope="play", code="rulesets/whfb6/tables.py shooting_panic")
R6 = Reading(
    "whfb6.6", "whfb6 §8.4", "May a wound take both an armour save and a ward save?",
    Alt("both", "the armour save first, then the ward save"),
    (Alt("ward-only", "a model with a ward save rolls only the ward save"),),
    scope="shoot", code="rulesets/whfb6/shooting.py save_needs")
R8 = Reading(
    "whfb6.8", "whfb6 §9.1", "A great weapon that charged: chargers first or strikes last?",
    Alt("charger-first", "a great weapon strikes last unless it charged"),
    (Alt("always-last", "a great weapon strikes last even in the round it charged"),),
    scope="play", code="rulesets/whfb6/combat.py _strike_order")
R9 = Reading(
    "whfb6.9", "whfb6 §5.1", "Do soft and hard cover add up?",
    Alt("worst-one", "one modifier: the worst cover on at least half of the lines"),
    (Alt("soft-plus-hard", "soft and hard cover on at least half of the lines add up: "
                           "-3 to hit"),),
    code="rulesets/whfb6/sight.py _judge_all")

READINGS = (R4, R6, R8, R9)

_GAME = ("a step of the game's resolution (`play`), which resolves it this one way; the "
         "switchable readings are those that los and shoot judge")

AMBIGUITIES = (
    Ambiguity(
        "1", "whfb6 §7", "What stops a unit marching?",
        ("any enemy unit within 8\" that is not fleeing",
         "such an enemy, unless the enemies within 8\" are marching too"),
        "any enemy unit within 8\" that is not fleeing",
        "rulesets/whfb6/movement.py note_march_blocks",
        "the game does not record whether an enemy unit marched, so the second reading "
        "has nothing to test"),
    Ambiguity(
        "2", "whfb6 §7", "When may a unit reform?", ("in the movement phase, as a remaining "
                                                   "move", "in its close-combat turn"),
        "in the movement phase, as a remaining move", "rulesets/whfb6/movement.py", _GAME),
    Ambiguity(
        "3", "whfb6 §8", "Do normal missiles fire before guess-range weapons?",
        ("normal missiles first (the seed)", "guess-range weapons first (the English)"),
        "normal missiles first (the seed)", "rulesets/whfb6/actions.py",
        "guess-range weapons are not implemented, so there is no order to choose"),
    Ambiguity(
        "5", "whfb6 §9.4", "Which combat results cause panic nearby?",
        ("a friendly unit defeated or destroyed", "a friendly unit broken or destroyed"),
        "a friendly unit defeated or destroyed", "rulesets/whfb6/combat.py", _GAME),
    Ambiguity(
        "7", "whfb6 §8.4", "Scaly skin: modified by S above 4?",
        ("the normal Strength table", "the printed 'S > 4' rule"), "the normal Strength table",
        "rulesets/whfb6/tables.py armour_need",
        "scaly skin is not implemented, so there is no save to read either way"),
    Ambiguity(
        "11", "whfb6 §7", "Skirmishers in terrain",
        ("the normal terrain rules", "free movement unless difficult terrain or obstacles"),
        "the normal terrain rules", "rulesets/whfb6/movement.py",
        "free skirmisher movement is not implemented, so there is no second rule to pick"),
    Ambiguity(
        "10", "whfb6 §4.2", "Skirmisher spacing",
        ("within 1\" of another model of the unit", "1\" apart exactly"),
        "within 1\" of another model of the unit", "rulesets/whfb6/sight.py screens",
        "the spacing is not checked: a skirmishing unit is whatever its scene places, and it "
        "screens sight as the hull of its bases either way"),
    Ambiguity(
        "12", "whfb6 §9", "Breath weapons and Stand & Shoot",
        ("no Stand & Shoot-like reaction against a breath weapon", "reactions as usual"),
        "no Stand & Shoot-like reaction against a breath weapon", "rulesets/whfb6/charge.py",
        "breath weapons are not implemented, so the reaction never arises"),
    Ambiguity(
        "13", "whfb6 §9.2", "Excess wounds in combat",
        ("wounds beyond the models' remaining Wounds do not count, except overkill",
         "every wound counts"),
        "wounds beyond the models' remaining Wounds do not count, except overkill",
        "rulesets/whfb6/combat.py", _GAME),
    Ambiguity(
        "14", "whfb6 §8.3, §9.1", "The WS and S/T charts the seed references but omits",
        ("the published charts", "none"), "the published charts", "rulesets/whfb6/tables.py",
        "the charts are missing from the seed, not read two ways"),
    Ambiguity(
        "fear-pursuit", "whfb6 §7, §11",
        "Does a pursuit or overrun charge into a fear or terror causer need a test?",
        ("no test; the rules apply normally the next turn", "the usual fear or terror test"),
        "no test; the rules apply normally the next turn",
        "rulesets/whfb6/pursuit.py NO_FEAR_TEST", _GAME),
)
