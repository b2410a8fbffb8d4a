"""A `play` log as a timeline of beats to draw: who moved where, who shot whom with how many
hits, who fell, and a caption for each; pure Python, no Panda3D (the frames are drawn by
`viewer.replay`).

Where models are comes from each event's `changes` (the Board's own journal, the same in every
system; see docs/actions.md); logs written before it fall back to the `moves` lists in the
events' data. Shots come from the shooting events of the four systems: `shoot`, `overwatch`,
`stand_and_shoot` (a unit's shots, `outcome.shots` / `hits`) and MK II `attack` (one attack,
hit or miss). The log says how many shots hit, not which firer's did: a beat draws as many hit
lines as there were hits, spread over the firing models in order.

Captions of what a unit did read `WHO: verb ...` with the verb in its plain form, so that they
read with any unit, one model or many ('judicators: move 4.5"', 'dev-1: fire at boyz-1 (6
shots, 2 hits, 1 wound, 1 slain)'); WHO is the unit's `name` in the scene where it has one,
else its id. What one model did reads as a sentence about it ('pyro attacks s1 with torch:
miss').
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Events that only set the scene for the next beat (turn, phase, step headers).
HEADER_KINDS = {"phase", "step", "turn_start", "turn_end", "magic_dice", "command_points",
                "focus", "focus_removed", "activation_end", "not_activated"}
#: Events whose shots are drawn as lines.
SHOT_KINDS = {"shoot", "overwatch", "stand_and_shoot", "attack", "aoe_attack", "spray_attack"}
#: How a caption says a unit moved, by event kind.
VERBS = {"move": "move", "run": "run", "advance": "advance", "march": "march",
         "reform": "reform", "flee": "flee", "pursue": "pursue", "retreat": "retreat",
         "pile_in": "pile in", "consolidate": "consolidate", "fall_back": "fall back",
         "regroup": "regroup", "deep_strike": "arrive by deep strike", "arrive": "arrive"}
#: At most this many shot lines per beat (a horde firing 60 shots draws 24 lines).
MAX_LINES = 24
#: Seconds a beat lasts, by what it shows.
SECONDS = {"move": 1.6, "shots": 2.0, "text": 1.0, "start": 1.2}


class ReplayLogError(ValueError):
    """A log that is not a `battlesight play --log` file (the message names what is off)."""


@dataclass
class Shot:
    """One line drawn from a firing model to a target model; hit or miss."""

    firer: str
    target: str
    hit: bool


@dataclass
class Beat:
    """One thing that happened, as drawn: moves (model -> (x, y, z, facing) where it ends),
    models taken off or slain, shot lines, the caption, and how long it lasts (seconds)."""

    seq: int
    game_turn: int
    player: int | None
    phase: str
    kind: str
    unit: str | None
    caption: str
    seconds: float
    moves: dict[str, tuple[float, float, float | None, float | None]] = field(
        default_factory=dict)
    removed: list[str] = field(default_factory=list)
    shots: list[Shot] = field(default_factory=list)
    #: terrain pieces the game put on the table (a wreck): id -> its scene entry, with `type`
    added: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def header(self) -> str:
        """The turn, player and phase line shown above every frame of the beat."""
        who = f"player {self.player}" if self.player is not None else "both players"
        phase = f", {self.phase} phase" if self.phase else ""
        return f"Game turn {self.game_turn}, {who}{phase}"

    def frames(self, fps: float) -> int:
        """How many frames the beat lasts at fps (at least one)."""
        return max(1, round(self.seconds * fps))

    def models(self) -> set[str]:
        """Every model the beat is about (for framing)."""
        out = set(self.moves) | set(self.removed)
        for shot in self.shots:
            out |= {shot.firer, shot.target}
        return out


def read_log(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The log file (standard input for `-`) as a dict with its `events` list (ReplayLogError
    when it is not one). It is read as an importer reads JSON (`read_json`: a regular file,
    bounded, numbers no scene holds refused at their line)."""
    from battlesight.scenes.errors import SceneError
    from battlesight.scenes.importers.common import read_json

    try:
        data = read_json(Path(path), "play log")
    except SceneError as error:
        problem = error.problems[0]
        where = f"line {problem.line}: " if problem.line is not None else ""
        raise ReplayLogError(f"{where}{problem.message} (a play --log file is JSON)") from None
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        raise ReplayLogError("is not a play log: expected a JSON object with an 'events' list "
                             "(write one with battlesight play ... --log LOG.json)")
    for i, event in enumerate(data["events"], 1):
        if not isinstance(event, dict) or not isinstance(event.get("kind"), str) \
                or not isinstance(event.get("data", {}), dict):
            raise ReplayLogError(f"event {i} is not an event ({{kind, data, ...}})")
    return data


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        else None


