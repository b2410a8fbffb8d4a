"""The front door: one `Battlefield` per scene, and every question asked of it.

    import battlesight
    bf = battlesight.load("scene.yaml")          # a path, a dict in the scene format, a Scene
                                                 # (battlesight.example("demo"): a bundled one)
    bf.sight("sgt", "boy-1").visible_fraction    # geometry only: the ray-cast share seen
    bf.judge("sgt", "boy-1").reason              # the ruleset's verdict, with its rule
    bf.who_sees_whom().seen_by("sgt")            # every ordered pair, in chunks

Every `battlesight` sub-command is a thin layer over these calls, so the command line, the
pictures and a script get the same numbers from the same functions: sight from
`geometry.visibility`, verdicts from the scene's ruleset's one judgement (`Ruleset.judge`),
shooting from `Ruleset.shooting_report`, layouts from `battlesight.analysis.analyze_scene`.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from battlesight.geometry.visibility import SightQuery, Visibility, visibility_many
from battlesight.rulesets.core.board import Board
from battlesight.rulesets.core.chunks import chunked, pairs_per_chunk
from battlesight.rulesets.core.moves import parse_point
from battlesight.rulesets.core.paths import MoveCheck
from battlesight.rulesets.core.readings import (
    Readings,
    current_readings,
    differences,
    parse_assignments,
    use,
)
from battlesight.rulesets.core.ruleset import Ruleset, get_ruleset
from battlesight.rulesets.core.scene_checks import require_rules
from battlesight.rulesets.core.verdict import Verdict
from battlesight.scenes import EXAMPLES_DIR, load_scene, scene_from_dict
from battlesight.scenes.build import build_world
from battlesight.scenes.model import Scene

if TYPE_CHECKING:
    from battlesight.analysis.analyze import LayoutAnalysis
    from battlesight.geometry.world import World
    from battlesight.rulesets.core.game import Game
    from battlesight.viewer.render import RenderSettings

SceneSource = str | os.PathLike[str] | dict[str, Any] | Scene
#: a choice of readings: id -> value (`{"wh40k6.A2": "seen-only"}`), a `Readings`, or
#: "ID=VALUE" texts as the CLI's `--reading` takes them (one, or a list)
ReadingsChoice = Mapping[str, str] | str | list[str] | tuple[str, ...] | None


def example(name: str = "demo") -> Path:
    """The path of a bundled example scene by name ('demo', 'wh40k6_city_ruins',
    'wmh2_hills_forest', 'whfb6_village', 'aos2_ruins_obstacles'); KeyError lists them."""
    path = EXAMPLES_DIR / f"{Path(name).stem}.yaml"
    if Path(name).name != name or not path.is_file():
        known = ", ".join(sorted(p.stem for p in EXAMPLES_DIR.glob("*.yaml")))
        raise KeyError(f"no bundled example {name!r}; examples: {known}")
    return path


def load(source: SceneSource, *, strict: bool = False) -> Battlefield:
    """A Battlefield from a scene file's path, a dict in the scene format, or a Scene.

    The scene passes the same gate as `battlesight validate` (the format, the builders, the
    ruleset's rules data). Bad input raises `battlesight.scenes.SceneError`, whose `problems`
    are the one-line `FILE:LINE: KEY: message` reports that `validate` prints; its warnings
    (unknown keys, physical mistakes of the table) are kept as `Battlefield.warnings`
    (strict=True makes them errors, as `validate --strict`).
    A scene file's world is built when first needed (`Battlefield.world`): what only the
    builders refuse (a mesh file that is no mesh, a model with no floor to stand on) is raised
    there, as the same `SceneBuildError` lines.
    """
    if isinstance(source, Scene):
        scene = source
    elif isinstance(source, dict):
        scene = scene_from_dict(source)
    else:
        scene = load_scene(source, build=False)
    warnings = require_rules(scene, strict=strict)
    return Battlefield(scene, warnings=[str(w) for w in warnings])


def report_outcome(report: dict[str, Any]) -> tuple:
    """What a player takes from a shooting report: who may fire, what each firer sees and
    shoots, each target model's sight, cover and odds, the expected unsaved wounds."""
    cover_keys = ("in_cover", "value", "effect", "source")
    return (report["eligible"], report.get("expected_unsaved"),
            tuple((f["model"], f.get("weapon"), f["can_fire"], f["in_range"], f.get("shots"),
                   tuple(f["sees"]), f["p_hit"]) for f in report["firers"]),
            tuple((t["model"], t["visible"], t["p_hit"], t["p_wound"], t["p_save_fail"],
                   t["p_unsaved"], tuple((t["cover"] or {}).get(k) for k in cover_keys))
                  for t in report["targets"]))


@dataclass
class WhoSeesWhom:
    """Every ordered pair's verdict, with lookups by observer and a boolean matrix.

    ids:      model ids, the rows and columns of `matrix`
    verdicts: one Verdict per ordered pair judged
    """

    ids: list[str]
    verdicts: list[Verdict]

    @cached_property
    def _by_pair(self) -> dict[tuple[str, str], Verdict]:
        return {(v.observer, v.target): v for v in self.verdicts}

    def verdict(self, observer: str, target: str) -> Verdict:
        return self._by_pair[(observer, target)]

    def seen_by(self, observer: str) -> list[str]:
        """Targets the observer sees by the rules, in model order."""
        return [v.target for v in self.verdicts if v.observer == observer and v.visible]

    def seeing(self, target: str) -> list[str]:
        """Observers that see the target by the rules, in model order."""
        return [v.observer for v in self.verdicts if v.target == target and v.visible]

    @property
    def matrix(self) -> np.ndarray:
        """(n, n) bool: matrix[i, j] when ids[i] sees ids[j] by the rules (False unjudged)."""
        index = {m: i for i, m in enumerate(self.ids)}
        out = np.zeros((len(self.ids), len(self.ids)), dtype=bool)
        for v in self.verdicts:
            out[index[v.observer], index[v.target]] = v.visible
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"models": list(self.ids), "verdicts": [v.to_dict() for v in self.verdicts]}


