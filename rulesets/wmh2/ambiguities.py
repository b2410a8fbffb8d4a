"""Where the wmh2 rules read more than one way (the digest's ambiguity register, §17; ids are
its numbers): the readings a call may switch (`READINGS`, each read at its decision point) and
the rows the code reads one way only, with the reason (`AMBIGUITIES`)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity
from battlesight.rulesets.core.readings import Alternative as Alt
from battlesight.rulesets.core.readings import Reading

A1 = Reading(
    "wmh2.A1", "wmh2 §5.3", "Does an intervening model stop lines one by one, or only when "
    "it crosses every line?",
    Alt("per-line", "a line fails when it crosses any intervening base at least as large as "
                    "the target's"),
    (Alt("every-line", "a model is intervening only when every line crosses its base; then "
                       "it blocks"),),
    code="rulesets/wmh2/sight.py _judge_many")
A2 = Reading(
    "wmh2.A2", "wmh2 §5.4", "Elevation: '1\" or more' (seed) or 'more than 1\"' (English)?",
    Alt("1-or-more", "a model 1\" or more higher is elevated, everywhere"),
    (Alt("more-than-1", "only a model more than 1\" higher is elevated"),),
    code="rulesets/wmh2/rules.py higher")
A11 = Reading(
    "wmh2.A11", "wmh2 §6", "Do concealment and cover add up?",
    Alt("higher-only", "only the higher of concealment and cover applies"),
    (Alt("stack", "concealment +2 and cover +4 add up"),),
    code="rulesets/wmh2/cover.py defence")
A13 = Reading(
    "wmh2.A13", "wmh2 §5.6", "Stealth: '5\" or more' or 'more than 5\"' away?",
    Alt("more-than-5", "Stealth works from strictly more than 5\", for sight and attacks"),
    (Alt("5-or-more", "Stealth works from 5\" or more"),),
    code="rulesets/wmh2/rules.py beyond_stealth")

READINGS = (A1, A2, A11, A13)

_GAME = ("a step of the game's resolution (`play`), which resolves it this one way; the "
         "switchable readings are those that los and shoot judge")

AMBIGUITIES = (
    Ambiguity(
        "A3", "wmh2 §5.4", "Which point gives a model's elevation?",
        ("the surface under its base centre", "the highest surface under its base"),
        "the surface under its base centre", "rulesets/wmh2/bodies.py",
        "a model's height is fixed when its volume is placed on the world, before any "
        "judgement; a reading cannot move it for one call"),
    Ambiguity(
        "A4", "wmh2 §3", "How are distances between models at different heights measured?",
        ("in plan, base edge to base edge", "in 3D"), "in plan, base edge to base edge",
        "rulesets/wmh2/ruleset.py measure_mode",
        "the measure mode is the board's, shared by moves, charges and control areas; "
        "los prints the 3D distance beside it"),
    Ambiguity(
        "A5", "wmh2 §4", "Is a target partly in the front arc in it?",
        ("yes: any part of its base in the closed half-plane", "only its base centre counts"),
        "yes: any part of its base in the closed half-plane", "rulesets/wmh2/bodies.py faces",
        "sight lines start in the front half of the viewer's volume and end on the target's "
        "part in that half-space, so the arc is part of the line search itself"),
    Ambiguity(
        "A6", "wmh2 §5.2", "A line tangent to a base", ("does not cross it", "crosses it"),
        "does not cross it", "rulesets/wmh2/sight.py crosses_discs",
        "sampled lines touch a base exactly with zero probability: both readings judge alike"),
    Ambiguity(
        "A7", "wmh2 §5.5", "Wall-height thresholds", ("the volume geometry decides",
                                                      "the printed heights decide"),
        "the volume geometry decides", "rulesets/wmh2/sight.py",
        "the printed thresholds only illustrate the volume rule; sight is cast against the "
        "walls' real heights, so there is no second number to test"),
    Ambiguity(
        "A8", "wmh2 §2.5", "Out-of-formation troopers: full advance (p.18) or forced run (p.22)?",
        ("they must run toward the unit commander and lose their action",
         "they full advance toward the commander and lose their action"),
        "they must run toward the unit commander and lose their action",
        "rulesets/wmh2/active.py must_run", _GAME),
    Ambiguity(
        "A9", "wmh2 §3", "Pre-measuring", ("not allowed, except the control area and other "
                                          "exceptions", "allowed"),
        "not allowed, except the control area and other exceptions", "rulesets/wmh2/turn.py",
        "a tool that measures for the players cannot forbid itself; it is noted, not applied"),
    Ambiguity(
        "A10", "wmh2 §5.6", "The translated word in Eyeless Sight", ("Camouflage",
                                                                    "concealment"),
        "Camouflage", "rulesets/wmh2/cover.py defence",
        "the 2010 English quick reference settles it; the other word is a translation slip"),
    Ambiguity(
        "A12", "wmh2 §13", "Encounter levels the seed leaves out",
        ("only the sourced levels", "the published table"), "only the sourced levels",
        "rulesets/wmh2/setup.py", "missing values, not a reading of a rule"),
    Ambiguity(
        "A14", "wmh2 §12", "The threshold check (EXT 5 truncated)",
        ("2d6 + fury above THR frenzies", "2d6 + fury at THR or above frenzies"),
        "2d6 + fury above THR frenzies", "rulesets/wmh2/turn.py", _GAME),
)
