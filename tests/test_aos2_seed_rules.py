"""aos2 rules as the seed (shared/seeds/003_1159246d479d87c2.txt) writes them: a move ends with
each model where, and facing the way, the player puts it."""

from __future__ import annotations

import json

from battlesight.scenes.loader import load_scene

from battlesight.cli.main import main
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



# ---- garrisons in `shoot` -----------------------------------------------------------------

#: two archers garrison a building; an archer 17.5" from the building (20.3" from the roof)
GARRISON = """\
format: 1
ruleset: aos2
table: [72, 48]
terrain:
  - {id: keep, type: box, at: [40, 30], size: [6, 6, 4], garrison: true}
units:
  - {id: g, player: 2, profile: archers, garrison: keep}
  - {id: s, player: 1, profile: archers}
models:
  - {id: g-1, unit: g, at: [39, 30], base: 32, height: 1.5, profile: archer}
  - {id: g-2, unit: g, at: [41, 30], base: 32, height: 1.5, profile: archer}
  - {id: s-1, unit: s, at: [40, 8.87], base: 32, height: 1.5, profile: archer}
"""


def _shoot(capsys, path, unit, target) -> dict:
    assert main(["shoot", str(path), "--unit", unit, "--target", target, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_shoot_sees_and_measures_a_garrison_through_its_feature(tmp_path, capsys):
    # Seed, 驻军 (garrisons, aos2 §5.3 / §6.4 of the digest): range and visibility to a
    # garrison are measured to and from its terrain feature; it counts as in cover and
    # missile attacks on it are at -1 to hit. `shoot` reads the scene's garrison as `play`
    # starts its game with it (one function, attacks.scene_garrisons).
    path = write_scene(tmp_path, GARRISON)
    report = _shoot(capsys, path, "s", "g")
    (line,) = report["firers"]
    assert report["eligible"] and line["can_fire"] and abs(line["distance"] - 17.5) < 1e-3
    assert line["need_hit"] == 4 and line["need_save"] == 4  # bow 3+ -1; save 5+ in cover
    names = {(m["name"], m["rule"]) for t in report["targets"] for m in t["modifiers"]}
    assert ("garrisoned target", "aos2 §5.3") in names
    assert all(t["cover"]["kind"] == "garrison" and t["cover"]["source"] == "keep"
               for t in report["targets"])
    g = game(load_scene(path), seed=_first_turn_seed(path))
    from battlesight.rulesets.aos2 import actions, attacks

    played = attacks.analyse(g.board, "s", "g", actions._ctx(g, "g", True)).to_dict()
    assert played["firers"][0]["exact"] == line["exact"]  # the same odds in play
    back = _shoot(capsys, path, "g", "s")  # the garrison shoots from its feature
    assert back["eligible"] and all(abs(f["distance"] - 17.5) < 1e-3 for f in back["firers"])
    # seen through the feature: the whole model counts as seen, both ways (not "seen, 0%")
    assert all(t["visible"] and t["visible_fraction"] == 1.0
               for r in (report, back) for t in r["targets"])


def test_los_and_shoot_agree_on_a_garrison(tmp_path, capsys):
    # one truth (aos2 §5.3): the verdict `los` and `render --los` show sees a garrison through
    # its feature as `shoot` does: visible, the whole model, cover from the feature, -1 to hit;
    # and the garrison sees out of it
    path = write_scene(tmp_path, GARRISON)
    report = _shoot(capsys, path, "s", "g")
    assert main(["los", str(path), "--from", "s-1", "--json"]) == 0
    seen = {r["target"]: r["verdict"] for r in json.loads(capsys.readouterr().out)}
    (line,) = report["firers"]
    for t in ("g-1", "g-2"):
        v = seen[t]
        assert v["visible"] == (t in line["sees"]) and v["visible"]
        assert v["seen_share"] == 1.0 and v["rule"] == "aos2 §5.3"
        assert v["cover"]["kind"] == "garrison" and v["cover"]["source"] == "keep"
        assert v["cover"]["value"] == line["cover"]["value"]
        assert ("garrisoned target", "aos2 §5.3") in {(m["name"], m["rule"])
                                                      for m in v["modifiers"]}
    back = _shoot(capsys, path, "g", "s")
    assert main(["los", str(path), "--from", "g-1", "--to", "s-1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["verdict"]
    assert out["visible"] == ("s-1" in back["firers"][0]["sees"]) and out["visible"]
    assert out["cover"] is None or out["cover"]["kind"] != "garrison"
    # a unit no longer a garrison is judged by true sight again
    import battlesight

    field = battlesight.load(path)
    assert field.board.inside == {"g": "keep"}
    field.board.inside.pop("g")
    (plain,) = field.judge_many([("s-1", "g-1")])
    assert plain.rule != "aos2 §5.3"


# ---- the priority winner's choice ---------------------------------------------------------


def test_the_priority_winner_chooses_who_goes_first(tmp_path):
    # Seed @7508 (战斗轮次): "每个战斗轮次开始时, 玩家必须先掷骰拼点, 胜者决定哪方先攻" -- at the
    # start of each battle round the players roll off and the winner decides who goes first.
    path = write_scene(tmp_path, SCENE)
    g = game(load_scene(path), seed=_first_turn_seed(path))
    from battlesight.rulesets.core.state import game_state

    assert g.active_player == 1 and game_state(g)["cp"] == {1: 1}
    wrong = g.apply({"do": "priority", "player": 2, "first": 2})
    assert not wrong.ok and "player 1 won the priority roll" in wrong.reason
    assert not g.apply({"do": "priority", "first": 3}).ok
    chosen = g.apply({"do": "priority", "first": 2})
    assert chosen.ok and g.active_player == 2 and g.turn_order == [2, 1]
    assert game_state(g)["cp"] == {1: 0, 2: 1}  # the hero phase begun for player 1 is undone
    assert [e.kind for e in chosen.events][:2] == ["priority_choice", "turn_start"]
    again = g.apply({"do": "priority", "first": 1})
    assert not again.ok and "right after the priority roll" in again.reason
    keep = game(load_scene(path), seed=_first_turn_seed(path))
    assert keep.apply({"do": "priority", "first": 1}).ok and keep.active_player == 1
    late = game(load_scene(path), seed=_first_turn_seed(path))
    late.apply({"do": "next"})
    assert not late.apply({"do": "priority", "first": 2}).ok  # the choice is made first


# ---- a charge need not name its target before the roll ------------------------------------

#: a charging unit 8" from one enemy unit and 10.5" from another
CHARGE = """\
format: 1
ruleset: aos2
table: [48, 48]
models:
  - {id: a-1, unit: a, player: 1, at: [20, 6], base: 32, height: 1.6, facing: 0}
  - {id: n-1, unit: near, player: 2, at: [20, 15.26], base: 32, height: 1.6, facing: 180}
  - {id: f-1, unit: far, player: 2, at: [28, 15.2], base: 32, height: 1.6, facing: 180}
"""


def test_a_charge_chooses_its_target_after_the_2d6(tmp_path):
    # Seed @13737 (冲锋阶段): "请挑选符合条件的单位, 进行一次 D6 掷骰来决定冲锋距离 该单位中的每个
    # 模型可移动与冲锋掷骰结果相同数量的英寸数" -- pick an eligible unit, roll its charge distance
    # (2D6 per the digest) and move each model up to the roll: no target is named before it.
    path = write_scene(tmp_path, CHARGE)
    from battlesight.rulesets.aos2 import rules

    seen = set()
    for seed in range(80):
        g = game(load_scene(path), seed=seed)
        if g.active_player != 1:
            continue
        while g.phase.name != "charge":
            assert g.apply({"do": "next"}).ok
        gaps = {u: g.board.unit_gap("a", u, "3d") for u in ("near", "far")}
        result = g.apply({"do": "charge", "unit": "a", "targets": ["far", "near"]})
        assert result.ok, result.reason
        (event,) = [e for e in result.events if e.kind == "charge"]
        roll = sum(event.data["dice"])
        reach = [u for u in ("far", "near") if rules.charge_succeeds(roll, gaps[u])]
        assert event.data["chosen_after_roll"] and event.data["success"] == bool(reach)
        assert event.data["target"] == (reach[0] if reach else "far")
        seen.add(event.data["target"] if reach else None)
    assert {"far", "near", None} <= seen  # the roll decided: the far unit, the near one, none
    g = game(load_scene(path), seed=_first_turn_seed(path))
    while g.phase.name != "charge":
        g.apply({"do": "next"})
    bad = g.apply({"do": "charge", "unit": "a", "targets": "near"})
    assert not bad.ok and "'targets'" in bad.reason
    assert not g.apply({"do": "charge", "unit": "a", "targets": ["a"]}).ok


def test_the_choices_example_plays_as_documented(capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    actions = root / "docs" / "examples" / "aos2_choices_actions.yaml"
    assert main(["play", str(root / "scenes" / "examples" / "aos2_ruins_obstacles.yaml"),
                 "--actions", str(actions), "--seed", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["index"] for r in out["results"] if not r["ok"]] == [7]  # a unit that ran
    page = (root / "docs" / "actions.md").read_text(encoding="utf-8")
    assert f"{len(out['results'])} actions, 1 refused; now {out['where']}" in page
    assert out["where"].startswith("game turn 2, player 2")  # handed over in round 2
