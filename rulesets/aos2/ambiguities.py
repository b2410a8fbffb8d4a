"""Where the aos2 rules read more than one way (the digest's ambiguity and translation
register, §15; ids are its numbers): the readings a call may switch (`READINGS`, each read at
its decision point) and the rows the code reads one way only, with the reason
(`AMBIGUITIES`)."""

from __future__ import annotations

from battlesight.rulesets.core.ambiguity import Ambiguity
from battlesight.rulesets.core.readings import Alternative as Alt
from battlesight.rulesets.core.readings import Reading

R2 = Reading(
    "aos2.2", "aos2 §5.1",
    "Which MONSTER or WAR MACHINE gets no cover: Wounds more than 8 (seed) or 8 or more?",
    Alt("more-than-8", "a MONSTER or WAR MACHINE with Wounds more than 8 (the seed)"),
    (Alt("8-or-more", "a MONSTER or WAR MACHINE with Wounds 8 or more (the English)"),),
    code="rulesets/aos2/rules.py cover_excluded")
R4 = Reading(
    "aos2.4", "aos2 §5.1", "Must every model of the unit be in the same terrain feature?",
    Alt("any-features", "each model may be wholly on or within a different feature"),
    (Alt("same-feature", "every model must be wholly on or within one and the same feature"),),
    code="rulesets/aos2/cover.py terrain_cover")
R5 = Reading(
    "aos2.5", "aos2 §5.1", "What is 'wholly on or within' a feature?",
    Alt("far-edge", "the whole base, to its far edge, inside the footprint, or standing on "
                    "its floor"),
    (Alt("nearest-edge", "the base's nearest edge inside the footprint: any part of it"),),
    code="rulesets/aos2/cover.py wholly_within")
R6 = Reading(
    "aos2.6", "aos2 §5.2", "Does the MONSTER or WAR MACHINE exclusion apply to obstacles?",
    Alt("excluded", "yes: obstacles give the benefit of cover, which such units never get"),
    (Alt("obstacles-count", "no: an obstacle gives its +1 whatever the unit"),),
    code="rulesets/aos2/cover.py obstacle_cover")
R12 = Reading(
    "aos2.12", "aos2 §4.1", "What may block a model's sight of its target?",
    Alt("own-unit-transparent", "its own unit is transparent, everything else is opaque"),
    (Alt("all-block", "every other model blocks, its own unit's included"),),
    code="rulesets/aos2/judge.py, sight.py visible_models")

READINGS = (R2, R4, R5, R6, R12)

_GAME = ("a step of the game's resolution (`play`), which resolves it this one way; the "
         "switchable readings are those that los and shoot judge")

AMBIGUITIES = (
    Ambiguity(
        "1", "aos2 §2.1", "The digit '2' lost in the source text",
        ("restored: 12\" charges, 2D6 rolls, 12\" from the general", "as printed"),
        "restored: 12\" charges, 2D6 rolls, 12\" from the general", "rulesets/aos2/rules.py",
        "the printed numbers are a translation fault, not a reading a player argues"),
    Ambiguity(
        "3", "aos2 §5.1", "Cover adds 1 to what: 'rolls' or save rolls?",
        ("save rolls", "every roll"), "save rolls", "rulesets/aos2/cover.py save_bonus",
        "'add 1 to rolls' is a translation slip: the published rule, and every other "
        "mention in the seed, is the save roll"),
    Ambiguity(
        "7", "aos2 §5.2", "The obstacle 'closer' test",
        ("per attacking model, closest-point distances", "per attacking unit"),
        "per attacking model, closest-point distances", "rulesets/aos2/cover.py "
        "obstacle_cover", "the verdict judges one attacking model, so a per-unit test "
        "would have no unit to measure from in los"),
    Ambiguity(
        "8", "aos2 §9", "'Eligible to charge' in the combat phase",
        ("eligible to fight", "eligible to charge"), "eligible to fight",
        "rulesets/aos2/actions.py", "a mistranslation of 'eligible to fight', not a reading"),
    Ambiguity(
        "9", "aos2 §9", "Pile-in reference model",
        ("the distance to the nearest enemy model must not increase",
         "the model nearest at the start"),
        "the distance to the nearest enemy model must not increase",
        "rulesets/aos2/moves.py", _GAME),
    Ambiguity(
        "10", "aos2 §11.1", "+1 Bravery per 10 models: counted when?",
        ("the models in the unit when it tests", "the models at the start of the turn"),
        "the models in the unit when it tests", "rulesets/aos2/rules.py battleshock", _GAME),
    Ambiguity(
        "11", "aos2 §3.2", "Coherency 'within 1\"': < or <=?", ("1\" or less", "under 1\""),
        "1\" or less", "rulesets/aos2/rules.py", "AoS 'within' always means 'or less' (the "
        "digest, §15 #11); the one test coherency and moves share"),
    Ambiguity(
        "13", "aos2 §8.1", "Which unit protects a hero under Look Out, Sir?",
        ("any other friendly unit of 3 or more models within 3\"",
         "an enemy unit of 3 or more models within 3\""),
        "any other friendly unit of 3 or more models within 3\"",
        "rulesets/aos2/attacks.py look_out_sir",
        "the seed's 'enemy' is a translation fault: an enemy unit never shields a hero"),
    Ambiguity(
        "14", "aos2 §8.3", "Modifier floor: 'cannot reduce to a negative value'",
        ("modified rolls clamp at 0; unmodified 1 and 6 still apply", "no floor"),
        "modified rolls clamp at 0; unmodified 1 and 6 still apply", "rulesets/aos2/rules.py",
        "the clamp sits in the shared roll helpers of shoot and play; not made switchable yet"),
    Ambiguity(
        "15", "aos2 §6", "Terrain 'friendly to both sides'",
        ("terrain is no one's enemy and cannot be targeted", "as printed"),
        "terrain is no one's enemy and cannot be targeted", "rulesets/aos2/actions.py",
        "only units can be chosen as targets in the action file"),
    Ambiguity(
        "16", "aos2 §12", "Coalition battleplans", ("a best-effort summary", "as printed"),
        "a best-effort summary", "rulesets/aos2/setup.py",
        "battleplans are not implemented beyond the deployment maps"),
)
