"""Layout checks per ruleset, each citing the rule it applies: `Check(rule, passed, detail)`.

Set-up checks (kind "set-up": counts, gaps, edges, table, zones) need only the scene; a legal
layout passes them all. Advice checks (kind "advice") say whether a rule has room to work on
this layout: Infiltrate (wh40k6) and Scouts (whfb6) need cells far from the enemy zone and out
of its sight, so they also need where each zone sees (`SightFacts`, from the analysis).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from battlesight.geometry.plan import distance_to_edges, point_in_polygon
from battlesight.scenes.layout import area_shares, footprints, piece_span, polygon_gap, table_areas
from battlesight.scenes.model import Scene

from .maps import MAPS, Deployment


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


def layout_checks(scene: Scene, deployment: Deployment,
                  facts: SightFacts | None = None) -> list[Check]:
    """Every check of the scene's ruleset, in a fixed order (advice checks only with facts)."""
    prints = footprints(scene)
    checks = [_on_table(scene, prints)]
    if scene.ruleset == "wh40k6":
        checks += [_per_area(scene, prints, 1, 3, "wh40k6 §6.8", "D3 pieces"),
                   _apart(prints, 3.0, "wh40k6 §6.8"),
                   _named_map(scene, deployment, "wh40k6 §2.3")]
        if facts is not None:
            checks.append(_hidden_spots(deployment, facts, 12.0, "wh40k6 §4.2 (Infiltrate)"))
    elif scene.ruleset == "wmh2":
        rule = "wmh2 §13; Steamroller 2017 tournament pack"
        checks += [_table(scene, (48.0, 48.0), "wmh2 §13 (S p.16)"),
                   _zones_apart(deployment, 28.0, "wmh2 §13 (S p.16)"),
                   _count(prints, 6, 8, rule), _spans(scene, 3.0, 6.0, rule),
                   _off_edges(scene, prints, 6.0, rule)]
    elif scene.ruleset == "aos2":
        checks += [_table(scene, (72.0, 48.0), "aos2 §12"),
                   _per_area(scene, prints, 1, None, "aos2 §6.1", "at least one feature",
                             overlap=True),
                   _zones_apart(deployment, 24.0, "aos2 §12 (First Blood)")]
    elif scene.ruleset == "whfb6":
        checks += [_table(scene, (72.0, 48.0), "whfb6 [GK] (the usual 6' x 4' table)"),
                   _zones_apart(deployment, 24.0, "whfb6 [GK] Pitched Battle")]
        if facts is not None:
            checks.append(_hidden_spots(deployment, facts, 10.0, "whfb6 §4.1 (Scouts)"))
    return checks


def _on_table(scene: Scene, prints: dict[str, np.ndarray]) -> Check:
    w, d = scene.table
    off = [pid for pid, p in prints.items()
           if p.min() < -1e-6 or p[:, 0].max() > w + 1e-6 or p[:, 1].max() > d + 1e-6]
    detail = "every piece lies on the table" if not off else f"off the table: {_names(off)}"
    return Check("scene format v1 (table)", not off, detail)


def _per_area(scene: Scene, prints, lo: int, hi: int | None, rule: str, what: str,
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


def _apart(prints: dict[str, np.ndarray], gap: float, rule: str) -> Check:
    ids = list(prints)
    close = []
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            g = polygon_gap(prints[a], prints[b], gap)
            if g <= gap:
                close.append(f"{a}-{b} {g:.1f}\"")
    detail = (f'all pieces more than {gap:g}" apart' if not close
              else f'closer than {gap:g}": ' + _names(close))
    return Check(rule, not close, detail)


def _named_map(scene: Scene, deployment: Deployment, rule: str) -> Check:
    maps = MAPS.get(scene.ruleset, {})
    ok = deployment.source in maps
    titles = ", ".join(m.title for m in maps.values())
    detail = (f"deployment map {maps[deployment.source].title}" if ok
              else f"custom zones ({deployment.source}); the maps are {titles}")
    return Check(rule, ok, detail)


def _table(scene: Scene, size: tuple[float, float], rule: str) -> Check:
    ok = sorted(scene.table) == sorted(size)
    return Check(rule, ok, f'table {scene.table[0]:g}" x {scene.table[1]:g}" '
                           f'(standard {size[0]:g}" x {size[1]:g}")')


def _zones_apart(deployment: Deployment, gap: float, rule: str) -> Check:
    players = sorted(deployment.zones)[:2]
    if len(players) < 2:
        return Check(rule, False, "fewer than two deployment zones")
    g = polygon_gap(deployment.zones[players[0]], deployment.zones[players[1]])
    return Check(rule, g >= gap - 1e-6, f'zones {g:.1f}" apart (at least {gap:g}")')


def _count(prints, lo: int, hi: int, rule: str) -> Check:
    n = len(prints)
    return Check(rule, lo <= n <= hi, f"{n} pieces ({lo}-{hi})")


def _spans(scene: Scene, lo: float, hi: float, rule: str) -> Check:
    bad = [f"{p.id} {piece_span(p):.1f}\"" for p in scene.terrain
           if not lo - 1e-6 <= piece_span(p) <= hi + 1e-6]
    detail = f'every piece {lo:g}"-{hi:g}" across' if not bad else "outside: " + _names(bad)
    return Check(rule, not bad, detail)


def _off_edges(scene: Scene, prints, margin: float, rule: str) -> Check:
    w, d = scene.table
    near = [pid for pid, p in prints.items()
            if p.min() < margin - 1e-6 or p[:, 0].max() > w - margin + 1e-6
            or p[:, 1].max() > d - margin + 1e-6]
    detail = (f'no piece within {margin:g}" of a table edge' if not near
              else f'within {margin:g}" of an edge: ' + _names(near))
    return Check(rule, not near, detail)


def _hidden_spots(deployment: Deployment, facts: SightFacts, distance: float,
                  rule: str) -> Check:
    """Each player has cells more than `distance` from every enemy zone cell that no enemy
    zone cell sees (where Infiltrators or Scouts may set up)."""
    parts, ok = [], True
    players = sorted(deployment.zones)[:2]
    for p, q in zip(players, players[::-1], strict=True):
        enemy = deployment.zones[q]
        far = ~point_in_polygon(facts.plan, enemy)
        far &= distance_to_edges(facts.plan, enemy) > distance
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


def legal(checks: list[Check]) -> bool:
    """Whether every set-up check passes."""
    return all(c.passed for c in checks if c.kind == "set-up")
