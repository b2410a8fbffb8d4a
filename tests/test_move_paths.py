"""Movement by paths (rulesets/core/paths.py): one model's move checked along its length, the
bases and pieces it crosses, the climb each seed counts, the chance its dice give, and what
blocked, under the 40k and AoS seeds (shared/seeds/000_*.txt, 003_*.txt)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from battlesight.rulesets.aos2 import moves as aos_moves
from battlesight.rulesets.core.moves import Dest
from battlesight.rulesets.core.paths import check_path, crowd
from battlesight.rulesets.wh40k6 import movement

import battlesight
from battlesight.cli.main import main
from tests.helpers import write_scene

R = 16 / 25.4  # a 32 mm base's radius in inches


def field(ruleset: str = "wh40k6", terrain: list | None = None, models: list | None = None):
    """A 48x48 table with a marine `a` at (10, 10) and its squad-mate `b` at (10, 13)."""
    profile = {"wh40k6": "tactical-marine", "aos2": "liberator"}[ruleset]
    base = [{"id": "a", "unit": "sq", "player": 1, "at": [10, 10], "base": 32,
             "height": 1.6, "profile": profile},
            {"id": "b", "unit": "sq", "player": 1, "at": [10, 13], "base": 32,
             "height": 1.6, "profile": profile}]
    return battlesight.load({"format": 1, "name": "paths", "ruleset": ruleset,
                             "table": [48, 48], "terrain": terrain or [],
                             "models": base + (models or [])})


# Seed 000 (有模型挡路): "一个模型无法穿越或停在另外一个模型占据的空间上（以模型的底盘或车体为
# 基准），就算友军的模型比它们自己的底座还小...也不行" (no model moves through or ends on the
# space another model's base takes, friend or foe).
def test_40k_move_through_a_friendly_base_is_refused_naming_it():
    board = field().board
    check = check_path(board, "a", [(10, 16)], 6.0, movement.PATHS)
    assert not check.allowed and check.rule == "wh40k6 §7.2" and check.blocker == "b"
    assert "move through b's base" in check.reason and check.chance == 0
    # it gets as far as base contact: 3" apart centre to centre, less two radii
    assert check.reach == pytest.approx(3 - 2 * R, abs=0.06)
    assert check.end[1] == pytest.approx(10 + check.reach)
    onto = check_path(board, "a", [(10, 13.2)], 6.0, movement.PATHS)
    assert not onto.allowed and "stand on b's base" in onto.reason
    around = check_path(board, "a", [(12, 11.5), (12, 14.5), (10, 16)], 8.0, movement.PATHS)
    assert around.allowed and around.blocker is None and around.chance == 1
    assert around.used == pytest.approx(2.5 + 3 + 2.5, abs=1e-9)
    assert around.left == pytest.approx(0.0, abs=1e-9)


def test_40k_moving_models_do_not_block_each_other():
    """The unit's other movers are moving too: a file of models walks forward."""
    board = field().board
    check = check_path(board, "a", [(10, 15)], 6.0, movement.PATHS, movers=("b",))
    assert check.allowed


# Seed 000: "除非是在突袭阶段，不然模型不能移动到敌方模型周围的1英寸内" (outside the assault
# phase no model moves to within 1" of an enemy model) -- anywhere on its path.
def test_40k_path_may_not_pass_within_one_inch_of_an_enemy():
    board = field(models=[{"id": "ork", "unit": "boyz", "player": 2, "at": [13, 16],
                           "base": 32, "height": 1.7, "profile": "ork-boy"}]).board
    past = check_path(board, "a", [(11.5, 10), (11.5, 16)], 8.0, movement.PATHS)
    assert not past.allowed and past.blocker == "ork" and "1\" rule" in past.reason
    charge = check_path(board, "a", [(11.5, 10), (11.5, 16)], 8.0, movement.PATHS,
                        may_near=("boyz",))
    assert charge.allowed


