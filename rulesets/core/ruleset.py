"""The `Ruleset` interface every game system implements, and the registry by ruleset id.

A ruleset answers the geometric questions (which sight points, which target parts, which models
may block, what is cover, how to measure) and runs its phases through the game hooks that
`Game` calls (`legal` and `apply` for actions, `on_phase_start` / `on_phase_end` for timed
rules), each a function of the system's hook modules (`core.parts`). The phase sequence is data
(`Phase`, `Step`), so a system with other phases only lists them. What a system keeps in its
package's modules (set-up, standard model, readings) the base class reads from there.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry.visibility import (
    DEFAULT_SAMPLES,
    SightQuery,
    Visibility,
    visibility_many,
)
from battlesight.scenes.systems import SYSTEMS, installed_systems, is_system, system_ids

from .parts import FromPackage, find_hook, package_of
from .paths import MoveCheck, PathRules, check_path
from .profiles import resolve
from .readings import Readings
from .rules_data import check_rules_data, system_keys
from .ruling import Cover, Ruling
from .verdict import Verdict, cover_modifiers

if TYPE_CHECKING:
    from battlesight.geometry.world import World
    from battlesight.scenes.keys import SceneKeys
    from battlesight.scenes.model import ModelSpec, Scene

    from .ambiguity import Ambiguity
    from .board import Board
    from .deployment import Deployment, DeploymentMap
    from .game import Action, Game
    from .readings import Reading
    from .setup import SetupRules
    from .setup_checks import Check, SightFacts
    from .standard import StandardModel


@dataclass(frozen=True)
class Step:
    """A sub-step of a phase and the actions it allows."""

    name: str
    actions: tuple[str, ...]
    doc: str = ""
    actor: str = "active"  # 'active', 'reactive' or 'both' players may act


@dataclass(frozen=True)
class Phase:
    """A phase of a player turn: its steps in order and the rule that defines it."""

    name: str
    steps: tuple[Step, ...]
    rule: str = ""
    doc: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.name,
            "rule": self.rule,
            "doc": self.doc,
            "steps": [
                {"step": s.name, "actions": list(s.actions), "actor": s.actor, "doc": s.doc}
                for s in self.steps
            ],
        }


#: Actions the core understands in every step: move on to the next step (or phase), or skip
#: the rest of the phase.
CORE_ACTIONS = ("next", "end_phase")

#: Model parts (docs/scene-format.md) that are never the "body" for systems that exclude gear.
GEAR_PARTS = frozenset({"weapon", "banner", "antenna", "wing", "tail", "base"})


def sight_batch(world: World, pairs: list[tuple[str, str]], queries: list[SightQuery],
                samples: int = DEFAULT_SAMPLES) -> tuple[list[Visibility], list[Visibility]]:
    """The plain sight of each pair (the eye at the whole target, nothing skipped: the
    verdicts' `geometric_share`) and the answers to a ruleset's own queries, in one call."""
    plain = [SightQuery(o, t, samples=samples) for o, t in pairs]
    results = visibility_many(world, plain + list(queries)) if plain or queries else []
    return results[:len(plain)], results[len(plain):]


def _no_layout_checks(scene: Scene, deployment: Deployment,
                      facts: SightFacts | None = None) -> list[Check]:
    """A system without `setup.py`'s layout_checks checks nothing of its own."""
    return []


class Ruleset:
    """Base class: sensible defaults a system overrides, and the parts it keeps in its own
    package's modules, read from there (`core.parts`)."""

    id: str = ""
    name: str = ""
    digest: str = ""  # the system's rules page, relative to docs/rules (default '<id>.md')
    measure_mode: str = "plan"  # 'plan' or '3d' base-to-base distances
    phases: tuple[Phase, ...] = ()
    non_body_parts: frozenset[str] = frozenset()
    game_turns: int = 6
    sight_rule: str = ""  # citation of the system's line-of-sight rule
    sight_samples: int = DEFAULT_SAMPLES  # silhouette samples of a judged sight line
    #: working memory of judging one pair, bytes: what sets how many pairs a chunk of a big
    #: batch holds (`core.chunks`); each system's is its measured peak with room to spare
    #: (tests/test_chunks.py checks the bundled scenes stay within it)
    pair_bytes: int = 256 * 2**10
    #: the system's standard model (`standard.py` STANDARD): analysed on every cell of a
    #: layout, and what a scene model without `profile` or `stats` is judged as
    standard_profile: StandardModel | None = FromPackage("standard", "STANDARD")
    #: the system's named deployment maps, the first one its default (`setup.py`
    #: DEPLOYMENT_MAPS, `core.deployment`)
    deployment_maps: tuple[DeploymentMap, ...] = FromPackage("setup", "DEPLOYMENT_MAPS", ())
    #: how the system sets up terrain for a random layout (`setup.py` SETUP_RULES,
    #: `core.setup`; None: it has none)
    setup_rules: SetupRules | None = FromPackage("setup", "SETUP_RULES")
    #: the system's own checks of a layout, each citing its rule (`setup.py` layout_checks,
    #: `core.setup_checks`): `(scene, deployment, facts=None) -> [Check]`, set-up checks from
    #: the scene and its zones, advice checks too when `facts` (where each zone sees) are
    #: given; the on-table check every system shares is not among them
    layout_checks: Callable[..., list[Check]] = FromPackage("setup", "layout_checks",
                                                            _no_layout_checks)
    #: where the rules read more than one way (`ambiguities.py`): the readings a call may
    #: switch (`core.readings`, `choose_readings`) and the register rows the code reads one way
    #: only, with the reason
    readings: tuple[Reading, ...] = FromPackage("ambiguities", "READINGS", ())
    ambiguities: tuple[Ambiguity, ...] = FromPackage("ambiguities", "AMBIGUITIES", ())
    #: the mat `render --mat auto` lays under a table with ruins or buildings ('city' or
    #: 'grass'); a table without them is always grass
    table_mat: str = "grass"
    #: whether pictures draw a figure in place of each plain cylinder volume (`viewer.proxies`:
    #: a system that gives every model a cylinder)
    proxy_figures: bool = False
    #: the modules of the system's package that hold its game hooks (functions named as
    #: `core.parts.GAME_HOOKS`), searched in order and imported at the first hook
    hook_modules: tuple[str, ...] = ("actions",)
    #: the system's own sight rule, `judge(board, pairs, samples)` of its `judge.py`, which
    #: `judge` hands every call to (None: `judge`'s default rule)
    sight_judgement: Callable[..., list[Verdict]] | None = FromPackage("judge", "judge")

    #: the tallest a model of each type stands (inches, bottom of its base to its top), by the
    #: type `model_type` names ("" for any other): a taller written `height` is a `validate`
    #: warning (40 written for a 40 mm model). Bounds of what the system's models are, no rule.
    model_heights: Mapping[str, float] = MappingProxyType({"": 24.0})
    #: the parameters each action of the system reads besides do, unit and player
    #: (docs/actions.md): any other key of an action is refused (`core.action_keys`)
    action_params: Mapping[str, tuple[str, ...]] = MappingProxyType({})

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.id and not cls.digest:
            cls.digest = f"{cls.id}.md"

    def choose_readings(self, chosen: Mapping[str, str] | None = None) -> Readings:
        """This system's readings, the defaults with `chosen` (id -> value) over them;
        ValueError naming the known ids or values for one it does not declare."""
        return Readings(self.readings, chosen)

    # ---- profiles ---------------------------------------------------------------------------

    def raw_profile(self, scene: Scene, spec: ModelSpec) -> dict[str, Any]:
        """The merged data of one model; a plain model gets the standard model's profile."""
        return resolve(self.id, spec, scene.unit(spec.unit) if spec.unit else None,
                       standard=self.standard_name())

    def standard_name(self) -> str | None:
        """The data profile a model without `profile` or `stats` is given (None: none)."""
        return self.standard_profile.profile if self.standard_profile is not None else None

    def load_profile(self, raw: dict[str, Any], spec: ModelSpec) -> Any:
        """Typed profile from merged raw data (systems return their own record)."""
        return raw

    def starting_wounds(self, profile: Any) -> int:
        return 1

    def model_type(self, profile: Any) -> str:
        """The type of a loaded profile as `model_heights` keys it ("" where the system tells
        none apart)."""
        return ""

    def is_vehicle(self, profile: Any) -> bool:
        return False

    # ---- scene checks -----------------------------------------------------------------------

    def validate_scene(self, scene: Scene) -> list[tuple[str, str]]:
        """(key path, message) per problem of the rules data this system reads from a scene:
        profile and weapon names, stats, and the system's own keys (``rulesets/<id>/
        scene_checks.py``: powers, clouds, formations, ...); each model's profile is loaded as
        the board loads it."""
        return check_rules_data(self, scene)

    def scene_keys(self) -> SceneKeys:
        """The keys of a scene this system reads beyond the format's (the unknown-key check)."""
        return system_keys(self.id)

    # ---- sight ------------------------------------------------------------------------------

    def target_parts(self, board: Board, target: str) -> frozenset[str] | None:
        """Parts of the target's volume that count as the target (None: all of it)."""
        names = board.world.models[target].volume.part_names
        keep = frozenset(n for n in names if n not in self.non_body_parts)
        return keep if keep and len(keep) < len(names) else None

    def distance(self, board: Board, a: str, b: str) -> float:
        """Base edge to base edge, as the system measures it (its `measure_mode`, its base
        shapes): the one distance `los` prints and the range checks use."""
        return board.gap(a, b)

    def sight_points(self, board: Board, observer: str) -> np.ndarray:
        """(k, 3) points the observer looks from; default: its eye."""
        return board.world.models[observer].eye[None, :]

    def skip_models(self, board: Board, firers: list[str], target: str) -> tuple[str, ...]:
        """Models that may not block sight from these firers to this target."""
        return ()

    def cover(self, board: Board, firers: list[str], target: str, **context: Any) -> Cover:
        raise NotImplementedError

    def units_inside(self, board: Board) -> dict[str, str]:
        """Units a new board holds inside a terrain piece instead of on the table ({unit:
        piece}, `Board.inside`): none, unless a system has garrisons."""
        return {}

    def path_rules(self, profile: Any) -> PathRules | None:
        """What the seed checks along a model's normal move (`core.paths`); None where the
        system does not move models one by one along paths here (wmh2's own paths in
        `wmh2.movement`, whfb6's blocks)."""
        return None

    def move_allowance(self, profile: Any) -> float:
        """Inches of a normal move for a model of this profile."""
        return 0.0

    def move_check(self, board: Board, model: str, path: Sequence[tuple[float, float]], *,
                   floor: int | None = None) -> MoveCheck:
        """One model's normal move along `path` (plan waypoints, the last the end) as the
        seed checks it: the core's `check_path` under `path_rules` and `move_allowance`;
        ValueError for a system without path rules."""
        profile = board.profile(model)
        rules = self.path_rules(profile)
        if rules is None:
            raise ValueError(f"{self.id} moves are not checked by model paths here; play "
                             "them through a game (Battlefield.game)")
        return check_path(board, model, path, self.move_allowance(profile), rules, floor=floor)

    def judge(self, board: Board, pairs: list[tuple[str, str]], *,
              samples: int | None = None) -> list[Verdict]:
        """THE sight judgement: one Verdict per ordered (observer, target) pair, batched.

        A system with a sight rule of its own keeps it as `judge(board, pairs, samples)` in
        its package's `judge.py` (`sight_judgement`), and that is the judgement. Else the
        default rule: from the sight points to the parts that count, past the models that
        may not block; visible when any sample is seen; cover from `self.cover` when the
        system judges it. `samples`: silhouette samples of the rule's lines (default
        `sight_samples`)."""
        pairs = list(pairs)
        samples = int(samples or self.sight_samples)
        if self.sight_judgement is not None:
            return self.sight_judgement(board, pairs, samples)
        points = {o: np.asarray(self.sight_points(board, o), float).reshape(-1, 3)
                  for o in dict.fromkeys(o for o, _ in pairs)}
        parts = {t: self.target_parts(board, t) for t in dict.fromkeys(t for _, t in pairs)}
        queries, owner = [], []
        for i, (o, t) in enumerate(pairs):
            skip = tuple(self.skip_models(board, [o], t))
            for point in points[o]:
                queries.append(SightQuery(o, t, eye=point, parts=parts[t], skip=skip,
                                          samples=samples))
                owner.append(i)
        plain, ruled = sight_batch(board.world, pairs, queries)
        best: list[Any] = [None] * len(pairs)
        for i, vis in zip(owner, ruled, strict=True):
            if best[i] is None or vis.visible_fraction > best[i].visible_fraction:
                best[i] = vis
        out = []
        rule = self.sight_rule or "true sight from the eye"
        for (o, t), geo, seen in zip(pairs, plain, best, strict=True):
            visible = bool(seen is not None and seen.visible)
            cover = None
            if visible:
                try:
                    cover = self.cover(board, [o], t)
                except NotImplementedError:
                    cover = None
            out.append(Verdict(
                o, t, visible, seen.visible_fraction if visible else 0.0, geo.visible_fraction,
                "part of the target that counts is seen from a sight point" if visible else
                "no line from a sight point reaches a part of the target that counts",
                rule, cover, board.groups.shares(geo.blockers), cover_modifiers(cover),
                {"target_parts": sorted(parts[t]) if parts[t] is not None else None},
                visibility=geo))
        return out

    def shooting_report(self, board: Board, unit: str, target: str, *, weapon: str | None = None,
                        moved: bool = False, samples: int | None = None) -> dict[str, Any]:
        """JSON-ready analysis of `unit` shooting at `target` (keys: eligible, reason, firers,
        targets, expected_unsaved); no dice are rolled."""
        raise NotImplementedError

    # ---- game -------------------------------------------------------------------------------

    def hook(self, name: str) -> Callable[..., Any] | None:
        """The system's game hook `name` (one of `core.parts.GAME_HOOKS`) from its hook
        modules; None when it defines none and the default below holds."""
        return find_hook(package_of(type(self)), tuple(self.hook_modules), name)

    def _run_hook(self, name: str, game: Game) -> None:
        hook = self.hook(name)
        if hook is not None:
            hook(game)

    def start_game(self, game: Game) -> None:
        """Set up per-unit state when a game starts."""
        self._run_hook("start_game", game)

    def on_turn_start(self, game: Game) -> None:
        """Start of a player turn (before its first phase)."""
        self._run_hook("turn_start", game)

    def on_phase_start(self, game: Game) -> None:
        """Start of a phase of the active player."""
        self._run_hook("phase_start", game)

    def on_phase_end(self, game: Game) -> None:
        """End of a phase (morale checks and the like)."""
        self._run_hook("phase_end", game)

    def on_step_start(self, game: Game) -> None:
        """Entering the second or a later step of a phase (compulsory moves and the like)."""
        self._run_hook("step_start", game)

    def turn_order(self, game: Game) -> list[int]:
        """Player order for the game turn about to start (AoS rolls off each battle round);
        default: unchanged."""
        return list(game.turn_order)

    def on_game_turn_end(self, game: Game) -> None:
        """End of a game turn (every player has had a turn): game length rolls; default: the
        game ends after `game_turns`."""
        hook = self.hook("game_turn_end")
        if hook is not None:
            hook(game)
        elif game.game_turn >= self.game_turns:
            game.end("last game turn played")

    def legal(self, game: Game, action: Action) -> Ruling:
        hook = self.hook("legal")
        if hook is None:
            return Ruling(False, "", f"{self.id} does not implement {action.kind!r}")
        return hook(game, action)

    def apply(self, game: Game, action: Action) -> None:
        hook = self.hook("apply")
        if hook is None:
            raise NotImplementedError(action.kind)
        hook(game, action)

    # ---- moving models (`core.move_trial`) -----------------------------------------------

    def weapon_ranges(self, profile: Any) -> list[tuple[str, float]]:
        """(name, range in inches) of each of a profile's ranged weapons (the window's range
        rings); [] where the system has none."""
        return []

    def unit_allowance(self, game: Game, unit: str) -> float | None:
        """How far the unit may move in its move action (inches): its slowest model's
        `move_allowance`; None where the system gives none."""
        board = game.board
        slowest = min((self.move_allowance(board.profile(m)) for m in board.unit_models(unit)),
                      default=0.0)
        return slowest or None

    def move_params(self, game: Game, unit: str, dests: dict[str, tuple[float, float]]
                    ) -> dict[str, Any]:
        """The move action's parameters that send these models to these plan points (each
        keeping its floor where the floor is there); ValueError(rule, reason) where the
        system moves the unit otherwise."""
        from .moves import kept_floor

        board, to = game.board, {}
        for m, (x, y) in dests.items():
            floor = kept_floor(board.world, (x, y), board.floor_of(m))
            to[m] = {"at": [float(x), float(y)], "floor": floor} if floor else [float(x),
                                                                                 float(y)]
        return {"to": to}

    def describe_phases(self) -> list[dict[str, Any]]:
        return [p.to_dict() for p in self.phases]


#: the classes of the systems imported so far; `scenes.systems` lists every registered id
REGISTRY: dict[str, type[Ruleset]] = {}


def register(cls: type[Ruleset]) -> type[Ruleset]:
    """Class decorator: make a ruleset available by its id."""
    if not cls.id:
        raise ValueError("a ruleset needs an id")
    REGISTRY[cls.id] = cls
    return cls


def ruleset_class(ruleset_id: str) -> type[Ruleset]:
    """The class of the registered system with this id, its package imported on first use
    (a built-in `battlesight.rulesets.<id>`, or the entry point of an installed one);
    KeyError naming the known ids for any other."""
    if ruleset_id not in REGISTRY and is_system(ruleset_id):
        if ruleset_id in SYSTEMS:
            importlib.import_module(f"battlesight.rulesets.{ruleset_id}")
        else:
            loaded = installed_systems()[ruleset_id].load()
            if isinstance(loaded, type) and issubclass(loaded, Ruleset):
                REGISTRY.setdefault(loaded.id, loaded)
    if ruleset_id not in REGISTRY:
        known = ", ".join(sorted(set(REGISTRY) | set(system_ids())))
        raise KeyError(f"no ruleset {ruleset_id!r} implemented (known ids: {known})")
    return REGISTRY[ruleset_id]


def get_ruleset(ruleset_id: str) -> Ruleset:
    """A fresh instance of the registered system with this id (`ruleset_class`)."""
    return ruleset_class(ruleset_id)()
