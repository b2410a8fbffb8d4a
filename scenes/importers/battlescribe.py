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

A roster is read as far as it can be: a selection the importer cannot place (no stat line: an
army's allegiance, a terrain piece bought with the army), a weapon it cannot read, or a `*`
characteristic no damage table answers is left out with a warning that names it and what was
kept, never a refusal of the whole roster. `*` characteristics (damage tables, wound tracks) are
read from the table's first row, and said so; `-` or empty values read as "none". The roster's
`gameSystemName` is checked against the system (`SystemImport.roster_games`, its edition): a
Warcry roster is not read as aos2 unless forced. Each unit keeps under `x-source` the roster's
name, its game system and the selection's BattleScribe ids.
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
    """One unit as the roster gives it; notes: what was read differently or left out."""

    name: str
    count: int
    stats: dict[str, Any] = field(default_factory=dict)
    weapons: list[Any] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    kind: str = ""
    ids: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # stats no table answered


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
    """'5\"' -> 5, '4+' -> 4, '-1' -> -1, 'D6' stays 'D6', '-' and '' (none) -> '-'."""
    t = text.strip().replace('"', "").replace("\u2033", "")
    if t in ("", "-", "\u2013", "\u2014", "n/a", "N/A"):
        return "-"
    m = re.fullmatch(r"([+-]?\d+)\+?", t)
    return int(m.group(1)) if m else t


def _is_table(kind: str) -> bool:
    """Whether a profile type is a damage table (AoS) or wound track (40k): the rows that give
    a model's `*` characteristics as it loses wounds."""
    return "damage" in kind or "wound track" in kind or "degrad" in kind


def _first_row(tables: list[ElementTree.Element], name: str) -> tuple[str, str] | None:
    """The value of characteristic `name` (lower case, or a weapon's name) in the first row of
    the damage tables that give it, with that row's name; None where none does."""
    for row in tables:
        chars = _chars(row)
        for key, value in chars.items():
            if value and value != "*" and (key == name or key.startswith(name + " ")
                                           or name.startswith(key)):
                return value, row.get("name", "")
    return None


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


#: a model selection named for its count, as AoS data writes units ("5 Grundstok Thunderers")
_COUNTED_NAME = re.compile(r"^\s*(\d{1,3})\s*(?:x\s*)?[A-Za-z]")


def _count(sel: ElementTree.Element) -> int:
    """A selection's `number` (at least 1), times the count its name starts with where it is a
    model selection named so ("6 Sneaky Snufflers" with number 1 is six models)."""
    n = _number(sel.get("number", "1"))
    n = n if isinstance(n, int) and n > 0 else 1
    named = _COUNTED_NAME.match(sel.get("name") or "") if sel.get("type") == "model" else None
    return n * int(named.group(1)) if named and int(named.group(1)) > 0 else n


def _unit(sel: ElementTree.Element, system: SystemImport) -> RosterUnit:
    name = sel.get("customName") or sel.get("name") or "unit"
    models = [c for c in _children(sel, "selections", "selection") if c.get("type") == "model"]
    count = sum(_count(c) for c in models) if models else _count(sel)
    unit = RosterUnit(name, count, ids={k: v for k in ("id", "entryId")
                                        if (v := sel.get(k))})
    names = system.stats
    profiles = _profiles(sel)
    tables = [p for p in profiles if _is_table((p.get("typeName") or "").strip().lower())]
    for prof in profiles:
        kind = (prof.get("typeName") or "").strip().lower()
        chars = _chars(prof)
        if _is_table(kind):
            continue
        if not unit.stats and kind in system.unit_profiles:
            unit.kind = chars.get("unit type", chars.get("type", ""))
            for key, value in chars.items():
                if key not in names:
                    continue
                if value.strip() == "*":
                    found = _first_row(tables, key)
                    if found is None:
                        unit.unread.append(key)
                        continue
                    value = found[0]
                    unit.notes.append(f"{key} '*' read from the damage table's first row "
                                      f"({found[1] or 'unnamed'}: {value})")
                unit.stats[names[key]] = _number(value)
        elif "weapon" in kind:
            weapon = _weapon(prof.get("name", "weapon"), chars, kind, system, tables, unit)
            if weapon is not None and weapon not in unit.weapons:
                unit.weapons.append(weapon)  # each model's boltgun is the unit's one weapon
    unit.keywords = [c.get("name", "").strip().lower()
                     for c in _children(sel, "categories", "category") if c.get("name")]
    return unit


def _weapon(name: str, chars: dict[str, str], kind: str, system: SystemImport,
            tables: list[ElementTree.Element], unit: RosterUnit) -> Any:
    """One weapon as the system writes it (a name, or an entry of `weapon_keys`); a `*` value
    from the damage table's first row; None (and a note) where a value cannot be read."""
    label = name.strip().lower()
    if not system.weapon_keys:
        return label
    w: dict[str, Any] = {"name": label}
    for k, key in system.weapon_keys.items():
        if k not in chars:
            continue
        value = chars[k]
        if value.strip() == "*":
            found = _first_row(tables, label) or _first_row(tables, k)
            if found is None:
                unit.notes.append(f"weapon '{label}' left out: its {k} is '*' and no damage "
                                  "table gives it")
                return None
            value = found[0]
            unit.notes.append(f"weapon '{label}' {k} '*' read from the damage table's first "
                              f"row ({found[1] or 'unnamed'}: {value})")
        w[key] = _number(value)
    if "missile" in kind or "melee" in kind:  # else the warscroll's rule: over 3" is missile
        w["type"] = "missile" if "missile" in kind else "melee"
    if w.get("rend") == "-":
        w["rend"] = 0
    return w


def _has_stat_line(sel: ElementTree.Element, system: SystemImport) -> bool:
    """Whether a selection's own profiles hold a stat line (AoS data types some warscroll
    units `upgrade`)."""
    return any((p.get("typeName") or "").strip().lower() in system.unit_profiles
               for p in _children(sel, "profiles", "profile"))


def units_of(root: ElementTree.Element, system: SystemImport) -> tuple[list[RosterUnit],
                                                                          list[str]]:
    """Every unit of every force, in roster order (a unit selected inside another, a squad's
    Rhino, follows it), and the force-level selections that are no unit (their names)."""
    def walk(sel: ElementTree.Element) -> list[RosterUnit]:
        found = [_unit(sel, system)]
        for child in _children(sel, "selections", "selection"):
            found += _nested(child)
        return found

    def _nested(sel: ElementTree.Element) -> list[RosterUnit]:
        if sel.get("type") == "unit" or (sel.get("type") == "upgrade"
                                         and _has_stat_line(sel, system)):
            return walk(sel)
        return [u for child in _children(sel, "selections", "selection") for u in _nested(child)]

    out, others = [], []
    for force in _children(root, "forces", "force"):
        for sel in _children(force, "selections", "selection"):
            if sel.get("type") in ("unit", "model") or _has_stat_line(sel, system):
                out += walk(sel)
            else:
                others.append(sel.get("customName") or sel.get("name") or "selection")
    return out, others


def check_game(path: Path, root: ElementTree.Element, options: ImportOptions) -> list[str]:
    """The roster's game system against the scene's: a refusal where it names another game (or
    another edition), or with `options.force` a warning; [] where it matches or names none."""
    system, game = options.system, (root.get("gameSystemName") or "").strip()
    if not game or not system.roster_games:
        return []
    low = game.lower()
    wrong = not re.search(system.roster_games, low) or (
        system.roster_not and re.search(system.roster_not, low))
    edition = re.search(r"(\d+)\s*(?:st|nd|rd|th)\b", low)
    if not wrong and edition and system.edition is not None:
        wrong = int(edition.group(1)) != system.edition
    if not wrong:
        return []
    message = (f"the roster is for '{game}', not {options.ruleset}: import it onto a scene of "
               "its own system, or give --force to read its stat lines as "
               f"{options.ruleset}'s")
    if not options.force:
        raise refuse(path, "roster.gameSystemName", message)
    return [f"{path}: roster.gameSystemName: {message.split(':')[0]}; read anyway (--force)"]


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
    `models` (the command merges them into the --onto scene), and the warnings of what was
    left out or read differently."""
    system = options.system
    if not system.reads_rosters:
        raise refuse(path, "ruleset", f"rosters are not read for {options.ruleset} (its package "
                                      "declares no roster names: rulesets/<id>/importing.py)")
    root = _xml(path)
    warnings = check_game(path, root, options)
    found, others = units_of(root, system)
    units = []
    for u in found:
        where = f"{path}: selection[{u.name}]"
        if not u.stats or u.unread:
            why = (f"no {'/'.join(system.unit_profiles)} profile with a stat line" if not
                   u.stats else f"its {', '.join(u.unread)} is '*' and no damage table gives it")
            warnings.append(f"{where}: left out: {why}")
            continue
        warnings += [f"{where}: {note}" for note in u.notes]
        units.append(u)
    warnings += [f"{path}: selection[{name}]: left out: not a unit (no stat line)"
                 for name in others]
    if not units:
        raise refuse(path, "forces", "the roster has no unit the importer can place"
                     + (f" ({len(found)} selections left out: see above)" if found else ""))
    if warnings:
        kept = sum(u.count for u in units)
        warnings.append(f"{path}: kept {len(units)} of {len(found) + len(others)} selections "
                        f"({kept} models)")
    total = sum(u.count for u in units)
    if total > MAX_MODELS:
        raise refuse(path, "forces", f"the roster has {total} models (at most {MAX_MODELS})")
    ids = Ids(options.taken_ids)
    entries, blocks = [], []
    source = {"format": NAME, "roster": root.get("name") or path.stem,
              "game": root.get("gameSystemName") or ""}
    for u in units:
        ident = ids.new(u.name, "unit")
        entry: dict[str, Any] = {"id": ident, "player": options.player, "stats": u.stats}
        if u.weapons:
            entry["weapons"] = u.weapons
        if system.keywords and u.keywords:
            entry["keywords"] = u.keywords
        entry["x-source"] = {**source, "name": u.name, **u.ids}
        entries.append(entry)
        blocks.append((ident, u.count, base_mm(u, system, options.bases)))
    models = place_units(blocks, options, ids, path)
    return Imported({"units": entries, "models": models}, warnings=warnings)
