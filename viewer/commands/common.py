"""Helpers shared by the command modules: loading a scene and its world, checking ids."""

from __future__ import annotations

import argparse
import json
import sys

from geometry.world import World
from scenes import load_scene
from scenes.build import build_world
from scenes.model import Scene
from viewer.errors import UsageError


def add_scene_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("scene", metavar="SCENE", help="scene file (YAML, format 1)")


def load(path: str) -> tuple[Scene, World]:
    """The scene at path (SceneError on bad input) and its world."""
    scene = load_scene(path)
    return scene, build_world(scene)


def require_model(scene: Scene, model_id: str) -> None:
    """UsageError naming the scene's models when model_id is not one of them."""
    ids = [m.id for m in scene.models]
    if model_id not in ids:
        known = ", ".join(ids[:12]) + (" ..." if len(ids) > 12 else "")
        raise UsageError(f"no model {model_id!r} in {scene.path}; models: {known}")


def print_json(data) -> None:
    json.dump(data, sys.stdout, indent=2)
    sys.stdout.write("\n")


def table(rows: list[list[str]], header: list[str]) -> str:
    """A plain text table with aligned columns."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in rows:
        lines.append("  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    return "\n".join(lines)
