"""The battlesight package has no import circles and keeps its layers in order.

The module graph is built statically (``ast``) from every ``import`` and ``from ... import`` in
the package, at module level and inside functions (a lazy import that dodges a circle is still
the circle); importing ``a.b.c`` also runs the ``__init__`` of ``a.b``, so that counts too.
Only imports under ``if TYPE_CHECKING:`` are left out of the circle test: they never run. The
layering (``LAYERS``, lowest first: geometry < scenes < rulesets < analysis < viewer < api <
reports < bench < cli) holds for every import, typing ones included: a lower layer never names a
higher one, and every module of the package has a place in it.

Run as a script (``python tests/test_import_graph.py``) it prints the package graph: each layer's
rooms with their module counts, and the imports between rooms.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "battlesight"
#: the installed package's subpackages and the folders they come from (pyproject package-dir)
FOLDERS = {
    PACKAGE: ROOT / "battlesight",
    f"{PACKAGE}.geometry": ROOT / "geometry",
    f"{PACKAGE}.scenes": ROOT / "scenes",
    f"{PACKAGE}.rulesets": ROOT / "rulesets",
    f"{PACKAGE}.viewer": ROOT / "viewer",
}
#: lowest first: a module may import its own layer or any lower one. Each layer is a list of
#: rooms (dotted prefixes); a module belongs to the room that is its longest prefix.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("base", (f"{PACKAGE}._version", f"{PACKAGE}._source")),
    ("geometry", (f"{PACKAGE}.geometry",)),
    ("scenes", (f"{PACKAGE}.scenes",)),
    ("rulesets", (f"{PACKAGE}.rulesets",)),
    ("analysis", (f"{PACKAGE}.analysis",)),
    ("viewer", (f"{PACKAGE}.viewer",)),
    ("api", (PACKAGE, f"{PACKAGE}.api")),
    ("reports", (f"{PACKAGE}.reports",)),
    ("bench", (f"{PACKAGE}.bench",)),
    ("cli", (f"{PACKAGE}.cli", f"{PACKAGE}.__main__")),
)
LAYER_NAMES = tuple(name for name, _ in LAYERS)
#: what the viewer may not hold or reach: it draws; commands, reports and benches sit above it
NOT_DRAWING = ("argparse", f"{PACKAGE}.cli", f"{PACKAGE}.reports", f"{PACKAGE}.bench")


@dataclass(frozen=True)
class Edge:
    """One import statement: from module `src` to module `dst`, at `line` of `path`."""

    src: str
    dst: str
    path: Path
    line: int
    typing_only: bool


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (packages by their ``__init__``)."""
    found: dict[str, Path] = {}
    for base, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            if any(p.startswith(".") or p == "__pycache__" for p in parts):
                continue
            # a nested folder without __init__ is not part of the package
            if not all((folder.joinpath(*parts[:i]) / "__init__.py").is_file()
                       for i in range(1, len(parts))):
                continue
            found[".".join([base, *parts])] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[tuple[ast.stmt, bool]]:
    """Every import statement with whether it sits under ``if TYPE_CHECKING:``."""
    out: list[tuple[ast.stmt, bool]] = []

    def walk(node: ast.AST, typing_only: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import | ast.ImportFrom):
                out.append((child, typing_only))
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    walk_stmt(stmt, True)
                for stmt in child.orelse:
                    walk_stmt(stmt, typing_only)
            else:
                walk(child, typing_only)

    def walk_stmt(stmt: ast.stmt, typing_only: bool) -> None:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            out.append((stmt, typing_only))
        walk(stmt, typing_only)

    walk(tree, False)
    return out


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The longest known module that `name` is or lies inside (None: outside the package)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def edges() -> list[Edge]:
    """Every import between two modules of the package."""
    known = modules()
    out: list[Edge] = []
    for module, path in known.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for stmt, typing_only in _imports(tree):
            targets: list[str] = []
            if isinstance(stmt, ast.Import):
                targets = [alias.name for alias in stmt.names]
            else:
                assert isinstance(stmt, ast.ImportFrom)
                if stmt.level:
                    anchor = module.split(".")
                    drop = stmt.level - 1 if is_package else stmt.level
                    base = ".".join(anchor[: len(anchor) - drop])
                    base = f"{base}.{stmt.module}" if stmt.module else base
                else:
                    base = stmt.module or ""
                # `from pkg import mod` imports the submodule when there is one
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base
                    for alias in stmt.names
                ]
            for target in targets:
                dst = _resolve(target, known)
                if dst is None or dst == module:
                    continue
                # importing a submodule first runs the __init__ of every package above it
                # (those above the importer itself are already running)
                parts = dst.split(".")
                above = [".".join(parts[:i]) for i in range(1, len(parts))]
                for name in [*above, dst]:
                    if name in known and not module.startswith(name + "."):
                        out.append(Edge(module, name, path, stmt.lineno, typing_only))
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as one
    closed path through it so the message shows how the circle runs."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def strongconnect(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(_closed_path(graph, set(component)))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return found


