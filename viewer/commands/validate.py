"""`battlesight validate SCENE`: every problem of a scene file, one per line."""

from __future__ import annotations

import sys

from battlesight.scenes import validate_scene_file
from battlesight.viewer.commands.common import add_scene_argument


def add_parser(sub, name: str) -> None:
    parser = sub.add_parser(name, help="check a scene file and report every problem")
    add_scene_argument(parser)


def run(args) -> int:
    problems = validate_scene_file(args.scene)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{args.scene}: {len(problems)} problem(s)", file=sys.stderr)
        return 2
    print(f"{args.scene}: ok")
    return 0
