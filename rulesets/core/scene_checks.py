"""The rules half of the scene gate: what a loaded scene's ruleset needs, checked before any
command judges it.

``check_scene`` gives the ruleset's problems with the rules data (``Ruleset.validate_scene``),
a warning per key that neither the scene format nor the ruleset reads, one per mesh whose
size makes another unit far likelier (`scenes.mesh_warnings`), one per physical mistake of the
table (`scenes.physical`: overlapping bases, a model inside a wall, ...) and one per model
taller than the system's models of its type (`height_warnings`). ``require_rules`` is
what every command's load step calls: SceneBuildError on an error (on a warning too when
strict), else the warnings to print.
"""

from __future__ import annotations

from battlesight.scenes.errors import SceneBuildError, SceneProblem
from battlesight.scenes.keys import FORMAT_KEYS, SceneWarning, unknown_keys
from battlesight.scenes.mesh_warnings import base_warnings, unit_warnings
from battlesight.scenes.model import MM_PER_INCH, Scene
from battlesight.scenes.physical import physical_warnings

from .deployment import find_map
from .rules_data import LOAD_ERRORS
from .ruleset import Ruleset, get_ruleset


def check_scene(scene: Scene, ruleset: Ruleset | None = None) -> list[SceneProblem]:
    """Problems of the scene's rules data, then unknown-key warnings (``SceneWarning``), each
    sorted by line."""
    ruleset = ruleset or get_ruleset(scene.ruleset)
    found = [*ruleset.validate_scene(scene), *_deployment_name(scene, ruleset)]
    errors = [SceneProblem(scene.file, scene.line_of(key), key, message) for key, message in found]
    warnings = unknown_keys(scene, FORMAT_KEYS | ruleset.scene_keys()) + unit_warnings(scene) \
        + base_warnings(scene) + physical_warnings(scene)
    if not errors:  # a profile the rules refuse has no type to bound
        warnings += height_warnings(scene, ruleset)

    def order(p: SceneProblem) -> tuple[bool, int]:
        return p.line is None, p.line or 0

    return sorted(errors, key=order) + sorted(warnings, key=order)


def height_warnings(scene: Scene, ruleset: Ruleset) -> list[SceneWarning]:
    """A warning per model whose written `height` is above the tallest of its type in the
    system (`Ruleset.model_heights`, by `Ruleset.model_type` of its profile): most likely
    millimetres written for inches. A mesh model's own measured height is
    `scenes.mesh_warnings`' to judge."""
    out: list[SceneWarning] = []
    lowest = min(ruleset.model_heights.values())
    for spec in scene.models:
        if "height" in spec.measured or spec.height <= lowest:  # within every type's bound
            continue
        try:
            kind = ruleset.model_type(ruleset.load_profile(ruleset.raw_profile(scene, spec), spec))
        except LOAD_ERRORS:
            continue  # validate_scene reports a profile it cannot load
        tallest = ruleset.model_heights.get(kind, ruleset.model_heights[""])
        if spec.height <= tallest:
            continue
        key = f"models[{spec.id}].height"
        what = f"{kind} model" if kind else "model"
        out.append(SceneWarning(
            scene.file, scene.line_of(key), key,
            f"{spec.height:g}\" is taller than any {ruleset.id} {what} (at most {tallest:g}\"): "
            f"heights are inches; if it is millimetres, write height: "
            f"{spec.height / MM_PER_INCH:.2g}"))
    return out
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
