"""`battlesight validate SCENE [--strict]`: every problem of a scene file, one per line.

Runs the gate every command's load step runs: the scene format, the builders (each piece built,
mesh files parsed, every model standing somewhere) and the ruleset's rules data. Unknown keys
and physical mistakes of the table (overlapping bases, a model inside a wall, ...) are warnings
(exit code 0) unless --strict makes them errors.
"""

from __future__ import annotations

import sys

from battlesight.cli.common import add_scene_argument
from battlesight.rulesets.core.scene_checks import check_scene
from battlesight.scenes.errors import SceneError, SceneProblem
from battlesight.scenes.keys import SceneWarning
from battlesight.scenes.loader import check_scene_file
from battlesight.scenes.yamlread import merge_problems


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="check a scene file and report every problem")
    add_scene_argument(parser)
    parser.add_argument("--strict", action="store_true",
                        help="warnings (unknown keys, physical mistakes) are errors")


def run(args) -> int:
    scene, problems = check_scene_file(args.scene)
    if scene is not None:  # the shape is read: report the rules' problems too, all at once
        try:
            problems = merge_problems(problems, check_scene(scene))
        except SceneError as error:
            problems = merge_problems(problems, error.problems)
    for problem in problems:
        if args.strict and isinstance(problem, SceneWarning):  # an error under --strict
            problem = SceneProblem(problem.file, problem.line, problem.key, problem.message)
        print(problem, file=sys.stderr)
    warnings = sum(isinstance(p, SceneWarning) for p in problems)
    errors = len(problems) - warnings
    if errors or (args.strict and warnings):
        counted = len(problems) if args.strict else errors
        also = f" and {warnings} warning(s)" if warnings and not args.strict else ""
        print(f"{args.scene}: {counted} problem(s){also}", file=sys.stderr)
        return 2
    print(f"{args.scene}: ok" + (f" ({warnings} warning(s))" if warnings else ""))
    return 0
