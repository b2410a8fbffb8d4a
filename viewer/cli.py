"""The `battlesight` command: one sub-command per module of `battlesight.viewer.commands`.

Each command module defines `add_parser(subparsers)` and `run(args) -> int`. Modules are
imported lazily by name so that commands which do not draw never import Panda3D.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from battlesight.scenes.errors import SceneError
from battlesight.scenes.limits import shorten
from battlesight.scenes.output import NotJSON
from battlesight.viewer.commands.arguments import OneLineParser
from battlesight.viewer.errors import UsageError

from battlesight._version import __version__

#: sub-command name -> module under viewer.commands
COMMANDS = {
    "demo": "demo",
    "validate": "validate",
    "los": "los",
    "export": "export",
    "bench": "bench",
    "render": "render",
    "view": "view",
    "shoot": "shoot",
    "phases": "phases",
    "play": "play",
    "analyze": "analyze",
    "generate": "generate",
}

EXIT_BAD_INPUT = 2
#: problems of a refused scene printed by a command (validate prints them all)
MAX_PROBLEMS_SHOWN = 50


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="battlesight",
        description="3D battlefield line of sight for tabletop wargames.",
    )
    parser.add_argument("--version", action="version", version=f"battlesight {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module in COMMANDS.items():
        importlib.import_module(f"battlesight.viewer.commands.{module}").add_parser(sub, name)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    module = importlib.import_module(f"battlesight.viewer.commands.{COMMANDS[args.command]}")
    try:
        return int(module.run(args) or 0)
    except SceneError as error:
        for problem in error.problems[:MAX_PROBLEMS_SHOWN]:
            print(problem, file=sys.stderr)
        if len(error.problems) > MAX_PROBLEMS_SHOWN:
            print(f"battlesight {args.command}: ... and "
                  f"{len(error.problems) - MAX_PROBLEMS_SHOWN:,} more problems "
                  "(`battlesight validate` lists them all)", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UsageError as error:
        print(shorten(f"battlesight {args.command}: {error}"), file=sys.stderr)
        return EXIT_BAD_INPUT
    except NotJSON as error:
        print(shorten(f"battlesight {args.command}: the output {error}; nothing written"),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as error:
        # a file the command could not read or write (a folder given for a file, a full disk,
        # no permission): one line naming it, never a traceback
        where = next((f for f in (error.filename2, error.filename) if f is not None), "")
        why = error.strerror or str(error)
        print(shorten(f"battlesight {args.command}: {where}{': ' if where else ''}{why}"),
              file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
