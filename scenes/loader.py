"""Read scene files: bounded YAML with line numbers (``yamlread``), then validation.

Mappings read from a file are ``LineDict`` and sequences ``LineList`` (see ``yamlread``);
``checks.plain()`` turns them back into ordinary dicts and lists. Lines are 1-based.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from . import validate
from .errors import SceneError, SceneFileNotFound, SceneProblem
from .model import Scene
from .textfiles import NO_SUCH_FILE, file_label
from .yamlread import LineDict, LineList, merge_problems, parse_yaml, read_yaml

__all__ = ["LineDict", "LineList", "load_scene", "parse_yaml", "scene_from_dict",
           "validate_scene_file"]


def _check_file(path: str | os.PathLike[str],
                build: bool = True) -> tuple[Scene | None, list[SceneProblem]]:
    p = Path(file_label(path))  # `-`: standard input, its meshes resolved from here
    file = str(p)
    data, problems = read_yaml(path, "scene file")
    if data is None and problems:
        return None, problems
    scene, more = validate.build_scene(data, file, scene_dir=p.parent, default_name=p.stem,
                                       root_line=1, build=build)
    problems = merge_problems(problems, more)
    if scene is not None:
        scene.path = p
    return scene, problems


def load_scene(path: str | os.PathLike[str], build: bool = True) -> Scene:
    """Read and validate a scene file; raises SceneError listing every problem found.
    build=False: the builders' refusals wait for the world's build (`validate.build_scene`)."""
    try:
        scene, problems = _check_file(path, build)
    except Exception as exc:  # a bug here must still reach the user as one line
        raise SceneError([_internal(path, exc)]) from exc
    if problems or scene is None:
        missing = scene is None and len(problems) == 1 and problems[0].message == NO_SUCH_FILE
        raise (SceneFileNotFound if missing else SceneError)(
            problems or [SceneProblem(file_label(path), None, "", "cannot load scene")])
    return scene


def validate_scene_file(path: str | os.PathLike[str]) -> list[SceneProblem]:
    """Every problem of a scene file, sorted by line; [] when it is valid. Never raises."""
    return check_scene_file(path)[1]


def check_scene_file(path: str | os.PathLike[str]) -> tuple[Scene | None, list[SceneProblem]]:
    """The scene of a file and the format's problems with it. The scene is there whenever its
    shape could be read, even with problems the reader noted in values (a NaN among a model's
    rules data), so that `validate` can go on to report the rules' problems at once; a
    command must not use it unless there are no problems. Never raises."""
    try:
        return _check_file(path)
    except Exception as exc:  # a bug must not become a traceback here
        return None, [_internal(path, exc)]


def _internal(path: str | os.PathLike[str], exc: Exception) -> SceneProblem:
    # the exception's own text is the code's, not the user's: only its kind is named
    return SceneProblem(file_label(path), None, "",
                        f"internal error while reading the scene ({type(exc).__name__}): a "
                        "battlesight bug, not a problem of the file; please report it with "
                        "the file")


def scene_from_dict(data: Any, file: str = "<dict>", scene_dir: Path | None = None) -> Scene:
    """Build a Scene from already-parsed data (same checks as a file; lines are None).

    Mesh files resolve against ``scene_dir`` (when given), then the bundled assets.
    """
    scene, problems = validate.build_scene(data, file, scene_dir=scene_dir, default_name="")
    if problems or scene is None:
        raise SceneError(problems or [SceneProblem(file, None, "", "cannot build scene")])
    return scene
