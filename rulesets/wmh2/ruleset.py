"""The WARMACHINE/HORDES MK II ruleset on the shared core: phases, profiles, sight, cover, the
action handlers and the command-line reports (rules page: docs/rules/wmh2.md)."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.ruleset import Phase, Ruleset, Step, register
from battlesight.rulesets.core.ruling import Cover

from . import activation, report
from .bodies import bodies
from .combat import clouds_of
from .cover import defence
from .profile import Profile, parse_profile, raw_profile
from .rules import gap
from .sight import viewer_points

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.game import Game
    from battlesight.scenes.model import ModelSpec, Scene

PHASES = (
    Phase("maintenance", (
        Step("maintenance", (), "automatic: focus removed, continuous effects expire on 1-2 "
             "or burn (fire POW 12, corrosion 1), warlocks drop fury above FURY, fleeing "
             "units try to rally"),
    ), "wmh2 §2.3", "effects lasting a round end at the start of the turn, before this"),
    Phase("control", (
        Step("control", activation.CONTROL_ACTIONS,
             "warcasters get focus = FOC and allocate it to battlegroup warjacks in their "
             "control area (2 x FOC, at most 3 each); warlocks leach fury (2 x FURY); "
             "upkeep spells are paid (1 focus or fury each) or expire"),
    ), "wmh2 §2.4", "threshold checks (2d6 + fury > THR: frenzy) at the end"),
    Phase("activation", (
        Step("activate", activation.ACTIVATION_ACTIONS,
             "each model or unit once: normal movement (full advance SPD, run 2 x SPD, "
             "charge SPD + 3\"), then one action (attacks 2d6 + MAT/RAT against DEF, damage "
             "2d6 + POW (+STR) against ARM); units need orders to run or charge"),
    ), "wmh2 §2.5", "activating another unit ends the current activation"),
)


@register
class WMH2(Ruleset):
    """WARMACHINE / HORDES MK II (rules page: docs/rules/wmh2.md)."""
    #: a chunk's measured peak per pair: 2.7 MiB on the bundled hills (dense lines)
    pair_bytes = 4 * 2**20

    id = "wmh2"
    name = "WARMACHINE/HORDES MK II"
    measure_mode = "plan"  # wmh2 §3 A4: distances in plan between base edges
    sight_rule = "wmh2 §5.2"
    # a trooper stands 1.2" (small base), a heavy warjack 3", a colossal 6"
    model_heights = MappingProxyType({**dict.fromkeys(
        ("trooper", "solo", "warcaster", "warlock"), 6.0), "": 24.0})
    action_params = MappingProxyType({
        "allocate": ("to",), "leach": ("from",), "upkeep": ("spell",), "order": ("order",),
        "advance": ("to", "by", "path", "facing"), "run": ("to", "by", "path", "facing"),
        "charge": ("target", "targets", "stop_at"),
        "attack": ("model", "target", "weapon", "boost_hit", "boost_damage", "additional"),
        "heal": ("target", "amount")})
    phases = PHASES
    game_turns = 10  # no fixed length (wmh2 §13); a cap for scripted games
    proxy_figures = True  # every model is a cylinder (wmh2 §4): pictures draw a figure in it
    hook_modules = ("hooks",)  # the turn sequence and the action handlers (hooks.py)

    # ---- profiles ---------------------------------------------------------------------------

    def raw_profile(self, scene: Scene, spec: ModelSpec) -> dict[str, Any]:
        return raw_profile(scene, spec, self.standard_name())

    def load_profile(self, raw: dict[str, Any], spec: ModelSpec) -> Profile:
        return parse_profile(raw, spec)

    def model_type(self, profile: Profile) -> str:
        return profile.type

    def starting_wounds(self, profile: Profile) -> int:
        return profile.boxes

    # ---- sight ------------------------------------------------------------------------------

    def sight_points(self, board: Board, observer: str) -> np.ndarray:
        """Points of the front half of the observer's standard volume (wmh2 §5.1 step 1)."""
        return viewer_points(bodies(board, [observer])[observer], 13, 3)

    def distance(self, board: Board, a: str, b: str) -> float:
        """In plan between base edges, each base as its size class (wmh2 §3, §4): what the
        attack plans measure."""
        bd = bodies(board, [a, b])
        return gap(bd[a].xy, bd[a].radius, bd[b].xy, bd[b].radius)

    def skip_models(self, board: Board, firers: list[str], target: str) -> tuple[str, ...]:
        """Models never block in 3D: they block by their bases, in plan (wmh2 §5.2)."""
        return tuple(m for m in board.world.models if m not in (*firers, target))

    def target_parts(self, board: Board, target: str) -> frozenset[str] | None:
        return None  # the whole standard volume is the target (wmh2 §4)

    def cover(self, board: Board, firers: list[str], target: str, **context: Any) -> Cover:
        """DEF bonus of target against the first firer (wmh2 §6)."""
        if not firers:
            return Cover.none("wmh2 §6")
        bd = bodies(board, [firers[0], target])
        kind = str(context.get("kind", "ranged"))
        return defence(board.world, bd[firers[0]], bd[target], kind,
                       clouds=clouds_of(board),
                       camouflage=board.profile(target).has("camouflage")).to_cover(firers[0])

    def shooting_report(self, board: Board, unit: str, target: str, *, weapon: str | None = None,
                        moved: bool = False, samples: int | None = None) -> dict[str, Any]:
        return report.shooting_report(board, unit, target, weapon=weapon, moved=moved,
                                      samples=samples)


    def unit_allowance(self, game: Game, unit: str) -> float:
        """A full advance: the slowest model's current SPD plus its movement bonus (§8.2)."""
        from . import activation

        return min(activation.speed(game, m) + activation.movement_bonus(game, m)
                   for m in game.board.unit_models(unit))

    def weapon_ranges(self, profile: Profile) -> list[tuple[str, float]]:
        return [(w.name, float(w.rng)) for w in profile.ranged_weapons() if w.rng]
