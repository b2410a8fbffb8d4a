"""Vehicle damage (wh40k6 §8.9): hull points, the damage table, wrecks and explosions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from battlesight.geometry import terrain
from battlesight.rulesets.core.dice import Roller
from battlesight.scenes.model import TerrainPiece

from .tables import damage_result, to_wound

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

RULE_DAMAGE = "wh40k6 §8.9"


def apply_vehicle_hit(board: Board, roller: Roller, vehicle: str, result: str,
                      ap: int | None) -> dict[str, Any]:
    """A glancing (1 HP) or penetrating (1 HP + damage roll) hit on a vehicle."""
    state = board.model(vehicle)
    profile = state.profile
    step: dict[str, Any] = {"model": vehicle, "hit": result, "rule": RULE_DAMAGE}
    lose = 1
    if result == "penetrating":
        roll = roller.one(f"{vehicle} damage table")
        effect = damage_result(roll, ap, profile.has("open-topped") or
                               "open-topped" in profile.kinds)
        step.update(roll=roll, effect=effect)
        if effect in ("crew shaken", "crew stunned"):
            state.status[effect.replace(" ", "_")] = True
        elif effect == "weapon destroyed":
            ranged = profile.ranged()
            if ranged:
                idx = roller.one("which weapon", sides=len(ranged)) - 1
                profile.weapons.remove(ranged[idx])
                step["weapon"] = ranged[idx].name
            else:
                effect = "immobilised"
        if effect == "immobilised":
            if state.status.get("immobilised"):
                lose += 1
            state.status["immobilised"] = True
        if effect == "explodes":
            explode(board, roller, vehicle, step)
            return step
    hp = state.wounds - lose
    board.set_wounds(vehicle, max(0, hp))
    step["hull_points"] = max(0, hp)
    if hp <= 0:
        wreck(board, vehicle)
        step["wrecked"] = True
    return step


def wreck(board: Board, vehicle: str) -> str:
    """Replace the vehicle with a wreck: difficult, dangerous terrain giving 5+ cover. The wreck
    is the `box` piece `play --out` saves, built from it (`geometry.terrain.box`: from the table
    up to where the wreck's top is, so one on a hill stands as high in the saved scene as in
    this game, and models may stand on it in both)."""
    outline = board.outline(vehicle)
    piece_id = f"wreck-{vehicle}"
    along, across = outline.radii
    top = outline.z + max(0.5, outline.height * 0.8)
    data = {"feature": "vehicle wreck", "cover": 5, "difficult": True, "dangerous": True}
    at = [float(c) for c in outline.center]
    size = [float(2 * across), float(2 * along), float(top)]
    board.remove(vehicle)
    board.add_piece(TerrainPiece(piece_id, "box", {
        "at": at, "size": size, "rotation": float(outline.facing), **data}),
        terrain.box(at, size, outline.facing), data)
    return piece_id


def explode(board: Board, roller: Roller, vehicle: str, step: dict[str, Any]) -> None:
    """Explodes!: removed; every model within D6" takes a S3 AP- hit (armour saves)."""
    outline = board.outline(vehicle)
    radius = roller.one(f"{vehicle} explosion radius (D6\")")
    board.remove(vehicle)
    hit = []
    for mid, state in list(board.models.items()):
        if not state.alive or not state.on_table:
            continue
        if board.outline(mid).center and _gap(board, outline, mid) <= radius:
            hit.append(mid)
            profile = state.profile
            if profile.is_vehicle:
                continue
            need = to_wound(3, profile.stat("T", 4))
            if need is None or roller.one(f"{mid} explosion wound ({need}+)") < need:
                continue
            sv = profile.stat("Sv")
            if sv is not None and roller.one(f"{mid} armour save ({sv}+)") >= max(2, sv):
                continue
            left = state.wounds - 1
            board.set_wounds(mid, max(0, left))
            if left <= 0:
                board.remove(mid)
    step.update(exploded=True, radius=radius, caught=hit, hull_points=0)


def _gap(board: Board, outline, model: str) -> float:
    from battlesight.rulesets.core.measure import plan_gap

    return plan_gap(outline, board.outline(model))
