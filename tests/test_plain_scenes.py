"""Plain scenes: models with only geometry (id, unit, player, at, base, height; no `profile`, no
`stats`) are judged as their system's standard model, and every command answers on them.

The scene is the README's first example (a wall between two models) with a third model off
the wall's end, where every system sees and reaches it.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from battlesight.rulesets.core.profiles import load_data
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.rulesets.core.standard import STANDARD_LABEL
from battlesight.scenes.systems import system_ids

from tests.helpers import run_cli, write_scene

PLAIN = """\
format: 1
name: plain
ruleset: {ruleset}
table: [24, 24]
terrain:
  - {{id: w, type: wall, from: [12, 6], to: [12, 18], height: 1, thickness: 0.5}}
models:
  - {{id: a, unit: ua, player: 1, at: [4, 12], base: 32, height: 1.6}}
  - {{id: b, unit: ub, player: 2, at: [20, 12], base: 32, height: 1.6}}
  - {{id: c, unit: ub, player: 2, at: [10, 20], base: 32, height: 1.6}}
"""

#: a short game per system: a move and a shot (wmh2: an advance and an attack)
ACTIONS = {
    "wh40k6": ["{do: move, unit: ua, by: [1, 0]}", "{do: next}",
               "{do: shoot, unit: ua, target: ub}", "{do: end_phase}"],
    "wmh2": ["{do: next}", "{do: next}", "{do: advance, unit: ua, to: [5, 12]}",
             "{do: attack, unit: ua, target: c}", "{do: end_phase}"],
    "whfb6": ["{do: next}"] * 5 + ["{do: move, unit: ua, by: [0, 1]}", "{do: next}",
                                   "{do: next}", "{do: shoot, unit: ua, target: ub}"],
    "aos2": ["{do: next}", "{do: move, unit: ua, by: [1, 0]}", "{do: next}",
             "{do: shoot, unit: ua, target: ub}"],
}



def standard_weapon(rid: str) -> str:
    """The system's basic ranged weapon: the first its standard model's profile lists."""
    first = load_data(rid)["models"][get_ruleset(rid).standard_name()]["weapons"][0]
    return first if isinstance(first, str) else first["name"]


@pytest.fixture(params=system_ids())
def plain(request, tmp_path):
    return request.param, write_scene(tmp_path, PLAIN.format(ruleset=request.param))


def test_standard_profile_is_declared_by_each_ruleset():
    for rid in system_ids():
        model = get_ruleset(rid).standard_profile
        assert model is not None and model.ruleset == rid and model.profile
        assert model.rule.startswith(rid)


def test_validate_and_los(plain):
    rid, path = plain
    run_cli("validate", path).ok()
    data = json.loads(run_cli("los", path, "--from", "a", "--json").ok().out)
    text = json.dumps(data)
    assert '"b"' in text and '"c"' in text
    assert all(r["profiles"] == {"observer": "standard model (none given)",
                                 "target": "standard model (none given)"} for r in data)
    shown = run_cli("los", path, "--from", "a", "--to", "c").ok().out
    assert "a, c: no profile or stats given, judged as the system's standard model" in shown


def test_shoot(plain):
    rid, path = plain
    report = json.loads(run_cli("shoot", path, "--unit", "ua", "--target", "ub",
                                "--json").ok().out)
    assert report["eligible"], report["reason"]
    assert [f["weapon"] for f in report["firers"]] == [standard_weapon(rid)]
    assert all(line["profile"] == STANDARD_LABEL
               for line in report["firers"] + report["targets"])
    c = next(t for t in report["targets"] if t["model"] == "c")
    assert c["visible"] and c["in_range"] and 0 < c["p_unsaved"] <= c["p_hit"] <= 1
    exact = {k: Fraction(v) for k, v in c["exact"].items()}
    assert exact["p_unsaved"] == exact["p_hit"] * exact["p_wound"] * exact["p_save_fail"]
    assert report["expected_unsaved"] > 0
    text = run_cli("shoot", path, "--unit", "ua", "--target", "ub").ok().out
    assert "may shoot" in text and STANDARD_LABEL in text and "modifiers" in text


def test_render_export_analyze(plain, tmp_path):
    rid, path = plain
    png, glb = tmp_path / "los.png", tmp_path / "plain.glb"
    run_cli("render", path, "--los", "a", "--out", png, "--size", "160x120").ok()
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    run_cli("export", path, glb).ok()
    assert glb.read_bytes()[:4] == b"glTF"
    data = json.loads(run_cli("analyze", path, "--grid", "4", "--json").ok().out)
    analysis = data[0] if isinstance(data, list) else data
    assert analysis["ruleset"] == rid
    assert analysis["standard_model"]["profile"] == get_ruleset(rid).standard_profile.profile
    assert 0 < analysis["cells"]["standable"] <= analysis["cells"]["total"]


def test_play(plain, tmp_path):
    rid, path = plain
    actions = tmp_path / "actions.yaml"
    actions.write_text("".join(f"- {a}\n" for a in ACTIONS[rid]), encoding="utf-8")
    out = tmp_path / "after.yaml"
    data = json.loads(run_cli("play", path, "--actions", actions, "--seed", "2",
                              "--out", out, "--json").ok().out)
    assert data["refused"] == 0, data["results"]
    assert len(data["results"]) == len(ACTIONS[rid])
    run_cli("validate", out).ok()
