"""The Warhammer 40,000 6th edition ruleset: phases, sight, cover and the action handlers."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.ruleset import Phase, Ruleset, Step, register
from battlesight.rulesets.core.ruling import Cover

from .profile import Profile, parse_profile
from .sight import sight_origin, skip_models, target_parts

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.paths import PathRules
    from battlesight.scenes.model import ModelSpec, Scene


PHASES = (
    Phase("movement", (
        Step("powers", ("psychic",),
             "start of the phase: psykers cast blessings and maledictions (Warp Charge, "
             "psychic test 2D6 <= Ld, Perils of the Warp on a double 1 or 6, Deny the Witch; "
             "wh40k6 §8.11); passed over when no psyker of the player can cast one"),
        Step("move", ("move", "arrive"),
             "reserves arrive, then units move one at a time (difficult terrain: 2D6 pick the "
             "highest); falling-back units fall back, regroup tests first"),
    ), "wh40k6 §2.4", "Warp Charge refreshed at the start of the player turn; regroup tests "
       "and reserve rolls at the start"),
    Phase("shooting", (
        Step("shoot", ("shoot", "run", "psychic"),
             "each unit shoots (LoS, range, hit, wound, allocate, save) or runs D6\"; a psyker "
             "may cast one witchfire power (focused, nova, beam, maelstrom) instead of firing "
             "(wh40k6 §8.11)"),
    ), "wh40k6 §8.1", "morale checks for units that lost 25% at the end"),
    Phase("assault", (
        Step("charge", ("charge",),
             "declare a charge, the target may fire overwatch (snap shots), roll 2D6 (3D6 drop "
             "the highest through difficult terrain), move"),
        Step("fight", ("fight",),
             "per combat: initiative steps I10..I1 with pile-in, combat result, morale, "
             "sweeping advance or fall back, consolidate"),
    ), "wh40k6 §9", ""),
)


@register
class WH40K6(Ruleset):
    """Warhammer 40,000 6th edition (rules page: docs/rules/wh40k6.md)."""

    id = "wh40k6"
    name = "Warhammer 40,000 6th edition"
    measure_mode = "3d"  # base to base, vertical gaps count in ruins (wh40k6 §3)
    phases = PHASES
    game_turns = 7
    #: a chunk's measured peak per pair: 319 KiB on the bundled city ruins (test_chunks)
    pair_bytes = 512 * 2**10
    sight_samples = 300  # silhouette samples per sight line of a verdict and in play
    sight_rule = "wh40k6 §4.2"
    table_mat = "city"  # the ruins of the 41st millennium stand in cities
    # the turn sequence (turns.py) and the action handlers (actions.py: shooting, assault,
    # powers, morale), imported when a game first needs them
    hook_modules = ("turns", "actions")
    # a tactical marine stands 1.6", an Ogryn or a biker 2.5"; vehicles and monstrous
    # creatures up to a Baneblade's 5" or a Wraithknight's 9"
    model_heights = MappingProxyType({**dict.fromkeys(
        ("infantry", "jump infantry", "jet pack infantry", "bike", "jetbike", "beast",
         "cavalry", "artillery"), 6.0), "": 24.0})
    action_params = MappingProxyType({
        "move": ("to", "by"), "arrive": ("to",), "run": ("to", "by"),
        "psychic": ("model", "power", "target", "pick", "point"),
        "shoot": ("target", "weapon", "floor", "go_to_ground"),
        "charge": ("target", "overwatch")})

    # ---- profiles ---------------------------------------------------------------------------

    def raw_profile(self, scene: Scene, spec: ModelSpec) -> dict[str, Any]:
        """The merged data, with `powers:` from the unit entry or the model (model wins)."""
        raw = super().raw_profile(scene, spec)
        for layer in (scene.unit(spec.unit) if spec.unit else None, spec.extra):
            if layer and layer.get("powers") is not None:
                raw["powers"] = list(layer["powers"]) if isinstance(layer["powers"], list) \
                    else [layer["powers"]]
        return raw

    def load_profile(self, raw: dict[str, Any], spec: ModelSpec) -> Profile:
        from .psychic import check_profile

        profile = parse_profile(raw)
        check_profile(profile)
        return profile

    def model_type(self, profile: Profile) -> str:
        return profile.type

    def starting_wounds(self, profile: Profile) -> int:
        if profile.is_vehicle:
            return int(profile.stat("HP", 1) or 1)
        return int(profile.stat("W", 1) or 1)

    def is_vehicle(self, profile: Profile) -> bool:
        return profile.is_vehicle

    # ---- sight ------------------------------------------------------------------------------

    def target_parts(self, board: Board, target: str) -> frozenset[str] | None:
        return target_parts(board, target)

    def sight_points(self, board: Board, observer: str) -> np.ndarray:
        return sight_origin(board, observer)[None, :]

    def skip_models(self, board: Board, firers: list[str], target: str) -> tuple[str, ...]:
        return skip_models(board, board.unit_of(firers[0]), target) if firers else ()

    def cover(self, board: Board, firers: list[str], target: str, **context: Any) -> Cover:
        """Cover of `target` against these firers (models of one unit): the 25% rule, area
        terrain, third-unit gaps (§5); vehicles: obscured by the majority (§5.9). Context:
        gone_to_ground, samples."""
        from .judge import cover_from_views
        from .sight import look

        firers = [f for f in firers if f in board.world.models]
        if not firers or target not in board.world.models:
            return Cover.none(note="nothing to judge")
        samples = int(context.get("samples", self.sight_samples))
        vis = look(board, [(f, target) for f in firers], samples)
        return cover_from_views(board, firers, target, list(vis.values()),
                                gone_to_ground=bool(context.get("gone_to_ground")))

    def path_rules(self, profile: Profile) -> PathRules:
        from .movement import PATHS

        return PATHS

    def move_allowance(self, profile: Profile) -> float:
        from .movement import allowance

        return allowance(profile)

    def shooting_report(self, board: Board, unit: str, target: str, *, weapon: str | None = None,
                        moved: bool = False, samples: int | None = None) -> dict[str, Any]:
        """`samples`: per sight line; default the verdict's own (`judge`), as `los` uses.
        `moved`: a vehicle moved at combat speed (one weapon at full BS, §8.10), as a `play`
        move of up to 6" reads it."""
        from battlesight.rulesets.core.report import label_profiles

        from .shooting import ShotContext, analyse
        from .vehicles import COMBAT_SPEED

        return label_profiles(board, analyse(
            board, unit, target,
            ShotContext(weapon=weapon, moved=moved, vehicle_moved=COMBAT_SPEED if moved else 0.0,
                        samples=int(samples or self.sight_samples))
        ).to_dict())

    def weapon_ranges(self, profile: Profile) -> list[tuple[str, float]]:
        return [(w.name, float(w.range)) for w in profile.ranged() if w.range]
