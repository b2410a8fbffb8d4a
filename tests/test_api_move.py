"""`Battlefield.move`: the scripts' way to move models, judged by the system's move rules as
the window's drags are (`rulesets.core.move_check`)."""

from __future__ import annotations

import pytest

import battlesight
from tests.helpers import minimal_with, write_scene

MODELS = """\
- {id: mate, unit: tac-1, at: [14, 6], profile: tactical-marine}
- {id: spotter, player: 1, at: [24, 34], floor: 1, profile: tactical-marine}
"""


@pytest.fixture
def bf(tmp_path):
    return battlesight.load(write_scene(tmp_path, minimal_with(models=MODELS)))


def test_a_legal_move_gives_a_new_battlefield_and_leaves_this_one(bf):
    result = bf.move("sgt", (12, 9), unit=True)
    assert result and result.check.rule == "wh40k6 §7.2"
    assert result.check.distance == pytest.approx(3.0) and result.check.left == 3.0
    moved = result.battlefield
    assert moved.scene.model("sgt").at == (12.0, 9.0) and moved.scene.model("mate").at == (
        14.0, 9.0)
    assert tuple(moved.world.models["mate"].position[:2]) == pytest.approx((14, 9))
    assert bf.scene.model("sgt").at == (12, 6)  # this battlefield is unchanged
    assert moved.judge("sgt", "boy").to_dict() == battlesight.load(
        moved.scene).judge("sgt", "boy").to_dict()


def test_a_refused_move_says_which_rule(bf):
    far = bf.move("sgt", (12, 14), unit=True)
    assert not far and far.battlefield is None
    assert far.check.rule == "wh40k6 §7.2" and "at most 6" in far.check.reason
    alone = bf.move("sgt", (12, 10))  # its mate left 4" behind
    assert not alone and alone.check.rule == "wh40k6 §3"
    with pytest.raises(KeyError, match="nobody"):
        bf.move("nobody", (1, 1))


def test_a_model_on_a_ruin_floor_keeps_it_where_the_floor_is(bf):
    result = bf.move("spotter", (25, 34))
    assert result, result.check.summary()
    moved = result.battlefield
    assert moved.scene.model("spotter").floor == 1
    assert moved.world.models["spotter"].position[2] == pytest.approx(3.0)
