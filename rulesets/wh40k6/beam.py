"""Beam powers (wh40k6 §8.11, §4.2, ruin walls §6.3): a line from the psyker to a point in
range hits every model under it, sight or not: the first at full strength, the next at S-1,
then S-2 ... until S 0; the first model hit must belong to the target unit; a ruin wall the
line passes through counts as a model (it takes one point of strength).

The line is drawn in plan from the psyker's base centre; a model is under it when the line
touches its base. Walls are found by a horizontal ray 0.5" above the psyker's base against each
ruin's solid (two faces make one wall).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry.ray import RayScene
from battlesight.rulesets.core.measure import Outline, point_gap, vehicle_facing
from battlesight.rulesets.core.ruling import Cover, Ruling

from .damage import apply_vehicle_hit
from .odds import model_save
from .psychic import RULE_PSYCHIC, Cast
from .tables import to_wound

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.game import Action, Game

RULE_BEAM = "wh40k6 §4.2"
WALL_HEIGHT = 0.5  # below the window sills: a wall with windows is still a wall


def _touch(outline: Outline, start: np.ndarray, end: np.ndarray) -> float | None:
    """Distance along the segment where it first touches the base (None: it does not)."""
    length = float(np.linalg.norm(end - start))
    n = max(2, int(length / 0.05) + 1)
    pts = start + np.linspace(0.0, 1.0, n)[:, None] * (end - start)
    if outline.is_circle:
        inside = np.linalg.norm(pts - np.asarray(outline.center), axis=1) <= outline.radii[0]
    else:
        inside = outline.contains(pts)
    hit = np.flatnonzero(inside)
    return float(hit[0]) / (n - 1) * length if len(hit) else None


def _walls(board: Board, start: np.ndarray, end: np.ndarray, z: float) -> list[float]:
    """Distances along the line of each ruin wall it passes through."""
    out = []
    length = float(np.linalg.norm(end - start))
    if length <= 0:
        return out
    direction = np.append((end - start) / length, 0.0)
    for entry in board.world.terrain.values():
        if entry.kind != "ruin" or entry.geometry.solid is None:
            continue
        scene = RayScene([entry.geometry.solid])
        hits, at = [], 0.0
        while at < length and len(hits) < 40:
            origin = np.array([[start[0], start[1], z]]) + direction * (at + 1e-3)
            dist, geom = scene.first_hit(origin, direction[None], np.array([length - at]))
            if geom[0] < 0:
                break
            at += 1e-3 + float(dist[0])
            hits.append(at)
        out += hits[::2]  # entering a wall; leaving it is the next hit
    return out


def beam_line(board: Board, cast: Cast, point: Any) -> tuple[np.ndarray, np.ndarray]:
    """The beam's start (the psyker's base centre) and end (the point given, else the full
    range towards the target's closest model)."""
    me = board.outline(cast.psyker)
    start = np.asarray(me.center, float)
    if point is not None:
        return start, np.asarray(point, float)[:2]
    models = board.unit_models(str(cast.target))
    aim = np.asarray(board.outline(min(models, key=lambda m: board.gap(cast.psyker, m)))
                     .center, float)
    direction = aim - start
    norm = float(np.linalg.norm(direction)) or 1.0
    return start, start + direction / norm * (cast.power.reach + me.radii[1])


def beam_hits(board: Board, cast: Cast, start: np.ndarray,
              end: np.ndarray) -> list[tuple[str, int, float]]:
    """[(model or '#wall', strength, distance along)] in order while the strength lasts."""
    items: list[tuple[float, str]] = []
    for m, state in board.models.items():
        if m == cast.psyker or not state.alive or not state.on_table:
            continue
        along = _touch(board.outline(m), start, end)
        if along is not None:
            items.append((along, m))
    z = board.outline(cast.psyker).z + WALL_HEIGHT
    items += [(d, "#wall") for d in _walls(board, start, end, z)]
    weapon = cast.power.weapon
    strength = int(weapon.strength) if weapon is not None else 0
    out = []
    for along, what in sorted(items):
        if strength <= 0:
            break
        out.append((what, strength, round(along, 3)))
        strength -= 1
    return out


def beam_plan(game: Game, cast: Cast, action: Action) -> Cast | Ruling:
    """A beam needs a target unit whose model is the first the line touches (§8.11)."""
    board, target = game.board, cast.target
    if not target or target not in game.units or not board.unit_models(str(target)):
        return Ruling(False, RULE_PSYCHIC, f"{cast.power.name} needs a target unit with models "
                      f"on the table, got {target!r}")
    if board.unit_player(str(target)) == board.unit_player(cast.unit):
        return Ruling(False, RULE_PSYCHIC, f"{cast.power.name} targets an enemy unit")
    shot = game.unit(cast.unit).turn.get("shot") or game.unit(cast.unit).turn.get("witchfire")
    if shot and shot != target:
        return Ruling(False, RULE_BEAM, f"{cast.unit} shoots at {shot}: the beam's first "
                      "model must belong to it")
    start, end = beam_line(board, cast, action.get("point"))
    reach = point_gap(board.outline(cast.psyker), tuple(end))
    if reach > cast.power.reach + 1e-6:
        return Ruling(False, RULE_PSYCHIC, f"the beam's end point is {reach:.2f}\" away: "
                      f"{cast.power.name} has range {cast.power.reach:g}\"")
    hits = beam_hits(board, cast, start, end)
    models = [h for h in hits if h[0] != "#wall"]
    if not models or board.unit_of(models[0][0]) != target:
        first = f"{models[0][0]} ({board.unit_of(models[0][0])})" if models else "nothing"
        return Ruling(False, RULE_BEAM, f"the first model under the beam must belong to "
                      f"{target}; it is {first}")
    cast.targets = list(dict.fromkeys(board.unit_of(m) for m, _, _ in models))
    cast.extra.update(line=[start.tolist(), end.tolist()], hits=hits)
    return cast


def resolve_beam(game: Game, cast: Cast, affected: list[str]) -> dict[str, Any]:
    """Each model under the beam (of a unit that did not deny it) takes one hit at its
    strength: to wound against its own T (penetration against its facing), then its save."""
    board, roller, weapon = game.board, game.roller, cast.power.weapon
    assert weapon is not None
    steps: list[dict[str, Any]] = []
    origin = np.asarray(cast.extra["line"][0])
    for model, strength, along in cast.extra["hits"]:
        if model == "#wall":
            steps.append({"wall": True, "strength": strength, "along": along})
            continue
        if board.unit_of(model) not in affected:
            steps.append({"model": model, "strength": strength, "along": along,
                          "denied": True})
            continue
        if not board.model(model).alive:
            continue
        profile = board.profile(model)
        step: dict[str, Any] = {"model": model, "strength": strength, "along": along}
        steps.append(step)
        if profile.is_vehicle:
            facing = vehicle_facing(board.outline(model), tuple(origin))
            armour = profile.armour(facing) or 10
            melta = weapon.has("melta") and weapon.within_half(along)
            dice = roller.d6(2 if melta else 1, f"{model} beam penetration D6+{strength} "
                             f"vs {facing} AV{armour}")
            total = sum(dice) + strength
            step.update(facing=facing, penetration=total)
            if total >= armour:
                result = "glancing" if total == armour else "penetrating"
                step["damage"] = apply_vehicle_hit(board, roller, model, result, weapon.ap)
            continue
        need = to_wound(strength, int(profile.stat("T", 4) or 4))
        if need is None:
            step["wound"] = "impossible"
            continue
        roll = roller.one(f"{model} beam to wound (S{strength}, {need}+)")
        step["to_wound"] = roll
        if roll < need:
            continue
        cover = board.ruleset.cover(board, [cast.psyker], model) \
            if board.model(cast.psyker).on_table else None
        save = model_save(profile, weapon.ap, cover or _open(), weapon)
        if save.need is not None:
            saved = roller.one(f"{model} {save.kind} save ({save.need}+)")
            step.update(save=save.kind, roll=saved)
            if saved >= save.need and saved != 1:
                continue
        instant = not profile.has("eternal warrior") and strength >= 2 * (profile.stat("T")
                                                                          or 99)
        left = 0 if instant else board.model(model).wounds - 1
        board.set_wounds(model, max(0, left))
        step["wounds_left"] = max(0, left)
        if left <= 0:
            board.remove(model)
    return {"line": cast.extra["line"], "steps": steps}


def _open() -> Cover:
    return Cover.none(note="no firer to judge cover from")
