"""Layout analysis, the terrain designer's tools: standard models, deployment maps, layout
checks, the sight-line figures of a layout (on the sight-grid engine of
`battlesight.geometry.sightgrid`), random legal layouts, and batches of analyses (serial or on
Dask).
What belongs to a system (its maps, set-up rules, checks, standard model) is declared by its
ruleset package; this package reads it from the `Ruleset`.

No Panda3D here; `viewer` draws and edits on top of this package.
"""

from .analyze import LayoutAnalysis, analyze_scene, terrain_world
from .checks import Check, SightFacts, layout_checks, legal
from .generate import SetupRules, generate_layout, setup_rules, setup_systems
from .maps import Deployment, DeploymentMap, deployment_map, deployment_maps, scene_deployment
from .standard import StandardModel, standard_model, standard_models

__all__ = [
    "Check",
    "Deployment",
    "DeploymentMap",
    "LayoutAnalysis",
    "SetupRules",
    "SightFacts",
    "StandardModel",
    "analyze_scene",
    "deployment_map",
    "deployment_maps",
    "generate_layout",
    "layout_checks",
    "legal",
    "scene_deployment",
    "setup_rules",
    "setup_systems",
    "standard_model",
    "standard_models",
    "terrain_world",
]
