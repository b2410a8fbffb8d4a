"""Building blocks of layout checks, each citing the rule it applies: `Check(rule, passed,
detail)`. A system composes its own list from these (`Ruleset.layout_checks`).

Set-up checks (kind "set-up": counts, gaps, edges, table, zones) need only the scene and count
the pieces as `scenes.footprints.layout_pieces` gives them (a `group` of shapes is one
piece); a legal layout passes them all. Advice checks (kind "advice") say whether a rule has
room to work on this layout, e.g. cells far from the enemy zone and out of its sight
(`hidden_spots`, which needs where each zone sees: `SightFacts`, from the layout analysis).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from battlesight.geometry import planar
from battlesight.scenes.footprints import area_shares, layout_spans, polygon_gap, table_areas

if TYPE_CHECKING:
    from battlesight.scenes.model import Scene

    from .deployment import DeploymentMap, Zones


@dataclass
class Check:
    """One layout check: the rule it applies, whether the layout passes, and why."""

    rule: str
    passed: bool
    detail: str
    kind: str = "set-up"  # or "advice"

    def to_dict(self) -> dict:
        return {"rule": self.rule, "passed": bool(self.passed), "detail": self.detail,
                "kind": self.kind}


@dataclass
class SightFacts:
    """What the checks need from an analysis: cell centres (n, 2), standable (n,) and, per
    player, the cells at least one cell of that player's zone sees (n,) bool."""

    plan: np.ndarray
    standable: np.ndarray
    seen_by: dict[int, np.ndarray]


def on_table(scene: Scene, prints: dict[str, np.ndarray]) -> Check:
    w, d = scene.table
    off = [pid for pid, p in prints.items()
           if p.min() < -1e-6 or p[:, 0].max() > w + 1e-6 or p[:, 1].max() > d + 1e-6]
    detail = "every piece lies on the table" if not off else f"off the table: {_names(off)}"
    return Check("scene format v1 (table)", not off, detail)


def per_area(scene: Scene, prints, lo: int, hi: int | None, rule: str, what: str,
              overlap: bool = False) -> Check:
    """Pieces per ~2' x 2' area: each counted where most of it lies (or in every area it
    overlaps when overlap is set)."""
    areas = table_areas(scene.table)
    counts = np.zeros(len(areas), dtype=int)
    for poly in prints.values():
        shares = area_shares(poly, areas)
        if overlap:
            counts += shares > 0
        else:
            counts[int(np.argmax(shares))] += 1
    bad = [i for i, c in enumerate(counts) if c < lo or (hi is not None and c > hi)]
    span = f"{lo}-{hi}" if hi is not None else f"{lo}+"
    names = ", ".join(f"{_area_name(areas[i])}: {counts[i]}" for i in range(len(areas)))
    detail = f"{what} per 2' area ({span}); " + names
    return Check(rule, not bad, detail)


def apart(prints: dict[str, np.ndarray], gap: float, rule: str) -> Check:
    ids = list(prints)
    close = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            g = polygon_gap(prints[a], prints[b], gap)
            if g <= gap:
                close.append(f"{a} and {b} {g:.1f}\"")
    detail = (f'all pieces more than {gap:g}" apart' if not close
              else f'closer than {gap:g}": ' + _names(close))
    return Check(rule, not close, detail)


def named_map(maps: tuple[DeploymentMap, ...], source: str, rule: str) -> Check:
    """The zones are one of the system's named maps (`source`: the map name, or "scene")."""
    by_name = {m.name: m for m in maps}
    titles = ", ".join(m.title for m in maps)
    ok = source in by_name
    detail = (f"deployment map {by_name[source].title}" if ok
              else f"custom zones ({source}); the maps are {titles}")
    return Check(rule, ok, detail)


def table_size(scene: Scene, size: tuple[float, float], rule: str) -> Check:
    ok = sorted(scene.table) == sorted(size)
    return Check(rule, ok, f'table {scene.table[0]:g}" x {scene.table[1]:g}" '
                           f'(standard {size[0]:g}" x {size[1]:g}")')


def zones_apart(zones: Zones, gap: float, rule: str) -> Check:
    """The first two players' zones are at least `gap` apart."""
    players = sorted(zones)[:2]
    if len(players) < 2:
        return Check(rule, False, "fewer than two deployment zones")
    g = polygon_gap(zones[players[0]], zones[players[1]])
    return Check(rule, g >= gap - 1e-6, f'zones {g:.1f}" apart (at least {gap:g}")')


def piece_count(prints, lo: int, hi: int, rule: str) -> Check:
    n = len(prints)
    return Check(rule, lo <= n <= hi, f"{n} pieces ({lo}-{hi})")


def spans(scene: Scene, lo: float, hi: float, rule: str) -> Check:
    """Every piece (a group as one) is lo-hi inches across."""
    bad = [f"{name} {span:.1f}\"" for name, span in layout_spans(scene).items()
           if not lo - 1e-6 <= span <= hi + 1e-6]
    detail = f'every piece {lo:g}"-{hi:g}" across' if not bad else "outside: " + _names(bad)
    return Check(rule, not bad, detail)


def off_edges(scene: Scene, prints, margin: float, rule: str) -> Check:
    w, d = scene.table
    near = [pid for pid, p in prints.items()
            if p.min() < margin - 1e-6 or p[:, 0].max() > w - margin + 1e-6
            or p[:, 1].max() > d - margin + 1e-6]
    detail = (f'no piece within {margin:g}" of a table edge' if not near
              else f'within {margin:g}" of an edge: ' + _names(near))
    return Check(rule, not near, detail)


def hidden_spots(zones: Zones, facts: SightFacts, distance: float, rule: str) -> Check:
    """Each player has cells more than `distance` from every enemy zone cell that no enemy
    zone cell sees (where Infiltrators or Scouts may set up)."""
    parts, ok = [], True
    players = sorted(zones)[:2]
    for p, q in zip(players, players[::-1], strict=True):
        enemy = zones[q]
        far = planar.distance(facts.plan, enemy) > distance
        spots = int(np.count_nonzero(far & facts.standable & ~facts.seen_by[q]))
        ok &= spots > 0
        parts.append(f"player {p}: {spots} cells")
    detail = f'cells more than {distance:g}" from the enemy zone and out of its sight: '
    return Check(rule, ok, detail + ", ".join(parts), kind="advice")


def _area_name(area: tuple[float, ...]) -> str:
    x0, y0, x1, y1 = area
    return f"[{x0:g}-{x1:g}, {y0:g}-{y1:g}]"


def _names(items: list[str], limit: int = 6) -> str:
    more = f" (+{len(items) - limit} more)" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more
