"""Casting a psychic power with seeded dice (wh40k6 §8.11): spend Warp Charge, the psychic
test, Perils of the Warp, Deny the Witch for each enemy unit affected, then the power itself:
a lasting effect (blessing, malediction), a shooting attack (witchfire, nova, maelstrom) rolled
through the shooting resolution, or its own rule (Psychic Shriek, Haemorrhage, Life Leech)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.measure import Outline, gap
from battlesight.rulesets.core.ruling import Ruling

from . import effects
from .beam import resolve_beam
from .context import shot_context
from .morale import unit_ld
from .psychic import (
    RULE_PSYCHIC,
    Cast,
    characteristic_passes,
    deny_options,
    p_deny,
    p_test,
    passes_test,
    perils,
    used,
)
from .resolve import Outcome, Wound, allocate, resolve_shooting
from .shooting import analyse
from .targets import plan

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game


def legal(game: Game, action: Action) -> Ruling:
    """Whether the cast is allowed now, with the reason when not (the plan as its value)."""
    cast = plan(game, action)
    if isinstance(cast, Ruling):
        return cast
    return Ruling(True, RULE_PSYCHIC, value=cast)


def apply(game: Game, action: Action) -> None:
    """Roll a legal cast out and log every step."""
    cast = plan(game, action)
    assert isinstance(cast, Cast)
    board, unit, model, pw = game.board, cast.unit, cast.psyker, cast.power
    status = board.model(model).status
    status["warp_charge"] = status.get("warp_charge", 0) - pw.warp_charge
    used(game, unit, model).append(pw.key)
    if pw.witchfire:
        turn = game.unit(unit).turn
        turn.setdefault("witchfire_models", []).append(model)
        turn["fired"] = sorted(set(turn.get("fired", [])) | {"assault"})
        if pw.target == "enemy" and cast.target:
            turn["witchfire"] = cast.target
    ld = int(board.profile(model).stat("Ld", 7) or 7)
    dice = game.roller.d6(2, f"{model} psychic test for {pw.name} (Ld {ld})")
    passed, peril = passes_test(dice, ld), perils(dice)
    game.emit("psychic_test", unit, model=model, power=pw.name, power_type=pw.kind, dice=dice,
              total=sum(dice), ld=ld, passed=passed, perils=peril, targets=cast.targets,
              p_pass=float(p_test(ld)),
              warp_charge_left=status["warp_charge"], rule=RULE_PSYCHIC)
    if peril:
        _perils(game, unit, model)
    if not passed:
        return
    affected = [t for t in cast.targets if not _denied(game, cast, t)]
    if not affected:
        return
    outcome = _resolve(game, cast, affected, sum(dice), action)
    game.emit("psychic_power", unit, model=model, power=pw.name, power_type=pw.kind,
              targets=affected, **outcome, rule=RULE_PSYCHIC)


def _perils(game: Game, unit: str, model: str) -> None:
    """Perils of the Warp: one wound, no saves of any kind (the power still works on a
    double 1, even if the psyker dies)."""
    board = game.board
    left = board.model(model).wounds - 1
    board.set_wounds(model, max(0, left))
    if left <= 0:
        board.remove(model)
    game.emit("perils_of_the_warp", unit, model=model, wounds_left=max(0, left),
              slain=left <= 0, rule=RULE_PSYCHIC)


def _denied(game: Game, cast: Cast, target: str) -> bool:
    """Deny the Witch for an enemy unit the power affects: D6, 6 cancels, +1 / +2 with a
    psyker (or a psychic hood within 6")."""
    board = game.board
    if board.unit_player(target) == board.unit_player(cast.unit):
        return False
    modifier, by = deny_options(board, cast.psyker, target)
    roll = game.roller.one(f"{target} deny the witch ({6 - modifier}+)")
    denied = roll + modifier >= 6
    game.emit("deny_the_witch", target, power=cast.power.name, roll=roll, modifier=modifier,
              by=by, need=6 - modifier, denied=denied, p_deny=float(p_deny(modifier)),
              rule=RULE_PSYCHIC)
    return denied


def _resolve(game: Game, cast: Cast, affected: list[str], total: int,
             action: Action) -> dict[str, Any]:
    pw = cast.power
    if pw.kind in ("blessing", "malediction"):
        return {"effects": [_effect(game, cast, unit) for unit in affected]}
    if pw.special == "shriek":
        return _shriek(game, cast)
    if pw.kind == "focused witchfire":
        return _focused(game, cast, total, action.get("pick"))
    if pw.kind == "beam":
        return resolve_beam(game, cast, affected)
    if pw.kind in ("nova", "maelstrom"):
        return {"outcomes": {u: _shoot(game, cast, u, ignore_sight=True) for u in affected}}
    out = _shoot(game, cast, affected[0], report=cast.report)
    if pw.special == "leech" and out["unsaved"]:
        out["healed"] = _heal(game, cast.psyker)
    return {"outcome": out}


def _effect(game: Game, cast: Cast, unit: str) -> dict[str, Any]:
    """A blessing or malediction: its effect on the unit (or the psyker) until the end of
    the next turn; a rolled change (Iron Arm's D3) is one roll for every characteristic."""
    raw = cast.power.effect
    stats = dict(raw.get("stats") or {})
    roll = raw.get("roll")
    if roll:
        value = game.roller.d3(f"{cast.power.name} ({roll.get('dice', 'D3')})") \
            if str(roll.get("dice", "D3")).upper() == "D3" else \
            game.roller.one(f"{cast.power.name} (D6)")
        for key in roll.get("stats", []):
            stats[key] = stats.get(key, 0) + value
    models = [cast.psyker] if raw.get("scope") == "model" else None
    effect = effects.add(game, unit, cast.power.name, models=models, stats=stats,
                         save=raw.get("save"), rules=raw.get("rules"), caster=cast.psyker)
    return {"unit": unit, "stats": effect["stats"], "rules": effect["rules"],
            "save": effect["save"], "models": effect["models"]}


def _shoot(game: Game, cast: Cast, target: str, *, report: Any = None,
           ignore_sight: bool = False) -> dict[str, Any]:
    """A shooting power rolled through the shooting resolution (to hit unless blast,
    template or nova; to wound; allocation; saves)."""
    board = game.board
    if report is None:
        ctx = shot_context(game, cast.unit, cast.power.weapon, only=(cast.psyker,),
                       ignore_sight=ignore_sight, friendly_fire=cast.power.kind == "maelstrom")
        report = analyse(board, cast.unit, target, ctx)
    outcome = resolve_shooting(board, report, game.roller)
    result = outcome.to_dict()
    if cast.power.weapon is not None and cast.power.weapon.has("blind") and outcome.hits:
        result["blind"] = _blind(game, cast, target)
    return result


def _blind(game: Game, cast: Cast, unit: str) -> dict[str, Any]:
    """Blind (§8.8): the unit hit takes an Initiative test or is WS 1 and BS 1 until the end
    of its next turn."""
    board = game.board
    models = board.unit_models(unit)
    if not models:
        return {"test": None}
    value = max(int(board.profile(m).stat("I", 1) or 1) for m in models)
    roll = game.roller.one(f"{unit} blind initiative test (I {value})")
    if characteristic_passes(roll, value):
        return {"roll": roll, "initiative": value, "blinded": False}
    effects.add(game, unit, f"{cast.power.name} (blind)", set_stats={"WS": 1, "BS": 1},
                rule=effects.RULE_BLIND)
    return {"roll": roll, "initiative": value, "blinded": True}


def _heal(game: Game, model: str) -> int:
    """Life Leech: the psyker regains a wound lost earlier (up to its starting wounds)."""
    board = game.board
    state = board.model(model)
    if not state.alive or state.wounds >= game.ruleset.starting_wounds(state.profile):
        return 0
    board.set_wounds(model, state.wounds + 1)
    return 1


def _shriek(game: Game, cast: Cast) -> dict[str, Any]:
    """Psychic Shriek: 3D6 - the target's Ld wounds, no armour or cover saves; allocated as
    shooting wounds (closest visible model first)."""
    board, report, target = game.board, cast.report, cast.targets[0]
    ld = unit_ld(game, target)
    dice = game.roller.d6(3, f"{cast.power.name}: 3D6 - Ld {ld}")
    count = max(0, sum(dice) - ld)
    weapon = cast.power.weapon
    assert weapon is not None
    shriek = replace(weapon, rules=weapon.rules | {"no armour", "ignores cover"})
    out = Outcome(wounds=count)
    allocate(board, game.roller, report,
             [Wound(shriek, None, None, cast.psyker) for _ in range(count)], out)
    return {"dice": dice, "ld": ld, "outcome": out.to_dict()}


def _focused(game: Game, cast: Cast, total: int, pick: str | None) -> dict[str, Any]:
    """A focused witchfire picks one model: the caster's choice when the psychic test came to
    5 or less, else a random visible model in range. Haemorrhage: a Toughness test or one
    wound without armour or cover saves; a model it slays passes it on to a random model
    within 2"."""
    board = game.board
    order = [m for m in cast.report.order() if board.model(m).alive]
    if not order:
        return {"victim": None}
    chosen = total <= 5 and pick in order
    victim = pick if chosen else order[game.roller.roll(1, len(order),
                                                        "focused witchfire: random model")[0] - 1]
    steps: list[dict[str, Any]] = []
    seen: set[str] = set()
    while victim is not None and cast.power.special == "haemorrhage":
        seen.add(victim)
        where = board.outline(victim)
        slain = _haemorrhage(game, victim, steps)
        victim = _next_victim(game, where, seen, cast.psyker) if slain else None
    return {"victim": steps[0]["model"] if steps else victim, "picked": bool(chosen),
            "steps": steps}


def _haemorrhage(game: Game, model: str, steps: list[dict[str, Any]]) -> bool:
    board = game.board
    profile = board.profile(model)
    t = profile.stat("T")
    roll = game.roller.one(f"{model} toughness test (T {t})")
    step: dict[str, Any] = {"model": model, "roll": roll, "toughness": t}
    steps.append(step)
    if characteristic_passes(roll, t):
        step["passed"] = True
        return False
    save = profile.stat("Inv")
    if save is not None:
        saved = game.roller.one(f"{model} invulnerable save ({save}+)")
        step["invulnerable"] = saved
        if saved >= max(2, save) and saved != 1:
            return False
    left = board.model(model).wounds - 1
    board.set_wounds(model, max(0, left))
    step["wounds_left"] = max(0, left)
    if left <= 0:
        board.remove(model)
        return True
    return False


def _next_victim(game: Game, dead: Outline, seen: set[str], psyker: str) -> str | None:
    """A random model within 2" of the slain one (any unit; not vehicles, not the psyker)."""
    board = game.board
    near = [m for m, s in board.models.items() if s.alive and s.on_table and m not in seen
            and m != psyker and not board.profile(m).is_vehicle
            and gap(dead, board.outline(m), game.ruleset.measure_mode) <= 2.0 + 1e-9]
    if not near:
        return None
    return near[game.roller.roll(1, len(near), "haemorrhage: random model within 2\"")[0] - 1]


__all__ = ["apply", "legal"]