# Seed 000 (穿越困难地形): "投掷两个D6,选择较大的点数——这就是该单位内所有的模型能够移动的最远
# 距离" (2D6, the higher die is how far the unit moves): a chance, not a yes/no.
def test_40k_difficult_terrain_gives_the_exact_chance_of_2d6_keep_highest():
    forest = {"id": "wood", "type": "forest", "height": 4,
              "polygon": [[8, 13], [12, 13], [12, 20], [8, 20]]}
    board = field(terrain=[forest]).board
    check = check_path(board, "a", [(12.5, 10), (12.5, 15), (11, 15)], 12.0, movement.PATHS)
    assert check.allowed and check.difficult == ("wood",)
    assert check.used == pytest.approx(2.5 + 5 + 1.5)  # 9": no die reaches it
    assert check.chance == 0 and check.rule == "wh40k6 §6.1"
    near = check_path(board, "a", [(12.5, 14)], 12.0, movement.PATHS)
    # used = hypot(2.5, 4) = 4.72": the higher of 2D6 must be 5 or 6: 1 - (4/6)^2 = 5/9
    assert near.difficult == ("wood",) and near.chance == Fraction(5, 9)
    clear = check_path(board, "a", [(14, 10)], 6.0, movement.PATHS)
    assert clear.difficult == () and clear.chance == 1


def test_40k_impassable_piece_blocks_at_its_edge_and_names_it():
    box = {"id": "bunker", "type": "box", "at": [10, 20], "size": [6, 2, 3]}
    board = field(terrain=[box]).board
    check = check_path(board, "a", [(14, 10), (14, 25)], 30.0, movement.PATHS)
    assert check.allowed  # beside the box, not into it
    into = check_path(board, "a", [(12.5, 10), (12.5, 25)], 30.0, movement.PATHS)
    assert not into.allowed and into.blocker == "bunker" and into.rule == "wh40k6 §6.1"
    assert into.reach == pytest.approx(2.5 + (19 - R - 10), abs=0.06)  # stops at its edge


# Seed 000 counts height only between a ruin's floors ("一个步行的模型需要移动3寸上或下一层楼",
# a walking model moves 3" to go up or down a floor); a hill is open ground ("山脊...开放地形"):
# moving 4.5" off a 2" hill costs 4.5", not 6.47".
def test_40k_walking_off_a_hill_counts_no_climb():
    hill = {"id": "hill", "type": "hill", "at": [10, 10], "size": [6, 6], "height": 2}
    board = field(terrain=[hill]).board
    assert board.outline("a").z == pytest.approx(2.0)
    check = check_path(board, "a", [(10 - 2.0, 10 - 4.03)], 6.0, movement.PATHS)
    assert check.allowed and check.climb == 0 and check.used == pytest.approx(4.5, abs=0.01)


# Seed 003 (§4 移动): "可以朝任意方向或路线移动, 但不能越过其他模型或模型底座" (any direction or
# route, but never across other models or their bases); "垂直向上或向下的距离都算在移动距离内"
# (vertical distance up or down counts), so an AoS hill's height is counted.
def test_aos_move_across_a_base_is_refused_and_a_hill_climb_counts():
    board = field("aos2").board
    across = check_path(board, "a", [(10, 16)], 6.0, aos_moves.NORMAL)
    assert not check_path(board, "a", [(10, 13.2)], 6.0, aos_moves.NORMAL).allowed
    assert not across.allowed and across.blocker == "b" and across.rule == "aos2 §7.1"
    hill = {"id": "hill", "type": "hill", "at": [10, 20], "size": [6, 6], "height": 2}
    board = field("aos2", terrain=[hill]).board
    up = check_path(board, "a", Dest((11, 20)), 12.0, aos_moves.NORMAL)
    assert up.climb == pytest.approx(2.0) and up.used == pytest.approx(
        (1 + 10 ** 2) ** 0.5 + 2.0)


def test_move_check_reports_off_table_with_the_point():
    board = field().board
    check = check_path(board, "a", [(-3, 10)], 20.0, movement.PATHS)
    assert not check.allowed and "leave the table" in check.reason
    assert check.reach == pytest.approx(10, abs=0.06)


def test_a_crowd_made_once_answers_as_each_call_would():
    """The planner's way: one `crowd` for thousands of cells gives the same checks."""
    board = field(models=[{"id": "ork", "unit": "boyz", "player": 2, "at": [13, 16],
                           "base": 32, "height": 1.7, "profile": "ork-boy"}]).board
    others = crowd(board, "a")
    for end in [(10, 16), (11.5, 16), (14, 10), (10, 13.2), (6, 6)]:
        alone = check_path(board, "a", [end], 8.0, movement.PATHS)
        shared = check_path(board, "a", [end], 8.0, movement.PATHS, others=others)
        assert alone == shared


