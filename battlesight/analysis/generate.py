"""Random legal layouts from each ruleset's set-up rules (`Ruleset.setup_rules`, declared in
the ruleset's package with the rules they come from), using the scene format's terrain kinds.
"""

from __future__ import annotations

import zlib

import numpy as np

from battlesight.rulesets.core.setup import SetupRules
from battlesight.scenes.footprints import (
    area_shares,
    piece_footprint,
    piece_span,
    polygon_gap,
    table_areas,
)
from battlesight.scenes.loader import scene_from_dict
from battlesight.scenes.model import Scene, TerrainPiece
from battlesight.scenes.piece_edits import random_piece
from battlesight.scenes.systems import system_ids

from .maps import deployment_maps, system

__all__ = ["SetupRules", "generate_layout", "setup_rules", "setup_systems"]

_TRIES = 300


def setup_rules(ruleset: str) -> SetupRules:
    """The set-up rules a ruleset declares; ValueError for an unknown one or one without."""
    rules = system(ruleset).setup_rules
    if rules is None:
        raise ValueError(f"ruleset {ruleset!r} declares no terrain set-up rules")
    return rules


def setup_systems() -> dict[str, SetupRules]:
    """The set-up rules of every registered system that declares them, by ruleset id."""
    return {rid: rules for rid in system_ids() if (rules := system(rid).setup_rules) is not None}


def generate_layout(ruleset: str, seed: int, deployment: str | None = None) -> Scene:
    """A random layout that follows the ruleset's set-up rules (no models), validated.

    Deterministic for (ruleset, seed, deployment). A system whose set-up rolls the map
    (`roll_map`) rolls it among its maps when none is given; else its first map is used.
    """
    rules = setup_rules(ruleset)
    rng = np.random.default_rng([seed, zlib.crc32(ruleset.encode())])
    if deployment is None:
        maps = deployment_maps(ruleset)
        deployment = maps[int(rng.integers(len(maps)))].name if rules.roll_map else maps[0].name
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
