"""Rewrite only what changed in a YAML text: the user's comments, order and spacing stay.

`patch_yaml(text, old, new)` takes the text, the plain data it stands for (``old``, in any
normal form: keys the text leaves out are defaults) and the data wanted (``new``), and returns
the text with the spans of the values that differ replaced, keys and list items added or
removed, and every other character as it was. A changed number in ``at: [12, 6]`` replaces the
``12`` alone; an added list item copies its siblings' style (flow ``{...}`` or block, their
indentation); lists of mappings with ``id`` keys (terrain, models, units) are matched by id.

The positions come from PyYAML's pure-Python composer (character marks). A full round-trip
dump (ruamel.yaml's) re-indents the whole file and respaces flow lists, so a one-number edit
would touch many lines. The result is only a proposal: `scenes.save` reloads it and keeps it
only when it reads back as ``new``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .yamldump import dump_yaml, flow_yaml


class CannotPatch(Exception):
    """The text cannot be edited in place (edits would overlap); write the full form."""


@dataclass(frozen=True)
class _Edit:
    start: int
    end: int
    text: str
    order: int  # creation order: inserts at one point keep it


def same(a: Any, b: Any) -> bool:
    """Equal as scene data: 12 == 12.0, but True is not 1 and a list equals a tuple."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (dict, list, tuple)) or isinstance(b, (dict, list, tuple)):
        return False
    return bool(a == b)


