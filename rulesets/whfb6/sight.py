"""WHFB 6th line of sight (whfb6 §4): a yes/no answer, with the visible fraction as information.

A firer sees a target model when the target is inside its 90-degree front arc (fast cavalry
360, §4.2 LV-2) and at least one sampled line from its eye to the target's silhouette passes
the rules: no solid terrain on it (hills, buildings; woods and obstacles are judged below),
no other unit's base crossed in plan (troops block whatever their height, LV-1; the firer's own
unit and the target's unit-mates never do, LV-6), no skirmishing unit's area crossed (the
convex hull of its bases: other units cannot see through the gaps between its models, LV-6;
`screens`), no obstacle crossed unless the target or the
firer is directly behind it (within `OBSTACLE_ADJACENT`, LV-3), and at most `WOODS_DEPTH` of
woods crossed (LV-4). The physical visible fraction (models blocking as meshes) is reported
beside the verdict. Cover (§5.1) is the worst piece that the rule-passing lines cross or that
the target stands in, on at least half of those lines: soft -1, hard -2 to hit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry.visibility import SightQuery, visibility_many
from battlesight.rulesets.core.lines import length_inside, segments_cross_ellipses
from battlesight.rulesets.core.measure import Outline, in_arc, plan_gap

from .ambiguities import R9

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_LOS = "whfb6 §4.2"
RULE_ARC = "whfb6 §4.2 LV-2"
RULE_OBSTACLE = "whfb6 §4.2 LV-3"
RULE_WOODS = "whfb6 §4.2 LV-4"
RULE_SKIRMISH = "whfb6 §4.2 LV-6"
RULE_COVER = "whfb6 §5.1"
FRONT_ARC = 90.0
OBSTACLE_ADJACENT = 1.0
WOODS_DEPTH = 2.0
DEFAULT_SAMPLES = 96
JUDGED_SAMPLES = 160  # silhouette samples per line in the one sight verdict
SOFT_KINDS = {"woods", "forest", "hedge", "fence", "railing", "high grass", "bushes"}
HARD_KINDS = {"wall", "building", "ruin", "box", "rocks", "rubble", "palisade", "trench"}


@dataclass
class Line:
    """What one firer model makes of one target model."""

    firer: str
    target: str
    in_arc: bool
    visible: bool = False
    visible_fraction: float = 0.0  # physical (meshes), for information
    rule_fraction: float = 0.0  # share of sampled lines that pass the rules
    cover: int = 0  # 0 none, 1 soft, 2 hard, 3 soft and hard (R9 'soft-plus-hard')
    cover_source: str | None = None
    reason: str = ""
    rule: str = RULE_LOS
    blockers: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"firer": self.firer, "target": self.target, "in_arc": self.in_arc,
                "visible": self.visible, "visible_fraction": round(self.visible_fraction, 4),
                "rule_fraction": round(self.rule_fraction, 4), "cover": self.cover,
                "cover_source": self.cover_source, "reason": self.reason, "rule": self.rule}


#: what a piece's `cover:` may say, and its class (0 none, 1 soft, 2 hard; whfb6 §5.1)
COVER_CLASSES = {"none": 0, "soft": 1, "hard": 2}


def parse_cover(raw: Any) -> int | None:
    """A `cover:` value as its class; None when the key is absent (the kind decides).
    ValueError for anything else (the scene check reports it with this message)."""
    if raw is None:
        return None
    if raw is False:
        return 0
    if isinstance(raw, str) and raw.strip().lower() in COVER_CLASSES:
        return COVER_CLASSES[raw.strip().lower()]
    raise ValueError("must be soft, hard or none")


def cover_class(entry: Any) -> int:
    """0 none, 1 soft, 2 hard for a terrain piece: its `cover:` key, else its kind (§5.1)."""
    value = parse_cover(entry.data.get("cover"))
    if value is not None:
        return value
    kind = str(entry.data.get("kind", entry.kind)).lower()
    if kind in SOFT_KINDS or entry.kind == "forest":
        return 1
    return 2 if kind in HARD_KINDS else 0


def is_woods(entry: Any) -> bool:
    return entry.kind == "forest" or str(entry.data.get("kind", "")).lower() == "woods"


def is_obstacle(entry: Any) -> bool:
    return bool(entry.data.get("obstacle"))


def arc_of(board: Board, model: str) -> float:
    """90 degrees, 360 for fast cavalry (LV-2)."""
    return 360.0 if board.profile(model).fast_cavalry else FRONT_ARC


def sees_in_arc(board: Board, firer: str, target: str) -> bool:
    o = board.outline(firer)
    return in_arc(o.center, o.facing, arc_of(board, firer), board.outline(target).center)


def near_piece(outline: Outline, footprint: np.ndarray, within: float) -> bool:
    from battlesight.geometry import planar

    return planar.gap(outline.shape, footprint) <= within + 1e-9


def look(board: Board, pairs: list[tuple[str, str]], samples: int = DEFAULT_SAMPLES,
         all_round: bool = False) -> dict[tuple[str, str], Line]:
    """Rule line of sight for each (firer, target) pair, in one batch of ray casts
    (`all_round`: no arc, e.g. skirmishers declaring a charge, whfb6 §3)."""
    out, todo = in_arc_lines(board, pairs, all_round)
    if todo:
        queries = rule_queries(board, todo, samples)
        _judge_all(board, [out[p] for p in todo], visibility_many(board.world, queries))
    return out


def in_arc_lines(board: Board, pairs: list[tuple[str, str]], all_round: bool = False
                 ) -> tuple[dict[tuple[str, str], Line], list[tuple[str, str]]]:
    """A Line per pair, those outside the firer's arc already answered, and the pairs left
    to judge by their sample lines."""
    out: dict[tuple[str, str], Line] = {}
    todo = []
    arcs: dict[str, float] = {}
    for f, t in pairs:
        if f not in arcs:
            arcs[f] = 360.0 if all_round else arc_of(board, f)
        o = board.outline(f)
        line = Line(f, t, arcs[f] >= 360.0 or in_arc(o.center, o.facing, arcs[f],
                                                      board.outline(t).center))
        out[(f, t)] = line
        if line.in_arc:
            todo.append((f, t))
        else:
            line.reason, line.rule = f"{t} is outside {f}'s {arcs[f]:g} degree arc", RULE_ARC
    return out, todo


def rule_queries(board: Board, pairs: list[tuple[str, str]], samples: int) -> list[SightQuery]:
    """The sight queries of the pairs: eye to the whole target, past the two units' models."""
    cache: dict[tuple[str, str], tuple[str, ...]] = {}
    queries = []
    for f, t in pairs:
        key = (board.unit_of(f), board.unit_of(t))
        if key not in cache:
            cache[key] = skips(board, f, t)
        queries.append(SightQuery(f, t, skip=cache[key], samples=samples))
    return queries