def _point(value: Any) -> tuple[float, float] | None:
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(
            _number(v) is not None for v in value):
        return float(value[0]), float(value[1])
    return None


def event_changes(event: dict[str, Any]) -> tuple[dict[str, tuple], list[str]]:
    """(moves, removed) of one event: where each model ends, and the models that left."""
    moves: dict[str, tuple] = {}
    removed: list[str] = []
    changes = event.get("changes")
    if isinstance(changes, list):
        for change in changes:
            if not isinstance(change, dict) or not isinstance(change.get("model"), str):
                continue
            model = change["model"]
            if change.get("removed") or change.get("off_table"):
                moves.pop(model, None)
                removed.append(model)
            elif (at := _point(change.get("at"))) is not None:
                moves[model] = (*at, _number(change.get("z")), _number(change.get("facing")))
        return moves, removed
    data = event.get("data", {})  # an older log: the systems' own move lists
    for key in ("moves", "pile_in"):
        for move in data.get(key) or []:
            if isinstance(move, dict) and isinstance(move.get("model"), str):
                if move.get("destroyed"):
                    removed.append(move["model"])
                elif (at := _point(move.get("to"))) is not None:
                    moves[move["model"]] = (*at, None, _number(move.get("facing")))
    outcome = data.get("outcome") if isinstance(data.get("outcome"), dict) else {}
    for dead in [*_list(outcome.get("casualties")), *_list(data.get("slain"))]:
        if isinstance(dead, str):
            removed.append(dead)
    return moves, removed


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _count(outcome: dict, *keys: str) -> int | None:
    for key in keys:
        value = outcome.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return None


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s" if not word.endswith("s") else \
        f"{n} {word}"


def _destroyed(damage: Any) -> bool:
    return isinstance(damage, dict) and bool(damage.get("destroyed"))


def template_summary(kind: str, data: dict) -> str:
    """The caption of a wmh2 AOE or spray attack: 'pyro fires mortar (AOE 4) at s1: hit,
    8 damage, destroyed; blast on s2' or 'pyro sprays flamer at s3: 2 of 3 hit, 1 destroyed'."""
    attacker, target, weapon = data.get("attacker"), data.get("target"), data.get("weapon")
    if kind == "spray_attack":
        attacks = [a for a in _list(data.get("attacks")) if isinstance(a, dict)]
        hits = sum(bool(a.get("hit")) for a in attacks)
        dead = sum(_destroyed(a.get("damage")) for a in attacks)
        tail = f", {dead} destroyed" if dead else ""
        return f"{attacker} sprays {weapon} at {target}: {hits} of {len(attacks)} hit{tail}"
    aoe = _number(data.get("aoe"))
    head = f"{attacker} fires {weapon}" + (f" (AOE {aoe:g})" if aoe else "") + f" at {target}"
    if data.get("hit"):
        damage = data.get("damage") if isinstance(data.get("damage"), dict) else {}
        text = f"{head}: hit, {damage.get('points', data.get('points', 0))} damage" + (
            ", destroyed" if _destroyed(damage) else "")
    else:
        deviation = data.get("deviation") if isinstance(data.get("deviation"), dict) else {}
        moved = _number(deviation.get("distance"))
        text = f"{head}: miss" + (f', deviates {moved:g}"' if moved is not None else "")
    blasts = [b for b in _list(data.get("blasts")) if isinstance(b, dict)]
    if blasts:
        text += "; blast on " + ", ".join(str(b.get("model")) for b in blasts)
    return text


