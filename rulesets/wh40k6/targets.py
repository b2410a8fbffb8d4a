"""Who a psychic power may target (wh40k6 §8.11, sight §4.1 quote 11 and §4.2): friends or
foes in range and in sight for blessings and maledictions, the shooting machinery (sight,
range, locked units) for witchfire, every unit in range for novas and maelstroms, the line of
a beam."""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlesight.rulesets.core.ruling import Ruling

from .psychic import RULE_PSYCHIC, RULE_SIGHT, Cast
from .shooting import analyse
from .sight import look

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Action, Game


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
        from .beam import beam_plan

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
    if not any(v.visible for v in look(board, pairs, game.ruleset.samples).values()):
        return _no(f"{cast.psyker} cannot see any model of {target}: {pw.name} needs line of "
                   "sight (§4.1 quote 11)", RULE_SIGHT)
    return cast


def _witchfire(game: Game, cast: Cast, action: Action) -> Cast | Ruling:
    """Witchfire: sight and range through the shooting analysis; neither unit locked; the
    psyker's unit shoots one target (§8.11, §4.2)."""
    from .actions import _context

    target, unit = str(cast.target), cast.unit
    if game.unit(target).status.get("locked"):
        return _no(f"{target} is locked in combat: it cannot be the target of a witchfire")
    shot = game.unit(unit).turn.get("shot") or game.unit(unit).turn.get("witchfire")
    if shot and shot != target:
        return _no(f"{unit} shoots at {shot} this phase: its psyker's witchfire must target it "
                   "too", "wh40k6 §4.2")
    ctx = _context(game, unit, cast.power.weapon, only=(cast.psyker,),
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
