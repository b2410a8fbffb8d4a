"""Exact odds of shooting (wh40k6 §8.3-§8.5): the save a model takes, the chance one hit wounds
and goes unsaved, and the expected unsaved wounds of a whole attack (§8.5 allocation).

Wounds go to the closest visible in-range model first and keep going to it until it is
removed; the number of wounds of each weapon group is a distribution (binomials of shots), and
the allocation state (which model, wounds it has left) is carried through it exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from battlesight.rulesets.core.dice import Dist, binomial, p_target

from .profile import Profile, Weapon
from .tables import Save, best_save, p_penetration, to_wound
from .vehicles import shot_facing

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.ruling import Cover

    from .shooting import FirerLine, ShootingReport


def expected_unsaved(board: Board, report: ShootingReport) -> Fraction:
    """Exact expected number of unsaved wounds of the whole attack, allocating closest first
    and keeping on a model until it is removed (multi-wound models; instant death)."""
    order = report.order()
    if not order or not report.firing:
        return Fraction(0)
    lines = {t.model: t for t in report.targets}
    wounds_left = [board.model(m).wounds for m in order]
    state: dict[tuple[int, int], Fraction] = {(0, wounds_left[0]): Fraction(1)}
    expected = Fraction(0)
    groups: dict[str, list[FirerLine]] = {}
    for ln in report.firing:
        groups.setdefault(ln.weapon.name, []).append(ln)
    for group in groups.values():
        count = Dist.constant(0)
        per_model: list[tuple[Fraction, bool]] = []
        for m in order:
            p_w, p_u = wound_and_unsaved(board, group[0], m, board.profile(m),
                                         report.toughness, lines[m].cover)
            instant = _instant_death(group[0], board.profile(m))
            per_model.append((p_u / p_w if p_w else Fraction(0), instant))
        p_wound = wound_and_unsaved(board, group[0], order[0], board.profile(order[0]),
                                    report.toughness, lines[order[0]].cover)[0]
        for ln in group:
            shots = ln.shots_dist()
            mix: dict[int, Fraction] = {}
            for n, pn in shots:
                for k, pk in binomial(n, ln.p_hit * p_wound):
                    mix[k] = mix.get(k, Fraction(0)) + pn * pk
            count = count + Dist(mix)
        state, gained = _allocate(state, count, per_model, wounds_left)
        expected += gained
    return expected


def _instant_death(ln: FirerLine, profile: Profile) -> bool:
    if profile.is_vehicle or profile.has("eternal warrior") or ln.strength is None:
        return False
    return ln.strength >= 2 * (profile.stat("T") or 99)


def _allocate(state, count: Dist, per_model, wounds_left):
    """Advance the allocation state by a random number of wounds; (new state, E[unsaved])."""
    n_models = len(per_model)
    result: dict[tuple[int, int], Fraction] = {}
    gained = Fraction(0)
    current = dict(state)
    max_k = max(k for k, _ in count)
    for k in range(max_k + 1):
        pk = count[k]
        if pk:
            for key, p in current.items():
                result[key] = result.get(key, Fraction(0)) + pk * p
        if k == max_k:
            break
        nxt: dict[tuple[int, int], Fraction] = {}
        tail = count.p(lambda v, k=k: v > k)
        for (i, w), p in current.items():
            if i >= n_models:
                nxt[(i, w)] = nxt.get((i, w), Fraction(0)) + p
                continue
            q, instant = per_model[i]
            gained += tail * p * q
            nxt[(i, w)] = nxt.get((i, w), Fraction(0)) + p * (1 - q)
            left = 0 if instant else w - 1
            key = (i + 1, wounds_left[i + 1] if i + 1 < n_models else 0) if left <= 0 else (i, left)
            nxt[key] = nxt.get(key, Fraction(0)) + p * q
        current = nxt
    return result, gained


def model_save(profile: Profile, ap: int | None, cover: Cover, weapon: Weapon) -> Save:
    """The best save the model takes against this weapon: armour (unless AP or 'no armour'
    beats it), invulnerable, or cover (unless a template or 'ignores cover') (§8.4)."""
    ignores = weapon.template or weapon.has("ignores cover")
    sv = None if weapon.has("no armour") else profile.stat("Sv")
    return best_save(sv, ap, profile.stat("Inv"),
                     None if ignores or not cover.in_cover else cover.value)


def wound_and_unsaved(board: Board, ln: FirerLine, target: str, profile: Profile,
                      toughness: int | None, cover: Cover) -> tuple[Fraction, Fraction]:
    """(P(wound | hit), P(unsaved wound | hit)) for one line against one model; for a vehicle,
    P(glancing or penetrating | hit) and P(it is not saved by cover)."""
    w = ln.weapon
    assert w is not None
    if profile.is_vehicle:
        facing = shot_facing(board, target, ln.model, w.barrage)
        armour = profile.armour(facing) or 10
        half = w.has("melta") and w.within_half(ln.distance or 99)
        pen = p_penetration(3 if ln.strength is None else ln.strength, armour,
                            ordnance=w.kind == "ordnance", melta_half=half,
                            armourbane=w.has("armourbane"), rending=w.has("rending"),
                            lance=w.has("lance"))
        p_w = pen["glancing"] + pen["penetrating"]
        p_cover = p_target(cover.value) if cover.in_cover and not w.template else Fraction(0)
        return p_w, p_w * (1 - p_cover)
    need = to_wound(ln.strength, toughness or profile.stat("T", 4), sniper=w.has("sniper"),
                    fleshbane=w.has("fleshbane"))
    reroll = w.has("shred")
    if w.has("rending") or w.has("sniper"):
        normal_need = need if need is not None and need <= 5 else None
        p_normal = Fraction(0) if normal_need is None else Fraction(6 - normal_need, 6)
        p_rend = Fraction(1, 6)
        save = model_save(profile, w.ap, cover, w)
        rend_save = model_save(profile, 2, cover, w)
        return p_normal + p_rend, p_normal * (1 - save.p_save) + p_rend * (1 - rend_save.p_save)
    p_w = p_target(need, reroll_failed=reroll)
    return p_w, p_w * (1 - model_save(profile, w.ap, cover, w).p_save)
