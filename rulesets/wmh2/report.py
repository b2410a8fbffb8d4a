"""The MK II `shooting_report` for `battlesight shoot` (the same keys as the other rulesets',
plus `expected_damage`); sight verdicts come from `judge`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from battlesight.geometry.visibility import SightQuery, visibility_many
from battlesight.geometry.world import World
from battlesight.rulesets.core.report import label_profiles, odds_keys

from .bodies import Body, bodies, standardise
from .combat import AttackContext, plan_attack

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board

def seen_share(world: World, a: Body, target: str, samples: int = 400) -> float:
    """Share of the target's standard volume seen from the top centre of a's volume, through
    terrain only (models never block in 3D under this rule)."""
    eye = np.array([a.xy[0], a.xy[1], a.top - 1e-3], dtype=float)
    skip = tuple(m for m in world.models if m not in (a.id, target))
    q = SightQuery(a.id, target, eye=eye, skip=skip, samples=samples)
    return float(visibility_many(world, [q])[0].visible_fraction)


def shooting_report(board: Board, unit: str, target: str, *, weapon: str | None = None,
                    moved: bool = False, samples: int = 600) -> dict[str, Any]:
    """Each model of `unit` attacks the nearest model of `target` it can see and reach with
    its ranged weapon (or `weapon`); no dice are rolled. p_hit: 2d6 + RAT (aiming +2 unless
    `moved`) against DEF after cover, concealment and elevation; p_wound: a hit deals at least
    one damage point; p_save_fail: 1 (MK II has no saves); modifiers: aiming and every other
    attack roll and DEF modifier, each with its rule. expected_unsaved: expected hits that
    deal damage; expected_damage: expected damage points."""
    standardise(board.world)
    models, targets = board.unit_models(unit), board.unit_models(target)
    out: dict[str, Any] = {"unit": unit, "target": target, "eligible": False, "reason": "",
                           "rule": "wmh2 §9.2 (ranged)", "firers": [], "targets": [],
                           "allocation_order": [], "expected_unsaved": 0.0,
                           "expected_damage": 0.0, "toughness": None}
    if not models or not targets:
        out["reason"] = f"unit {unit if not models else target!r} has no models on the table"
        return out
    plans = {}
    for f in models:
        profile = board.profile(f)
        w = profile.weapon(weapon) if weapon else (profile.ranged_weapons() or [None])[0]
        for t in targets:
            if w is not None and not w.melee:
                plans[(f, t)] = plan_attack(board, f, t, w, AttackContext(aimed=not moved))
    total_hits = Fraction(0)
    total_damage = Fraction(0)
    for f in models:
        w_name = next((p.weapon.name for (ff, _), p in plans.items() if ff == f), None)
        mine = [(t, p) for (ff, t), p in plans.items() if ff == f]
        sees = [t for t, p in mine if p.sight is not None and p.sight.visible]
        usable = sorted(((p.distance, t, p) for t, p in mine if p.legal), key=lambda x: x[0])
        line: dict[str, Any] = {"model": f, "weapon": w_name, "can_fire": bool(usable),
                                "sees": sees, "in_range": False, "closest": None,
                                "distance": None, "shots": 0, "snap": False, "p_hit": 0.0}
        if not mine:
            line["reason"] = "has no ranged weapon" + (f" {weapon!r}" if weapon else "")
        elif not usable:
            line["reason"] = mine[0][1].reason
        else:
            dist, t, p = usable[0]
            line.update(closest=t, distance=round(dist, 3), in_range=p.in_range, shots=1,
                        p_hit=float(p.p_hit), target=t, expected_damage=float(
                            p.expected_damage), reason=p.auto_miss or "")
            total_hits += p.p_hit * p.p_damage
            total_damage += p.expected_damage
        out["firers"].append(line)
    seen_by = {t: [f for (f, tt), p in plans.items() if tt == t and p.legal] for t in targets}
    for t in targets:
        firer = (seen_by[t] or [None])[0]
        p = plans.get((firer, t)) if firer else None
        any_plan = next((pl for (f, tt), pl in plans.items() if tt == t), None)
        cov = (p or any_plan).defence.to_cover(firer) if (p or any_plan) else None
        share = seen_share(board.world, bodies(board, [firer])[firer], t, samples) \
            if firer else 0.0
        out["targets"].append({
            "model": t, "visible": bool(seen_by[t]), "visible_fraction": round(share, 4),
            "cover": {"in_cover": bool(cov and cov.in_cover), "value": cov.value if cov else
                      None, "effect": "def", "source": cov.source if cov else None,
                      "rule": cov.rule if cov else "", "kind": cov.kind if cov else "none",
                      "notes": cov.notes if cov else []},
            "save": None, "distance": round(p.distance, 3) if p else None,
            "in_range": bool(p and p.in_range), "facing": None,
            "def": p.defense if p else None, "arm": p.armour if p else None,
            **odds_keys(p.p_hit if p else Fraction(0), p.p_damage if p else Fraction(0),
                        Fraction(1), p.modifiers if p else ()),
            "expected_damage": float(p.expected_damage) if p else 0.0,
        })
    out["allocation_order"] = [t["model"] for t in sorted(
        (t for t in out["targets"] if t["visible"]), key=lambda t: t["distance"])]
    out["eligible"] = any(f["can_fire"] for f in out["firers"])
    if not out["eligible"]:
        out["reason"] = next((f.get("reason") for f in out["firers"] if f.get("reason")),
                             "no model can attack")
    out["expected_unsaved"] = float(total_hits)
    out["expected_damage"] = float(total_damage)
    return label_profiles(board, out)
