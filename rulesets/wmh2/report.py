"""The MK II `shooting_report` for `battlesight shoot` (the same keys as the other rulesets',
plus `expected_damage`). Sight, the share that counts and the DEF bonus of every firer and
target pair come from the one sight verdict (`judge.judge_with`, one batch), and each attack
plan is given them instead of judging them again.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from battlesight.rulesets.core.report import label_profiles, odds_keys
from battlesight.rulesets.core.ruling import Cover

from .bodies import standardise
from .combat import AttackContext, plan_attack
from .cover import RULE_COVER
from .judge import judge_with
from .templates import is_template, plan_template

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


def shooting_report(board: Board, unit: str, target: str, *, weapon: str | None = None,
                    moved: bool = False, samples: int | None = None) -> dict[str, Any]:
    """Each model of `unit` attacks the nearest model of `target` it can see and reach with
    its ranged weapon (or `weapon`); no dice are rolled. p_hit: 2d6 + RAT (aiming +2 unless
    `moved`) against DEF after cover, concealment and elevation; p_wound: a hit deals at least
    one damage point; p_save_fail: 1 (MK II has no saves); modifiers: aiming and every other
    attack roll and DEF modifier, each with its rule. expected_unsaved: expected hits that
    deal damage; expected_damage: expected damage points. An AOE or spray weapon adds a
    `templates` entry per firer (`templates.TemplatePlan.to_dict`: every model under the
    template with its odds, and an AOE's deviation odds), and its firer line and the totals
    count the damage on every model of the target unit under it. `samples` is not used: the
    MK II rule tests lines between volumes, not silhouette samples."""
    standardise(board.world)
    models, targets = board.unit_models(unit), board.unit_models(target)
    out: dict[str, Any] = {"unit": unit, "target": target, "eligible": False, "reason": "",
                           "rule": "wmh2 §9.2 (ranged)", "firers": [], "targets": [],
                           "allocation_order": [], "expected_unsaved": 0.0,
                           "expected_damage": 0.0, "toughness": None, "templates": []}
    if not models or not targets:
        out["reason"] = f"unit {unit if not models else target!r} has no models on the table"
        return out
    pairs = [(f, t) for f in models for t in targets]
    judged = dict(zip(pairs, judge_with(board, pairs), strict=True))
    plans = {}
    for f in models:
        profile = board.profile(f)
        w = profile.weapon(weapon) if weapon else (profile.ranged_weapons() or [None])[0]
        for t in targets:
            if w is not None and not w.melee:
                _, sight, bonus = judged[(f, t)]
                plans[(f, t)] = plan_attack(board, f, t, w, AttackContext(aimed=not moved),
                                            sight=sight, ranged_defence=bonus)
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
            if is_template(p.weapon):
                _, sight, bonus = judged[(f, t)]
                tplan = plan_template(board, f, t, p.weapon, AttackContext(aimed=not moved),
                                      sight=sight, ranged_defence=bonus)
                mine_hits = [h for h in tplan.hits if h.model in targets]
                hits = sum((h.p_unsaved for h in mine_hits), Fraction(0))
                damage = sum((h.expected_damage for h in mine_hits), Fraction(0))
                line.update(template=tplan.kind, expected_damage=float(damage))
                out["templates"].append(tplan.to_dict())
            else:
                hits, damage = p.p_hit * p.p_damage, p.expected_damage
            total_hits += hits
            total_damage += damage
        out["firers"].append(line)
    seen_by = {t: [f for (f, tt), p in plans.items() if tt == t and p.legal] for t in targets}
    for t in targets:
        firer = (seen_by[t] or [None])[0]
        p = plans.get((firer, t)) if firer else None
        verdict = judged[(firer, t)][0] if firer else None
        cov = verdict.cover if verdict is not None and verdict.cover is not None else Cover(
            False, None, "def", rule=RULE_COVER)
        out["targets"].append({
            "model": t, "visible": bool(seen_by[t]),
            "visible_fraction": round(verdict.seen_share, 4) if verdict is not None else 0.0,
            "cover": cov.to_dict(),
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
