"""The rules half of the scene gate: what a loaded scene's ruleset needs, checked before any
command judges it.

``check_scene`` gives the ruleset's problems with the rules data (``Ruleset.validate_scene``),
a warning per key that neither the scene format nor the ruleset reads, and one per mesh whose
size makes another unit far likelier (`scenes.mesh_warnings`). ``require_rules`` is
what every command's load step calls: SceneBuildError on an error (on a warning too when
strict), else the warnings to print.
"""

from __future__ import annotations

from battlesight.scenes.errors import SceneBuildError, SceneProblem
from battlesight.scenes.keys import FORMAT_KEYS, SceneWarning, unknown_keys
from battlesight.scenes.mesh_warnings import base_warnings, unit_warnings
from battlesight.scenes.model import Scene

from .deployment import find_map
from .ruleset import Ruleset, get_ruleset


def check_scene(scene: Scene, ruleset: Ruleset | None = None) -> list[SceneProblem]:
    """Problems of the scene's rules data, then unknown-key warnings (``SceneWarning``), each
    sorted by line."""
    ruleset = ruleset or get_ruleset(scene.ruleset)
    found = [*ruleset.validate_scene(scene), *_deployment_name(scene, ruleset)]
    errors = [SceneProblem(scene.file, scene.line_of(key), key, message) for key, message in found]
    warnings = unknown_keys(scene, FORMAT_KEYS | ruleset.scene_keys()) + unit_warnings(scene) \
        + base_warnings(scene)

    def order(p: SceneProblem) -> tuple[bool, int]:
        return p.line is None, p.line or 0

    return sorted(errors, key=order) + sorted(warnings, key=order)


def _deployment_name(scene: Scene, ruleset: Ruleset) -> list[tuple[str, str]]:
    """('deployment', why) when the scene names a deployment map its system does not have,
    refused here as `analyze` and the set-up checks would refuse it."""
    if not isinstance(scene.deployment, str) or not scene.deployment.strip():
        return []
    try:
        find_map(ruleset.deployment_maps, ruleset.id, scene.deployment)
    except ValueError as error:
        return [("deployment", str(error))]
    return []


def require_rules(scene: Scene, *, strict: bool = False,
                  ruleset: Ruleset | None = None) -> list[SceneWarning]:
    """The warnings of a scene whose rules data is usable; SceneBuildError (every problem and
    warning) when it is not, or when strict and there is any warning."""
    problems = check_scene(scene, ruleset)
    if any(strict or not isinstance(p, SceneWarning) for p in problems):
        raise SceneBuildError(problems)
    return [p for p in problems if isinstance(p, SceneWarning)]
