"""`battlescribe`: a BattleScribe roster, `.ros` (XML) or `.rosz` (the same zipped), for wh40k6,
whfb6 and aos2.

A roster is `roster > forces > force > selections > selection`; a selection of `type="unit"`
(or a lone `type="model"`) is a unit, its `type="model"` children (their `number`) its models,
and its `profiles > profile` (by `typeName`) with `characteristics > characteristic` (by
`name`) its stat line and weapons. Each unit becomes a `units:` entry in the system's own
names (`stats:`, aos2 `weapons:` and `keywords:` from its categories; wh40k6 and whfb6 weapons
the system's data knows by name, the others left out) and its models; rosters hold no
positions, so the models are placed in the player's deployment zone of the `--onto` scene
(`formation.place_units`).

Base sizes (mm, round): `BASES` per system by the unit's type or category, overridden by
`--bases FILE` (`{unit name: mm, default: mm}`).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from ..limits import MAX_MODELS, MAX_YAML_BYTES
from .common import Ids, Imported, ImportOptions, read_bytes, refuse, slug
from .formation import place_units

NAME = "battlescribe"
SYSTEMS = ("wh40k6", "whfb6", "aos2")

#: characteristic name (lower case, as BattleScribe data prints it) -> the scene's stat key
STATS = {
    "aos2": {"move": "move", "wounds": "wounds", "bravery": "bravery", "save": "save"},
    "wh40k6": {"ws": "WS", "bs": "BS", "s": "S", "t": "T", "w": "W", "i": "I", "a": "A",
               "ld": "Ld", "sv": "Sv", "save": "Sv"},
    "whfb6": {"m": "M", "mv": "M", "move": "M", "ws": "WS", "bs": "BS", "s": "S", "t": "T",
              "w": "W", "i": "I", "a": "A", "ld": "Ld", "sv": "Sv", "save": "Sv"},
}
#: profile typeNames that hold a unit's stat line, per system
UNIT_PROFILES = {"aos2": ("unit", "model", "warscroll"), "wh40k6": ("unit", "model"),
                 "whfb6": ("profile", "model", "unit", "troop")}
#: aos2 weapon characteristic -> warscroll weapon key
AOS2_WEAPON = {"range": "range", "attacks": "attacks", "to hit": "to_hit",
               "to wound": "to_wound", "rend": "rend", "damage": "damage"}
#: base diameter (mm) per system: the first key found in the unit's type or categories, else
#: "default"
BASES = {
    "aos2": {"monster": 100, "cavalry": 60, "hero": 40, "default": 32},
    "wh40k6": {"monstrous": 60, "bike": 40, "jump": 32, "infantry": 25, "default": 25},
    "whfb6": {"monster": 50, "cavalry": 25, "infantry": 20, "default": 20},
}
NS = re.compile(r"^\{[^}]*\}")


@dataclass
class RosterUnit:
    """One unit as the roster gives it."""

    name: str
    count: int
    stats: dict[str, Any] = field(default_factory=dict)
    weapons: list[Any] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    kind: str = ""


def _tag(el: ElementTree.Element) -> str:
    return NS.sub("", el.tag)


def _children(el: ElementTree.Element, *path: str) -> list[ElementTree.Element]:
    out = [el]
    for name in path:
        out = [c for p in out for c in p if _tag(c) == name]
    return out


def _xml(path: Path) -> ElementTree.Element:
    raw = read_bytes(path, NAME)
    if raw[:2] == b"PK":  # .rosz: a zip holding the .ros
        try:
            with zipfile.ZipFile(io.BytesIO(raw)) as z:
                names = [n for n in z.namelist() if n.lower().endswith(".ros")] or z.namelist()
                if not names:
                    raise refuse(path, NAME, "the .rosz archive is empty")
                info = z.getinfo(names[0])
                if info.file_size > MAX_YAML_BYTES:
                    raise refuse(path, NAME, f"{names[0]} is too large to read")
                raw = z.read(names[0])
        except zipfile.BadZipFile as exc:
            raise refuse(path, NAME, f"not a readable .rosz archive: {exc}") from None
    try:
        parser = ElementTree.XMLParser()
        root = ElementTree.fromstring(raw, parser=parser)
    except ElementTree.ParseError as exc:
        raise refuse(path, "xml", str(exc).split(":")[0], exc.position[0]) from None
    if _tag(root) != "roster":
        raise refuse(path, "roster", f"the document is <{_tag(root)}>, not a BattleScribe "
                                     "<roster>")
    return root


def _number(text: str) -> int | str:
    """'5\"' -> 5, '4+' -> 4, '-1' -> -1, 'D6' stays 'D6', '-' stays '-'."""
    t = text.strip().replace('"', "").replace("\u2033", "")
    m = re.fullmatch(r"([+-]?\d+)\+?", t)
    return int(m.group(1)) if m else t


def _chars(profile: ElementTree.Element) -> dict[str, str]:
    return {c.get("name", "").strip().lower(): (c.text or "").strip()
            for c in _children(profile, "characteristics", "characteristic")}


def _profiles(sel: ElementTree.Element) -> list[ElementTree.Element]:
    """The profiles of a selection and of every selection under it, nearest first."""
    out = list(_children(sel, "profiles", "profile"))
    for child in _children(sel, "selections", "selection"):
        out += _profiles(child)
    return out


def _count(sel: ElementTree.Element) -> int:
    """A selection's `number` (at least 1)."""
    n = _number(sel.get("number", "1"))
    return n if isinstance(n, int) and n > 0 else 1