def shot_summary(kind: str, unit: str | None, data: dict, slain: int,
                 names: dict[str, str] | None = None) -> str:
    """The caption of a shooting event: 'dev-1: fire at boyz-1 (6 shots, 1 hit, 1 slain)';
    names: unit id -> its name in the scene."""
    if kind in ("aoe_attack", "spray_attack"):
        return template_summary(kind, data)
    target = data.get("target")
    if kind == "attack":
        attacker = data.get("attacker") or unit
        weapon = f" with {data['weapon']}" if isinstance(data.get("weapon"), str) else ""
        if not data.get("hit"):
            return f"{attacker} attacks {target}{weapon}: miss"
        damage = data.get("damage") if isinstance(data.get("damage"), dict) else {}
        points = damage.get("points", data.get("points"))
        tail = ", destroyed" if damage.get("destroyed") else ""
        return f"{attacker} attacks {target}{weapon}: hit, {points} damage{tail}"
    outcome = data.get("outcome") if isinstance(data.get("outcome"), dict) else {}
    verb = {"overwatch": "fire overwatch at", "stand_and_shoot": "stand and shoot at"}.get(
        kind, "fire at")
    parts = []
    shots = _count(outcome, "shots", "attacks")
    if shots is not None:
        parts.append(_plural(shots, "shot"))
    for key, word in (("hits", "hit"), ("wounds", "wound")):
        n = _count(outcome, key)
        if n is not None:
            parts.append(_plural(n, word))
    parts.append(f"{slain} slain")
    return f"{_name(unit, names)}: {verb} {_name(target, names)} (" + ", ".join(parts) + ")"


def _name(unit: Any, names: dict[str, str] | None) -> str:
    """A unit as a caption calls it: its name in the scene, else its id."""
    return (names or {}).get(unit, str(unit)) if isinstance(unit, str) else str(unit)


def caption(event: dict[str, Any], slain: int, names: dict[str, str] | None = None) -> str:
    """One line saying what an event did, from its kind and data; names: unit id -> its name
    in the scene (the caption's WHO, see the module's docstring)."""
    kind, data = event["kind"], event.get("data", {})
    unit = _name(event["unit"], names) if isinstance(event.get("unit"), str) else None
    if kind in SHOT_KINDS:
        return shot_summary(kind, event.get("unit"), data, slain, names)
    if kind == "refused":
        return f"refused: {data.get('reason', '')}".strip()
    if kind == "charge":
        target = _name(data.get("target"), names)
        if data.get("success") is False:
            return f"{unit}: fail to charge {target}" + (
                f" ({data['reason']})" if data.get("reason") else "")
        rolled, needed = _number(data.get("distance")), _number(data.get("needed"))
        dice = _list(data.get("dice"))
        if rolled is None and dice and all(isinstance(d, int) for d in dice):
            rolled = float(sum(dice))
        tail = f' ({rolled:g}" rolled' if rolled is not None else ""
        tail += f', {needed:.1f}" needed' if needed is not None and tail else ""
        return f"{unit}: charge {target}{tail}" + (")" if tail else "")
    if kind in ("fight", "combat_result"):
        tail = f", {slain} slain" if slain else ""
        winner = data.get("winner")
        if kind == "combat_result":
            return f"combat result: player {winner} wins" if winner else "combat result: a draw"
        foes = _name(data["target"], names) if data.get("target") else ", ".join(
            _name(u, names) for u in _list(data.get("units"))
            if isinstance(u, str) and u != event.get("unit"))
        return f"{unit}: fight {foes}".rstrip() + tail
    if kind in ("morale", "battleshock", "panic", "break_test", "command_check"):
        passed = data.get("passed")
        verdict = "passed" if passed else "failed" if passed is not None else "taken"
        fled = data.get("fled")
        tail = f", {len(fled)} fled" if isinstance(fled, list) and fled else ""
        return f"{unit or 'a unit'}: {kind.replace('_', ' ')} {verdict}{tail}"
    if kind == "game_start":
        return "the armies deploy"
    if kind == "wounds":
        slain_text = f", {slain} slain" if slain else ""
        return f"{unit}: take {data.get('damage', '?')} damage{slain_text}"
    if kind in VERBS:
        distance = _number(data.get("distance"))
        return f"{unit}: {VERBS[kind]}" + (f' {distance:.1f}"' if distance else "")
    words = kind.replace("_", " ")
    return f"{unit}: {words}" if unit else words


