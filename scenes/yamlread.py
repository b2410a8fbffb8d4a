"""Read one YAML file safely: bounded, with line numbers, plain data only.

Scenes and actions files both come through here. The file must be a regular file (devices,
FIFOs and folders are refused before reading, and it is opened non-blocking) or standard
input (`-`), at most ``limits.MAX_YAML_BYTES``, UTF-8 (``textfiles.read_text``). Parsing
is libyaml's when PyYAML has it (pure Python otherwise); composing counts nodes as it goes,
every alias counted as a copy of what it names, so an alias bomb, a document too deep or too
large is refused while it is read. Only the safe tags are built; numbers must be finite and
fit 64 bits; dates stay the text written.

Mappings become ``LineDict`` (``.line`` = line of the mapping, ``.lines[key]`` = line of each
key) and sequences ``LineList`` (``.lines[i]`` = line of item i); lines are 1-based.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.events import AliasEvent
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.scanner import Scanner

from . import limits
from .errors import SceneProblem
from .textfiles import file_label, read_text


class PyParser(Reader, Scanner, Parser):
    """PyYAML's pure-Python reader, scanner and parser (the fallback)."""

    def __init__(self, stream: Any):
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)


try:  # libyaml's scanner and parser: several times faster than the pure-Python one
    from yaml._yaml import CParser as FastParser

    FAST = True
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    FastParser = PyParser  # type: ignore[misc]
    FAST = False

#: PyYAML's safe loader on libyaml where it has it: the same data, 5-8x faster
SafeDataLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def package_data(text: str) -> Any:
    """The plain data of a YAML file shipped with battlesight (a ruleset's tables, read at
    every command that judges): `yaml.safe_load`'s result, on libyaml where PyYAML has it. No
    line numbers and no limits: the file is ours, not the user's (those go through
    `read_yaml`)."""
    return yaml.load(text, Loader=SafeDataLoader)


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


class Refused(yaml.MarkedYAMLError):
    """Input the reader will not build: a limit passed, a tag not allowed (``.reason``)."""

    def __init__(self, reason: str, mark: Any):
        super().__init__(problem=reason, problem_mark=mark)
        self.reason = reason


class _BoundedComposer(Composer):
    """The composer with bounds: nesting depth, nodes (aliases expanded), string length."""

    def __init__(self) -> None:
        super().__init__()
        self._depth = 0
        self._expanded = 0
        self._weights: dict[int, int] = {}  # id(anchored node) -> its expanded size

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(AliasEvent):
            event = self.peek_event()
            node = super().compose_node(parent, index)
            weight = self._weights.get(id(node))
            if weight is None:
                raise Refused(f"YAML error: alias *{limits.shorten(event.anchor, 40)} refers to a "
                              "mapping or list that holds it (recursive data is refused)",
                              event.start_mark)
            self._count(weight, event.start_mark)
            return node
        event = self.peek_event()
        self._depth += 1
        if self._depth > limits.MAX_YAML_DEPTH:
            raise Refused(f"nested deeper than {limits.MAX_YAML_DEPTH} levels", event.start_mark)
        before = self._expanded
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= 1
        if isinstance(node, yaml.ScalarNode) and len(node.value) > limits.MAX_YAML_STRING:
            raise Refused(f"a string of {len(node.value):,} characters (the limit is "
                          f"{limits.MAX_YAML_STRING:,})", event.start_mark)
        self._count(1, event.start_mark)
        if event.anchor is not None:
            self._weights[id(node)] = self._expanded - before
        return node

    def _count(self, nodes: int, mark: Any) -> None:
        self._expanded += nodes
        if self._expanded > limits.MAX_YAML_NODES:
            raise Refused(f"more than {limits.MAX_YAML_NODES:,} values (an alias counts as a copy "
                          "of what it names): too large to read", mark)


