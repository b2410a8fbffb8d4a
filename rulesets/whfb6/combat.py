"""WHFB 6th close combat (whfb6 §9, §5.2): who fights, strike order, WS chart, wounds and
saves, combat resolution, break tests, flee and pursue, panic of nearby friends.

Models fight when their (square) bases touch an enemy's, spearmen from the second rank too
(§9.6). Casualties come off the rear, so a block keeps its fighting front until it has fewer
models than fighters (§9.1). One `fight` action resolves one round of a whole combat.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.rulesets.core.state import game_state, slay, turn_key

from . import formation as fm
from . import movement as mv
from . import pursuit, tables
from .ambiguities import R8
from .charge import ld_of, panic_test, remove_casualties
from .profile import Profile
from .shooting import roll_wounds_and_saves
from .sight import gap

if TYPE_CHECKING:
    from battlesight.rulesets.core.game import Game

RULE_FIGHT = "whfb6 §9.1"
RULE_RESULT = "whfb6 §9.2"
RULE_BREAK = "whfb6 §9.3"
RULE_PURSUE = "whfb6 §7"
RULE_PANIC = "whfb6 §9.4"
CONTACT = 0.15
PANIC_RANGE = 6.0
FLANK_BREAKERS_US = 5  # [GK✓]: a flank or rear attacker of Unit Strength 5+ cancels ranks


def combat_of(game: Game, unit: str) -> list[str]:
    seen, todo = [unit], [unit]
    while todo:
        for other in game.unit(todo.pop()).status.get("engaged") or []:
            if other not in seen and game.board.unit_models(other):
                seen.append(other)
                todo.append(other)
    return seen


def fighters(game: Game, unit: str, enemies: list[str]) -> list[tuple[str, str]]:
    """(model, enemy unit it strikes) for models in base contact, plus spears behind them."""
    board = game.board
    models = fm.order(game, unit)
    out: list[tuple[str, str]] = []
    for m in models:
        for e in enemies:
            if any(gap(board, m, x) <= CONTACT for x in board.unit_models(e)):
                out.append((m, e))
                break
    form = fm.formation(game, unit)
    if form is not None and out:
        first = {m for m, _ in out}
        for m in models[form.files: 2 * form.files]:
            ahead = models[models.index(m) - form.files]
            if board.profile(m).melee_weapon().has("fights in two ranks") and ahead in first:
                out.append((m, dict(out)[ahead]))
    return out


def unit_strength(game: Game, unit: str) -> int:
    return sum(game.board.profile(m).unit_strength for m in game.board.unit_models(unit))


def _has_role(game: Game, unit: str, role: str) -> bool:
    return any(game.board.profile(m).role == role for m in game.board.unit_models(unit))


def _first(game: Game, unit: str) -> Profile:
    return game.board.profile(game.board.unit_models(unit)[0])


def fight(game: Game, unit: str) -> dict[str, Any]:
    """One round of the combat that `unit` is in, to the break tests and pursuits."""
    board = game.board
    units = combat_of(game, unit)
    side_of = {u: game.unit(u).player for u in units}
    players = sorted(set(side_of.values()), key=lambda p: p != game.active_player)
    rounds = {u: game.unit(u).status.get("combat_round", 0) for u in units}
    first_round = min(rounds.values()) == 0
    order = _strike_order(game, units, first_round)
    wounds = dict.fromkeys(players, 0)
    strikes = []
    for u in order:
        if not board.unit_models(u):
            continue
        enemies = [e for e in game.unit(u).status.get("engaged") or [] if board.unit_models(e)]
        pairs = fighters(game, u, enemies)
        pairs = pairs[: len(board.unit_models(u))]
        for target in dict.fromkeys(e for _, e in pairs):
            n = sum(1 for _, e in pairs if e == target)
            record = _strike(game, u, target, n, first_round)
            wounds[side_of[u]] += record["counted"]
            strikes.append(record)
    result = _resolve(game, units, side_of, players, wounds)
    result["first_round"] = first_round
    for u in units:
        st = game.unit(u).status
        st["combat_round"] = rounds[u] + 1
        st["last_won"] = result.get("winner") == side_of[u]
        st["fought"] = turn_key(game)
    out = {"units": units, "order": order, "strikes": strikes, **result}
    game.emit("combat_result", unit, rule=RULE_RESULT, **{k: v for k, v in out.items()
                                                         if k != "strikes"})
    _after(game, units, side_of, result)
    return out


def _strike_order(game: Game, units: list[str], first_round: bool) -> list[str]:
    """Chargers first (first round), then Initiative, then last round's winner; ties between
    sides are rolled off (§9.1). Great weapons strike last unless they charged [GK, §14 #8];
    under reading whfb6.8 'always-last' they strike last even when they charged."""
    always = R8.means("always-last")
    key: dict[str, tuple] = {}
    for u in units:
        p = _first(game, u)
        charged = first_round and game.unit(u).status.get("charged") is not None
        last = p.melee_weapon().has("strikes last") and (always or not charged)
        ini = -1 if last else int(p.stat("I", 1) or 1)
        key[u] = (not (always and last), charged, ini,
                  bool(game.unit(u).status.get("last_won")))
    ties: dict[tuple, int] = {}
    for u in units:
        if sum(1 for v in key.values() if v == key[u]) > 1 and key[u] not in ties:
            ties[key[u]] = 0
    roll = {u: (game.roller.one(f"{u} strike order roll-off") if key[u] in ties else 0)
            for u in units}
    return sorted(units, key=lambda u: (key[u], roll[u]), reverse=True)


def _strike(game: Game, unit: str, target: str, n: int, first_round: bool) -> dict[str, Any]:
    board = game.board
    att, dfn = _first(game, unit), _first(game, target)
    weapon = att.melee_weapon()
    charged = first_round and game.unit(unit).status.get("charged") is not None
    s = weapon.strength_for(att.stat("S", 3) or 3)
    if first_round:
        s += weapon.first_round + (weapon.charging if charged else 0)
    defended = bool(game.unit(target).status.get("defended")) and not \
        game.unit(unit).status.get("defended")
    need = tables.melee_need(att.stat("WS", 3) or 3, dfn.stat("WS", 3) or 3, defended)
    attacks = n * int(att.stat("A", 1) or 1)
    dice = game.roller.d6(attacks, f"{unit} attacks {target}: to hit {need}+")
    hits = sum(1 for d in dice if d == 6 or (d != 1 and d >= need))
    wounds, unsaved = roll_wounds_and_saves(game.roller, hits, s, dfn, False,
                                            f"{unit} attacks {target}")
    can_take = sum(board.model(m).wounds for m in board.unit_models(target))
    slain = remove_casualties(game, target, unsaved)
    return {"unit": unit, "target": target, "fighters": n, "attacks": attacks, "need": need,
            "defended": defended, "S": s, "hits": hits, "wounds": wounds, "unsaved": unsaved,
            "counted": min(unsaved, can_take), "slain": slain}


def _resolve(game: Game, units: list[str], side_of: dict[str, int], players: list[int],
             wounds: dict[int, int]) -> dict[str, Any]:
    board = game.board
    alive = {p: [u for u in units if side_of[u] == p and board.unit_models(u)] for p in players}
    us = {p: sum(unit_strength(game, u) for u in alive[p]) for p in players}
    score: dict[int, dict[str, int]] = {}
    for p in players:
        other = [q for q in players if q != p]
        enemy_us = us[other[0]] if other else 0
        ranks = max((_rank_bonus(game, u, units) for u in alive[p]), default=0)
        sides = [s for u in alive[p] for s in
                 (game.unit(u).status.get("attacks_side") or {}).values()]
        parts = {"wounds": wounds.get(p, 0), "ranks": ranks,
                 "outnumber": int(us[p] > enemy_us),
                 "standard": int(any(_has_role(game, u, "standard") for u in alive[p])),
                 "high_ground": int(_higher(game, alive[p], alive[other[0]] if other else [])),
                 "flank_rear": tables.flank_rear_bonus("flank" in sides, "rear" in sides)}
        score[p] = parts
    total = {p: sum(parts.values()) for p, parts in score.items()}
    if len(players) < 2:
        return {"score": score, "total": total, "winner": players[0] if players else None}
    a, b = players
    if not alive[b] or not alive[a]:
        winner = a if alive[a] else (b if alive[b] else None)
        return {"score": score, "total": total, "winner": winner, "margin": 0, "wiped": True}
    musicians = [any(_has_role(game, u, "musician") for u in alive[p]) for p in players]
    who, margin = tables.combat_winner(total[a], total[b], *musicians)
    winner = {"a": a, "b": b}.get(who) if who else None
    return {"score": score, "total": total, "winner": winner, "margin": margin}


def _rank_bonus(game: Game, unit: str, units: list[str]) -> int:
    """+1 per rank of 4+ behind the first, max 3; none if flanked or rear-charged by a unit of
    Unit Strength 5+ that is not skirmishing (§3, §9.2 [GK✓])."""
    form = fm.formation(game, unit)
    if form is None or _first(game, unit).skirmisher or _first(game, unit).fast_cavalry:
        return 0
    for other in units:
        side = (game.unit(other).status.get("attacks_side") or {}).get(unit)
        if side in ("flank", "rear") and unit_strength(game, other) >= FLANK_BREAKERS_US \
                and not _first(game, other).skirmisher:
            return 0
    return tables.rank_bonus(fm.rank_sizes(len(game.board.unit_models(unit)), form.files))


def _higher(game: Game, mine: list[str], theirs: list[str]) -> bool:
    """High ground: the side's models stand higher on average by half an inch (§6)."""
    def z(units: list[str]) -> float:
        zs = [game.board.outline(m).z for u in units for m in game.board.unit_models(u)]
        return float(np.mean(zs)) if zs else 0.0

    flyer = any(_first(game, u).has("flyer") for u in mine)
    return bool(theirs) and not flyer and z(mine) > z(theirs) + 0.5


def _after(game: Game, units: list[str], side_of: dict[str, int], result: dict) -> None:
    """Break tests, flee and pursue, defended obstacles lost, panic of friends (§9.3-§9.5)."""
    board = game.board
    winner = result.get("winner")
    if winner is None:
        return
    winners = [u for u in units if side_of[u] == winner and board.unit_models(u)]
    losers = [u for u in units if side_of[u] != winner and board.unit_models(u)]
    if result.get("wiped") and tables.overrun_allowed(result["first_round"], not losers):
        for u in winners:  # whfb6 §7 overrun (W-28)
            pursuit.overrun(game, u)
        _panic_friends(game, {u for u in units if not board.unit_models(u)}, units)
        return
    for u in losers:
        game.unit(u).status.pop("defended", None)  # attackers won: later rounds hit normally
    broken = []
    for u in losers:
        if _first(game, u).has("unbreakable"):
            game.emit("break_test", u, taken=False, reason="Unbreakable", rule=RULE_BREAK)
            continue
        ld = ld_of(game, u)
        dice = game.roller.d6(2, f"{u} break test (Ld {ld}, lost by {result['margin']})")
        broke = tables.breaks(sum(dice), result["margin"], ld)
        game.emit("break_test", u, dice=dice, margin=result["margin"], ld=ld, broken=broke,
                  rule=RULE_BREAK)
        if broke:
            broken.append(u)
    defeated = set(losers) | {u for u in units if not board.unit_models(u)}
    _panic_friends(game, defeated, units)
    for u in broken:
        _break(game, u, winners)


def _break(game: Game, unit: str, winners: list[str]) -> None:
    """The broken unit flees; each winner in contact pursues: caught if its roll >= (§7)."""
    board = game.board
    source = mv.centre(game, winners[0]) if winners else mv.centre(game, unit)
    start = mv.centre(game, unit)
    fled = mv.flee(game, unit, source, "broke in close combat")
    for w in winners:
        st = game.unit(w).status
        st["engaged"] = [e for e in st.get("engaged") or [] if e != unit]
        if not st["engaged"]:
            st.pop("engaged")
            st.pop("combat_round", None)
            st.pop("attacks_side", None)
            st.pop("charged", None)
    pursuers = [w for w in winners if not game.unit(w).status.get("engaged")]
    if not pursuers or not board.unit_models(unit) and fled.get("off_table"):
        return
    w = pursuers[0]
    n = tables.flee_dice(mv.unit_m(game, w))
    dice = game.roller.d6(n, f"{w} pursues ({n}D6\")")
    caught = tables.pursuit_catches(sum(dice), int(fled["distance"]))
    if caught and board.unit_models(unit):
        slay(game, board.unit_models(unit))
    d = (np.asarray(fled["to"]) if fled.get("to") else start) - mv.centre(game, w)
    moved = pursuit.advance(game, w, d, float(sum(dice)), "pursuit", {unit})
    game.emit("pursue", w, dice=dice, flee=fled["distance"], caught=caught, target=unit,
              moved=moved["moved"], contact=moved["contact"], rule=RULE_PURSUE)


def _panic_friends(game: Game, defeated: set[str], units: list[str]) -> None:
    """Friends within 6" of a unit destroyed or defeated in combat test for panic (§9.4; the
    seed's "落敗", defeated, wins over the digest's "broken")."""
    board = game.board
    done = game_state(game).setdefault("panic_sources", set())
    for loser in defeated:
        player = game.unit(loser).player
        where = _last_centre(game, loser)
        for friend in board.units_of(player):
            if friend in units or friend == loser or not board.unit_models(friend):
                continue
            near = min(float(np.linalg.norm(np.subtract(board.outline(m).center, where)))
                       for m in board.unit_models(friend))
            if near <= PANIC_RANGE and (friend, loser, tuple(turn_key(game))) not in done:
                done.add((friend, loser, tuple(turn_key(game))))
                panic_test(game, friend, f"{loser} was defeated within 6\"", where)


def _last_centre(game: Game, unit: str) -> np.ndarray:
    models = game.board.unit_models(unit, alive=False, on_table=False)
    pts = [game.board.model(m).spec.at for m in models]
    return np.mean(pts, axis=0) if pts else np.zeros(2)
