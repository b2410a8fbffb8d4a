"""Who sees whom, unit against unit: the cells `los --all` prints and `render --matrix` draws.

One function turns the ruleset's verdicts (as `Verdict.to_dict()` gives them) into cells, so
the text table and the picture cannot disagree. No Panda3D here.
"""

from __future__ import annotations

from dataclasses import dataclass

#: a cell's colour is the best verdict any pair of the two units has, in this order
STATUS_ORDER = ("clear", "cover", "hidden")


@dataclass
class UnitCell:
    """Observing unit against target unit: how many of the target unit's models some model
    of the observing unit sees by the rules, the cover most of the seen ones have, and the
    best verdict status among the pairs (clear before cover before hidden)."""

    observer: str
    target: str
    seen: int
    size: int
    cover: str
    status: str

    @property
    def text(self) -> str:
        """'3/12 4+': seen of size, then the commonest cover ('' when none)."""
        return f"{self.seen}/{self.size}" + (f" {self.cover}" if self.cover else "")

    def to_dict(self) -> dict:
        return {"observer": self.observer, "target": self.target, "seen": self.seen,
                "size": self.size, "cover": self.cover, "status": self.status,
                "text": self.text}


#: the verdict fields (`Verdict.to_dict()`) a cell is made from
CELL_KEYS = ("observer", "target", "visible", "cover_text", "status")


def cell_facts(verdict: dict) -> dict:
    """The fields of a verdict dict that `unit_matrix` reads: all a caller of many pairs
    needs to keep per pair for the table and the picture."""
    return {k: verdict[k] for k in CELL_KEYS}


def unit_of(scene) -> dict[str, str]:
    """Model id -> its unit (a model without a unit is a unit of its own)."""
    return {m.id: m.unit or m.id for m in scene.models}


def unit_sizes(scene) -> dict[str, int]:
    """Unit -> how many of the scene's models it has."""
    units = list(unit_of(scene).values())
    return {u: units.count(u) for u in dict.fromkeys(units)}


def all_pairs(scene, world) -> list[tuple[str, str]]:
    """Every ordered pair of the scene's models on the table, in scene order (`los --all`)."""
    ids = [m.id for m in scene.models if m.id in world.models]
    return [(a, b) for a in ids for b in ids if a != b]


def unit_cells(scene, verdicts: list[dict]) -> dict[tuple[str, str], UnitCell]:
    """A cell for every (observer unit, target unit) pair that some verdict dict judges
    (`Verdict.to_dict()`: observer, target, visible, cover_text, status): how many of the
    target unit's models are seen, their commonest cover and the best status. The one
    aggregation of verdicts by unit: `los --all`'s table and the pictures' unit lines."""
    units_of = unit_of(scene)
    size = unit_sizes(scene)
    seen: dict[tuple[str, str], set[str]] = {}
    covers: dict[tuple[str, str], dict[str, str]] = {}
    best: dict[tuple[str, str], int] = {}
    for v in verdicts:
        key = (units_of[v["observer"]], units_of[v["target"]])
        seen.setdefault(key, set())
        rank = STATUS_ORDER.index(v["status"]) if v["visible"] else len(STATUS_ORDER) - 1
        best[key] = min(best.get(key, rank), rank)
        if v["visible"]:
            seen[key].add(v["target"])
            if v["cover_text"]:
                covers.setdefault(key, {})[v["target"]] = v["cover_text"]
    cells = {}
    for (a, b), rank in best.items():
        texts = list(covers.get((a, b), {}).values())
        # the most common cover text, a tie to the first met (targets in scene order)
        common = max(dict.fromkeys(texts), key=texts.count) if texts else ""
        cells[(a, b)] = UnitCell(a, b, len(seen[(a, b)]), size[b], common, STATUS_ORDER[rank])
    return cells


def unit_matrix(scene, verdicts: list[dict]) -> tuple[list[str], dict[tuple[str, str], UnitCell]]:
    """The units (in the order their models observe) and a cell for every ordered pair of
    different units (`unit_cells`; a pair no verdict judges: none seen, hidden)."""
    units_of = unit_of(scene)
    units = list(dict.fromkeys(units_of[v["observer"]] for v in verdicts))
    judged = unit_cells(scene, verdicts)
    size = unit_sizes(scene)
    cells = {}
    for a in units:
        for b in units:
            if a != b:
                cells[(a, b)] = judged.get((a, b)) or UnitCell(a, b, 0, size[b], "",
                                                                 STATUS_ORDER[-1])
    return units, cells
