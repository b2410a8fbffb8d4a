"""The `battlesight` command: one sub-command per module of `battlesight.cli.commands`.

Each command module defines `add_parser(subparsers)` and `run(args) -> int`. Modules are
imported lazily by name: a run imports the module of its own command only (its parser is the
only one declared in full), so that commands which do not draw never import Panda3D and
`battlesight --version` imports no command at all; help without a command imports them all to
list them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from battlesight._version import __version__
from battlesight.cli.arguments import OneLineParser
from battlesight.cli.errors import UsageError
from battlesight.scenes.errors import SceneError
from battlesight.scenes.limits import shorten
from battlesight.scenes.output import NotJSON, forget_inputs, is_protected, protect_inputs
from battlesight.scenes.textfiles import is_stdio

#: sub-command name -> module under battlesight.cli.commands
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
    "replay": "replay",
    "import": "import_",
}

EXIT_BAD_INPUT = 2
#: problems of a refused scene printed by a command (validate prints them all)
MAX_PROBLEMS_SHOWN = 50


def requested_command(argv: list[str]) -> str | None:
    """The command a command line asks for: its first word that is not an option (the top
    level's options take no value); None when there is none or help is asked before it."""
    for word in argv:
        if word in ("-h", "--help"):
            return None
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The command line's parser. argv given: only the command it asks for is declared in
    full (its module imported); the other commands are declared by name, so that a misspelt
    one is still refused with the list of commands. argv None, or asking for help before a
    command: every command in full (the help lists them)."""
    only = requested_command(argv) if argv is not None else None
    lazy = argv is not None and (only is not None or not any(
        w in ("-h", "--help") for w in argv))
    parser = OneLineParser(
        prog="battlesight",
        description="3D battlefield line of sight for tabletop wargames.",
    )
    parser.add_argument("--version", action="version", version=f"battlesight {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module in COMMANDS.items():
        if lazy and name != only:
            sub.add_parser(name)
        else:
            importlib.import_module(f"battlesight.cli.commands.{module}").add_parser(sub, name)
    return parser


#: the arguments that name files a command reads, and those that name files it writes
INPUT_ARGS = ("scene", "scenes", "actions", "heatmap_field", "file", "onto", "bases")
#: arguments that name a file one command reads and another writes (play --log, replay --log)
COMMAND_INPUT_ARGS = {"replay": ("log",)}
OUTPUT_ARGS = {"play": ("out", "log"), "analyze": ("heatmap", "save_field"),
               "export": ("out",), "render": ("out",), "generate": ("out",),
               "import": ("out",), "replay": ("out",)}
#: what an output of these arguments must be called
OUTPUT_SUFFIXES = {("analyze", "heatmap"): ".png", ("analyze", "save_field"): ".npy"}


def _values(value) -> list:
    return value if isinstance(value, list) else [value]


def check_outputs(args: argparse.Namespace) -> None:
    """UsageError when an output would replace one of the command's own input files (a
    scene, an actions file), or names the wrong kind of file: checked before any work."""
    piped = [name for name in INPUT_ARGS + COMMAND_INPUT_ARGS.get(args.command, ())
             for value in _values(getattr(args, name, None)) if is_stdio(value)]
    if len(piped) > 1:
        names = list(dict.fromkeys(piped))
        where = " and ".join(names) if len(names) > 1 else f"{names[0]} {len(piped)} times"
        raise UsageError(f"standard input (-) is given for {where}: it can be read once")
    piped = [name for name in OUTPUT_ARGS.get(args.command, ())
             if is_stdio(getattr(args, name, None))]
    if len(piped) > 1:
        raise UsageError(f"standard output (-) is given for {' and '.join(piped)}: give a "
                         "file for all but one")
    for name in INPUT_ARGS + COMMAND_INPUT_ARGS.get(args.command, ()):
        value = getattr(args, name, None)
        protect_inputs(p for p in (value if isinstance(value, list) else [value])
                       if isinstance(p, str) and os.path.isfile(p))
    for name in OUTPUT_ARGS.get(args.command, ()):
        out = getattr(args, name, None)
        if not isinstance(out, str):
            continue
        flag = name if name == "out" and args.command == "export" else f"--{name.replace('_', '-')}"
        suffix = OUTPUT_SUFFIXES.get((args.command, name))
        if suffix and not out.lower().endswith(suffix):
            raise UsageError(f"{flag} {out}: must end in {suffix}")
        if is_protected(out):  # the writers refuse it too (check_target); say so before work
            raise UsageError(f"{flag} {out} is an input file of this command: give another "
                             "file, nothing was written")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    module = importlib.import_module(f"battlesight.cli.commands.{COMMANDS[args.command]}")
    forget_inputs()  # a new run (main may be called many times in one process)
    try:
        check_outputs(args)
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
    except BrokenPipeError:
        # the reader of our output went away (`battlesight demo | head -1`): what it read is
        # what it wanted; stop quietly, and keep Python from complaining at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as error:
        # a file the command could not read or write (a folder given for a file, a full disk,
        # no permission): one line naming it, never a traceback
        where = next((f for f in (error.filename2, error.filename) if f is not None), "")
        why = error.strerror or str(error)
        print(shorten(f"battlesight {args.command}: {where}{': ' if where else ''}{why}"),
              file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        forget_inputs()  # the run is over: its inputs bind nothing that runs after it


if __name__ == "__main__":
    sys.exit(main())
