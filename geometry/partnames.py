"""Part labels of a model mesh from its node names, by whole words.

A node name is split into words at ``_``, ``-``, ``.``, spaces and digits, and where the case
changes (``LeftWing`` -> left, wing; ``HEADGear`` -> head, gear); each word is compared, lower
case, against PART_WORDS as a whole word, never as a substring: ``Marine_Armour_Detail`` holds
no ``tail``, ``Swing_arm`` no ``wing``, ``Drawing_pin`` no ``wing``, ``Database`` no ``base``.

A name with several known words takes the first excludable one (weapon, banner, antenna, wing,
tail, base: ``Arm_Weapon`` is a weapon), else the first body word (``Left_Leg_Armour`` is legs);
a name with none is ``body``. A scene's ``parts:`` map names the label of a node outright
(``parts: {Cloak: body, Banner_01: banner}``), for the names a file really uses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["BODY_PARTS", "EXCLUDABLE", "LABELS", "PART_WORDS", "VOCABULARY", "part_label", "words"]

#: Labels the rulesets may leave out of a target, in the order they win within one name.
EXCLUDABLE = ("weapon", "banner", "antenna", "wing", "tail", "base")
#: Labels of the body itself.
BODY_PARTS = ("head", "torso", "legs", "arms", "body")
#: Every label a part may have (the values a scene's ``parts:`` map may give).
LABELS = EXCLUDABLE + BODY_PARTS

#: The documented vocabulary: the whole words (lower case) read as each label.
VOCABULARY: dict[str, tuple[str, ...]] = {
    "weapon": ("weapon", "weapons", "gun", "rifle", "bolter", "sword", "blade", "axe",
               "hammer", "spear", "bow", "pistol", "staff", "shield"),
    "banner": ("banner", "banners", "flag", "standard", "pennant", "icon"),
    "antenna": ("antenna", "antennae", "antennas", "aerial"),
    "wing": ("wing", "wings"),
    "tail": ("tail", "tails"),
    "base": ("base", "bases", "plinth"),
    "head": ("head", "heads", "helmet", "helm", "skull", "face"),
    "torso": ("torso", "torsos", "chest", "abdomen", "belly"),
    "legs": ("leg", "legs", "foot", "feet", "thigh", "shin", "knee"),
    "arms": ("arm", "arms", "hand", "hands", "forearm", "shoulder", "fist"),
    "body": ("body", "bodies", "cloak", "armour", "armor"),
}
#: Each word of the vocabulary and its label.
PART_WORDS: dict[str, str] = {w: label for label, ws in VOCABULARY.items() for w in ws}

_SPLIT = re.compile(r"[_\-.\s\d]+")
#: a capitalised word, a run of capitals not followed by a lower-case letter, or lower case
_WORD = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")


def words(name: str) -> list[str]:
    """The lower-case words of a node name (split at ``_ - .``, spaces, digits and case)."""
    out: list[str] = []
    for chunk in _SPLIT.split(name):
        out += [w.lower() for w in _WORD.findall(chunk)]
    return out


def part_label(name: str, parts: Mapping[str, str] | None = None) -> str:
    """The label of a node name: ``parts[name]`` when the map gives it, else by whole words
    (see the module docstring), else 'body'."""
    if parts and name in parts:
        return parts[name]
    found = [PART_WORDS[w] for w in words(name) if w in PART_WORDS]
    for label in found:
        if label in EXCLUDABLE:
            return label
    return found[0] if found else "body"
