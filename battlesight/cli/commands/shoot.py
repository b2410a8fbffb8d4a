"""`battlesight shoot SCENE --unit U --target T [--weapon W] [--json]`: can unit U shoot unit
T, which of its models fire, what they see, each target model's cover and the exact odds."""

from __future__ import annotations

from battlesight.api import Battlefield
from battlesight.cli.arguments import (
    add_reading_arguments,
    chosen_readings,
    int_in,
)
from battlesight.cli.common import add_scene_argument, load, print_json, table
from battlesight.cli.errors import UsageError
from battlesight.rulesets.core.board import Board
from battlesight.rulesets.core.profiles import ProfileError
from battlesight.rulesets.core.ruling import cover_value_text
from battlesight.rulesets.core.standard import STANDARD_LABEL
from battlesight.rulesets.core.verdict import share_text
from battlesight.scenes.limits import MAX_SAMPLES, MIN_SAMPLES


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="shooting analysis: line of sight, range, cover, odds")
    add_scene_argument(parser)
    parser.add_argument("--unit", required=True, metavar="U", help="firing unit id")
    parser.add_argument("--target", required=True, metavar="T", help="target unit id")
    parser.add_argument("--weapon", metavar="W", help="fire only this weapon")
    parser.add_argument("--moved", action="store_true",
                        help="the firing unit moved this turn (wh40k6: heavy weapons snap fire, "
                             "a vehicle moved at combat speed; whfb6: -1 to hit; wmh2: no "
                             "aiming +2)")
    parser.add_argument("--samples", type=int_in(MIN_SAMPLES, MAX_SAMPLES), default=None,
                        metavar="N",
                        help="silhouette samples per sight line (default: the sight verdict's "
                             "own, as `los` uses, so both give the same answer)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_reading_arguments(parser, every=True)


def run(args) -> int:
    scene, world = load(args.scene)
    field = Battlefield(scene, world)
    chosen = chosen_readings(args.reading, field.ruleset)
    try:
        board = field.board
    except (KeyError, ProfileError) as exc:
        raise UsageError(str(exc).strip("'\"")) from None
    for unit in (args.unit, args.target):
        if not board.has_unit(unit):
            known = ", ".join(board.unit_ids())
            raise UsageError(f"no unit {unit!r} in {scene.path}; units: {known}")
    if args.weapon is not None:
        carried = unit_weapons(board, args.unit)
        if args.weapon.lower() not in {name.lower() for name in carried}:
            raise UsageError(f"no weapon {args.weapon!r} in unit {args.unit}; its weapons: "
                             f"{', '.join(carried) or 'none'}")
    try:
        report = field.shoot(args.unit, args.target, weapon=args.weapon, moved=args.moved,
                             samples=args.samples, readings=chosen,
                             all_readings=args.readings == "all")
    except NotImplementedError:
        raise UsageError(f"ruleset {field.ruleset.id} has no shooting analysis yet") from None
    if args.json:
        print_json(report)
    else:
        print(format_report(report))
    return 0


def unit_weapons(board: Board, unit: str) -> list[str]:
    """Names of the weapons the unit's models carry (every system's profile lists them)."""
    names: dict[str, None] = {}
    for model in board.unit_models(unit, alive=True, on_table=False):
        for weapon in getattr(board.profile(model), "weapons", None) or ():
            names.setdefault(str(getattr(weapon, "name", weapon)), None)
    return list(names)


def cover_text(cover: dict) -> str:
    """A cover verdict of the JSON report as a player reads it ('4+', '+4 DEF'), or '-'."""
    if not cover.get("in_cover"):
        return "-"
    return cover_value_text(cover.get("value"), cover.get("effect", "save"))


#: widest "why not" cell of the firers table; longer reasons end in "..." (the JSON has them
#: whole)
WHY_WIDTH = 72


def _why(text: str) -> str:
    """A reason cut to the table's width at a word, marked as cut, so that a number is never
    shown half ('range 2' for 'range 24"')."""
    if len(text) <= WHY_WIDTH:
        return text
    cut = text[:WHY_WIDTH - 3].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "..."


def modifier_lines(targets: list[dict]) -> str:
    """One line per modifier applied, with its rule; the targets it applies to when they
    differ ('modifiers: none' when there are none)."""
    seen: dict[tuple, list[str]] = {}
    for t in targets:
        for m in t.get("modifiers", ()):
            key = (m["name"], m.get("text") or str(m["value"]), m["rule"])
            seen.setdefault(key, []).append(t["model"])
    if not seen:
        return "modifiers: none"
    lines = ["modifiers:"]
    for (name, text, rule), models in seen.items():
        who = "" if len(models) == len(targets) else f" (on {', '.join(models)})"
        lines.append(f"  {name} {text} [{rule}]{who}")
    return "\n".join(lines)


def template_text(t: dict) -> str:
    """An AOE or spray attack of the report: where the template lies, every model under it
    with its odds, an AOE's deviation on a miss and a spray's models it does not attack."""
    what = f"AOE {t['size']:g}" if t["kind"] == "aoe" else f"SP {t['size']:g}"
    head = f"{t['firer']} ({t['weapon']}, {what}) at {t['target']} [{t['rule']}]"
    if not t["legal"]:
        return f"{head}: {t['reason']}"
    if t["kind"] == "aoe":
        dev = t["deviation"]
        where = "the target" if t["in_range"] else "RNG on the line to the target (beyond RNG)"
        head += (f": template on {where} {tuple(t['point'])}; a direct hit takes the weapon's "
                 f"damage roll, blast damage {t['blast_damage']} on the others; a miss "
                 f"(p {dev['p_miss']:.3f}) deviates {dev['direction']}, d6\" capped at "
                 f"{dev['cap']:g}\" [{dev['rule']}]")
    else:
        head += ": one attack roll on every model under the template that the firer sees "
        head += "past terrain (no aiming bonus, no target-in-melee penalty)"
    rows = [[h["model"], h["role"], f"{h['p_hit']:.3f}", f"{h['p_direct']:.3f}",
             f"{h['p_blast']:.3f}", f"{h['p_unsaved']:.3f}", f"{h['expected_damage']:.3f}"]
            for h in t["hits"]]
    parts = [head, table(rows, ["model", "role", "p_hit", "p_direct", "p_blast", "p_unsaved",
                                "exp_damage"]) if rows else "no model under the template"]
    if t.get("on_hit"):
        parts.append("  on a direct hit: " + "; ".join(
            f"{h['model']} {h['damage']} (p damage {h['p_damage']:.3f}, expected "
            f"{h['expected_damage']:.3f})" for h in t["on_hit"]))
    for model, why in (t.get("not_attacked") or {}).items():
        parts.append(f"  not attacked: {model}: {_why(why)}")
    return "\n".join(parts)


def _given_a_hit(t: dict) -> list[str]:
    """The p_wound and p_save_fail cells: '-' where no attack can hit (p_hit 0), whose
    conditional steps the JSON keeps (see the schema) but a table must not show as odds."""
    if not t["p_hit"]:
        return ["-", "-"]
    return [f"{t['p_wound']:.3f}", f"{t['p_save_fail']:.3f}"]


def format_report(r: dict) -> str:
    head = f"{r['unit']} -> {r['target']}: " + (
        "may shoot" if r["eligible"] else f"cannot shoot: {r['reason']}")
    parts = [head]
    if r["firers"]:
        parts.append(table([
            [f["model"], f.get("weapon") or "-", "yes" if f["can_fire"] else "no",
             str(len(f["sees"])), "yes" if f["in_range"] else "no", str(f.get("shots", "")),
             _why(f.get("reason", ""))]
            for f in r["firers"]],
            ["firer", "weapon", "fires", "sees", "range", "shots", "why not"]))
    if r["targets"]:
        parts.append(table([
            [t["model"], "yes" if t["visible"] else "no", share_text(t["visible_fraction"]),
             cover_text(t["cover"]),
             t["cover"]["source"] or "-", t["cover"]["rule"] or "-", f"{t['p_hit']:.3f}",
             *_given_a_hit(t), f"{t['p_unsaved']:.3f}"]
            for t in r["targets"]],
            ["target", "seen", "visible", "cover", "from", "rule", "p_hit", "p_wound",
             "p_save_fail", "p_unsaved"]))
        parts.append(modifier_lines(r["targets"]))
        parts.extend(template_text(t) for t in r.get("templates") or ())
        standard = sorted({line["model"] for line in [*r["firers"], *r["targets"]]
                           if line.get("profile") == STANDARD_LABEL})
        if standard:
            parts.append(f"{STANDARD_LABEL}: {', '.join(standard)}")
    if r["firers"] or r["targets"]:
        parts.append(f"expected unsaved wounds: {r['expected_unsaved']:.3f}" + (
            f"; expected damage: {r['expected_damage']:.3f}" if "expected_damage" in r else ""))
    if "readings" in r:
        parts.append(readings_text(r))
    return "\n\n".join(parts)


def _changes(before: dict, after: dict) -> str:
    """What another reading changes in a report, in a few words, the weightiest first: whether
    the unit may shoot, the expected unsaved wounds, firers, target models' sight and cover,
    then what each firer sees and the share of each target model seen."""
    out = []
    if before["eligible"] != after["eligible"]:
        out.append("may shoot" if after["eligible"] else f"cannot shoot: {after['reason']}")
    if before["expected_unsaved"] != after["expected_unsaved"]:
        out.append(f"expected unsaved {before['expected_unsaved']:.3f} -> "
                   f"{after['expected_unsaved']:.3f}")
    firers = {(f["model"], f.get("weapon")): f for f in before["firers"]}
    sights = []
    for f in after["firers"]:
        was = firers.get((f["model"], f.get("weapon")))
        if was is None:
            continue
        if (was["can_fire"], was.get("shots")) != (f["can_fire"], f.get("shots")):
            fires = f"fires {f.get('shots', '')}".strip() if f["can_fire"] else "cannot fire"
            out.append(f"{f['model']} {fires}")
        elif len(was["sees"]) != len(f["sees"]):
            sights.append(f"{f['model']} sees {len(was['sees'])} -> {len(f['sees'])}")
    targets = {t["model"]: t for t in before["targets"]}
    shares = []
    for t in after["targets"]:
        was = targets.get(t["model"])
        if was is None:
            continue
        if was["visible"] != t["visible"]:
            out.append(f"{t['model']} {'seen' if t['visible'] else 'unseen'}")
        elif cover_text(was["cover"]) != cover_text(t["cover"]):
            out.append(f"{t['model']} cover {cover_text(was['cover'])} -> "
                       f"{cover_text(t['cover'])}")
        elif share_text(was["visible_fraction"]) != share_text(t["visible_fraction"]):
            shares.append(f"{t['model']} {share_text(was['visible_fraction'])} -> "
                          f"{share_text(t['visible_fraction'])} seen")
    out.extend(sights)
    out.extend(shares)
    return "; ".join(out) or "the odds of a model"


def readings_text(r: dict) -> str:
    """The `--readings all` table: each reading that changes the attack, and how."""
    if not r["readings"]:
        return "readings: no other reading of an ambiguous rule changes this attack"
    rows = [[f"{e['reading']}={e['value']}", e["rule"], _why(_changes(r, e["verdict"]))]
            for e in r["readings"]]
    return "readings that change the attack\n" + table(rows, ["reading", "rule", "what changes"])