def event_pieces(event: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The terrain pieces an event put on the table (`{terrain, added}` changes): id -> the
    piece's scene entry (its `type` and keys)."""
    changes = event.get("changes")
    return {c["terrain"]: dict(c["added"]) for c in changes if isinstance(c, dict)
            and isinstance(c.get("terrain"), str) and isinstance(c.get("added"), dict)
            and isinstance(c["added"].get("type"), str)} if isinstance(changes, list) else {}


def timeline(log: dict[str, Any], units: dict[str, str],
             names: dict[str, str] | None = None) -> list[Beat]:
    """The beats of a log: one per event that moves, shoots, kills or decides something.

    units: model id -> unit id of the scene's models (a unit's models are its firers and its
    targets); names: unit id -> the unit's `name` in the scene, for captions."""
    members: dict[str, list[str]] = {}
    for model, unit in units.items():
        members.setdefault(unit, []).append(model)
    alive = set(units)
    beats: list[Beat] = []
    for event in log["events"]:
        kind = event["kind"]
        if kind in HEADER_KINDS:
            continue
        moves, removed = event_changes(event)
        added = event_pieces(event)
        data = event.get("data", {})
        shots = shots_of(event, members, alive)
        slain = [m for m in removed if m in alive]
        alive -= set(removed)
        if not (moves or removed or shots or added) and kind not in (
                "game_start", "refused", "charge", "combat_result", "morale", "battleshock",
                "panic", "break_test", "command_check"):
            continue
        seconds = SECONDS["shots"] if shots else SECONDS["move"] if moves else \
            SECONDS["start"] if kind == "game_start" else SECONDS["text"]
        beats.append(Beat(
            int(event.get("seq", len(beats) + 1)), int(event.get("game_turn", 1) or 1),
            event.get("player"), str(event.get("phase") or ""), kind, event.get("unit"),
            caption(event, len(slain), names) if isinstance(data, dict) else kind, seconds,
            moves, removed, shots, added))
    return beats


def shots_of(event: dict[str, Any], members: dict[str, list[str]], alive: set[str]
             ) -> list[Shot]:
    """The shot lines of a shooting event (none for other events)."""
    kind, data = event["kind"], event.get("data", {})
    if kind not in SHOT_KINDS:
        return []
    if kind == "spray_attack":  # one attack roll on every model under the spray
        attacker = data.get("attacker")
        return [Shot(attacker, a["model"], bool(a.get("hit")))
                for a in _list(data.get("attacks"))
                if isinstance(attacker, str) and isinstance(a, dict)
                and isinstance(a.get("model"), str)]
    if kind in ("attack", "aoe_attack"):
        if data.get("attack_kind") not in (None, "ranged", "magic", "spray"):
            return []  # a melee attack is drawn by the models standing together
        attacker, target = data.get("attacker"), data.get("target")
        if isinstance(attacker, str) and isinstance(target, str):
            return [Shot(attacker, target, bool(data.get("hit")))]
        return []
    unit, target = event.get("unit"), data.get("target")
    firers = [f["model"] for f in data.get("firers") or []
              if isinstance(f, dict) and f.get("can_fire", True) and isinstance(
                  f.get("model"), str)]
    firers = [m for m in firers or members.get(unit, []) if m in alive]
    targets = [m for m in members.get(target, [target] if isinstance(target, str) else [])
               if m in alive]
    if not firers or not targets:
        return []
    outcome = data.get("outcome") if isinstance(data.get("outcome"), dict) else {}
    shots = _count(outcome, "shots", "attacks")
    hits = _count(outcome, "hits") or 0
    shots = len(firers) if shots is None else shots
    if shots <= 0:
        return []
    lines = min(shots, MAX_LINES)
    hit_lines = round(lines * min(hits, shots) / shots)
    return [Shot(firers[i % len(firers)], targets[i % len(targets)], i < hit_lines)
            for i in range(lines)]


def frame_count(beats: list[Beat], fps: float) -> int:
    """How many frames a replay of beats has at fps."""
    return sum(b.frames(fps) for b in beats)