def skips(board: Board, firer: str, target: str) -> tuple[str, ...]:
    units = {board.unit_of(firer), board.unit_of(target)}
    return tuple(m for m in board.world.models if m in board.models and board.unit_of(m) in units)


def _judge_all(board: Board, lines: list[Line], results: list[Any]) -> None:
    """Apply the rules to every sampled line of every pair at once."""
    world = board.world
    starts, ends, idx = [], [], []
    for i, (line, vis) in enumerate(zip(lines, results, strict=True)):
        line.visible_fraction = vis.visible_fraction
        pts = np.asarray(vis.points, float)
        if not len(pts):
            line.reason = "no sample line meets the target"
            continue
        eye = np.repeat(np.asarray(vis.eye, float)[None], len(pts), axis=0)
        back = (pts - eye) * (1e-3 / np.maximum(np.linalg.norm(pts - eye, axis=1), 1e-9))[:, None]
        starts.append(eye)
        ends.append(pts - back)
        idx.append(np.full(len(pts), i))
    if not starts:
        return
    s, e, idx = np.concatenate(starts), np.concatenate(ends), np.concatenate(idx)
    special = {t.id for t in world.terrain.values() if is_woods(t) or is_obstacle(t)}
    solid = world.first_terrain(s, e, special)
    ok = np.array([x is None for x in solid])
    why: list[dict[str, float]] = [{} for _ in lines]
    groups = board.groups  # a grouped piece is one: its outline, its first such shape
    for k, x in enumerate(solid):
        if x is not None:
            x = groups.piece_of(x)
            why[idx[k]][x] = why[idx[k]].get(x, 0) + 1
    covers: dict[str, np.ndarray] = {}
    pieces: dict[str, Any] = {}
    for name in groups.names():
        entry = groups.first(name, lambda t: is_woods(t) or is_obstacle(t) or cover_class(t))
        foot = groups.footprint(name)
        if entry is None or len(foot) < 3:
            continue
        pieces[name] = entry
        inside = length_inside(s, e, foot)
        crossed = inside > 1e-6
        blocked = np.zeros(len(s), dtype=bool)
        if is_woods(entry):
            blocked = inside > WOODS_DEPTH + 1e-6
        elif is_obstacle(entry) and crossed.any():
            hit_lines = set(idx[crossed].tolist())
            ends_near = {m: near_piece(board.outline(m), foot, OBSTACLE_ADJACENT)
                         for i in hit_lines for m in (lines[i].target, lines[i].firer)}
            behind = np.array([i in hit_lines and (ends_near[ln.target] or ends_near[ln.firer])
                               for i, ln in enumerate(lines)], dtype=bool)
            blocked = crossed & ~behind[idx]
        for k in np.flatnonzero(blocked & ok):
            why[idx[k]][name] = why[idx[k]].get(name, 0) + 1
        ok &= ~blocked
        if cover_class(entry):
            inside_t = {t: _centre_in(board.outline(t), foot)
                        for t in dict.fromkeys(ln.target for ln in lines)}
            centre_in = np.array([inside_t[ln.target] for ln in lines], dtype=bool)
            covers[name] = crossed | centre_in[idx]
    areas = screens(board)
    ok &= ~_screened(board, lines, s, e, idx, why, ok, areas)
    ok &= ~_troops(board, lines, s, e, idx, why, ok)
    for i, line in enumerate(lines):
        mine = idx == i
        if not mine.any():
            continue
        good = ok[mine]
        line.rule_fraction = float(good.mean())
        line.visible = bool(good.any())
        line.blockers = {k: v / len(good) for k, v in why[i].items()}
        if not line.visible:
            _explain(pieces, line, why[i], set(areas))
            continue
        found: dict[int, str] = {}  # cover class -> the first piece of it on half the lines
        for pid, mask in covers.items():
            if (mask[mine] & good).sum() * 2 >= good.sum():
                found.setdefault(cover_class(pieces[pid]), pid)
        if found:
            line.cover = max(found)
            line.cover_source = found[line.cover]
            if R9.means("soft-plus-hard") and {1, 2} <= set(found):
                line.cover = 3  # soft -1 and hard -2 (whfb6 §5.1, #9)


