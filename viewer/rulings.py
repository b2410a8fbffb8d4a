"""Sight lines and what they mean: a classifier turns a Visibility into a coloured Ruling.

`classifier_for(scene, world)` uses the scene's ruleset when `rulesets` implements its cover
(`Ruleset.cover` -> `Cover`; the ruleset also picks the eye, target parts and non-blocking
models), else `geometric_ruling`: at least 75% visible is clear, some visible is partly hidden
(the "cover" colour), none is not visible. The legend names the rule behind each line
(`Ruling.rule`). No Panda3D here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from battlesight.geometry.visibility import SightQuery, Visibility, visibility_many
from battlesight.rulesets.core.ruling import cover_value_text

from . import palette

CLEAR_AT = 0.75
GEOMETRIC_RULE = "geometry only (no ruleset yet): >=75% visible is clear"
BUDGET_RULE = "geometry (ruleset cover took too long): >=75% visible is clear"
STATUS_TEXT = {"clear": "clear", "cover": "in cover", "hidden": "not visible"}


@dataclass
class Ruling:
    """How one sight line is shown: status (clear | cover | hidden), the texts, the why."""

    status: str
    visible_fraction: float
    cover: str
    rule: str
    source: str | None = None
    blockers: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def colour(self) -> palette.Colour:
        return palette.RULING[self.status]

    @property
    def label(self) -> str:
        """Short text for the line: '62% seen, cover 4+ (ruin-1)', 'not visible'."""
        if self.status == "hidden":
            return STATUS_TEXT[self.status]
        pct = f"{round(100 * self.visible_fraction)}% seen"
        return f"{pct}, {self.cover}" if self.cover else f"{pct}, {STATUS_TEXT[self.status]}"

    def why(self) -> list[str]:
        """Lines explaining the ruling: blockers with the share they hide, then the rule."""
        out = [f"visible {100 * self.visible_fraction:.0f}% -> {STATUS_TEXT[self.status]}"]
        out += [f"  {owner} hides {100 * share:.0f}%" for owner, share in self.blockers.items()]
        if self.cover:
            out.append(f"  {self.cover}")
        out += [f"  {note}" for note in self.notes]
        out.append(f"  rule: {self.rule}")
        return out


def geometric_ruling(world, scene, vis: Visibility) -> Ruling:
    """Classify by visible fraction alone (the fallback when no ruleset answers)."""
    frac = vis.visible_fraction
    status = "clear" if frac >= CLEAR_AT else "cover" if frac > 0 else "hidden"
    source = next(iter(vis.blockers), None)
    cover = ""
    if status == "cover":
        cover = f"partly hidden by {source}" if source else "partly hidden"
    through = ", ".join(vis.through)
    if through and status != "hidden":
        cover = (cover + "; " if cover else "") + f"through {through}"
    return Ruling(status, frac, cover, GEOMETRIC_RULE, source, dict(vis.blockers))


def cover_text(verdict) -> str:
    """'cover 4+ (ruin-1)', 'cover +2 DEF (wall-1)', ... from a ruleset's Cover."""
    value, effect = getattr(verdict, "value", None), getattr(verdict, "effect", "save")
    source = getattr(verdict, "source", None)
    text = "cover" if value is None else f"cover {cover_value_text(value, effect)}"
    return text + (f" ({source})" if source else "")


def ruling_from_verdict(vis: Visibility, verdict) -> Ruling:
    """A Ruling from a ruleset's cover verdict (fields in_cover, value, effect, source, rule)."""
    in_cover = bool(getattr(verdict, "in_cover", False))
    status = "hidden" if not vis.visible else "cover" if in_cover else "clear"
    rule = str(getattr(verdict, "rule", "") or "ruleset")
    notes = [str(n) for n in getattr(verdict, "notes", []) or []]
    return Ruling(status, vis.visible_fraction, cover_text(verdict) if status == "cover" else "",
                  rule, getattr(verdict, "source", None), dict(vis.blockers), notes)


