"""The scene format (v1): load, validate and save YAML scenes; terrain footprints.

The format's data lives here; `build` turns a scene into the meshes of a `geometry.World`,
and footprints, mesh files and limits read geometry where they must. See docs/scene-format.md.

The names below are imported on first use (PEP 562), so that importing a light submodule
(`battlesight.scenes.errors`, `.limits`) does not import trimesh and scipy through the
footprints: every command starts faster (`battlesight --version` imports none of it).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .lazy import lazy_names

if TYPE_CHECKING:
    from .errors import SceneError, SceneFileNotFound, SceneProblem
    from .footprints import piece_footprint
    from .loader import load_scene, scene_from_dict, validate_scene_file
    from .model import TERRAIN_TYPES, ModelSpec, Scene, TerrainPiece
    from .paths import ASSETS_DIR, resolve_mesh_file
    from .save import save_scene, scene_to_dict
    from .systems import system_ids

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
DEFAULT_SCENE = EXAMPLES_DIR / "demo.yaml"

#: public name -> the submodule that defines it
_LAZY = {
    "SceneError": "errors", "SceneFileNotFound": "errors", "SceneProblem": "errors",
    "piece_footprint": "footprints",
    "load_scene": "loader", "scene_from_dict": "loader", "validate_scene_file": "loader",
    "TERRAIN_TYPES": "model", "ModelSpec": "model", "Scene": "model",
    "TerrainPiece": "model",
    "ASSETS_DIR": "paths", "resolve_mesh_file": "paths",
    "save_scene": "save", "scene_to_dict": "save",
    "system_ids": "systems",
}

__all__ = [
    "ASSETS_DIR",
    "DEFAULT_SCENE",
    "EXAMPLES_DIR",
    "TERRAIN_TYPES",
    "ModelSpec",
    "Scene",
    "SceneError",
    "SceneFileNotFound",
    "SceneProblem",
    "TerrainPiece",
    "load_scene",
    "piece_footprint",
    "resolve_mesh_file",
    "save_scene",
    "scene_from_dict",
    "scene_to_dict",
    "system_ids",
    "validate_scene_file",
]


__getattr__ = lazy_names(__name__, _LAZY)