class _LineLoading(_BoundedComposer, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """Safe loading that records line numbers and duplicate keys, within ``limits``; the
    parser comes from the class that mixes this in (``_PARSER``).

    Only the safe constructors are registered, so tags that build Python objects
    (``!!python/object`` ...) fail with a ConstructorError, which becomes a problem.
    """

    _PARSER: Any = None

    def __init__(self, stream: Any):
        self._PARSER.__init__(self, stream)
        _BoundedComposer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)
        self.duplicates: list[tuple[int, Any, int]] = []  # (line, key, first line)
        # (line, key path, message, whether the data holds None in its place)
        self.bad_numbers: list[tuple[int, str, str, bool]] = []
        self._path: list[str] = []

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
                    self.duplicates.append((line, key, explicit[key]))
                explicit.setdefault(key, line)
            except TypeError:
                pass  # unhashable key: reported below
        self.flatten_mapping(node)
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise Refused("YAML error: found unhashable key (a mapping or list used as a key)",
                              key_node.start_mark) from None
            self._path.append(str(key))
            try:
                data[key] = self.construct_object(value_node, deep=True)
            finally:
                self._path.pop()
            data.lines[key] = key_node.start_mark.line + 1

    def construct_line_seq(self, node: yaml.SequenceNode):
        data = LineList()
        data.line = node.start_mark.line + 1
        yield data
        for i, item in enumerate(node.value):
            self._path.append(f"[{_item_label(item, i)}]")
            try:
                data.append(self.construct_object(item, deep=True))
            finally:
                self._path.pop()
            data.lines.append(item.start_mark.line + 1)

    def _bad_number(self, node: yaml.ScalarNode, message: str, lost: bool = False) -> None:
        self.bad_numbers.append((node.start_mark.line + 1, key_path(self._path) or "yaml",
                                 f"{limits.shorten(node.value, 40)}: {message}", lost))

    def construct_finite_float(self, node: yaml.ScalarNode) -> float:
        """A float; NaN and infinities (``.nan``, ``.inf``, ``1.0e+400``) are kept but noted
        as problems, so that the file is refused with every problem at once."""
        value = self.construct_yaml_float(node)
        if not math.isfinite(value):
            self._bad_number(node, "not a finite number (NaN, infinities and numbers too "
                                   "large are refused)")
        return value

    def construct_bounded_int(self, node: yaml.ScalarNode) -> int | None:
        """A whole number within ``limits.MAX_INT`` (noted as a problem, and None, if not)."""
        value = None
        if len(node.value) <= 40:
            try:
                value = self.construct_yaml_int(node)
            except ValueError:
                value = None
        if value is None or abs(value) > limits.MAX_INT:
            self._bad_number(node, f"whole number too large (the limit is {limits.MAX_INT:,})",
                             lost=True)
            return None
        return value

    def construct_timestamp_text(self, node: yaml.ScalarNode) -> str:
        """Dates and times stay the text written (they are plain data, and JSON has none)."""
        return str(node.value)

    def construct_refused(self, node: yaml.Node) -> Any:
        raise Refused(f"tag {node.tag} is not allowed (only mappings, lists, strings, numbers, "
                      "true/false and null)", node.start_mark)


class LineLoader(_LineLoading, FastParser):
    """The loader used: libyaml's parser when PyYAML has it."""

    _PARSER = FastParser


class PyLineLoader(_LineLoading, PyParser):
    """The same loader on the pure-Python parser (the fallback, kept tested)."""

    _PARSER = PyParser


for _loader in (LineLoader, PyLineLoader):
    _loader.add_constructor("tag:yaml.org,2002:map", _LineLoading.construct_line_map)
    _loader.add_constructor("tag:yaml.org,2002:seq", _LineLoading.construct_line_seq)
    _loader.add_constructor("tag:yaml.org,2002:float", _LineLoading.construct_finite_float)
    _loader.add_constructor("tag:yaml.org,2002:int", _LineLoading.construct_bounded_int)
    _loader.add_constructor("tag:yaml.org,2002:timestamp",
                            _LineLoading.construct_timestamp_text)
    for _tag in ("binary", "set", "omap", "pairs"):
        _loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _LineLoading.construct_refused)


