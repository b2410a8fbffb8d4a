"""Read scene files: YAML with line numbers (still ``yaml.SafeLoader``), then validation.

Mappings read from a file become ``LineDict`` (``.line`` = line of the mapping,
``.lines[key]`` = line of each key) and sequences become ``LineList`` (``.lines[i]`` = line of
item i); ``checks.plain()`` turns them back into ordinary dicts and lists. Lines are 1-based.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from . import validate
from .errors import SceneError, SceneProblem
from .model import Scene


class LineDict(dict):
    """A dict that remembers where it and each of its keys were written."""

    line: int | None = None
    lines: dict[Any, int]

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.lines = {}


class LineList(list):
    """A list that remembers the line of each item."""

    line: int | None = None
    lines: list[int]

    def __init__(self, *args: Any):
        super().__init__(*args)
        self.lines = []


class LineLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that records line numbers and duplicate keys.

    Only the safe constructors are registered, so tags that build Python objects
    (``!!python/object`` ...) fail with a ConstructorError, which becomes a problem.
    """

    def __init__(self, stream: Any):
        super().__init__(stream)
        self.duplicates: list[tuple[int, str, int]] = []  # (line, key, first line)

    def construct_line_map(self, node: yaml.MappingNode):
        data = LineDict()
        data.line = node.start_mark.line + 1
        yield data
        explicit: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in explicit:
                    self.duplicates.append((line, str(key), explicit[key]))
                explicit.setdefault(key, line)
            except TypeError:
                pass  # unhashable key: construct_mapping reports it
        self.flatten_mapping(node)
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError as exc:
                raise yaml.constructor.ConstructorError(
                    "while constructing a mapping", node.start_mark,
                    "found unhashable key", key_node.start_mark) from exc
            data[key] = self.construct_object(value_node, deep=True)
            data.lines[key] = key_node.start_mark.line + 1

    def construct_line_seq(self, node: yaml.SequenceNode):
        data = LineList()
        data.line = node.start_mark.line + 1
        yield data
        for item in node.value:
            data.append(self.construct_object(item, deep=True))
            data.lines.append(item.start_mark.line + 1)


LineLoader.add_constructor("tag:yaml.org,2002:map", LineLoader.construct_line_map)
LineLoader.add_constructor("tag:yaml.org,2002:seq", LineLoader.construct_line_seq)


def parse_yaml(text: str, file: str) -> tuple[Any, list[SceneProblem]]:
    """YAML text -> (data with lines, problems). Syntax and constructor errors are problems."""
    loader = LineLoader(text)
    try:
        data = loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = " ".join(str(s) for s in (exc.context, exc.problem) if s)
        msg = f"YAML error: {what}" if what else "YAML error"
        if isinstance(exc, yaml.constructor.ConstructorError) and "tag" in msg:
            msg += " (only plain YAML data is allowed: tags that build objects are refused)"
        return None, [SceneProblem(file, line, "yaml", msg)]
    except yaml.YAMLError as exc:
        return None, [SceneProblem(file, None, "yaml", f"YAML error: {exc}")]
    except RecursionError:
        return None, [SceneProblem(file, None, "yaml", "YAML error: nesting too deep")]
    finally:
        loader.dispose()
    problems = [SceneProblem(file, line, key, f"duplicate key {key!r} (first at line {first})")
                for line, key, first in loader.duplicates]
    return data, problems


def _read(path: Path, file: str) -> tuple[str | None, list[SceneProblem]]:
    try:
        return path.read_text(encoding="utf-8-sig"), []
    except FileNotFoundError:
        return None, [SceneProblem(file, None, "file", "no such file")]
    except IsADirectoryError:
        return None, [SceneProblem(file, None, "file", "is a directory, not a scene file")]
    except UnicodeDecodeError as exc:
        return None, [SceneProblem(file, None, "file", f"not UTF-8 text ({exc.reason})")]
    except OSError as exc:
        return None, [SceneProblem(file, None, "file", f"cannot read: {exc.strerror or exc}")]


def _check_file(path: str | os.PathLike[str]) -> tuple[Scene | None, list[SceneProblem]]:
    p = Path(path)
    file = str(path)
    text, problems = _read(p, file)
    if text is None:
        return None, problems
    data, problems = parse_yaml(text, file)
    if data is None and problems:
        return None, problems
    scene, more = validate.build_scene(data, file, scene_dir=p.parent, default_name=p.stem,
                                       root_line=1)
    problems = sorted(problems + more, key=lambda q: (q.line is None, q.line or 0))
    if scene is not None:
        scene.path = p
    return scene, problems


def load_scene(path: str | os.PathLike[str]) -> Scene:
    """Read and validate a scene file; raises SceneError listing every problem found."""
    try:
        scene, problems = _check_file(path)
    except Exception as exc:  # a bug here must still reach the user as one line
        raise SceneError([_internal(path, exc)]) from exc
    if problems or scene is None:
        raise SceneError(problems or [SceneProblem(str(path), None, "", "cannot load scene")])
    return scene


def validate_scene_file(path: str | os.PathLike[str]) -> list[SceneProblem]:
    """Every problem of a scene file, sorted by line; [] when it is valid. Never raises."""
    try:
        return _check_file(path)[1]
    except Exception as exc:  # a bug must not become a traceback here
        return [_internal(path, exc)]


def _internal(path: str | os.PathLike[str], exc: Exception) -> SceneProblem:
    return SceneProblem(str(path), None, "", f"internal error while reading the scene: {exc!r}")


def scene_from_dict(data: Any, file: str = "<dict>", scene_dir: Path | None = None) -> Scene:
    """Build a Scene from already-parsed data (same checks as a file; lines are None).

    Mesh files resolve against ``scene_dir`` (when given), then the bundled assets.
    """
    scene, problems = validate.build_scene(data, file, scene_dir=scene_dir, default_name="")
    if problems or scene is None:
        raise SceneError(problems or [SceneProblem(file, None, "", "cannot build scene")])
    return scene
