"""Shared test helpers: the one command-line runner (`run_cli`), example scene paths, small
scene files written on the fly, and small worlds built straight from geometry records for
engine tests. Scene dicts and tables built entry by entry are in `tests/tables.py`."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import trimesh
import yaml
from battlesight.geometry.types import ModelVolume, TerrainGeometry
from battlesight.geometry.world import World

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenes" / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))
DEMO = EXAMPLES / "demo.yaml"
#: the bundled example of each system (the demo aside), by the `ruleset:` it names
RULESET_EXAMPLES = {
    re.search(r"^ruleset:\s*(\S+)", path.read_text(encoding="utf-8"), re.M).group(1): path
    for path in EXAMPLE_FILES if path != DEMO
}

# A small valid scene; tests append terrain pieces or models to it (indented by 2 spaces).
MINIMAL = """\
format: 1
name: test scene
ruleset: wh40k6
table: [48, 48]
terrain:
  - {id: wall-1, type: wall, from: [10, 20], to: [22, 20], height: 2.5, thickness: 0.5}
  - {id: ruin-1, type: ruin, at: [24, 34], size: [12, 6], floors: [3, 6], height: 8,
     walls: [north, west], windows: true}
units:
  - {id: tac-1, player: 1, profile: tactical-squad}
models:
  - {id: sgt, unit: tac-1, at: [12, 6], profile: tactical-marine}
  - {id: boy, player: 2, at: [30, 40], facing: 180, base: 32, height: 1.7}
"""


class CliResult(NamedTuple):
    """What one command-line run gave: its exit code, standard output and standard error."""

    code: int
    out: str
    err: str

    def ok(self) -> CliResult:
        """This result, after checking the command succeeded (exit 0, no traceback)."""
        assert self.code == 0, self.err[-4000:]
        assert "Traceback" not in self.out + self.err, self.err[-4000:]
        return self

    def json(self) -> Any:
        """The standard output read as JSON."""
        return json.loads(self.out)


def run_cli(*args: Any, fresh: bool = False, env: dict[str, str] | None = None,
            timeout: float = 300, cwd: Path = ROOT) -> CliResult:
    """Run `battlesight ARGS` and return its code, stdout and stderr.

    In this process through `battlesight.cli.main.main` (argparse's exits give their code), or,
    with `fresh=True`, as `python -m battlesight` in a new interpreter: for what only a fresh
    process shows (modules it imports, a closed pipe, environment variables like `env` adds).
    """
    argv = [str(a) for a in args]
    if fresh or env is not None:
        done = subprocess.run([sys.executable, "-m", "battlesight", *argv], capture_output=True,
                              text=True, cwd=cwd, env={**os.environ, **(env or {})},
                              timeout=timeout)
        return CliResult(done.returncode, done.stdout, done.stderr)
    from battlesight.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:
            code = 0 if stop.code is None else stop.code if isinstance(stop.code, int) else 1
    return CliResult(code, out.getvalue(), err.getvalue())


def one_line_error(err: str) -> str:
    """The one line of a refusal's standard error (checked to be one, with no traceback)."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def dedent(text: str) -> str:
    """Text without its common indentation (so tests can indent scene literals)."""
    return textwrap.dedent(text).lstrip("\n")


def write_scene(tmp_path: Path, scene: str | dict[str, Any], name: str = "scene.yaml") -> Path:
    """Write a scene file under tmp_path (YAML text dedented, or a scene dict dumped as YAML)
    and return its path."""
    path = Path(tmp_path) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    text = dedent(scene) if isinstance(scene, str) else yaml.safe_dump(scene, sort_keys=False)
    path.write_text(text, encoding="utf-8")
    return path


def minimal_with(terrain: str = "", models: str = "", top: str = "") -> str:
    """MINIMAL with extra terrain entries, model entries and top-level lines appended."""
    text = MINIMAL
    if terrain:
        text = text.replace("units:\n", _indent(terrain) + "units:\n", 1)
    if models:
        text = text + _indent(models)
    if top:
        text = text + dedent(top)
    return text


def _indent(block: str) -> str:
    lines = dedent(block).rstrip("\n").splitlines()
    return "".join(f"  {line}\n" for line in lines)


def thinned_scene(path: Path, per_unit: int = 2) -> Any:
    """A bundled example with at most per_unit models of each unit (the first ones, so every
    unit, lone model and terrain piece stays): the same kinds of pairs as the whole table for
    tests that compare every pair's verdict across surfaces, at a fraction of the pairs."""
    from battlesight.scenes import load_scene

    scene = load_scene(path)
    kept: dict[str, int] = {}
    models = []
    for model in scene.models:
        if model.unit is None or kept.get(model.unit, 0) < per_unit:
            models.append(model)
            if model.unit is not None:
                kept[model.unit] = kept.get(model.unit, 0) + 1
    scene.models[:] = models
    return scene


def thinned_example(path: Path, per_unit: int = 2) -> tuple[Any, Any]:
    """(scene, world) of `thinned_scene`."""
    from battlesight.scenes.build import build_world

    scene = thinned_scene(path, per_unit)
    return scene, build_world(scene)


def thinned_file(path: Path, folder: Path, per_unit: int = 2) -> Path:
    """`thinned_scene` saved in folder under the example's name, for the commands."""
    from battlesight.scenes.save import save_scene

    out = Path(folder) / Path(path).name
    save_scene(thinned_scene(path, per_unit), out)
    return out


def line_of(path_or_text: Path | str, needle: str, nth: int = 1) -> int:
    """1-based line of the nth line containing needle, in a file or a text."""
    text = path_or_text.read_text() if isinstance(path_or_text, Path) else path_or_text
    seen = 0
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            seen += 1
            if seen == nth:
                return i
    raise AssertionError(f"{needle!r} not found")

def cylinder_volume(radius: float, height: float, eye: float) -> ModelVolume:
    """An upright cylinder volume standing on the origin, eye on its axis."""
    mesh = trimesh.creation.cylinder(radius=radius, height=height, sections=64)
    mesh.apply_translation([0, 0, height / 2])
    return ModelVolume(mesh, np.zeros(len(mesh.faces), int), ("body",), np.array([0, 0, eye]))


def cylinder_world(
    positions: list[tuple[float, float]], radius: float, height: float, eye: float
) -> World:
    """A world with cylinder models m0, m1, ... at the given plan positions."""
    world = World((72.0, 48.0))
    volume = cylinder_volume(radius, height, eye)
    for i, at in enumerate(positions):
        world.add_model(f"m{i}", volume, at, facing=0.0, player=1 + i % 2, unit=f"u{i}")
    return world


def wall_geometry(
    x: float, height: float, thickness: float, centre_y: float = 0.0, width: float = 40.0
) -> TerrainGeometry:
    """A wall across the x axis at x, spanning y in centre_y +- width / 2."""
    box = trimesh.creation.box([thickness, width, height])
    box.apply_translation([x, centre_y, height / 2])
    return TerrainGeometry(box)
