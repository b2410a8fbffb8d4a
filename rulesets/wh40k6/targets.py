"""Planning a psychic power (wh40k6 §8.11, timing §2.4, sight §4.1 quote 11 and §4.2): which
psyker casts what and when, and who the power may target: friends or foes in range and in sight
for blessings and maledictions, the shooting machinery (sight, range, locked units) for
witchfire, every unit in range for novas and maelstroms, the line of a beam. `plan` gives the
legal `Cast` or the refusal with its reason; `powers` rolls the cast out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.ruling import Ruling

from .beam import beam_plan
from .context import shot_context
from .psychic import (
    POWERS_STEP,
    RULE_PSYCHIC,
    RULE_SIGHT,
    RULE_TIMING,
    Cast,
    known_power,
    powers_of,
    psykers,
    used,
)
from .shooting import analyse
from .sight import look

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game


def plan(game: Game, action: Action) -> Cast | Ruling:
    """The cast `action` asks for, or a refusal with the reason."""
    board, unit = game.board, str(action.unit)
    found = _psyker(game, unit, action.get("model"))
    if isinstance(found, Ruling):
        return found
    model, profile = found, board.profile(found)
    name = action.get("power")
    pw = known_power(profile, str(name)) if name else None
    if pw is None:
        known = ", ".join(p.name for p in powers_of(profile)) or "none"
        return _no(f"{model} does not know the power {name!r} (knows: {known})")
    if game.step.name != pw.step:
        when = ("at the start of the movement phase (powers step)" if pw.step == POWERS_STEP
                else "in the shooting phase")
        return _no(f"{pw.name} is a {pw.kind} power: it is cast {when}, not in the "
                   f"{game.phase.name} phase's {game.step.name} step", RULE_TIMING)
    if pw.key in used(game, unit, model):
        return _no(f"{model} already used {pw.name} this turn: a power is not used twice")
    charge = board.model(model).status.get("warp_charge", 0)
    if charge < pw.warp_charge:
        return _no(f"{model} has {charge} Warp Charge left; {pw.name} costs {pw.warp_charge}")
    if pw.witchfire:
        why = _witchfire_blocked(game, unit, model)
        if why:
            return _no(why)
    return choose_targets(game, Cast(model, unit, pw, action.get("target"), []), action)


def _psyker(game: Game, unit: str, model: Any) -> str | Ruling:
    board = game.board
    casters = psykers(board, unit)
    if model is None:
        if len(casters) != 1:
            return _no(f"name the psyker of {unit} casting ('model'); psykers: "
                       f"{', '.join(casters) or 'none'}")
        return casters[0]
    model = str(model)
    if model not in board.models or board.unit_of(model) != unit:
        return _no(f"{model!r} is not a model of {unit}")
    if not board.model(model).alive or not board.model(model).on_table:
        return _no(f"{model} is not on the table")
    if not board.profile(model).mastery:
        return _no(f"{model} is not a psyker")
    return model


def _witchfire_blocked(game: Game, unit: str, model: str) -> str:
    """Why a witchfire may not be cast now ('' if it may): it counts as firing a weapon."""
    turn, status = game.unit(unit).turn, game.unit(unit).status
    if turn.get("ran"):
        return f"{unit} ran this turn: no witchfire (it counts as shooting)"
    if status.get("locked"):
        return f"{unit} is locked in combat: no witchfire"
    if model in turn.get("witchfire_models", []):
        return f"{model} already cast a witchfire power this turn (one a turn)"
    if model in turn.get("fired_models", []):
        return f"{model} fired a weapon this phase: a witchfire replaces its shooting"
    return ""


def choose_targets(game: Game, cast: Cast, action: Action) -> Cast | Ruling:
    """Fill `cast.targets` (and the shooting report for witchfire), or refuse."""
    pw, board = cast.power, game.board
    if pw.target in ("self", "own unit"):
        if cast.target not in (None, cast.unit):
            return _no(f"{pw.name} targets {'the psyker' if pw.target == 'self' else 'his unit'}"
                       f": target {cast.unit}, not {cast.target}")
        cast.target, cast.targets = cast.unit, [cast.unit]
        return cast
    if pw.target == "all":
        return _everyone(game, cast)
    if pw.kind == "beam":
        return beam_plan(game, cast, action)
    if cast.target is None and pw.target == "friendly":
        cast.target = cast.unit
    target = cast.target
    if not target or target not in game.units:
        return _no(f"{pw.name} needs a target unit, got {target!r}")
    if not board.unit_models(target):
        return _no(f"{target} has no models on the table")
    friendly = board.unit_player(target) == board.unit_player(cast.unit)
    if pw.target == "friendly" and not friendly:
        return _no(f"{pw.name} is a blessing: it targets a friendly unit, not {target}")
    if pw.target == "enemy" and friendly:
        return _no(f"{pw.name} targets an enemy unit, not {target}")
    if pw.witchfire:
        return _witchfire(game, cast, action)
    cast.targets = [target]
    if target == cast.unit:
        return cast
    gap = min(board.gap(cast.psyker, t) for t in board.unit_models(target))
    if gap > pw.reach + 1e-9:
        return _no(f"{target} is {gap:.2f}\" from {cast.psyker}: {pw.name} has range "
                   f"{pw.reach:g}\"")
    pairs = [(cast.psyker, t) for t in board.unit_models(target)]
    if not any(v.visible for v in look(board, pairs, game.ruleset.sight_samples).values()):
        return _no(f"{cast.psyker} cannot see any model of {target}: {pw.name} needs line of "
                   "sight (§4.1 quote 11)", RULE_SIGHT)
    return cast


def _witchfire(game: Game, cast: Cast, action: Action) -> Cast | Ruling:
    """Witchfire: sight and range through the shooting analysis; neither unit locked; the
    psyker's unit shoots one target (§8.11, §4.2)."""
    target, unit = str(cast.target), cast.unit
    if game.unit(target).status.get("locked"):
        return _no(f"{target} is locked in combat: it cannot be the target of a witchfire")
    shot = game.unit(unit).turn.get("shot") or game.unit(unit).turn.get("witchfire")
    if shot and shot != target:
        return _no(f"{unit} shoots at {shot} this phase: its psyker's witchfire must target it "
                   "too", "wh40k6 §4.2")
    ctx = shot_context(game, unit, cast.power.weapon, only=(cast.psyker,),
                   floor=action.get("floor"))
    report = analyse(game.board, unit, target, ctx)
    if not report.eligible:
        return _no(f"{cast.power.name}: {report.reason}", report.rule or RULE_SIGHT)
    pick = action.get("pick")
    if pick is not None:
        if cast.power.kind != "focused witchfire":
            return _no(f"{cast.power.name} is not a focused witchfire: no 'pick'")
        if pick not in report.order():
            return _no(f"{pick} is not a model of {target} that {cast.psyker} sees in range")
    cast.report, cast.targets = report, [target]
    return cast


def _everyone(game: Game, cast: Cast) -> Cast | Ruling:
    """Nova: every enemy unit in range; maelstrom: every unit, friend or foe, but the
    psyker's own; no sight needed, units in combat included (§4.2, §8.11)."""
    board, pw = game.board, cast.power
    player = board.unit_player(cast.unit)
    found = []
    for unit in board.unit_ids():
        if unit == cast.unit or not board.unit_models(unit):
            continue
        if pw.kind == "nova" and board.unit_player(unit) == player:
            continue
        gap = min(board.gap(cast.psyker, m) for m in board.unit_models(unit))
        if gap <= pw.reach + 1e-9:
            found.append(unit)
    if not found:
        return _no(f"no {'enemy ' if pw.kind == 'nova' else ''}unit within {pw.reach:g}\" of "
                   f"{cast.psyker} for {pw.name}")
    cast.targets = found
    return cast


def _no(reason: str, rule: str = RULE_PSYCHIC) -> Ruling:
    return Ruling(False, rule, reason)