@dataclass(frozen=True)
class MoveResult:
    """What `Battlefield.move` answers: `check` (a `MoveCheck`: allowed, reach, chance,
    used, left, rule, blocker, reason) and the moved `battlefield` (None when refused)."""

    check: MoveCheck
    battlefield: Battlefield | None

    @property
    def ok(self) -> bool:
        return self.check.allowed

    def __bool__(self) -> bool:
        return self.ok


class Battlefield:
    """A scene, its ray world and its ruleset's board, kept together.

    scene:   the scene as loaded (what `save` writes)
    world:   the Embree world of terrain and model volumes (built on first use)
    ruleset: the scene's game system
    board:   the scene and world seen through the ruleset (profiles, wounds, outlines)
    warnings: the warnings of the scene (unknown keys, physical mistakes), `FILE:LINE: KEY:
        message` lines
    """

    def __init__(self, scene: Scene, world: World | None = None,
                 warnings: list[str] | None = None):
        self.scene = scene
        self._world = world
        self.warnings: list[str] = list(warnings or [])

    def __repr__(self) -> str:
        return (f"<Battlefield {self.scene.name!r} {self.scene.ruleset} "
                f"{self.scene.table[0]:g}x{self.scene.table[1]:g}\" "
                f"{len(self.scene.terrain)} pieces, {len(self.scene.models)} models>")

    @property
    def world(self) -> World:
        if self._world is None:
            self._world = build_world(self.scene)
        return self._world

    @cached_property
    def ruleset(self) -> Ruleset:
        return get_ruleset(self.scene.ruleset)

    @cached_property
    def board(self) -> Board:
        return Board(self.scene, self.world, self.ruleset)

    @property
    def models(self) -> list[str]:
        """Ids of the models on the table, in scene order."""
        return [m.id for m in self.scene.models if m.id in self.world.models]

    def _check(self, *model_ids: str) -> None:
        for model_id in model_ids:
            if model_id not in self.world.models:
                known = ", ".join(self.models[:12]) + (" ..." if len(self.models) > 12 else "")
                raise KeyError(f"no model {model_id!r} on the table; models: {known}")

    # ---- geometry -------------------------------------------------------------------------

    def sight(self, observer: str, target: str, samples: int = 400) -> Visibility:
        """What the observer's eye sees of the target, by rays alone (no rules)."""
        return self.sight_many([(observer, target)], samples)[0]

    def sight_many(self, pairs: list[tuple[str, str]], samples: int = 400) -> list[Visibility]:
        """`sight` for many (observer, target) pairs in one batch."""
        self._check(*{m for pair in pairs for m in pair})
        return visibility_many(self.world, [SightQuery(a, b, samples=samples) for a, b in pairs])

    # ---- rules ----------------------------------------------------------------------------

    def readings(self, chosen: ReadingsChoice = None) -> Readings:
        """The scene's system's readings of its ambiguous rules, `chosen` (id -> value, e.g.
        {"wh40k6.A2": "seen-only"}, or "ID=VALUE" texts as `--reading` takes them) over the
        defaults; ValueError naming the known ids or values for one the system does not
        declare, or the expected shape for anything else. None: the readings in use (a
        `core.readings.use` block around the call; the defaults outside one)."""
        if chosen is None:
            declared = {r.id for r in self.ruleset.readings}
            chosen = {k: v for k, v in current_readings().changed().items() if k in declared}
        if isinstance(chosen, str):
            chosen = [chosen]
        if isinstance(chosen, list | tuple) and all(isinstance(t, str) for t in chosen):
            chosen = parse_assignments(list(chosen))
        if not isinstance(chosen, Mapping):
            raise ValueError("readings: expected a mapping of reading id to value "
                             "({'wh40k6.A2': 'seen-only'}), an 'ID=VALUE' text or a list of "
                             f"them, got {type(chosen).__name__}")
        return self.ruleset.choose_readings(dict(chosen))

    def judge(self, observer: str, target: str, *,
              readings: ReadingsChoice = None) -> Verdict:
        """The ruleset's verdict for observer -> target: sight by the rule, the share that
        counts, cover and the modifiers it gives, why, and the rule cited; under `readings`
        where the rules read more than one way (`readings()`)."""
        return self.judge_many([(observer, target)], readings=readings)[0]

    def judge_many(self, pairs: list[tuple[str, str]], *,
                   readings: ReadingsChoice = None, budget: int | None = None) -> list[Verdict]:
        """`judge` for many ordered pairs (the ruleset's one judgement), judged in chunks
        whose size the memory budget sets (`judge_chunks`): the same verdicts as one batch."""
        return [v for chunk in self.judge_chunks(pairs, readings=readings, budget=budget)
                for v in chunk]

    def judge_chunks(self, pairs: list[tuple[str, str]], *, readings: ReadingsChoice = None,
                     budget: int | None = None) -> Iterator[list[Verdict]]:
        """The verdicts of `judge_many`, one chunk of pairs at a time, in pair order: each
        chunk holds as many pairs as `budget` bytes of working memory allow
        (`core.chunks.pairs_per_chunk`, default `SIGHT_BUDGET`), so a caller that keeps only
        what it needs of each chunk judges any number of pairs in bounded memory."""
        chosen = self.readings(readings)
        pairs = list(pairs)
        self._check(*{m for pair in pairs for m in pair})
        for chunk in chunked(pairs, pairs_per_chunk(self.ruleset, budget)):
            with use(chosen):
                verdicts = self.ruleset.judge(self.board, chunk)
            yield verdicts

    def judge_readings(self, pairs: list[tuple[str, str]], *,
                       readings: ReadingsChoice = None, budget: int | None = None
                       ) -> tuple[list[Verdict], list[list[dict[str, Any]]]]:
        """Every reading at once: the verdicts under `readings`, and per pair the verdicts
        that differ under another value of a reading that can touch sight (one batched
        judgement per value and chunk of pairs): {reading, value, rule, text, verdict}."""
        verdicts: list[Verdict] = []
        others: list[list[dict[str, Any]]] = []
        for base, changed in self.judge_readings_chunks(pairs, readings=readings,
                                                        budget=budget):
            verdicts += base
            others += changed
        return verdicts, others

    def judge_readings_chunks(self, pairs: list[tuple[str, str]], *,
                              readings: ReadingsChoice = None, budget: int | None = None
                              ) -> Iterator[tuple[list[Verdict], list[list[dict[str, Any]]]]]:
        """`judge_readings`, one chunk of pairs at a time (as `judge_chunks`)."""
        chosen = self.readings(readings)
        pairs = list(pairs)
        self._check(*{m for pair in pairs for m in pair})
        for chunk in chunked(pairs, pairs_per_chunk(self.ruleset, budget)):
            yield differences(chosen, ("sight",),
                              lambda chunk=chunk: self.ruleset.judge(self.board, chunk),
                              Verdict.outcome)

    def who_sees_whom(self, observers: list[str] | None = None,
                      enemies_only: bool = False, *,
                      readings: ReadingsChoice = None, budget: int | None = None
                      ) -> WhoSeesWhom:
        """Verdicts for every ordered pair of models on the table: each observer (default:
        every model) against every other model, or only against the enemy's models with
        enemies_only=True; under `readings`. Judged in chunks (`judge_chunks`, `budget`), each
        verdict keeping its plain ray cast's summary (`Visibility.summary`: shares and
        counts, not the sample points; `judge` gives those), so that what is held grows by a
        few KiB a pair."""
        ids = self.models
        observers = ids if observers is None else list(observers)
        self._check(*observers)
        player = {m.id: m.player for m in self.scene.models}
        pairs = [(a, b) for a in observers for b in ids
                 if a != b and (not enemies_only or player[a] != player[b])]
        chosen = self.readings(readings)
        verdicts = [replace(v, visibility=v.visibility.summary()) if v.visibility is not None
                    else v for chunk in self.judge_chunks(pairs, readings=chosen, budget=budget)
                    for v in chunk]
        return WhoSeesWhom(ids, verdicts)

    def shoot(self, unit: str, target: str, *, moved: bool = False, weapon: str | None = None,
              samples: int | None = None, readings: ReadingsChoice = None,
              all_readings: bool = False) -> dict[str, Any]:
        """The ruleset's analysis of `unit` shooting at unit `target` (no dice rolled):
        who may fire, what they see, range, cover, the listed modifiers and exact per-attack
        odds (`p_hit`, `p_wound`, `p_save_fail`, `p_unsaved`). samples: silhouette samples
        per sight line (default: the verdict's own, as `battlesight los`); readings: where
        the rules read more than one way. all_readings: add `readings`, the reports that
        differ under another value of a reading that can touch sight or shooting, each
        {reading, value, rule, text, verdict: the report under it}."""
        chosen = self.readings(readings)
        for unit_id in (unit, target):
            if not self.board.has_unit(unit_id):
                raise KeyError(f"no unit {unit_id!r}; units: {', '.join(self.board.unit_ids())}")

        def report() -> list[dict[str, Any]]:
            return [self.ruleset.shooting_report(self.board, unit, target, weapon=weapon,
                                                 moved=moved, samples=samples)]

        if not all_readings:
            with use(chosen):
                return report()[0]
        (out,), (others,) = differences(chosen, ("sight", "shoot"), report, report_outcome)
        return {**out, "readings": others}

    def analyze(self, grid: float = 1.0, deployment: str | None = None) -> LayoutAnalysis:
        """The layout's exposure, fairness, firing lanes and the system's set-up checks."""
        from battlesight.analysis.analyze import analyze_scene, terrain_world

        return analyze_scene(self.scene, grid=grid, deployment=deployment,
                             world=terrain_world(self.scene))

    def move(self, model: str, to: tuple[float, float] | list, *,
             via: list[tuple[float, float]] | None = None,
             floor: int | None = None) -> MoveResult:
        """`model`'s normal move to `to` (through the waypoints `via` first), judged as the
        window's drag and `play` judge it: its path checked by the ruleset
        (`Ruleset.move_check`, the core's `check_path`: bases crossed, impassable pieces,
        enemy distance, climbing, difficult terrain's chance), then, for a straight move, the
        system's own legality of the move action (`core.move_trial.judge_move`: the
        allowance, the unit's coherency). Allowed: `battlefield` is a new Battlefield with
        the model there (this one is unchanged); refused: None, and `check` says why (rule,
        blocker). ValueError for a system whose moves are not checked by model paths (wmh2,
        whfb6: use `game`)."""
        from battlesight.rulesets.core.move_trial import judge_move

        self._check(model)
        path = [parse_point(p, "via") for p in via or []] + [parse_point(to, "to")]
        check = self.ruleset.move_check(self.board, model, path, floor=floor)
        if check.allowed and not via:  # the action takes an end point: its line is the path
            game = judge_move(self.scene, {model: (float(path[-1][0]), float(path[-1][1]))})
            if not game.ok:
                check = replace(check, allowed=False, chance=Fraction(0), rule=game.rule,
                                reason=game.reason)
        if not check.allowed:
            return MoveResult(check, None)
        scene = copy.deepcopy(self.scene)
        spec = next(m for m in scene.models if m.id == model)
        spec.at = (float(path[-1][0]), float(path[-1][1]))
        spec.floor = floor or None
        return MoveResult(check, Battlefield(scene, warnings=self.warnings))

    def game(self, seed: int = 0, first_player: int | None = None) -> Game:
        """A game on this scene, dice from `seed` (the same seed replays identically). The
        game moves models on its own copy of the board, not on this Battlefield's."""
        from battlesight.rulesets.core.game import Game

        return Game(self.scene, self.ruleset, seed=seed, first_player=first_player)

    # ---- pictures -------------------------------------------------------------------------

    def render(self, settings: RenderSettings | None = None, **options: Any) -> np.ndarray:
        """An offscreen picture, (height, width, 3) uint8: `RenderSettings` (the same object
        `battlesight render` fills from its arguments) or its fields as keywords."""
        from battlesight.viewer.render import RenderSettings, render_scene

        if settings is None:
            settings = RenderSettings(**options)
        elif options:
            raise TypeError("give RenderSettings or keyword options, not both")
        return render_scene(self.world, self.scene, settings)
