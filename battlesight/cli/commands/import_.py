"""`battlesight import FILE --format FORMAT [--ruleset R] [--onto SCENE] [--player N]
[--mods DIR] [--model-tag T] [--terrain-tag T] [--bases FILE] --out SCENE.yaml`: another
tool's file as a battlesight scene (`scenes.importers`, docs/import.md).

Layouts and saves (godot40k, deploy-helper, tts) make a new scene; a roster (battlescribe)
adds its units to the --onto scene, placed in --player's deployment zone. Whatever the format,
the scene passes the gate `validate` runs (the format, the builders, the ruleset's rules data,
no unknown keys) before anything is written; the scene and any converted mesh files are
written together or not at all. No Panda3D here.
"""

from __future__ import annotations

import copy
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from battlesight.analysis.maps import scene_deployment
from battlesight.cli.arguments import int_in
from battlesight.cli.common import check_output_path, load_checked, messages_stream
from battlesight.cli.errors import UsageError
from battlesight.rulesets.core.profiles import load_data
from battlesight.rulesets.core.rules_data import system_import
from battlesight.rulesets.core.scene_checks import require_rules
from battlesight.scenes.errors import SceneError
from battlesight.scenes.importers import DEFAULT_RULESETS, FORMATS, ROSTERS, ImportOptions
from battlesight.scenes.limits import MAX_MESSAGE, shorten
from battlesight.scenes.loader import scene_from_dict
from battlesight.scenes.output import write_outputs
from battlesight.scenes.save import piece_to_dict, scene_to_dict, scene_to_yaml
from battlesight.scenes.systems import system_ids
from battlesight.scenes.textfiles import file_label, is_stdio
from battlesight.scenes.yamlread import read_yaml


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="another tool's layout, save or roster as a scene")
    parser.add_argument("file", metavar="FILE",
                        help="the file to import; - reads it from standard input")
    parser.add_argument("--format", required=True, choices=sorted(FORMATS),
                        help="the file's format (docs/import.md)")
    parser.add_argument("--ruleset", choices=system_ids(),
                        help="the scene's system (default: the format's own; a roster: the "
                             "--onto scene's)")
    parser.add_argument("--onto", metavar="SCENE", help="battlescribe: the scene to add the "
                        "roster's units to")
    parser.add_argument("--player", type=int_in(1, 99), default=1,
                        help="the player the roster's units (or tts models) belong to")
    parser.add_argument("--mods", metavar="DIR", help="tts: the folder of TTS's cached OBJ "
                        "files (Mods/Models, or Mods)")
    parser.add_argument("--model-tag", action="append", metavar="TAG",
                        help="tts: a tag or Nickname word marking a model (repeatable; "
                             "default model, mini, miniature)")
    parser.add_argument("--terrain-tag", action="append", metavar="TAG",
                        help="tts: a tag marking terrain (repeatable; default terrain)")
    parser.add_argument("--bases", metavar="FILE", help="battlescribe: YAML of base sizes in "
                        "mm by unit name ({Liberators: 40, default: 32})")
    parser.add_argument("--force", action="store_true",
                        help="battlescribe: read a roster of another game system or edition "
                             "(a warning instead of the refusal)")
    parser.add_argument("--out", required=True, metavar="SCENE.yaml",
                        help="the scene to write; - writes it to standard output")


def run(args) -> int:
    source = Path(args.file)
    out = Path(args.out)
    if out.suffix.lower() not in (".yaml", ".yml") and not is_stdio(args.out):
        raise UsageError(f"--out {out}: the scene must be a .yaml file (or - for standard "
                         "output)")
    if not out.resolve().parent.is_dir():
        raise UsageError(f"--out {out}: no such folder")
    check_output_path(out, "--out")
    options = ImportOptions(ruleset=args.ruleset or DEFAULT_RULESETS.get(args.format),
                            player=args.player, mesh_folder=f"{out.stem}-meshes",
                            force=args.force)
    if args.mods is not None:
        options.mods = Path(args.mods)
        if not options.mods.is_dir():
            raise UsageError(f"--mods {args.mods}: no such folder")
    if args.model_tag:
        options.model_tags = tuple(args.model_tag)
        options.model_tags_given = True
    if args.terrain_tag:
        options.terrain_tags = tuple(args.terrain_tag)
    onto = None
    if args.format in ROSTERS:
        if args.onto is None:
            raise UsageError(f"--format {args.format} needs --onto SCENE: a roster holds no "
                             "table or positions")
        onto = load_checked(args.onto)
        if args.ruleset is not None and args.ruleset != onto.ruleset:
            raise UsageError(f"--ruleset {args.ruleset} differs from {args.onto}'s ruleset "
                             f"{onto.ruleset}")
        _fill_from(options, onto, args.player, args.onto)
        if args.bases is not None:
            options.bases = _bases(Path(args.bases))
    elif args.onto is not None:
        raise UsageError(f"--onto is for rosters; --format {args.format} makes a new scene")
    options.system = system_import(options.ruleset)
    imported = FORMATS[args.format](source, options)
    data = _merged(onto, imported.scene) if onto is not None else imported.scene
    warnings = list(imported.warnings)
    if onto is not None and not options.system.weapon_keys:
        warnings += _known_weapons(data, onto.ruleset, source)
    files = {out.parent / name: content for name, content in imported.files.items()}
    if files and is_stdio(args.out):
        raise UsageError(f"--out -: the import converted {len(files)} mesh files, which are "
                         "written beside the scene: give --out SCENE.yaml")
    try:
        scene = gate(data, out, files)
    except SceneError as exc:  # the scene is not written: the input is what to fix
        raise type(exc)([replace(p, file=file_label(source), line=None,
                                 message=f"{p.message} (in the imported scene; {out} not "
                                         "written)")
                         for p in exc.problems]) from None
    for warning in warnings:
        print(shorten(warning, MAX_MESSAGE), file=sys.stderr)
    written = _write(out, scene_to_yaml(scene), files)
    models = len(scene.models)
    print(f"wrote {written[-1]} ({len(scene.terrain)} terrain pieces, {models} models"
          + (f", {len(files)} mesh files" if files else "") + f"; {scene.ruleset})",
          file=messages_stream(args.out))
    return 0


