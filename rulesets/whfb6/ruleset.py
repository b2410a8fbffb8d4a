"""The Warhammer Fantasy Battle 6th edition ruleset: phases, profiles, sight and the hooks."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.ruleset import Phase, Ruleset, Step, register
from battlesight.rulesets.core.ruling import Cover

from . import shooting, sight
from .profile import Profile, merge_inline, parse_profile

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.game import Game
    from battlesight.scenes.model import ModelSpec, Scene


PHASES = (
    Phase("start", (
        Step("psychology", (), "stupidity tests; panic for units near fleeing friends; "
             "the caster's spells in play end"),
    ), "whfb6 §2", "start of turn: psychology tests run by themselves"),
    Phase("movement", (
        Step("declare", ("charge", "react"),
             "declare charges (frenzied units by themselves); the charged player answers: "
             "hold, stand_and_shoot or flee",
             actor="both"),
        Step("rally", ("rally",), "fleeing units test to rally (2D6 <= Ld)"),
        Step("compulsory", (), "fleeing units that did not rally flee (2D6 or 3D6); frenzied "
             "units charge; stupid units move half M"),
        Step("chargers", ("charge_move",), "chargers move 2 x M with one wheel, or fail"),
        Step("remaining", ("move", "march", "reform"),
             "other units move M, wheel, reform, or march 2 x M (no enemy within 8\")"),
    ), "whfb6 §2", "2-1 to 2-5"),
    Phase("magic", (
        Step("cast", ("cast", "dispel", "dispel_in_play"),
             "cast with power dice; the opponent may dispel; dispel spells in play (3-6)",
             actor="both"),
    ), "whfb6 §10", "power and dispel dice are generated at the start"),
    Phase("shooting", (
        Step("shoot", ("shoot",), "front rank (two on a hill) shoots; panic at over 1/4 lost"),
    ), "whfb6 §8", ""),
    Phase("close_combat", (
        Step("fight", ("fight",),
             "per combat: strike order, WS chart, results, break tests, flee and pursue",
             actor="both"),
    ), "whfb6 §9", "unfought combats are fought at the end of the phase"),
)


@register
class WHFB6(Ruleset):
    """Warhammer Fantasy Battle 6th edition (rules page: docs/rules/whfb6.md)."""
    #: a chunk's measured peak per pair: 212 KiB on the bundled village (test_chunks)
    pair_bytes = 384 * 2**10

    id = "whfb6"
    name = "Warhammer Fantasy Battle 6th edition"
    measure_mode = "plan"
    phases = PHASES
    game_turns = 6
    # a man stands 1.2", a knight on his horse 2.5", a giant 4"; monsters and war machines up
    # to a dragon's 8"
    model_heights = MappingProxyType({"infantry": 6.0, "cavalry": 8.0, "": 24.0})
    action_params = MappingProxyType({
        "charge": ("target",), "react": ("reaction",),
        "move": ("wheel", "forward", "then_wheel", "front", "facing", "by"),
        "march": ("wheel", "forward", "then_wheel", "front", "facing", "by"),
        "reform": ("facing", "files"), "cast": ("spell", "value", "dice", "target"),
        "dispel": ("dice",), "dispel_in_play": ("spell", "target", "dice"),
        "shoot": ("target", "weapon")})
    sight_samples = sight.JUDGED_SAMPLES  # per sampled line of a verdict (judge.py)

    # ---- profiles ---------------------------------------------------------------------------

    def raw_profile(self, scene: Scene, spec: ModelSpec) -> dict[str, Any]:
        """The core's merge, then `ward`, `wizard` and `army` from the unit entry and the model
        (profile.merge_inline)."""
        unit = scene.unit(spec.unit) if spec.unit else None
        return merge_inline(super().raw_profile(scene, spec), [unit, spec.extra])

    def load_profile(self, raw: dict[str, Any], spec: ModelSpec) -> Profile:
        return parse_profile(raw, spec.extra.get("role"))

    def model_type(self, profile: Profile) -> str:
        return profile.type

    def starting_wounds(self, profile: Profile) -> int:
        return int(profile.stat("W", 1) or 1)

    # ---- sight ------------------------------------------------------------------------------

    def skip_models(self, board: Board, firers: list[str], target: str) -> tuple[str, ...]:
        return sight.skips(board, firers[0], target) if firers else ()

    def distance(self, board: Board, a: str, b: str) -> float:
        """In plan between square bases (whfb6 §3)."""
        return sight.gap(board, a, b)

    def cover(self, board: Board, firers: list[str], target: str, **context: Any) -> Cover:
        report = shooting.analyse(board, board.unit_of(firers[0]), board.unit_of(target),
                                  shooting.ShotContext(**context))
        return report.cover

    def shooting_report(self, board: Board, unit: str, target: str, *, weapon: str | None = None,
                        moved: bool = False, samples: int | None = None) -> dict[str, Any]:
        """`samples`: per sight line (16 to 240); default the verdict's own, as `los` uses."""
        from battlesight.rulesets.core.report import label_profiles

        files = (board.scene.unit(unit) or {}).get("formation", {}).get("files")
        ctx = shooting.ShotContext(weapon=weapon, moved=moved, files=files,
                                   samples=max(16, min(samples, 240)) if samples
                                   else sight.JUDGED_SAMPLES)
        return label_profiles(board, shooting.analyse(board, unit, target, ctx).to_dict())


    def unit_allowance(self, game: Game, unit: str) -> float:
        """The slowest model's Movement (whfb6 §7)."""
        from . import movement

        return float(movement.unit_m(game, unit))

    def move_params(self, game: Game, unit: str, dests: dict[str, tuple[float, float]]
                    ) -> dict[str, Any]:
        """A unit in formation moves as one block (whfb6 §7): its front shifted by the move
        (the models must all move, by the same step); other units move by the step."""
        from . import formation as fm
        from . import movement

        models = game.board.unit_models(unit)
        steps = {m: np.subtract(at, game.board.outline(m).center) for m, at in dests.items()}
        step = next(iter(steps.values()))
        if set(dests) != set(models) or any(np.abs(s - step).max() > 1e-6
                                            for s in steps.values()):
            raise ValueError(movement.RULE_MOVE, f"{unit} moves as one block: move all of "
                             "its models by the same step (shift-drag)")
        form = fm.formation(game, unit)
        if form is None:
            return {"by": [float(step[0]), float(step[1])]}
        front = np.add(form.front, step)
        return {"front": [float(front[0]), float(front[1])], "facing": form.facing}

    def weapon_ranges(self, profile: Profile) -> list[tuple[str, float]]:
        return [(w.name, float(w.range)) for w in profile.ranged() if w.range]
