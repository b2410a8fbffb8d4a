"""whfb6 line of sight and cover on small tables (whfb6 §4, §5; W-09..W-13)."""

from __future__ import annotations

from battlesight.rulesets.whfb6 import shooting, sight

from tests.test_whfb6_scenes import block, board, loose, scene

ARCHER = {"stats": {"M": 4, "WS": 3, "BS": 3, "S": 3, "T": 3, "W": 1, "I": 3, "A": 1, "Ld": 7},
          "weapons": ["bow"]}


def _one(terrain: list[dict], target_at: tuple[float, float], shooter_at=(25.0, 12.0),
         facing: float = 0.0, **shooter: object):
    models = loose("s", 1, "archer", [shooter_at], base=20, height=1.2, facing=facing,
                   **shooter)
    models += loose("t", 2, "archer", [target_at], base=20, height=1.2, facing=180)
    b = board(scene("whfb6", terrain, models=models))
    return b, sight.look(b, [("s-1", "t-1")], 120)[("s-1", "t-1")]


WOOD = {"id": "wood", "type": "forest", "polygon": [[15, 20], [35, 20], [35, 26], [15, 26]],
        "height": 5, "kind": "woods"}


def test_w09_target_near_the_wood_edge_is_seen_with_soft_cover():
    b, line = _one([WOOD], (25, 21.5))
    assert line.visible and line.cover == 1 and line.cover_source == "wood"
    report = shooting.analyse(b, "s", "t")
    assert report.cover.value == -1 and report.firers[0].need == 5  # 4, -1 to hit: soft cover


def test_w09_target_deeper_than_2_inches_is_not_a_target():
    _, line = _one([WOOD], (25, 22.5))
    assert not line.visible and line.rule == sight.RULE_WOODS


def test_w09_no_sight_through_a_deep_wood():
    _, line = _one([WOOD], (25, 28))
    assert not line.visible and "wood" in line.reason


def _wall(cover: str) -> dict:
    return {"id": "w", "type": "wall", "from": [15, 20], "to": [35, 20], "height": 1,
            "thickness": 0.5, "obstacle": True, "cover": cover}


def test_w10_directly_behind_a_hedge_soft_cover():
    _, line = _one([_wall("soft")], (25, 20.9))
    assert line.visible and line.cover == 1


def test_w10_directly_behind_a_stone_wall_hard_cover():
    b, line = _one([_wall("hard")], (25, 20.9))
    assert line.visible and line.cover == 2
    assert shooting.analyse(b, "s", "t").firers[0].need == 6  # 4 + 2


def test_w10_a_wall_5_inches_in_front_blocks():
    _, line = _one([_wall("hard")], (25, 25.6))
    assert not line.visible and line.rule == sight.RULE_OBSTACLE


def test_w11_front_rank_shoots_two_ranks_on_a_hill():
    entry, models = block("a", 1, "archers", (20, 10), 0, 5, 3)
    b = board(scene("whfb6", units=[entry], models=models))
    assert len(shooting.shooting_ranks(b, "a", b.unit_models("a"), 5)) == 5
    hill = {"id": "h", "type": "hill", "at": [20, 8.5], "size": [12, 8], "height": 1.5}
    b = board(scene("whfb6", [hill], units=[entry], models=models))
    assert shooting.on_hill(b, b.unit_models("a")[:5])
    assert len(shooting.shooting_ranks(b, "a", b.unit_models("a"), 5)) == 10


def test_w12_arc_and_fast_cavalry():
    # target 60 degrees off the shooter's facing (bearing measured from +y)
    _, line = _one([], (25 - 10 * 0.866, 12 + 10 * 0.5))
    assert not line.in_arc and line.rule == sight.RULE_ARC
    _, line = _one([], (25 - 10 * 0.866, 12 + 10 * 0.5), rules=["fast cavalry"])
    assert line.in_arc and line.visible


def test_w13_skirmishers_see_through_their_own_unit_but_block_others():
    skirm = {"rules": ["skirmishers"]}
    models = loose("sk", 1, "archer", [(25, 8), (25, 11), (24.9, 14)], base=20, height=1.2,
                   **skirm)
    models += loose("t", 2, "archer", [(25, 24)], base=20, height=1.2, facing=180)
    b = board(scene("whfb6", models=models))
    assert sight.look(b, [("sk-1", "t-1")], 80)[("sk-1", "t-1")].visible
    models = loose("a", 1, "archer", [(25, 8)], base=20, height=1.2)
    models += loose("sk", 2, "archer", [(24, 15), (25, 15), (26, 15)], base=25, height=1.3,
                    **skirm)
    models += loose("t", 2, "archer", [(25, 24)], base=20, height=1.2, facing=180)
    b = board(scene("whfb6", models=models))
    line = sight.look(b, [("a-1", "t-1")], 80)[("a-1", "t-1")]
    assert not line.visible and "sk" in line.reason
    report = shooting.analyse(b, "a", "sk")
    assert report.firers[0].need == 5  # 4, +1 for shooting at skirmishers


def test_verdict_soft_cover_is_minus_one_to_hit():
    b, _ = _one([_wall("soft")], (25, 20.9))
    out = b.ruleset.judge(b, [("s-1", "t-1")])[0]
    assert out.visible and out.rule == sight.RULE_LOS
    assert out.cover.value == -1 and out.cover.effect == "to_hit" and out.cover.source == "w"
    assert [(m.value, m.rule, m.text) for m in out.modifiers] == [
        (-1, sight.RULE_COVER, "-1 to hit")]
    assert out.label.endswith("cover -1 to hit (w)")
