"""Shared test helpers: example scene paths and small scene files written on the fly."""

from __future__ import annotations

import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "scenes" / "examples"
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))
DEMO = EXAMPLES / "demo.yaml"
RULESET_EXAMPLES = {
    "wh40k6": EXAMPLES / "wh40k6_city_ruins.yaml",
    "wmh2": EXAMPLES / "wmh2_hills_forest.yaml",
    "whfb6": EXAMPLES / "whfb6_village.yaml",
    "aos2": EXAMPLES / "aos2_ruins_obstacles.yaml",
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


def dedent(text: str) -> str:
    """Text without its common indentation (so tests can indent scene literals)."""
    return textwrap.dedent(text).lstrip("\n")


def write_scene(tmp_path: Path, text: str, name: str = "scene.yaml") -> Path:
    """Write a scene file (dedented) under tmp_path and return its path."""
    path = Path(tmp_path) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dedent(text), encoding="utf-8")
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
