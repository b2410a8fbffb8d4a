"""aos2 true line of sight, ranges and targeting (aos2 §4, §8; A-10..A-14, A-31)."""

from __future__ import annotations

from battlesight.rulesets.aos2 import attacks, sight

from tests.test_whfb6_scenes import board, loose, scene

BIG = {"base": 60, "height": 4.0}


def _screen(same_unit: bool):
    models = loose("s", 1, "archer", [(20, 10)])
    screen = loose("s" if same_unit else "f", 1, "archer", [(19.2, 13), (20.8, 13)], **BIG)
    if same_unit:
        for i, m in enumerate(screen):
            m["id"] = f"s-{i + 2}"
    models += screen + loose("t", 2, "archer", [(20, 18)])
    return board(scene("aos2", models=models))


def test_a10_own_unit_is_transparent():
    b = _screen(same_unit=True)
    assert sight.sees_unit(b, "s-1", "t")
    b = _screen(same_unit=False)
    assert not sight.sees_unit(b, "s-1", "t")
    report = attacks.analyse(b, "s", "t")
    assert not report.eligible and "cannot see" in report.reason


def test_a11_per_model_range():
    near = [(15 + 2 * i, 14) for i in range(6)]
    far = [(17 + 2 * i, 9.5) for i in range(4)]  # 19-20" from the closest target
    models = loose("a", 1, "archer", near + far)
    models += loose("t", 2, "archer", [(20, 30)])
    b = board(scene("aos2", models=models))
    report = attacks.analyse(b, "a", "t")
    assert len(report.firing) == 6


def test_a12_minimum_range():
    gun = {"weapons": [{"name": "mortar", "range": "6-48", "attacks": 1, "to_hit": 4,
                        "to_wound": 3}]}
    models = loose("a", 1, "archer", [(20, 10)], **gun)
    models += loose("t", 2, "archer", [(19, 15), (21, 15)])
    b = board(scene("aos2", models=models))
    assert "minimum range" in attacks.analyse(b, "a", "t").reason
    models[-1]["at"] = [21, 18.3]  # one model 7" away
    b = board(scene("aos2", models=models))
    assert attacks.analyse(b, "a", "t").eligible


def test_a13_shooting_while_engaged():
    models = loose("u", 1, "archer", [(20, 10)]) + loose("v", 1, "archer", [(35, 13.26)])
    models += loose("e1", 2, "archer", [(20, 13.26)])  # 2" from U
    models += loose("e3", 2, "archer", [(30, 20)])
    b = board(scene("aos2", models=models))
    assert attacks.analyse(b, "u", "e1").eligible
    r = attacks.analyse(b, "u", "e3")
    assert not r.eligible and r.rule == attacks.RULE_ENGAGED
    assert attacks.analyse(b, "v", "e1").eligible


def _hero(escort: int, gap: float, monster: bool = False):
    kw = ["hero"] + (["monster"] if monster else [])
    models = loose("h", 2, "archer", [(20, 20)], keywords=kw)
    models += loose("e", 2, "archer", [(16 + 1.4 * i, 20 + 1.26 + gap) for i in range(escort)])
    models += loose("s", 1, "archer", [(26, 10)])
    return board(scene("aos2", models=models))


def test_a14_look_out_sir():
    assert attacks.analyse(_hero(3, 2.5), "s", "h").firers[0].need_hit == 4
    assert attacks.analyse(_hero(2, 2.5), "s", "h").firers[0].need_hit == 3
    assert attacks.analyse(_hero(3, 2.5, True), "s", "h").firers[0].need_hit == 3
    assert attacks.analyse(_hero(3, 3.5), "s", "h").firers[0].need_hit == 3
    assert not attacks.look_out_sir(_hero(3, 2.5), "s")


def test_a31_per_model_visibility():
    wall = {"id": "w", "type": "wall", "from": [24, 16], "to": [36, 16], "height": 4}
    pts = [(20 + 2 * i, 20) for i in range(2)] + [(26 + 2 * i, 20) for i in range(4)]
    pts += [(20 + 2 * i, 40) for i in range(4)]
    models = loose("t", 2, "archer", pts) + loose("d", 1, "archer", [(21, 5)])
    b = board(scene("aos2", [wall], models=models))
    near = [m for m in b.unit_models("t") if sight.sight_gap(b, "d-1", m) <= 18]
    assert len(near) == 6
    assert len(sight.models_visible_within(b, "d-1", "t", 18)) == 2
