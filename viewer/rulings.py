"""Sight lines as drawn: the scene's ruleset's verdicts (`Ruleset.judge`) mapped to colours and
words. Nothing here decides anything: `Verdict.status` picks the colour, `Verdict.label` the
text, and `why` lays out the verdict's own reason, cover and rule. No Panda3D here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from battlesight.rulesets.core.readings import (
    current_key,
    current_readings,
    differences,
    exploring,
)
from battlesight.rulesets.core.verdict import Verdict

from . import palette

STATUS_TEXT = {"clear": "clear", "cover": "in cover", "hidden": "not visible"}
#: The sight rule of a bare world (built in code, no scene and so no game system): the core's
#: default judgement, true sight from the eye.
BARE_WORLD_RULE = "true sight from the eye (a world without a scene has no game system)"


class BareWorld:
    """What the core's default judgement needs of a board: the world, and no models' rules."""

    def __init__(self, world):
        from battlesight.rulesets.core.ruleset import Ruleset

        self.world = world
        self.ruleset = Ruleset()
        self.ruleset.sight_rule = BARE_WORLD_RULE

    @property
    def groups(self):
        """The world's pieces as the rules count them (`core.groups`), as a Board has them."""
        from battlesight.rulesets.core.groups import groups_of

        return groups_of(self.world)


class Judge:
    """The one sight judgement for a scene's world: its ruleset on a Board of the scene (a
    world built without a scene: the core's default rule, see `BareWorld`). Verdicts are kept
    by pair: a view makes a new Judge whenever its world changes."""

    def __init__(self, scene, world):
        if scene is None:
            self.board: Any = BareWorld(world)
        else:
            from battlesight.rulesets.core.board import Board
            from battlesight.rulesets.core.ruleset import get_ruleset

            self.board = Board(scene, world, get_ruleset(scene.ruleset))
        self.ruleset = self.board.ruleset
        #: verdicts by (readings, pair), and the other readings that change each
        self._known: dict[tuple, Verdict] = {}
        self._others: dict[tuple, list[dict[str, Any]]] = {}

    def __call__(self, pairs: list[tuple[str, str]]) -> list[Verdict]:
        """The verdicts of these pairs under the readings in use (`core.readings`), judging
        the ones not judged yet in one batch; when the surface explores other readings
        (`render --readings all`), also which of them change each verdict (`others`)."""
        key, explore = current_key(), exploring()
        todo = [p for p in dict.fromkeys(pairs) if (key, p) not in self._known]
        if todo and explore:
            verdicts, others = differences(current_readings(), explore,
                                           lambda: self.ruleset.judge(self.board, todo),
                                           Verdict.outcome)
            self._others.update(((key, p), o) for p, o in zip(todo, others, strict=True))
        elif todo:
            verdicts = self.ruleset.judge(self.board, todo)
        if todo:
            self._known.update(((key, p), v) for p, v in zip(todo, verdicts, strict=True))
        return [self._known[(key, p)] for p in pairs]

    def judges(self, scene, world) -> bool:
        """Whether this judgement is of this scene and world (the same objects): models moved
        on its board keep it, after `forget`; another world needs a new Judge."""
        board_scene = getattr(self.board, "scene", None)
        return self.board.world is world and board_scene is scene

    def forget(self) -> None:
        """Drop the verdicts kept (models moved on the board: they are judged again)."""
        self._known.clear()
        self._others.clear()

    def others(self, pair: tuple[str, str]) -> list[dict[str, Any]]:
        """The other readings (reading, value, rule, text, verdict) that change this pair's
        verdict, when the surface explored them; [] otherwise."""
        return self._others.get((current_key(), pair), [])


#: the verdict's keys `render --json` prints for each line drawn
LINE_KEYS = ("observer", "target", "status", "label", "seen_share", "geometric_share", "rule")