def _explain(pieces: dict[str, Any], line: Line, why: dict[str, float],
             skirmishers: set[str]) -> None:
    """The reason and rule of a line every sample of which is blocked; pieces: name -> the
    shape read for it (woods, obstacles)."""
    top = max(why, key=why.get) if why else "nothing"
    line.reason = f"every line from {line.firer} to {line.target} is blocked ({top})"
    if top in skirmishers:
        line.reason = (f"every line from {line.firer} to {line.target} is blocked by the "
                       f"skirmishers {top}, gaps between their models included")
        line.rule = RULE_SKIRMISH
        return
    entry = pieces.get(top)
    line.rule = RULE_WOODS if entry is not None and is_woods(entry) else \
        RULE_OBSTACLE if entry is not None and is_obstacle(entry) else RULE_LOS


def _centre_in(outline: Outline, foot: np.ndarray) -> bool:
    from battlesight.geometry import planar

    return bool(planar.covers(np.asarray([outline.center]), foot)[0])


def screens(board: Board) -> dict[str, np.ndarray]:
    """{unit: plan area} of each skirmishing unit on the table (skirmishers or flyers): the
    convex hull of its models' bases, which blocks other units' sight as a whole (LV-6)."""
    from battlesight.geometry import planar

    members: dict[str, list[str]] = {}
    for m in board.world.models:
        if m in board.models:
            members.setdefault(board.unit_of(m), []).append(m)
    return {unit: planar.convex_hull(np.concatenate([board.outline(m).polygon() for m in models]))
            for unit, models in members.items() if board.profile(models[0]).skirmisher}