def _unit(sel: ElementTree.Element, system: str) -> RosterUnit:
    name = sel.get("customName") or sel.get("name") or "unit"
    models = [c for c in _children(sel, "selections", "selection") if c.get("type") == "model"]
    count = sum(_count(c) for c in models) if models else _count(sel)
    unit = RosterUnit(name, count)
    names = STATS[system]
    for prof in _profiles(sel):
        kind = (prof.get("typeName") or "").strip().lower()
        chars = _chars(prof)
        if not unit.stats and kind in UNIT_PROFILES[system]:
            unit.stats = {names[k]: _number(v) for k, v in chars.items() if k in names}
            unit.kind = chars.get("unit type", chars.get("type", ""))
        elif "weapon" in kind:
            unit.weapons.append(_weapon(prof.get("name", "weapon"), chars, kind, system))
    unit.keywords = [c.get("name", "").strip().lower()
                     for c in _children(sel, "categories", "category") if c.get("name")]
    return unit


def _weapon(name: str, chars: dict[str, str], kind: str, system: str) -> Any:
    if system != "aos2":
        return name.strip().lower()
    w: dict[str, Any] = {"name": name.strip().lower()}
    for k, key in AOS2_WEAPON.items():
        if k in chars:
            w[key] = _number(chars[k])
    if "missile" in kind or "melee" in kind:  # else the warscroll's rule: over 3" is missile
        w["type"] = "missile" if "missile" in kind else "melee"
    if isinstance(w.get("rend"), str) and w["rend"] in ("-", ""):
        w["rend"] = 0
    return w


def units_of(root: ElementTree.Element, system: str) -> list[RosterUnit]:
    """Every unit of every force, in roster order."""
    out = []
    for force in _children(root, "forces", "force"):
        for sel in _children(force, "selections", "selection"):
            if sel.get("type") in ("unit", "model"):
                out.append(_unit(sel, system))
    return out


def base_mm(unit: RosterUnit, system: str, bases: dict[str, Any]) -> float:
    """The unit's base: --bases by name, else the system's table by type or category."""
    for key in (unit.name, unit.name.lower(), slug(unit.name)):
        if key in bases:
            return float(bases[key])
    words = " ".join([unit.kind.lower(), *unit.keywords])
    table = BASES[system]
    for key, mm in table.items():
        if key != "default" and key in words:
            return float(mm)
    return float(bases.get("default", table["default"]))


def read(path: Path, options: ImportOptions) -> Imported:
    """The units of a roster placed in options.zone: scene data holding only `units` and
    `models` (the command merges them into the --onto scene)."""
    system = options.ruleset
    if system not in SYSTEMS:
        raise refuse(path, "ruleset", f"rosters are read for {', '.join(SYSTEMS)}, "
                                      f"not {system!r}")
    root = _xml(path)
    units = units_of(root, system)
    if not units:
        raise refuse(path, "forces", "the roster has no unit selections")
    total = sum(u.count for u in units)
    if total > MAX_MODELS:
        raise refuse(path, "forces", f"the roster has {total} models (at most {MAX_MODELS})")
    ids = Ids(options.taken_ids)
    entries, blocks = [], []
    for u in units:
        if not u.stats:
            raise refuse(path, f"selection[{u.name}]",
                         f"no {'/'.join(UNIT_PROFILES[system])} profile with the stat line")
        ident = ids.new(u.name, "unit")
        entry: dict[str, Any] = {"id": ident, "player": options.player, "stats": u.stats}
        if u.weapons:
            entry["weapons"] = u.weapons
        if system == "aos2" and u.keywords:
            entry["keywords"] = u.keywords
        entries.append(entry)
        blocks.append((ident, u.count, base_mm(u, system, options.bases)))
    models = place_units(blocks, options, system, ids, path)
    return Imported({"units": entries, "models": models})