def _closed_path(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest circle through the component's first module (breadth first)."""
    start = min(component)
    parents: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w not in component:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return [*reversed(path), start]
                if w not in parents:
                    parents[w] = v
                    nxt.append(w)
        frontier = nxt
    return sorted(component)


def room(module: str) -> str | None:
    """The room a module belongs to: the longest room prefix of its dotted name."""
    best = None
    for _, rooms in LAYERS:
        for prefix in rooms:
            inside = module == prefix or module.startswith(prefix + ".")
            # the bare package is a room of its own: only `battlesight` itself is in it
            if prefix == PACKAGE and module != PACKAGE:
                inside = False
            if inside and (best is None or len(prefix) > len(best)):
                best = prefix
    return best


def _layer(module: str) -> int | None:
    found = room(module)
    if found is None:
        return None
    return next(i for i, (_, rooms) in enumerate(LAYERS) if found in rooms)


def package_graph() -> str:
    """The package graph as text: each layer (lowest first) with its rooms and module counts,
    then every import between two rooms with how many statements make it."""
    counts: dict[str, int] = {}
    for module in modules():
        name = room(module) or "(unplaced)"
        counts[name] = counts.get(name, 0) + 1
    lines = ["layers, lowest first:"]
    for layer, rooms in LAYERS:
        shown = ", ".join(f"{r} ({counts.get(r, 0)})" for r in rooms)
        lines.append(f"  {layer}: {shown}")
    links: dict[tuple[str, str], int] = {}
    for edge in edges():
        a, b = room(edge.src), room(edge.dst)
        if a != b:
            links[a, b] = links.get((a, b), 0) + 1
    lines.append("imports between rooms (statements):")
    lines += [f"  {a} -> {b}: {n}" for (a, b), n in sorted(links.items(), key=str)]
    return "\n".join(lines)


def _where(edge: Edge) -> str:
    return f"{edge.path.relative_to(ROOT)}:{edge.line}"


def test_the_graph_sees_the_whole_package() -> None:
    """The walk finds every layer and real imports between them (a broken walk finds none)."""
    found = modules()
    for _, rooms in LAYERS:
        for name in rooms:
            assert name in found, name
    assert f"{PACKAGE}.rulesets.core.ruleset" in found
    pairs = {(e.src, e.dst) for e in edges()}
    assert (f"{PACKAGE}.rulesets.core.board", f"{PACKAGE}.geometry.world") in pairs
    assert len(pairs) > 200


def test_cycles_are_found() -> None:
    """The circle finder reports a circle, and only a circle."""
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": {"c"}}) == []


def test_lazy_and_typing_imports_are_told_apart() -> None:
    """An import inside a function counts (it runs when called); one under TYPE_CHECKING does
    not."""
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from .a import A\n"
        "def f():\n    from .b import B\n    return B\n"
    )
    found = {(stmt.module, typing_only) for stmt, typing_only in _imports(tree)
             if isinstance(stmt, ast.ImportFrom)}
    assert found == {("typing", False), ("a", True), ("b", False)}


def test_no_import_circles() -> None:
    """No module reaches itself through imports that run (module level or in a function)."""
    graph: dict[str, set[str]] = {}
    where: dict[tuple[str, str], str] = {}
    for edge in edges():
        if edge.typing_only:
            continue
        graph.setdefault(edge.src, set()).add(edge.dst)
        where.setdefault((edge.src, edge.dst), _where(edge))
    found = cycles(graph)
    lines = [
        " -> ".join(cycle) + "\n    " + ", ".join(where[a, b] for a, b in pairwise(cycle))
        for cycle in found
    ]
    assert not found, "import circles:\n" + "\n".join(lines)


def test_every_module_has_a_layer() -> None:
    """A module no room holds (a new top-level module or package of `battlesight`) fails here
    until it is placed in `LAYERS`; the graph printed names every room."""
    unplaced = sorted(m for m in modules() if room(m) is None)
    assert not unplaced, "modules with no layer (add their room to LAYERS):\n" + "\n".join(unplaced)
    graph = package_graph()
    print(graph)
    assert "(unplaced)" not in graph and all(name in graph for name in LAYER_NAMES)


def test_the_viewer_only_draws() -> None:
    """`viewer` holds the window, offscreen pictures and video: no command line (argparse), and
    nothing from the commands, reports or benches above it."""
    wrong = []
    for module, path in modules().items():
        if room(module) != f"{PACKAGE}.viewer":
            continue
        for stmt, _ in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in stmt.names] if isinstance(stmt, ast.Import)
                     else [stmt.module or ""])
            wrong += [f"{path.relative_to(ROOT)}:{stmt.lineno}: {module} imports {n}"
                      for n in names if any(n == x or n.startswith(x + ".") for x in NOT_DRAWING)]
    assert not wrong, "the viewer reaches past drawing:\n" + "\n".join(wrong)


def test_layers_only_import_downwards() -> None:
    """Each layer imports only its own or lower ones (`LAYERS`)."""
    wrong = [
        f"{_where(e)}: {e.src} imports {e.dst}"
        for e in edges()
        if (a := _layer(e.src)) is not None and (b := _layer(e.dst)) is not None and b > a
    ]
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


if __name__ == "__main__":
    print(package_graph())