@dataclass
class SightLine:
    """A drawn sight line: one verdict, with the plain ray cast it carries for the picture."""

    verdict: Verdict
    #: the other readings of ambiguous rules that change this verdict (`render --readings
    #: all`): each {reading, value, rule, text, verdict}; the picture marks such a line
    readings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def observer(self) -> str:
        return self.verdict.observer

    @property
    def target(self) -> str:
        return self.verdict.target

    @property
    def visibility(self):
        return self.verdict.visibility

    @property
    def start(self):
        return self.verdict.visibility.eye

    @property
    def status(self) -> str:
        return self.verdict.status

    @property
    def colour(self) -> palette.Colour:
        return palette.RULING[self.verdict.status]

    @property
    def label(self) -> str:
        """The verdict's label; a line another reading changes says which, and to what."""
        return self.verdict.label + differs_note(self.readings)

    def why(self) -> list[str]:
        """Lines explaining the verdict: the verdict, its reason, blockers, cover, rule."""
        v = self.verdict
        out = [f"{v.label} (rule's share {100 * v.seen_share:.0f}%, "
               f"plain sight {100 * v.geometric_share:.0f}%)", f"  {v.reason}"]
        out += [f"  {owner} hides {100 * share:.0f}% (plain sight)"
                for owner, share in v.blockers.items()]
        if v.cover_text:
            out.append(f"  {v.cover_text}, {v.cover.rule}")
        out += [f"  {m.name}: {m.text} ({m.rule})" for m in v.modifiers]
        out.append(f"  rule: {v.rule}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """What `render --los --json` prints for the line."""
        full = self.verdict.to_dict()  # the verdict's own numbers, as `los --json` prints them
        out = {k: full[k] for k in LINE_KEYS}
        if self.readings:
            out["readings"] = [{**{k: e[k] for k in ("reading", "value", "rule", "text")},
                                "status": e["verdict"].status, "label": e["verdict"].label}
                               for e in self.readings]
        return out


def differs_note(readings: list[dict[str, Any]]) -> str:
    """' [differs under wh40k6.A1]': the readings that change a verdict drawn ('' if none)."""
    if not readings:
        return ""
    return f" [differs under {', '.join(dict.fromkeys(e['reading'] for e in readings))}]"


def enemies_of(world, observer: str) -> list[str]:
    """Ids of the models of every other player."""
    player = world.models[observer].player
    return [m.id for m in world.models.values()
            if m.id != observer and (player is None or m.player != player)]


def sight_lines(world, scene, observer: str, targets: list[str] | None = None,
                judge: Judge | None = None) -> list[SightLine]:
    """Sight lines from observer to targets (default: every enemy model): one batched call of
    the scene's ruleset's judgement."""
    targets = enemies_of(world, observer) if targets is None else list(targets)
    judge = judge or Judge(scene, world)
    return [SightLine(v, judge.others((v.observer, v.target)))
            for v in judge([(observer, t) for t in targets])]


#: a unit of at most this many models gets a sight line per model even in the unit picture
SMALL_UNIT = 2


@dataclass
class DrawnSight:
    """One sight line as a picture draws it: the line it is drawn along (to `line.target`),
    its colour and its label. A unit's line stands for all its models' verdicts (`cell`)."""

    line: SightLine
    colour: palette.Colour
    text: str
    unit: str | None = None
    cell: Any = None  # the `unit_matrix.UnitCell` a unit line draws
    #: the other readings that change a verdict it stands for (`SightLine.readings`)
    readings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def target(self) -> str:
        return self.line.target


def unit_text(cell) -> str:
    """'ork-1: 7 of 10 seen, cover 4+ (ruin-c)' or 'ork-1: none seen' for a unit cell."""
    if not cell.seen:
        return f"{cell.target}: none of {cell.size} seen"
    cover = f", {cell.cover}" if cell.cover else ""
    return f"{cell.target}: {cell.seen} of {cell.size} seen{cover}"


def drawn_sights(scene, lines: list[SightLine], per_model: bool = False) -> list[DrawnSight]:
    """What a sight-line picture draws: one line per target unit (`unit_matrix.unit_cells`,
    the aggregation `los --all` prints: its colour the best verdict of the unit's models, drawn
    to the model with that verdict and the largest share seen), a line per model for a unit of
    at most SMALL_UNIT models, for a world without a scene, or when per_model is asked."""
    from battlesight.rulesets.core.unit_matrix import unit_cells, unit_of

    if per_model or scene is None or not lines:
        return [model_sight(line) for line in lines]
    units_of = unit_of(scene)
    cells = unit_cells(scene, [line.verdict.to_dict() for line in lines])
    by_unit: dict[str, list[SightLine]] = {}
    for line in lines:
        by_unit.setdefault(units_of[line.target], []).append(line)
    out = []
    for unit, members in by_unit.items():
        cell = cells[(units_of[lines[0].observer], unit)]
        if cell.size <= SMALL_UNIT:
            out += [model_sight(line, unit, cell) for line in members]
            continue
        best = max([ln for ln in members if ln.status == cell.status] or members,
                   key=lambda ln: (ln.verdict.seen_share, ln.verdict.geometric_share))
        readings = [e for ln in members for e in ln.readings]
        out.append(DrawnSight(best, palette.RULING[cell.status],
                              unit_text(cell) + differs_note(readings), unit, cell, readings))
    return out


def model_sight(line: SightLine, unit: str | None = None, cell=None) -> DrawnSight:
    """A model's own sight line as drawn: its verdict's colour, 'boy-1 54% seen, ...'."""
    return DrawnSight(line, line.colour, f"{line.target} {line.label}", unit, cell,
                      list(line.readings))
