"""Defence bonuses from the table (wmh2 §6): cover +4 and concealment +2 DEF against ranged
and magic attacks when the target is within 1" of a feature that obscures part of it from that
attacker (area terrain, forests and clouds, only for models inside); an elevated target +2;
Camouflage +2 more; +2 DEF in melee when an obstacle or obstruction obscures any part of the
target's volume. Bonuses are all-or-nothing; the share of lines a piece blocks is reported as
information only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from battlesight.geometry import planar
from battlesight.geometry.ray import segments
from battlesight.geometry.world import World
from battlesight.rulesets.core.groups import groups_of
from battlesight.rulesets.core.ruling import Cover
from battlesight.rulesets.core.verdict import Modifier

from .ambiguities import A11
from .bodies import Body
from .rules import COVER_REACH, TOL, higher
from .sight import END_TRIM, Cloud, _levels, _pairs, _ring
from .terrain import terrain_index

RULE_COVER = "wmh2 §6"
RULE_ELEVATED = "wmh2 §6 (elevated target)"
RULE_MELEE = "wmh2 §6 (melee, obstacle or obstruction)"
VALUES = {"cover": 4, "concealment": 2}


@dataclass
class Defence:
    """DEF bonus of a target against one attacker and attack kind, with its parts."""

    total: int = 0
    parts: list[dict[str, Any]] = field(default_factory=list)
    obscured: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def to_cover(self, attacker: str | None = None) -> Cover:
        """The core's Cover record: value = total DEF bonus, effect 'def'."""
        if not self.parts:
            return Cover(False, None, "def", "none", None, RULE_COVER,
                         max(self.obscured.values(), default=0.0), attacker, list(self.notes))
        main = max(self.parts, key=lambda p: p["value"])
        return Cover(True, self.total, "def", main["kind"], main.get("source"),
                     main["rule"], max(self.obscured.values(), default=0.0), attacker,
                     [f"+{p['value']} {p['kind']}" + (f" ({p['source']})" if p.get("source")
                                                      else "") for p in self.parts]
                     + list(self.notes))

    def modifiers(self) -> list[Modifier]:
        """Each DEF bonus as a listed modifier ('cover (wall)' +4, rule wmh2 §6): the one list
        the sight verdict and an attack plan both show."""
        return [Modifier(str(p["kind"]) + (f" ({p['source']})" if p.get("source") else ""),
                         int(p["value"]), str(p["rule"]), "def") for p in self.parts]

    def to_dict(self) -> dict[str, Any]:
        return {"def_bonus": self.total, "parts": list(self.parts),
                "obscured": {k: round(v, 4) for k, v in self.obscured.items()},
                "notes": list(self.notes)}


def volume_points(body: Body, n_rim: int = 24, n_levels: int = 3) -> np.ndarray:
    """(k, 3) points all round a body's volume (the whole volume counts, EXT 1 in wmh2 §6)."""
    levels = _levels(body, n_levels)
    angles = np.linspace(0, 2 * np.pi, n_rim, endpoint=False)
    axis = np.column_stack([np.tile(body.xy, (len(levels), 1)), levels])
    return np.vstack([_ring(body, angles, levels), axis])


def obscuring(world: World, a: Body, b: Body, pieces: list[str]) -> dict[str, float]:
    """Share of the lines from a's volume to b's volume that each piece, on its own, cuts."""
    if not pieces:
        return {}
    index = terrain_index(world)
    p, q = _pairs(volume_points(a), volume_points(b))
    d, length = segments(p, q)
    start, span = p + d * END_TRIM, np.maximum(length - 2 * END_TRIM, 0.0)
    out = {}
    for pid in pieces:
        hit = index.piece_scene(pid).occluded(start, d, span)
        out[pid] = float(hit.mean()) if len(hit) else 0.0
    return out


def _inside_area(poly: np.ndarray, body: Body) -> bool:
    """A model is inside area terrain when its base centre is in the piece's outline (wmh2
    §6; A3's convention)."""
    return len(poly) >= 3 and bool(planar.covers(body.xy[None], poly)[0])


def defence(world: World, a: Body, b: Body, kind: str = "ranged", *,
            clouds: list[Cloud] | None = None, camouflage: bool = False,
            stack: bool | None = None) -> Defence:
    """DEF bonus of b against an attack of `kind` ('ranged', 'magic' or 'melee') by a.

    stack: add concealment to cover (None: reading wmh2.A11 decides; its default, only the
    higher applies, wmh2 §6).
    """
    if stack is None:
        stack = A11.means("stack")
    index = terrain_index(world)
    groups = groups_of(world)  # sources name the piece: a group once
    out = Defence()
    if kind == "melee":
        solid = [pid for pid, r in index.rules.items() if r.solid_obstacle]
        shares = obscuring(world, a, b, solid)
        out.obscured = shares
        hit = [pid for pid, s in shares.items() if s > 0]
        if hit:
            out.parts.append({"kind": "obstacle", "value": 2, "source": groups.piece_of(hit[0]),
                              "rule": RULE_MELEE})
        out.total = sum(p["value"] for p in out.parts)
        return out
    near = [pid for pid, r in index.rules.items() if r.cover and not r.area
            and index.footprint_gap(pid, b.xy, b.radius) <= COVER_REACH + TOL]
    shares = obscuring(world, a, b, near)
    out.obscured = shares
    found: list[dict[str, Any]] = []
    for pid in near:
        if shares[pid] > 0:
            found.append({"kind": index.rules[pid].cover, "value": VALUES[index.rules[pid].cover],
                          "source": groups.piece_of(pid), "rule": RULE_COVER})
    for name in groups.names():  # area terrain by the piece's outline, read by its first shape
        entry = groups.first(name, lambda e: bool(index.rules[e.id].area
                                                  and index.rules[e.id].cover))
        if entry is not None and _inside_area(groups.footprint(name), b):
            cover = index.rules[entry.id].cover
            found.append({"kind": cover, "value": VALUES[cover], "source": name,
                          "rule": RULE_COVER})
    for c in clouds or []:
        if float(np.hypot(*(b.xy - np.asarray(c.center, float)))) < c.radius:
            found.append({"kind": "concealment", "value": 2, "source": c.id,
                          "rule": RULE_COVER + " (cloud)"})
    if found:
        found.sort(key=lambda p: -p["value"])
        kinds_seen: set[str] = set()
        for part in found:
            if part["kind"] in kinds_seen:
                continue
            if kinds_seen and not stack:
                out.notes.append(f"{part['kind']} from {part['source']} does not add to "
                                 f"{found[0]['kind']} (wmh2 §6 A11)")
                continue
            kinds_seen.add(part["kind"])
            out.parts.append(part)
        if camouflage and not a.eyeless:
            out.parts.append({"kind": "camouflage", "value": 2, "source": None,
                              "rule": "wmh2 §6 (Camouflage)"})
    if higher(b.z - a.z):
        out.parts.append({"kind": "elevated", "value": 2, "source": None, "rule": RULE_ELEVATED})
    out.total = sum(p["value"] for p in out.parts)
    if 0 < max(shares.values(), default=0.0) and not out.parts:
        out.notes.append("partly obscured, but not within 1\" of a covering feature")
    return out