def gate(data: dict[str, Any], out: Path, files: dict[Path, bytes]):
    """The scene as `validate --strict` would accept it from `out` (SceneError otherwise).
    Mesh files still to be written are checked from a temporary copy."""
    import tempfile

    if not files:
        scene = scene_from_dict(data, str(out), out.parent)
        require_rules(scene, strict=True)
        return scene
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        for path, content in files.items():
            target = Path(tmp) / path.relative_to(out.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
        scene = scene_from_dict(data, str(out), Path(tmp))
        require_rules(scene, strict=True)
    scene.path = None
    return scene


def _write(out: Path, text: str, files: dict[Path, bytes]) -> list[Path]:
    """The scene and its mesh files, all or none; a mesh folder made for them is removed
    again when the writing fails."""
    made = []
    for folder in sorted({p.parent for p in files}):
        if not folder.exists():
            folder.mkdir(parents=True)
            made.append(folder)
    try:
        return write_outputs({**files, out: text})
    except BaseException:
        for folder in made:
            if not any(folder.iterdir()):
                folder.rmdir()
        raise


def _fill_from(options: ImportOptions, onto, player: int, name: str) -> None:
    """Where the roster may set up on the --onto scene: the player's zone, the terrain to keep
    clear of, the bases and ids already there."""
    from battlesight.scenes.footprints import footprints

    zones = scene_deployment(onto).zones
    if player not in zones:
        raise UsageError(f"--player {player}: {name} has no deployment zone for player "
                         f"{player} (zones: {sorted(zones)})")
    options.ruleset = onto.ruleset
    options.zone = zones[player]
    options.table = onto.table
    options.blocked = list(footprints(onto).values())
    options.taken = [(m.at[0], m.at[1], max(m.base_radii_in)) for m in onto.models]
    options.taken_ids = [p.id for p in onto.terrain] + [m.id for m in onto.models] + \
        [str(u.get("id")) for u in onto.units]


def _merged(onto, added: dict[str, Any]) -> dict[str, Any]:
    """The --onto scene's data with the roster's units and models appended."""
    data = scene_to_dict(onto)
    data["terrain"] = [piece_to_dict(p) for p in onto.terrain]
    data["units"] = [*copy.deepcopy(data.get("units") or []), *added["units"]]
    data["models"] = [*copy.deepcopy(data.get("models") or []), *added["models"]]
    return data


def _singular(name: str) -> str:
    """A weapon name compared without case or a plural s ('Frag grenades' is 'frag grenade')."""
    name = name.strip().lower()
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name


def _known_weapons(data: dict[str, Any], ruleset: str, source: Path) -> list[str]:
    """Units keep the weapons the system's data knows by name (systems whose rosters name
    their weapons: no `SystemImport.weapon_keys`), as the data spells them; a warning names
    each weapon left out."""
    known = {_singular(w): w for w in load_data(ruleset)["weapons"]}
    warnings = []
    for unit in data.get("units") or []:
        if "weapons" not in unit or "x-source" not in unit:  # only the roster's own units
            continue
        kept = [known[_singular(w)] for w in unit["weapons"]
                if isinstance(w, str) and _singular(w) in known]
        dropped = [w for w in unit["weapons"] if not isinstance(w, str)
                   or _singular(w) not in known]
        if dropped:
            name = unit["x-source"].get("name", unit["id"])
            warnings.append(f"{source}: selection[{name}]: weapons left out (not in {ruleset}'s "
                            f"weapon data): {', '.join(map(str, dropped))}; kept: "
                            f"{', '.join(kept) or 'none'}")
        unit["weapons"] = list(dict.fromkeys(kept))
        if not kept:
            del unit["weapons"]
    return warnings


def _bases(path: Path) -> dict[str, Any]:
    data, problems = read_yaml(path, "bases file")
    if problems:
        raise SceneError(problems)
    if not isinstance(data, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 5 <= v <= 500
            for v in data.values()):
        raise UsageError(f"--bases {path}: must map unit names to base sizes in mm (5-500)")
    return {str(k): float(v) for k, v in data.items()}
