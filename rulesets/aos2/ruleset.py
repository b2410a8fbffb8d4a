"""The Age of Sigmar 2nd edition ruleset: phases, warscrolls, true sight and the hooks."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.ruleset import Phase, Ruleset, Step, register
from battlesight.rulesets.core.ruling import Cover

from . import attacks, cover, sight
from .warscroll import Warscroll, parse_warscroll

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.paths import PathRules
    from battlesight.scenes.model import ModelSpec

PHASES = (
    Phase("hero", (
        Step("hero", ("cast", "unbind", "priority"),
             "gain 1 CP; wizards cast (2D6 >= casting value); an enemy wizard within 30\" may "
             "unbind (2D6 > the casting roll); the round's first action may be the priority "
             "winner's choice of who goes first", actor="both"),
    ), "aos2 §2.3", ""),
    Phase("movement", (
        Step("move", ("move", "garrison", "leave_garrison"),
             "normal move (never within 3\" of enemies), run (+D6), retreat; coherency 1\"/6\""),
    ), "aos2 §7", ""),
    Phase("shooting", (
        Step("shoot", ("shoot",), "true sight from any part of the model; within 3\" of enemies "
             "shoot only at them"),
    ), "aos2 §8.1", ""),
    Phase("charge", (
        Step("charge", ("charge",), "2D6 from within 12\"; the first model ends within 1/2\""),
    ), "aos2 §7.3", ""),
    Phase("combat", (
        Step("fight", ("fight",), "players alternate picking units: pile in 3\", then attack",
             actor="both"),
    ), "aos2 §9", "eligible units that did not fight fight at the end"),
    Phase("battleshock", (
        Step("start", ("inspiring_presence",), "Inspiring Presence (1 CP)"),
        Step("test", ("battleshock",), "D6 + slain against Bravery (+1 per 10 models)",
             actor="both"),
    ), "aos2 §11.1", "untested units test at the end of the phase"),
)


@register
class AOS2(Ruleset):
    """Warhammer Age of Sigmar 2nd edition (rules page: docs/rules/aos2.md)."""
    #: a chunk's measured peak per pair: 191 KiB on the bundled ruins (test_chunks)
    pair_bytes = 384 * 2**10

    id = "aos2"
    name = "Warhammer Age of Sigmar 2nd edition"
    measure_mode = "3d"
    phases = PHASES
    game_turns = 5
    # a Liberator stands 1.5", a Stormcast on a Gryph-charger 3"; monsters up to a
    # Stardrake's 10"
    model_heights = MappingProxyType({"infantry": 6.0, "cavalry": 8.0, "": 24.0})
    action_params = MappingProxyType({
        "priority": ("first",), "cast": ("spell", "target", "model"), "unbind": ("model",),
        "move": ("to", "by", "run", "retreat", "at_the_double"), "garrison": ("feature",),
        "leave_garrison": ("to",), "shoot": ("target",),
        "charge": ("target", "targets", "forward_to_victory"), "fight": ("target",),
        "inspiring_presence": ("hero",)})
    sight_samples = sight.SAMPLES_JUDGED  # per sight point of a verdict (judge.py)

    def load_profile(self, raw: dict[str, Any], spec: ModelSpec) -> Warscroll:
        return parse_warscroll(raw, spec.extra)

    def model_type(self, profile: Warscroll) -> str:
        """INFANTRY or CAVALRY, by the warscroll's keywords ("" for any other)."""
        return next((k for k in ("infantry", "cavalry") if profile.has(k)), "")

    def starting_wounds(self, profile: Warscroll) -> int:
        return int(profile.wounds)

    def is_vehicle(self, profile: Warscroll) -> bool:
        return False

    def skip_models(self, board: Board, firers: list[str], target: str) -> tuple[str, ...]:
        """The attacker's own unit is transparent (aos2 §4.1 quote 2)."""
        return tuple(m for m in board.unit_models(board.unit_of(firers[0])) if m not in firers) \
            if firers else ()

    def cover(self, board: Board, firers: list[str], target: str, **context: Any) -> Cover:
        return cover.save_bonus(board, firers[0] if firers else None, board.unit_of(target),
                                missile=bool(context.get("missile", True)))

    def shooting_report(self, board: Board, unit: str, target: str, *, weapon: str | None = None,
                        moved: bool = False, samples: int | None = None) -> dict[str, Any]:
        """`samples`: per sight point (16 to 120); default the verdict's own, as `los` uses.
        A garrison of the scene is seen and measured through its feature, as in `play`."""
        from battlesight.rulesets.core.report import label_profiles

        ctx = attacks.Context(samples=max(16, min(samples, 120)) if samples
                              else sight.SAMPLES_JUDGED, weapon=weapon or None,
                              garrisons=dict(board.inside))
        return label_profiles(board, attacks.analyse(board, unit, target, ctx).to_dict())

    def path_rules(self, profile: Warscroll) -> PathRules:
        from .moves import NORMAL

        return NORMAL

    def move_allowance(self, profile: Warscroll) -> float:
        return float(profile.move)

    def units_inside(self, board: Board) -> dict[str, str]:
        """The scene's garrisons (`garrison: FEATURE` on a unit entry, §6.4)."""
        return attacks.scene_garrisons(board)


    def weapon_ranges(self, profile: Warscroll) -> list[tuple[str, float]]:
        return [(w.name, float(w.range)) for w in profile.missile() if w.range]