def _item_label(item: yaml.Node, index: int) -> str:
    """A list item's name in a key path: its ``id`` when it is a mapping with one (as the
    validator names items), else its index."""
    if isinstance(item, yaml.MappingNode):
        for key, value in item.value:
            if (isinstance(key, yaml.ScalarNode) and key.value == "id"
                    and isinstance(value, yaml.ScalarNode) and value.value.strip()):
                return limits.shorten(value.value, 40)
    return str(index)


def key_path(parts: list[str]) -> str:
    """['terrain', '[2]', 'trunks'] -> 'terrain[2].trunks' (cut to a readable length)."""
    text = ""
    for part in parts:
        text += part if part.startswith("[") or not text else f".{part}"
    return limits.shorten(text, 120)


def parse_yaml(text: str, file: str, loader_class: type = LineLoader
               ) -> tuple[Any, list[SceneProblem]]:
    """YAML text -> (data with lines, problems). Syntax, limit and constructor errors are
    problems, each one line."""
    loader = loader_class(text)
    try:
        data = loader.get_single_data()
    except Refused as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark is not None else None
        return None, [SceneProblem(file, line, key_path(loader._path) or "yaml", exc.reason)]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        what = " ".join(str(s) for s in (exc.context, exc.problem) if s)
        msg = f"YAML error: {what}" if what else "YAML error"
        if isinstance(exc, yaml.constructor.ConstructorError) and "tag" in msg:
            msg += " (only plain YAML data is allowed: tags that build objects are refused)"
        return None, [SceneProblem(file, line, "yaml", limits.shorten(msg, 300))]
    except yaml.YAMLError as exc:
        return None, [SceneProblem(file, None, "yaml", limits.shorten(f"YAML error: {exc}", 300))]
    except RecursionError:  # guarded by MAX_YAML_DEPTH; kept so it can never be a traceback
        return None, [SceneProblem(file, None, "yaml", "YAML error: nesting too deep")]
    finally:
        loader.dispose()
    problems = [SceneProblem(file, line, limits.shorten(str(key), 120),
                             f"duplicate key {limits.shown(key)} (first at line {first})")
                for line, key, first in loader.duplicates]
    problems += [(LostNumber if lost else NumberProblem)(file, line, key, message)
                 for line, key, message, lost in loader.bad_numbers]
    return data, problems


class NumberProblem(SceneProblem):
    """A number the reader refused that the data still holds (NaN, infinite): a checker that
    reads the key may report it in its own words (see ``merge_problems``)."""


class LostNumber(NumberProblem):
    """A whole number too large to hold: the data holds None in its place, so a checker that
    reads the key would only say it got None (see ``merge_problems``)."""


def merge_problems(read: list[SceneProblem], checked: list[SceneProblem]
                   ) -> list[SceneProblem]:
    """The reader's and a checker's problems, sorted by line. Where both speak of one value
    (the same line, the reader's key at or below the checker's), one message is kept: the
    checker's for a number the data still holds ("must be a finite number"), the reader's for
    one it could not hold (the checker saw None; "whole number too large" says what is
    wrong). A checker's warning (an unknown key) covers nothing: a number no command can read
    is an error wherever it stands, so the gate refuses what every command would refuse."""
    def same_value(n: SceneProblem, q: SceneProblem) -> bool:
        return q.level == "error" and n.line == q.line and (
            n.key == q.key or n.key.startswith((f"{q.key}[", f"{q.key}.")))

    lost = [p for p in read if isinstance(p, LostNumber)]
    kept_read = [p for p in read if isinstance(p, LostNumber) or not (
        isinstance(p, NumberProblem) and any(same_value(p, q) for q in checked))]
    kept_checked = [q for q in checked if not any(same_value(n, q) for n in lost)]
    return sorted(kept_read + kept_checked, key=lambda q: (q.line is None, q.line or 0))


def read_yaml(path: str | os.PathLike[str], what: str = "scene file"
              ) -> tuple[Any, list[SceneProblem]]:
    """Read and parse one YAML file (standard input for `-`): (data with lines, problems);
    data is None on failure."""
    file = file_label(path)
    text, problems = read_text(Path(path), file, what)
    if text is None:
        return None, problems
    return parse_yaml(text, file)
