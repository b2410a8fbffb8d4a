"""The scene format (v1): load, validate and save YAML scenes; terrain footprints.

Pure data: no meshes here (see ``geometry``). See docs/scene-format.md.
"""

from pathlib import Path

from .errors import SceneError, SceneProblem
from .footprints import piece_footprint
from .loader import load_scene, scene_from_dict, validate_scene_file
from .model import RULESET_IDS, TERRAIN_TYPES, ModelSpec, Scene, TerrainPiece
from .paths import ASSETS_DIR, resolve_mesh_file
from .save import save_scene, scene_to_dict

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
DEFAULT_SCENE = EXAMPLES_DIR / "demo.yaml"

__all__ = [
    "ASSETS_DIR",
    "DEFAULT_SCENE",
    "EXAMPLES_DIR",
    "RULESET_IDS",
    "TERRAIN_TYPES",
    "ModelSpec",
    "Scene",
    "SceneError",
    "SceneProblem",
    "TerrainPiece",
    "load_scene",
    "piece_footprint",
    "resolve_mesh_file",
    "save_scene",
    "scene_from_dict",
    "scene_to_dict",
    "validate_scene_file",
]
