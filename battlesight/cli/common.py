"""Helpers shared by the command modules: loading a scene and its world, checking ids."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path
from typing import TextIO

import battlesight
from battlesight.cli.errors import UsageError
from battlesight.geometry.world import World
from battlesight.scenes import limits
from battlesight.scenes.build import input_files
from battlesight.scenes.model import Scene
from battlesight.scenes.output import UnsafeOutput, check_target, protect_inputs, to_json
from battlesight.scenes.textfiles import is_stdio


def add_scene_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scene", metavar="SCENE", help="scene file (YAML, format 1)")


def gated(path: str, build: bool = False) -> battlesight.Battlefield:
    """The scene at path through the whole gate `validate` runs (`battlesight.load`: the
    format, the builders, the ruleset's rules data), its world built too with `build`:
    SceneError on bad input. Its warnings (unknown keys, physical mistakes) go to stderr only
    once it has passed, so a refused scene prints its refusal alone, as `validate` does."""
    field = battlesight.load(path)
    if build:
        field.world  # noqa: B018 - what only the builders refuse is refused here
    for warning in field.warnings:
        print(warning, file=sys.stderr)
    protect_inputs(input_files(field.scene))  # no output of this run may replace them
    return field


def load_checked(path: str) -> Scene:
    """The scene at path through the gate (see `gated`), its world not built."""
    return gated(path).scene


def load(path: str) -> tuple[Scene, World]:
    """The scene at path through the gate (see `gated`) and its world."""
    field = gated(path, build=True)
    return field.scene, field.world


def require_model(scene: Scene, model_id: str) -> None:
    """UsageError naming the scene's models when model_id is not one of them."""
    ids = [m.id for m in scene.models]
    if model_id not in ids:
        known = ", ".join(ids[:12]) + (" ..." if len(ids) > 12 else "")
        raise UsageError(f"no model {model_id!r} in {scene.path}; models: {known}")


def check_output_path(path: str | os.PathLike[str], what: str = "") -> Path:
    """The path of an output file, checked before any work: UsageError when it names a
    folder, a symbolic link, a FIFO or a device, when its folder does not exist or when that
    folder is not writable (``scenes.output`` checks again when it writes). `-` (standard
    output) passes as it is."""
    out = Path(path)
    if is_stdio(path):
        return out
    label = f"{what} {out}" if what else str(out)
    if out.is_dir() and not out.is_symlink():
        raise UsageError(f"cannot write {label}: it is a folder, give a file name")
    folder = out.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {label}: folder {folder} does not exist")
    import tempfile  # here: a command without an output file never imports it

    try:  # what the atomic writers do first: a temporary file in that folder
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise UsageError(f"cannot write {label}: cannot create files in {folder} "
                         f"({error.strerror or error})") from None
    try:
        check_target(out)
    except UnsafeOutput as error:
        raise UsageError(f"cannot write {label}: {error.strerror}") from None
    return out


def messages_stream(*outputs: str | None) -> TextIO:
    """Where a command prints what it did: standard error when one of its outputs is standard
    output (`-`), so the data piped stays whole; else standard output."""
    return sys.stderr if any(is_stdio(o) for o in outputs) else sys.stdout


def check_grid(grid: float, tables: list[tuple[float, float]] = ()) -> None:
    """UsageError for a --grid out of range, or one that would cut a table into more than
    ``limits.MAX_GRID_CELLS`` cells."""
    if not limits.MIN_GRID <= grid <= limits.MAX_GRID:
        raise UsageError(f"--grid must be between {limits.MIN_GRID:g} and {limits.MAX_GRID:g} "
                         f"inches, got {grid:g}")
    for width, depth in tables:
        cells = math.ceil(width / grid) * math.ceil(depth / grid)
        if cells > limits.MAX_GRID_CELLS:
            raise UsageError(f"--grid {grid:g} cuts the {width:g}x{depth:g} table into {cells:,} "
                             f"cells (the limit is {limits.MAX_GRID_CELLS:,}): use a coarser grid")


def json_text(data) -> str:
    """Strict JSON (no NaN or Infinity) of a command's result, whole, ending in a newline;
    ``output.NotJSON`` when it cannot be written, before anything is printed."""
    return to_json(data) + "\n"


def print_json(data) -> None:
    """Print data as strict JSON, built whole first so a failure prints nothing."""
    print(json_text(data), end="")


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain text table with aligned columns."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return "\n".join(lines)
