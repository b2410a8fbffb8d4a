"""aos2 rules as the seed (shared/seeds/003_1159246d479d87c2.txt) writes them: a move ends with
each model where, and facing the way, the player puts it."""

from __future__ import annotations

from battlesight.scenes.loader import load_scene
from battlesight.viewer.cli import main

from tests.helpers import write_scene
from tests.test_whfb6_scenes import game

#: two archers of player 1 (Move 6") facing the far edge, an enemy archer 30" away
SCENE = """\
format: 1
ruleset: aos2
table: [48, 48]
models:
  - {id: a-1, unit: a, player: 1, at: [10, 6], base: 32, height: 1.6, facing: 0}
  - {id: a-2, unit: a, player: 1, at: [11.5, 6], base: 32, height: 1.6, facing: 0}
  - {id: e-1, unit: e, player: 2, at: [10, 40], base: 32, height: 1.6, facing: 180}
"""


def _first_turn_seed(path) -> int:
    """A dice seed with which player 1 takes the first turn (the priority roll of round 1)."""
    data = load_scene(path)
    return next(s for s in range(100) if game(data, seed=s).active_player == 1)


def _play(tmp_path, script: str) -> dict:
    path = write_scene(tmp_path, SCENE)
    actions = write_scene(tmp_path, script, "actions.yaml")
    out = tmp_path / "after.yaml"
    assert main(["play", str(path), "--actions", str(actions), "--seed",
                 str(_first_turn_seed(path)), "--out", str(out)]) == 0
    after = load_scene(out)
    return {m.id: m for m in after.models}


def test_move_turns_the_model_to_the_facing_given(tmp_path, capsys):
    # Seed, 移动 (Movement, p. 5): "移动结束后, 您可以转动模型的朝向, 让其面对任意方向"
    # -- after its move a model may be turned to face any direction.
    models = _play(tmp_path, """\
        - {do: next}
        - do: move
          unit: a
          to: {a-1: {at: [10, 10], facing: 90}, a-2: [11.5, 10]}
        """)
    assert "0 refused" in capsys.readouterr().out
    assert tuple(models["a-1"].at) == (10, 10) and models["a-1"].facing == 90
    assert tuple(models["a-2"].at) == (11.5, 10) and models["a-2"].facing == 0  # none given


def test_a_run_cut_short_by_its_roll_keeps_the_facing(tmp_path, capsys):
    # a run of 11" (Move 6" + the most a D6 can add) is cut back to 6" + the roll, the model
    # still turned as the destination says
    models = _play(tmp_path, """\
        - {do: next}
        - do: move
          unit: a
          run: true
          to: {a-1: {at: [10, 17], facing: 270}, a-2: {at: [11.5, 17], facing: 270}}
        """)
    assert "0 refused" in capsys.readouterr().out
    for m in ("a-1", "a-2"):
        assert 12.0 < models[m].at[1] <= 17.0 + 1e-6 and models[m].facing == 270