def _leafy(value: Any) -> bool:
    """A value written on one line in the clean form: a scalar, or a list or mapping of
    scalars and of lists of scalars (points, polygons)."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) \
        else None
    if items is None:
        return True
    return all(not isinstance(v, (dict, list)) or (isinstance(v, list) and all(
        not isinstance(x, (dict, list)) for x in v)) for v in items)


def _id_items(values: Any) -> dict[Any, dict] | None:
    """{id: item} for a list of mappings that all have distinct ids; None otherwise."""
    if not isinstance(values, list) or not all(isinstance(v, dict) and "id" in v
                                               for v in values):
        return None
    found = {}
    for item in values:
        if not isinstance(item["id"], str) or item["id"] in found:
            return None
        found[item["id"]] = item
    return found


class _Patcher:
    """The edits that turn one YAML text's values from old into new."""

    def __init__(self, text: str):
        self.text = text
        self.root = yaml.compose(text, Loader=yaml.SafeLoader)
        self.newline = "\r\n" if "\r\n" in text else "\n"
        self.edits: list[_Edit] = []
        self._constructor = yaml.constructor.SafeConstructor()
        self.step = self._indent_step(self.root) or 2
        self.in_flow: set[int] = set()  # ids of the nodes inside a flow collection
        self._mark_flow(self.root, False)
        self._opened: set[int] = set()  # empty flow collections given an entry already

    # ---- reading the text ------------------------------------------------------------------

    def value(self, node: Node) -> Any:
        """The plain value a node stands for."""
        return self._constructor.construct_object(node, deep=True)

    def keys(self, node: MappingNode) -> dict[Any, tuple[Node, Node]]:
        """{key: (key node, value node)} of a mapping's scalar keys."""
        found = {}
        for key, value in node.value:
            if isinstance(key, ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                found[self.value(key)] = (key, value)
        return found

    def _mark_flow(self, node: Node | None, inside: bool) -> None:
        if node is None:
            return
        if inside:
            self.in_flow.add(id(node))
        inner = inside or bool(getattr(node, "flow_style", False))
        children = [n for pair in node.value for n in pair] if isinstance(node, MappingNode) \
            else node.value if isinstance(node, SequenceNode) else []
        for child in children:
            self._mark_flow(child, inner)

    def _first_entry(self, node: Node) -> str:
        """The separator before an entry added to an empty flow collection: none for the
        first, a comma for the next ones."""
        if id(node) in self._opened:
            return ", "
        self._opened.add(id(node))
        return ""

    def _indent_step(self, node: Node, column: int | None = None) -> int | None:
        """How far the text indents a block mapping inside another (None: it never does)."""
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if column is not None and not node.flow_style:
                    inner = key.start_mark.column - column
                    if inner > 0:
                        return inner
                found = self._indent_step(value, None if node.flow_style
                                          else key.start_mark.column)
                if found:
                    return found
        elif isinstance(node, SequenceNode) and not node.flow_style:
            for item in node.value:
                found = self._indent_step(item, None)
                if found:
                    return found
        return None

    def end(self, node: Node) -> int:
        """Where a node's own text ends (a block collection: its last value's end; trailing
        line breaks of a block scalar left out)."""
        if isinstance(node, ScalarNode) or node.flow_style or not node.value:
            stop = node.end_mark.index
            while stop > node.start_mark.index and self.text[stop - 1] in " \t\r\n":
                stop -= 1
            return stop
        last = node.value[-1]
        return self.end(last[1] if isinstance(node, MappingNode) else last)

    def line_end(self, pos: int) -> int:
        """Where the line holding pos ends (before its line break), comments included."""
        stop = self.text.find("\n", pos)
        if stop == -1:
            return len(self.text)
        return stop - 1 if stop > 0 and self.text[stop - 1] == "\r" else stop

    def next_line(self, pos: int) -> int:
        """The start of the line after the one holding pos (the text's end on the last)."""
        stop = self.text.find("\n", pos)
        return len(self.text) if stop == -1 else stop + 1

    def line_start(self, pos: int) -> int:
        return self.text.rfind("\n", 0, pos) + 1

    def alone(self, pos: int) -> bool:
        """Whether only spaces stand before pos on its line."""
        return not self.text[self.line_start(pos):pos].strip()

    def dash(self, item: Node) -> int:
        """Where the ``-`` of a block sequence item stands."""
        pos = item.start_mark.index - 1
        while pos >= 0 and self.text[pos] in " \t\r\n":
            pos -= 1
        if pos < 0 or self.text[pos] != "-" or not self.alone(pos):
            raise CannotPatch("a sequence item that is not alone on its line")
        return pos

    # ---- writing ---------------------------------------------------------------------------

    def edit(self, start: int, end: int, text: str) -> None:
        self.edits.append(_Edit(start, end, text.replace("\n", self.newline), len(self.edits)))

    def block(self, value: Any, column: int) -> str:
        """Block YAML of value, its lines after the first indented to column."""
        if not isinstance(value, (dict, list)):
            return flow_yaml(value)
        lines = dump_yaml(value, indent=self.step).rstrip("\n").split("\n")
        return "\n".join([lines[0], *(" " * column + line for line in lines[1:])])

    def entry(self, key: Any, value: Any, column: int) -> str:
        """``key: value`` for a block mapping whose keys stand at column: on one line when
        the clean form writes it so, else the value in block style below."""
        if _leafy(value):
            return f"{flow_yaml(key)}: {flow_yaml(value)}"
        inner = column + self.step
        return f"{flow_yaml(key)}:\n" + " " * inner + self.block(value, inner)

    def result(self) -> str:
        """The text with every edit made; CannotPatch when two edits overlap."""
        edits = sorted(self.edits, key=lambda e: (e.start, e.end, e.order))
        for before, after in zip(edits, edits[1:], strict=False):
            if after.start < before.end:
                raise CannotPatch("two edits overlap")
        text = self.text
        for e in sorted(self.edits, key=lambda e: (e.start, e.order), reverse=True):
            text = text[:e.start] + e.text + text[e.end:]
        return text

    # ---- patching --------------------------------------------------------------------------

    def patch(self, node: Node, old: Any, new: Any, column: int,
              colon: int | None = None) -> None:
        """Edit node (standing for old) to stand for new. column: where a value written in
        block style under node's key would start its lines; colon: just after that key's
        ``:`` (None for a list item)."""
        if same(old, new):
            return
        if isinstance(node, MappingNode) and isinstance(old, dict) and isinstance(new, dict):
            self.patch_mapping(node, old, new, column, colon)
        elif isinstance(node, SequenceNode) and isinstance(old, list) and isinstance(new, list):
            self.patch_sequence(node, old, new, column, colon)
        else:
            self.replace(node, new, column, colon)

    def replace(self, node: Node, new: Any, column: int, colon: int | None = None) -> None:
        """Write new where node's text stands: on one line where node is a scalar or a flow
        collection or new is written so in the clean form, else in block style."""
        start, stop = node.start_mark.index, self.end(node)
        inline = isinstance(node, ScalarNode) or node.flow_style
        blank = (not isinstance(node, ScalarNode) and not node.value) or (
            isinstance(node, ScalarNode) and self.value(node) is None)
        if _leafy(new) or id(node) in self.in_flow or (inline and (not blank or colon is None)):
            quote = node.style if isinstance(node, ScalarNode) else None
            if inline or colon is None:
                self.edit(start, stop, flow_yaml(new, quote))
            else:  # a block collection under a key becomes one line after the key
                self.edit(colon, stop, " " + flow_yaml(new))
        elif colon is not None:
            self.edit(colon, stop, "\n" + " " * column + self.block(new, column))
        else:
            self.edit(start, stop, self.block(new, node.start_mark.column))

    def colon(self, key: Node) -> int | None:
        """Just after the ``:`` that follows a mapping key."""
        found = self.text.find(":", key.end_mark.index)
        return None if found == -1 else found + 1

    def patch_mapping(self, node: MappingNode, old: dict, new: dict, column: int,
                      colon: int | None) -> None:
        """Keys the text holds patched where they changed, new ones added after the key
        before them, removed ones deleted; a mapping left empty is written ``{}``."""
        if not new:
            self.replace(node, new, column, colon)
            return
        written = self.keys(node)
        previous = None  # the last key of new that the text holds
        for key, value in new.items():
            if key in written:
                key_node, value_node = written[key]
                column = key_node.start_mark.column + self.step
                if key not in old:
                    self.replace(value_node, value, column, self.colon(key_node))
                else:
                    self.patch(value_node, old[key], value, column, self.colon(key_node))
                previous = key
            elif key not in old or not same(old[key], value):
                self.insert_key(node, previous, key, value)
        for key in old:
            if key not in new and key in written:
                self.delete_pair(node, written[key][0])

    def insert_key(self, node: MappingNode, after: Any, key: Any, value: Any) -> None:
        """Add key: value after the pair of key `after` (None: before the first pair when it
        starts its line, else after the last)."""
        pairs = node.value
        anchor = self.keys(node)[after][1] if after is not None else (
            pairs[-1][1] if pairs else None)
        if node.flow_style or not pairs:
            entry = f"{flow_yaml(key)}: {flow_yaml(value)}"
            if anchor is None:
                self.edit(node.start_mark.index + 1, node.start_mark.index + 1,
                          self._first_entry(node) + entry)
            else:
                self.edit(self.end(anchor), self.end(anchor), ", " + entry)
            return
        first = pairs[0][0].start_mark
        text = " " * first.column + self.entry(key, value, first.column)
        if after is None and self.alone(first.index):
            self.edit(self.line_start(first.index), self.line_start(first.index), text + "\n")
        else:
            pos = self.line_end(self.end(anchor))
            self.edit(pos, pos, "\n" + text)

    def delete_pair(self, node: MappingNode, key_node: Node) -> None:
        pairs = node.value
        index = next(i for i, (k, _) in enumerate(pairs) if k is key_node)
        self.delete_entry(node, [(k.start_mark.index, self.end(v)) for k, v in pairs], index)

    def delete_entry(self, node: Node, spans: list[tuple[int, int]], index: int) -> None:
        """Remove entry `index` (spans: each entry's start and end) of a collection."""
        start, stop = spans[index]
        if not node.flow_style and self.alone(start):
            self.edit(self.line_start(start), self.next_line(stop), "")
        elif node.flow_style and index > 0:
            self.edit(spans[index - 1][1], stop, "")
        elif index + 1 < len(spans):
            self.edit(start, spans[index + 1][0], "")
        else:
            raise CannotPatch("the only entry of a collection that shares its line")

    def patch_sequence(self, node: SequenceNode, old: list, new: list, column: int,
                       colon: int | None) -> None:
        """Items matched by id where old and new are lists of mappings with ids, else by
        position: extra items added after the last, missing ones removed from the end."""
        old_ids, new_ids = _id_items(old), _id_items(new)
        items = node.value
        written = {self._item_id(item): item for item in items}
        if old_ids is not None and new_ids is not None and len(written) == len(items) \
                and set(written) == set(old_ids):
            kept = [i for i in written if i in new_ids]
            if kept == [i for i in new_ids if i in written]:
                self.patch_by_id(node, written, old_ids, new_ids)
                return
        if len(items) != len(old) or not new:
            self.replace(node, new, column, colon)
            return
        for item, before, after in zip(items, old, new, strict=False):
            self.patch(item, before, after, item.start_mark.column)
        for item in new[len(items):]:
            self.insert_item(node, items[-1] if items else None, item)
        spans = self.item_spans(node)
        for index in range(len(new), len(items)):
            self.delete_entry(node, spans, index)

    def _item_id(self, item: Node) -> Any:
        if isinstance(item, MappingNode):
            found = self.keys(item).get("id")
            if found is not None:
                return self.value(found[1])
        return None

    def patch_by_id(self, node: SequenceNode, written: dict[Any, Node], old: dict[Any, dict],
                    new: dict[Any, dict]) -> None:
        """Entries matched by id: each kept one patched, new ones added after the kept entry
        before them, removed ones deleted."""
        previous = None
        for ident, item in new.items():
            if ident in written:
                node_item = written[ident]
                self.patch(node_item, old[ident], item, node_item.start_mark.column)
                previous = node_item
            else:
                self.insert_item(node, previous, item)
        spans = self.item_spans(node)
        for index, item in enumerate(node.value):
            if self._item_id(item) not in new:
                self.delete_entry(node, spans, index)

    def item_spans(self, node: SequenceNode) -> list[tuple[int, int]]:
        if node.flow_style:
            return [(item.start_mark.index, self.end(item)) for item in node.value]
        return [(self.dash(item), self.end(item)) for item in node.value]

    def insert_item(self, node: SequenceNode, after: Node | None, item: Any) -> None:
        """Add item after the entry `after` (None: before the first), styled like its
        neighbour: a flow mapping beside flow mappings, block beside block, same indent."""
        items = node.value
        if node.flow_style or not items:
            text = flow_yaml(item)
            if not items:
                self.edit(node.start_mark.index + 1, node.start_mark.index + 1,
                          self._first_entry(node) + text)
            elif after is None:
                self.edit(items[0].start_mark.index, items[0].start_mark.index, text + ", ")
            else:
                self.edit(self.end(after), self.end(after), ", " + text)
            return
        model = after if after is not None else items[0]
        dash = self.dash(model)
        dash_column = dash - self.line_start(dash)
        gap = max(model.start_mark.column - dash_column, 2) if model.start_mark.line == \
            self.text.count("\n", 0, dash) else 2
        column = dash_column + gap
        flow = isinstance(model, (MappingNode, SequenceNode)) and model.flow_style
        body = flow_yaml(item) if flow or not isinstance(item, (dict, list)) \
            else self.block(item, column)
        entry = " " * dash_column + "-" + " " * (gap - 1) + body
        if after is None:
            pos = self.line_start(dash)
            self.edit(pos, pos, entry + "\n")
        else:
            pos = self.line_end(self.end(after))
            self.edit(pos, pos, "\n" + entry)


def patch_yaml(text: str, old: Any, new: Any) -> str:
    """The text with only the values that differ between old and new rewritten (see the
    module docstring); CannotPatch where it cannot be done in place."""
    patcher = _Patcher(text)
    if not isinstance(patcher.root, MappingNode):
        raise CannotPatch("the text is not a mapping")
    patcher.patch(patcher.root, old, new, patcher.step)
    return patcher.result()