def _screened(board: Board, lines: list[Line], starts: np.ndarray, ends: np.ndarray,
              idx: np.ndarray, why: list[dict[str, float]], ok: np.ndarray,
              areas: dict[str, np.ndarray]) -> np.ndarray:
    """(n,) lines crossing the area of a skirmishing unit that is neither the firer's nor the
    target's (LV-6). A firer or target standing inside that area is left to the bases rule
    (`_troops`): the area is the screen between other units, not a wall around them."""
    from battlesight.geometry import planar

    blocked = np.zeros(len(starts), dtype=bool)
    for unit, area in areas.items():
        if len(area) < 3:
            continue
        stand = {m: bool(planar.covers(np.asarray([board.outline(m).center]), area)[0])
                 for m in dict.fromkeys(x for ln in lines for x in (ln.firer, ln.target))}
        applies = np.array([unit not in (board.unit_of(ln.firer), board.unit_of(ln.target))
                            and not stand[ln.firer] and not stand[ln.target] for ln in lines],
                           dtype=bool)
        cross = applies[idx] & (length_inside(starts, ends, area) > 1e-6)
        for k in np.flatnonzero(cross & ok & ~blocked):
            why[idx[k]][unit] = why[idx[k]].get(unit, 0) + 1
        blocked |= cross
    return blocked


def _troops(board: Board, lines: list[Line], starts: np.ndarray, ends: np.ndarray,
            idx: np.ndarray, why: list[dict[str, float]], ok: np.ndarray) -> np.ndarray:
    """(n,) lines crossing the base of a model of a third unit (LV-1, LV-6)."""
    others = [m for m in board.world.models if m in board.models]
    if not others:
        return np.zeros(len(starts), dtype=bool)
    outs = [board.outline(m) for m in others]
    units = [board.unit_of(m) for m in others]
    names = sorted(set(units))
    code = np.array([names.index(u) for u in units])
    firer_u = np.array([names.index(board.unit_of(ln.firer)) for ln in lines])
    target_u = np.array([names.index(board.unit_of(ln.target)) for ln in lines])
    centers = np.array([o.center for o in outs], float)
    radii = np.array([o.radii for o in outs], float)
    facings = np.array([o.facing for o in outs], float)
    # a line of pair i lies within `reach` of the plan segment from its eye to the target's
    # centre, so only bases near that segment are tested against that pair's lines
    eye = np.zeros((len(lines), 2))
    eye[idx] = starts[:, :2]
    aim = np.array([board.outline(ln.target).center for ln in lines], float)
    reach = np.zeros(len(lines))
    np.maximum.at(reach, idx, np.linalg.norm(ends[:, :2] - aim[idx], axis=1))
    d = aim - eye
    w = centers[None, :, :] - eye[:, None, :]
    t = np.clip(np.einsum("ikj,ij->ik", w, d) / np.maximum((d * d).sum(axis=1), 1e-12)[:, None],
                0.0, 1.0)
    off = np.linalg.norm(w - t[..., None] * d[:, None, :], axis=2)
    near = off < radii.max(axis=1)[None, :] + reach[:, None] + 1e-6
    near &= (code[None, :] != firer_u[:, None]) & (code[None, :] != target_u[:, None])
    first = np.full(len(starts), -1)
    for k in np.flatnonzero(near.any(axis=0)):
        sel = np.flatnonzero(near[idx, k])
        hit = segments_cross_ellipses(starts[sel], ends[sel], centers[k:k + 1],
                                      radii[k:k + 1], facings[k:k + 1])[:, 0]
        rows = sel[hit & (first[sel] < 0)]
        first[rows] = k
    blocked = first >= 0
    for k in np.flatnonzero(blocked & ok):
        unit = units[int(first[k])]
        why[idx[k]][unit] = why[idx[k]].get(unit, 0) + 1
    return blocked


def unit_sees(board: Board, viewers: list[str], target_unit: str, samples: int = 48,
              all_round: bool = False) -> bool:
    """Whether any viewer sees any model of the target unit (charges, LV-1/LV-2)."""
    targets = board.unit_models(target_unit)
    pairs = [(v, t) for v in viewers for t in targets]
    return any(line.visible for line in look(board, pairs, samples, all_round).values())


def gap(board: Board, a: str, b: str) -> float:
    """Base-to-base distance in plan between two models, bases as squares (whfb6 §3)."""
    return plan_gap(square(board.outline(a)), square(board.outline(b)))


def square(o: Outline) -> Outline:
    along, across = o.radii
    return Outline(o.center, o.z, o.height, (along, across), o.facing, True)