class GeometricClassifier:
    """Plain sight queries, classified by `geometric_ruling`."""

    name = "geometry"

    def query(self, world, observer: str, target: str, samples: int) -> SightQuery:
        return SightQuery(observer, target, samples=samples)

    def __call__(self, world, scene, vis: Visibility) -> Ruling:
        return geometric_ruling(world, scene, vis)


class RulesetClassifier(GeometricClassifier):
    """The scene's ruleset chooses the eye, the target parts and the models that may not
    block, and gives the cover verdict (`Ruleset.cover(board, [observer], target)`).

    Cover verdicts can be slow (a whole unit-against-unit analysis each); after `budget_s`
    seconds in one batch the remaining lines fall back to geometry, and say so.
    """

    def __init__(self, ruleset, board, budget_s: float = 3.0):
        self.ruleset, self.board = ruleset, board
        self.name = ruleset.id
        self.budget_s = budget_s
        self._spent = 0.0

    def start_batch(self) -> None:
        self._spent = 0.0

    def query(self, world, observer: str, target: str, samples: int) -> SightQuery:
        rs, board = self.ruleset, self.board
        eye = np.asarray(rs.sight_points(board, observer), dtype=np.float64).reshape(-1, 3)[0]
        return SightQuery(observer, target, eye=eye, parts=rs.target_parts(board, target),
                          skip=tuple(rs.skip_models(board, [observer], target)), samples=samples)

    def __call__(self, world, scene, vis: Visibility) -> Ruling:
        if not vis.visible:
            return Ruling("hidden", 0.0, "", f"{self.ruleset.id}: nothing of the target is seen",
                          None, dict(vis.blockers))
        if self._spent > self.budget_s:
            ruling = geometric_ruling(world, scene, vis)
            ruling.rule = BUDGET_RULE
            return ruling
        start = time.perf_counter()
        try:
            verdict = self.ruleset.cover(self.board, [vis.observer], vis.target)
        except Exception:  # noqa: BLE001 - a ruleset gap must not break the picture
            return geometric_ruling(world, scene, vis)
        finally:
            self._spent += time.perf_counter() - start
        return ruling_from_verdict(vis, verdict)


def classifier_for(scene, world=None) -> GeometricClassifier:
    """The scene's ruleset's classifier when `rulesets` can judge this scene, else geometry."""
    ruleset_id = getattr(scene, "ruleset", None)
    if not ruleset_id or world is None or getattr(scene, "models", None) is None:
        return GeometricClassifier()
    try:
        from battlesight.rulesets.core.board import Board
        from battlesight.rulesets.core.ruleset import get_ruleset

        ruleset = get_ruleset(ruleset_id)
        if type(ruleset).cover is _base_cover():
            return GeometricClassifier()
        return RulesetClassifier(ruleset, Board(scene, world, ruleset))
    except Exception:  # noqa: BLE001 - missing ruleset, profile data, ...: draw geometry
        return GeometricClassifier()


def _base_cover():
    from battlesight.rulesets.core.ruleset import Ruleset

    return Ruleset.cover


@dataclass
class SightLine:
    """A sight line from observer to target, its geometry and its ruling."""

    observer: str
    target: str
    visibility: Visibility
    ruling: Ruling

    @property
    def start(self):
        return self.visibility.eye


def enemies_of(world, observer: str) -> list[str]:
    """Ids of the models of every other player."""
    player = world.models[observer].player
    return [m.id for m in world.models.values()
            if m.id != observer and (player is None or m.player != player)]


def sight_lines(world, scene, observer: str, targets: list[str] | None = None,
                classifier: GeometricClassifier | None = None,
                samples: int = 400) -> list[SightLine]:
    """Sight lines from observer to targets (default: every enemy model), one ray batch."""
    targets = enemies_of(world, observer) if targets is None else list(targets)
    if not targets:
        return []
    classify = classifier or classifier_for(scene, world)
    if hasattr(classify, "start_batch"):
        classify.start_batch()
    queries = [classify.query(world, observer, t, samples) for t in targets]
    results = visibility_many(world, queries)
    return [SightLine(observer, vis.target, vis, classify(world, scene, vis)) for vis in results]
