"""Random legal layouts from each ruleset's set-up rules, using the scene format's terrain kinds.

- wh40k6 (§2.3 step 5, §6.8): the table in ~2' x 2' areas, D3 pieces per area (a piece counts
  in the area holding most of it), pieces more than 3" apart; the map rolled on a D3 (§2.3 step
  3: Dawn of War, Hammer and Anvil, Vanguard Strike).
- wmh2 (§13, and the Steamroller 2017 tournament pack): a 4' x 4'
  table, 6-8 pieces 3"-6" across, none within 6" of a table edge.
- aos2 (§6.1): at least one feature per 2' square (1-3 here); pieces 3" apart [GK].
- whfb6: the digest has no terrain set-up (§1); 1-2 pieces per 2' area, 3" apart [GK].
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from battlesight.scenes.footprints import piece_footprint
from battlesight.scenes.layout import (
    area_shares,
    piece_span,
    polygon_gap,
    random_piece,
    table_areas,
)
from battlesight.scenes.loader import scene_from_dict
from battlesight.scenes.model import Scene, TerrainPiece

from .maps import DEFAULT_MAP, MAPS

_TRIES = 300


@dataclass(frozen=True)
class SetupRules:
    """How a ruleset sets up terrain (see the module docstring for the sources)."""

    ruleset: str
    table: tuple[float, float]
    kinds: dict[str, float]  # terrain kind -> weight
    extent: tuple[float, float]  # largest plan dimension of a piece, inches
    per_area: tuple[int, int] | None = None  # pieces per 2' area (inclusive range)
    count: tuple[int, int] | None = None  # pieces on the table (inclusive range)
    min_gap: float = 3.0  # pieces must be more than this apart
    edge_margin: float = 0.0  # no piece within this of a table edge
    data: dict[str, dict] = field(default_factory=dict)  # rules data by kind
    rule: str = ""


SETUP: dict[str, SetupRules] = {
    "wh40k6": SetupRules(
        "wh40k6", (72.0, 48.0),
        {"ruin": 4, "box": 1, "wall": 1, "crater": 1, "forest": 1, "hill": 1, "mesh": 0.5},
        (5.0, 12.0), per_area=(1, 3), min_gap=3.0,
        data={"ruin": {"cover": 4, "difficult": True}, "forest": {"area": True, "cover": 5},
              "crater": {"area": True, "cover": 4}, "wall": {"cover": 4},
              "box": {"impassable": True}, "mesh": {"cover": 4}},
        rule="wh40k6 §6.8"),
    "wmh2": SetupRules(
        "wmh2", (48.0, 48.0), {"hill": 2, "forest": 2, "wall": 2, "box": 1, "crater": 1},
        (3.0, 6.0), count=(6, 8), min_gap=3.0, edge_margin=6.0,
        data={"hill": {"elevation": True}, "forest": {"concealment": True, "rough": True},
              "wall": {"obstacle": True, "cover": "cover"}, "box": {"cover": "cover"},
              "crater": {"rough": True, "kind": "rubble"}},
        rule="wmh2 §13; Steamroller 2017 tournament pack"),
    "aos2": SetupRules(
        "aos2", (72.0, 48.0),
        {"ruin": 2, "wall": 2, "forest": 1, "hill": 1, "box": 1, "mesh": 1},
        (5.0, 12.0), per_area=(1, 3), min_gap=3.0,
        data={"ruin": {"cover": 1}, "wall": {"obstacle": True, "cover": 1},
              "forest": {"cover": 1}, "mesh": {"cover": 1}},
        rule="aos2 §6.1"),
    "whfb6": SetupRules(
        "whfb6", (72.0, 48.0), {"hill": 2, "forest": 2, "wall": 2, "box": 1, "ruin": 1},
        (5.0, 12.0), per_area=(1, 2), min_gap=3.0,
        data={"forest": {"kind": "woods"}, "wall": {"obstacle": True, "cover": "soft"},
              "box": {"kind": "building", "impassable": True},
              "ruin": {"kind": "building", "cover": "hard"}},
        rule="whfb6 [GK] (the rulebook summary has no set-up, §1)"),
}


def setup_rules(ruleset: str) -> SetupRules:
    """The set-up rules of a ruleset; ValueError for an unknown one."""
    if ruleset not in SETUP:
        raise ValueError(f"unknown ruleset {ruleset!r}; known: {', '.join(SETUP)}")
    return SETUP[ruleset]


def generate_layout(ruleset: str, seed: int, deployment: str | None = None) -> Scene:
    """A random layout that follows the ruleset's set-up rules (no models), validated.

    Deterministic for (ruleset, seed, deployment). wh40k6 rolls its map when none is given.
    """
    rules = setup_rules(ruleset)
    rng = np.random.default_rng([seed, sorted(SETUP).index(ruleset)])
    if deployment is None:
        deployment = (list(MAPS["wh40k6"])[int(rng.integers(3))] if ruleset == "wh40k6"
                      else DEFAULT_MAP[ruleset])
    placed: list[tuple[str, dict, np.ndarray]] = []
    areas = table_areas(rules.table)
    if rules.per_area is not None:
        lo, hi = rules.per_area
        for index, area in enumerate(areas):
            for _ in range(int(rng.integers(lo, hi + 1))):
                _place(rng, rules, placed, area, areas, index)
    else:
        lo, hi = rules.count or (6, 8)
        whole = (0.0, 0.0, *rules.table)
        for _ in range(int(rng.integers(lo, hi + 1))):
            _place(rng, rules, placed, whole, None, None)
    counts: dict[str, int] = {}
    terrain = []
    for kind, data, _ in placed:
        counts[kind] = counts.get(kind, 0) + 1
        terrain.append({"id": f"{kind}-{counts[kind]}", "type": kind, **data,
                        **rules.data.get(kind, {})})
    doc = {"format": 1, "name": f"{ruleset} layout (seed {seed})", "ruleset": ruleset,
           "table": [int(v) if float(v).is_integer() else v for v in rules.table],
           "terrain": terrain, "models": [], "deployment": deployment,
           "generated": {"seed": int(seed), "rule": rules.rule}}
    return scene_from_dict(doc, file=f"<generated {ruleset} seed {seed}>")


def _place(rng, rules: SetupRules, placed: list, area: tuple[float, ...],
           areas: list | None, index: int | None) -> bool:
    """Try to add one piece in `area` (counted there when areas is given); False if no room."""
    x0, y0, x1, y1 = area
    kinds = list(rules.kinds)
    weights = np.array([rules.kinds[k] for k in kinds], dtype=np.float64)
    w, d = rules.table
    m = rules.edge_margin
    for attempt in range(_TRIES):
        kind = kinds[int(rng.choice(len(kinds), p=weights / weights.sum()))]
        shrink = 1.0 if attempt < _TRIES // 2 else 0.6  # smaller pieces when room is short
        lo, hi = rules.extent
        extent = (lo, max(lo, lo + (hi - lo) * shrink))
        centre = (rng.uniform(max(x0, m), min(x1, w - m)), rng.uniform(max(y0, m), min(y1, d - m)))
        data = random_piece(rng, kind, centre, extent)
        piece = TerrainPiece("new", kind, data)
        if kind != "mesh" and not lo <= piece_span(piece) <= hi:
            continue
        poly = piece_footprint(piece)
        if poly.min(axis=0).min() < 0 or poly.min(axis=0)[0] < m or poly.min(axis=0)[1] < m:
            continue
        if poly[:, 0].max() > w - m or poly[:, 1].max() > d - m:
            continue
        gap = rules.min_gap + 0.05
        if not all(polygon_gap(poly, other, gap) > gap for _, _, other in placed):
            continue
        if areas is None or int(np.argmax(area_shares(poly, areas))) == index:
            placed.append((kind, data, poly))
            return True
    return False
