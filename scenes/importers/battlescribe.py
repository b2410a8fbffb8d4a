"""`battlescribe`: a BattleScribe roster, `.ros` (XML) or `.rosz` (the same zipped), for the
systems whose package declares roster names (`rulesets/<id>/importing.py`: wh40k6, whfb6,
aos2).

A roster is `roster > forces > force > selections > selection`; a selection of `type="unit"`
(or a lone `type="model"`) is a unit, its `type="model"` children (their `number`) its models,
and its `profiles > profile` (by `typeName`) with `characteristics > characteristic` (by
`name`) its stat line and weapons. Each unit becomes a `units:` entry in the system's own
names (`stats:`; `weapons:` as warscroll entries or as the names the system's data knows;
`keywords:` from its categories where the system reads them) and its models; rosters hold no
positions, so the models are placed in the player's deployment zone of the `--onto` scene
(`formation.place_units`). Base sizes (mm, round) come from the system's table by the unit's
type or category, overridden by `--bases FILE` (`{unit name: mm, default: mm}`).
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from battlesight.scenes.limits import MAX_MODELS, MAX_YAML_BYTES

from .common import Ids, Imported, ImportOptions, SystemImport, read_bytes, refuse, slug
from .formation import place_units

NAME = "battlescribe"
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
    """The profiles of a selection and of every selection under it, nearest first; a unit
    inside it (a squad's dedicated transport) is a unit of its own and keeps its profiles."""
    out = list(_children(sel, "profiles", "profile"))
    for child in _children(sel, "selections", "selection"):
        if child.get("type") != "unit":
            out += _profiles(child)
    return out


def _count(sel: ElementTree.Element) -> int:
    """A selection's `number` (at least 1)."""
    n = _number(sel.get("number", "1"))
    return n if isinstance(n, int) and n > 0 else 1


def _unit(sel: ElementTree.Element, system: SystemImport) -> RosterUnit:
    name = sel.get("customName") or sel.get("name") or "unit"
    models = [c for c in _children(sel, "selections", "selection") if c.get("type") == "model"]
    count = sum(_count(c) for c in models) if models else _count(sel)
    unit = RosterUnit(name, count)
    names = system.stats
    for prof in _profiles(sel):
        kind = (prof.get("typeName") or "").strip().lower()
        chars = _chars(prof)
        if not unit.stats and kind in system.unit_profiles:
            unit.stats = {names[k]: _number(v) for k, v in chars.items() if k in names}
            unit.kind = chars.get("unit type", chars.get("type", ""))
        elif "weapon" in kind:
            weapon = _weapon(prof.get("name", "weapon"), chars, kind, system)
            if weapon not in unit.weapons:  # each model's boltgun is the unit's one weapon
                unit.weapons.append(weapon)
    unit.keywords = [c.get("name", "").strip().lower()
                     for c in _children(sel, "categories", "category") if c.get("name")]
    return unit


def _weapon(name: str, chars: dict[str, str], kind: str, system: SystemImport) -> Any:
    if not system.weapon_keys:
        return name.strip().lower()
    w: dict[str, Any] = {"name": name.strip().lower()}
    for k, key in system.weapon_keys.items():
        if k in chars:
            w[key] = _number(chars[k])
    if "missile" in kind or "melee" in kind:  # else the warscroll's rule: over 3" is missile
        w["type"] = "missile" if "missile" in kind else "melee"
    if isinstance(w.get("rend"), str) and w["rend"] in ("-", ""):
        w["rend"] = 0
    return w


def units_of(root: ElementTree.Element, system: SystemImport) -> list[RosterUnit]:
    """Every unit of every force, in roster order; a unit selected inside another (a squad's
    Rhino) follows it."""
    def walk(sel: ElementTree.Element) -> list[RosterUnit]:
        found = [_unit(sel, system)]
        for child in _children(sel, "selections", "selection"):
            found += _nested(child)
        return found

    def _nested(sel: ElementTree.Element) -> list[RosterUnit]:
        if sel.get("type") == "unit":
            return walk(sel)
        return [u for child in _children(sel, "selections", "selection") for u in _nested(child)]

    out = []
    for force in _children(root, "forces", "force"):
        for sel in _children(force, "selections", "selection"):
            if sel.get("type") in ("unit", "model"):
                out += walk(sel)
    return out


def base_mm(unit: RosterUnit, system: SystemImport, bases: dict[str, Any]) -> float:
    """The unit's base: --bases by name, else the system's table by type or category."""
    for key in (unit.name, unit.name.lower(), slug(unit.name)):
        if key in bases:
            return float(bases[key])
    words = " ".join([unit.kind.lower(), *unit.keywords])
    for key, mm in system.bases.items():
        if key != "default" and key in words:
            return float(mm)
    return float(bases.get("default", system.bases.get("default", 25.0)))


def read(path: Path, options: ImportOptions) -> Imported:
    """The units of a roster placed in options.zone: scene data holding only `units` and
    `models` (the command merges them into the --onto scene)."""
    system = options.system
    if not system.reads_rosters:
        raise refuse(path, "ruleset", f"rosters are not read for {options.ruleset} (its package "
                                      "declares no roster names: rulesets/<id>/importing.py)")
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
                         f"no {'/'.join(system.unit_profiles)} profile with the stat line")
        ident = ids.new(u.name, "unit")
        entry: dict[str, Any] = {"id": ident, "player": options.player, "stats": u.stats}
        if u.weapons:
            entry["weapons"] = u.weapons
        if system.keywords and u.keywords:
            entry["keywords"] = u.keywords
        entries.append(entry)
        blocks.append((ident, u.count, base_mm(u, system, options.bases)))
    models = place_units(blocks, options, ids, path)
    return Imported({"units": entries, "models": models})