#: a marine squad of two, the second model 3" in front of the first
SQUAD = """\
format: 1
name: through a base
ruleset: wh40k6
table: [48, 48]
models:
  - {id: a, unit: sq, player: 1, at: [10, 10], base: 32, height: 1.6, profile: tactical-marine}
  - {id: b, unit: sq, player: 1, at: [10, 13], base: 32, height: 1.6, profile: tactical-marine}
  - {id: ork, unit: boyz, player: 2, at: [40, 40], base: 32, height: 1.7, profile: ork-boy}
"""


def test_play_refuses_a_move_through_a_base_citing_the_rule(tmp_path, capsys):
    """`battlesight play`: a 5" move of one model straight through its squad-mate's base is
    refused with wh40k6 §7.2 and the model in the way; the same move round it is played."""
    scene = write_scene(tmp_path, SQUAD)
    actions = write_scene(tmp_path, "actions:\n  - {do: move, unit: sq, to: {a: [10, 15]}}\n"
                          "  - {do: move, unit: sq, to: {a: [11.8, 12]}}\n", "actions.yaml")
    assert main(["play", str(scene), "--actions", str(actions), "--seed", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "  1. move sq: REFUSED (wh40k6 §7.2): a would move through b's base"
    assert out[1] == "  2. move sq: ok"


def test_battlefield_move_answers_the_moved_battlefield_or_why_not(tmp_path):
    bf = battlesight.load(write_scene(tmp_path, SQUAD))
    refused = bf.move("a", (10, 15))
    assert not refused and refused.battlefield is None
    assert refused.check.blocker == "b" and refused.check.rule == "wh40k6 §7.2"
    moved = bf.move("a", (10.5, 15), via=[(11.3, 12), (11.3, 14)])
    assert moved.ok and moved.check.used == pytest.approx(
        math.hypot(1.3, 2) + 2 + math.hypot(0.8, 1))
    assert moved.battlefield.board.outline("a").center == (10.5, 15.0)
    assert bf.board.outline("a").center == (10.0, 10.0)  # this one is unchanged
    with pytest.raises(KeyError):
        bf.move("nobody", (1, 1))


def plain_table(*models: tuple[str, str, int, tuple[float, float]]) -> battlesight.Battlefield:
    """A 48" wh40k6 table of plain 32 mm models, each (id, unit, player, at)."""
    return battlesight.load({
        "format": 1, "name": "moves", "ruleset": "wh40k6", "table": [48, 48],
        "models": [{"id": m, "unit": u, "player": p, "at": list(at), "base": 32, "height": 1.6}
                   for m, u, p, at in models]})


def test_scripts_and_the_window_judge_a_move_alike():
    """`Battlefield.move` gives the window's answer (`judge_move`, the move action's legality)
    on top of the path check: a clear path that leaves the unit out of coherency is refused
    by both with the same rule, a move that keeps it is allowed by both."""
    from battlesight.rulesets.core.move_trial import judge_move

    bf = plain_table(("a", "u", 1, (10, 10)), ("b", "u", 1, (11.5, 10)), ("e", "x", 2, (40, 40)))
    for to, ok in (((10.0, 15.0), False), ((10.0, 11.0), True)):
        script, window = bf.move("a", to), judge_move(bf.scene, {"a": to})
        assert script.ok == window.ok == ok
        if not ok:
            assert script.check.rule == window.rule == "wh40k6 §3"
            assert "coherency" in script.check.reason and script.battlefield is None


def test_a_move_too_long_is_refused_for_its_length_not_for_what_lies_past_its_reach():
    """A 30" move with a base 27" along is refused as too long (the model never gets there);
    a base within the allowance still stops it first."""
    bf = plain_table(("a", "u", 1, (10, 5)), ("far", "x", 2, (10, 32)), ("near", "y", 1, (16, 7)))
    long = bf.move("a", (10, 35)).check
    assert not long.allowed and long.blocker is None and "may move at most 6\"" in long.reason
    assert bf.move("a", (15, 5)).ok  # 5" along open ground
    # 8.2" and through 'near' 5" along: the base within reach stops it first
    blocked = bf.move("a", (18, 8)).check
    assert not blocked.allowed and blocked.blocker == "near"
    winding = bf.move("a", (14, 5), via=[(10, 8), (14, 8)]).check
    assert winding.used > 6 and not winding.allowed and winding.blocker is None
