"""Exact expected unsaved wounds of a whole shooting attack (wh40k6 §8.5 allocation).

Wounds go to the closest visible in-range model first and keep going to it until it is
removed; the number of wounds of each weapon group is a distribution (binomials of shots), and
the allocation state (which model, wounds it has left) is carried through it exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from battlesight.rulesets.core.dice import Dist, binomial

from .profile import Profile
from .shooting import FirerLine, ShootingReport, wound_and_unsaved

if TYPE_CHECKING:
    from battlesight.rulesets.core.board import Board


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
