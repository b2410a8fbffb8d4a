"""`battlesight validate SCENE... [--strict] [--json]`: every problem of scene files, one per
line (`-` reads a scene from standard input).

Runs the gate every command's load step runs: the scene format, the builders (each piece built,
mesh files parsed, every model standing somewhere) and the ruleset's rules data (its named
deployment map included). Unknown keys and physical mistakes of the table (overlapping bases,
a model inside a wall, ...) are warnings (exit code 0) unless --strict makes them errors.
--json prints the problems of every file as data (validate.schema.json).
"""

from __future__ import annotations

import sys

from battlesight.cli.common import print_json
from battlesight.rulesets.core.scene_checks import check_scene
from battlesight.scenes.errors import SceneError, SceneProblem
from battlesight.scenes.keys import SceneWarning
from battlesight.scenes.loader import check_scene_file
from battlesight.scenes.textfiles import file_label
from battlesight.scenes.yamlread import merge_problems


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="check scene files and report every problem")
    parser.add_argument("scenes", nargs="+", metavar="SCENE",
                        help="scene files (YAML, format 1); - reads one from standard input")
    parser.add_argument("--strict", action="store_true",
                        help="warnings (unknown keys, physical mistakes) are errors")
    parser.add_argument("--json", action="store_true",
                        help="print the problems as JSON: {file, line, key, level, message} "
                             "each, and each file's counts")


def problems_of(path: str, strict: bool = False) -> list[SceneProblem]:
    """Every problem of one scene file as `validate` reports it, sorted by line: the format's,
    then (when its shape could be read) the rules'; under strict a warning is an error."""
    scene, problems = check_scene_file(path)
    if scene is not None:  # the shape is read: report the rules' problems too, all at once
        try:
            problems = merge_problems(problems, check_scene(scene))
        except SceneError as error:
            problems = merge_problems(problems, error.problems)
    if strict:
        problems = [SceneProblem(p.file, p.line, p.key, p.message) for p in problems]
    return problems


def run(args) -> int:
    files = []
    for path in args.scenes:
        problems = problems_of(path, args.strict)
        warnings = sum(isinstance(p, SceneWarning) for p in problems)
        files.append({"file": file_label(path), "ok": len(problems) == warnings,
                      "errors": len(problems) - warnings, "warnings": warnings,
                      "problems": problems})
    if args.json:
        print_json({"ok": all(f["ok"] for f in files), "strict": args.strict,
                    "files": [{k: v for k, v in f.items() if k != "problems"} for f in files],
                    "problems": [p.to_dict() for f in files for p in f["problems"]]})
    else:
        for f in files:
            print_file(f)
    return 0 if all(f["ok"] for f in files) else 2


def print_file(checked: dict) -> None:
    """One file's problems on stderr, one line each, then its verdict (`ok` on stdout)."""
    for problem in checked["problems"]:
        print(problem, file=sys.stderr)
    errors, warnings, name = checked["errors"], checked["warnings"], checked["file"]
    if errors:
        also = f" and {warnings} warning(s)" if warnings else ""
        print(f"{name}: {errors} problem(s){also}", file=sys.stderr)
    else:
        print(f"{name}: ok" + (f" ({warnings} warning(s))" if warnings else ""))
