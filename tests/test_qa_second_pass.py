"""Regressions from a second QA pass: argument errors name their command, wmh2 stats are
checked one by one, the API takes readings as the CLI does, shares under 1% read '<1%',
shoot tables do not show 100% for attacks that cannot hit, and captions read with units."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from battlesight.scenes import EXAMPLES_DIR

from battlesight.cli.main import main
from tests.helpers import run_cli

DEMO = str(EXAMPLES_DIR / "demo.yaml")
DATA = Path(__file__).parent / "data"


@pytest.mark.parametrize("argv, command", [
    (["play", DEMO, "--actions", "a.yaml", "--readings", "all"], "play"),
    (["validate", DEMO, "--no-such-flag"], "validate"),
])
def test_unknown_arguments_are_refused_by_their_command(capsys, argv, command):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1
    assert err.startswith(f"battlesight {command}: unrecognized arguments: "), err


WMH2_PYRO = """\
format: 1
ruleset: wmh2
table: [48, 48]
models:
  - {{id: pyro, player: 1, at: [10, 10], base: 30, profile: solo,
     weapons: [{{name: torch, RNG: 8, {weapon}}}]{stats}}}
  - {{id: foe, player: 2, at: [20, 10], base: 30}}
"""


@pytest.mark.parametrize("weapon, key", [
    ("ROF: 0, POW: 12", "ROF"), ("ROF: 2.5, POW: 12", "ROF"), ("POW: -3", "POW"),
    ("POW: abc", "POW"), ("ROF: many, POW: 10", "ROF"), ("POW: 101", "POW"),
])
def test_wmh2_weapon_stats_are_refused_naming_the_weapon_key(tmp_path, weapon, key):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon=weapon, stats=""), encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    lines = [line for line in err.strip().splitlines() if "problem(s)" not in line]
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"{path}:6: models[pyro].weapons[0].{key}: must be a whole"), err
    assert "invalid literal" not in err


@pytest.mark.parametrize("weapon", ["ROF: 3, POW: 12", "ROF: '-', POW: '-'", "ROF: '*'"])
def test_wmh2_weapon_stats_that_read_are_accepted(tmp_path, weapon):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon=weapon, stats=""), encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    assert code == 0, err


def test_wmh2_characteristic_text_is_refused(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(WMH2_PYRO.format(weapon="POW: 10", stats=", stats: {RAT: '4+'}"),
                    encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    assert code == 2 and "models[pyro].stats.RAT: a wmh2 characteristic is a whole number" \
        in err, err


@pytest.mark.parametrize("chosen", ["wh40k6.A5=whole-model", ["wh40k6.A5=whole-model"],
                                    ("wh40k6.A5=whole-model", "wh40k6.A2=seen-only")])
def test_api_readings_take_id_value_texts_as_the_cli(chosen):
    import battlesight

    field = battlesight.load(battlesight.example("wh40k6_city_ruins"))
    readings = field.readings(chosen)
    assert readings["wh40k6.A5"] == "whole-model"
    assert readings == field.readings({"wh40k6.A5": "whole-model", **(
        {"wh40k6.A2": "seen-only"} if isinstance(chosen, tuple) else {})})


@pytest.mark.parametrize("chosen, says", [
    ("wh40k6.A5", "expected ID=VALUE"), (42, "expected a mapping of reading id to value"),
    ([1, 2], "expected a mapping of reading id to value"),
])
def test_api_readings_of_another_shape_are_refused_clearly(chosen, says):
    import battlesight

    field = battlesight.load(battlesight.example("wh40k6_city_ruins"))
    with pytest.raises(ValueError, match=says):
        field.readings(chosen)


@pytest.mark.parametrize("share, text", [(0.003, "<1% seen"), (0.0, "0% seen"), (0.62, "62% seen"),
                                         (0.997, ">99% seen"), (1.0, "100% seen")])
def test_verdict_label_never_reads_0_percent_for_a_seen_model(share, text):
    from battlesight.rulesets.core.verdict import Verdict

    verdict = Verdict("a", "b", True, share, share, "why", "rule")
    assert verdict.label == f"{text}, clear"


def test_aos2_melee_targets_show_the_share_sight_gives():
    """A melee attack needs no sight, but its table showed 'seen yes, 0%': the share is the
    sight verdict's, as for missiles."""
    from battlesight.rulesets.aos2 import attacks

    from tests.test_whfb6_scenes import board, loose, scene

    models = loose("u", 2, "archer", [(20.0, 18.0), (22.0, 18.0)])
    models += loose("w", 1, "blood-warrior", [(20.0, 16.5)])
    b = board(scene("aos2", [], models=models))
    report = attacks.analyse(b, "w", "u", attacks.Context(missile=False)).to_dict()
    verdicts = b.ruleset.judge(b, [("w-1", "u-1"), ("w-1", "u-2")])
    shares = {t["model"]: t["visible_fraction"] for t in report["targets"]}
    assert all(t["visible"] for t in report["targets"])
    assert shares == {v.target: round(v.seen_share, 4) for v in verdicts}
    assert shares["u-1"] > 0.5


def test_shoot_table_shows_no_save_odds_for_attacks_that_cannot_hit():
    aos = str(EXAMPLES_DIR / "aos2_ruins_obstacles.yaml")
    code, out, _ = run_cli("shoot", aos, "--unit", "judicators", "--target",
                           "bloodreavers", "--weapon", "storm gladius")
    rows = [x.split() for x in out.splitlines() if x.startswith("reaver-")]
    assert code == 0 and rows
    assert all(r[-4:] == ["0.000", "-", "-", "0.000"] for r in rows), rows
    code, out, _ = run_cli("shoot", aos, "--unit", "judicators", "--target",
                           "bloodreavers", "--weapon", "storm gladius", "--json")
    import json

    assert all(t["p_save_fail"] == 1.0 for t in json.loads(out)["targets"])  # the schema's


def test_wh40k6_cover_note_says_whose_view_counts_under_a2():
    """dev-2 cannot see boy-3 but its view counts toward the cover (A2): the note said '100%
    hidden by ruin-d' next to 'visible' as if the model were hidden."""
    import json

    city = str(EXAMPLES_DIR / "wh40k6_city_ruins.yaml")
    code, out, _ = run_cli("shoot", city, "--unit", "dev-1", "--target", "boyz-1",
                           "--json")
    data = json.loads(out)
    sees = {f["model"]: set(f["sees"]) for f in data["firers"]}
    blind = [t for t in data["targets"] if t["model"] not in sees[t["cover"]["firer"]]]
    assert code == 0 and blind
    for t in blind:
        firer = t["cover"]["firer"]
        assert t["cover"]["notes"][0].startswith(f"from {firer}, which cannot see it (A2): ")
    assert all(not t["cover"]["notes"][0].startswith("from ") for t in data["targets"]
               if t["model"] in sees[t["cover"]["firer"]])


@pytest.mark.parametrize("event, names, text", [
    ({"kind": "move", "unit": "judicators", "data": {"distance": 4.5}}, {},
     'judicators: move 4.5"'),
    ({"kind": "move", "unit": "judicators", "data": {"distance": 4.5}},
     {"judicators": "Judicators of Hammerhal"}, 'Judicators of Hammerhal: move 4.5"'),
    ({"kind": "pile_in", "unit": "liberators", "data": {}}, {}, "liberators: pile in"),
    ({"kind": "charge", "unit": "liberators", "data": {"target": "reavers", "distance": 7,
                                                       "needed": 5.2}},
     {"reavers": "Bloodreavers"}, 'liberators: charge Bloodreavers (7" rolled, 5.2" needed)'),
    ({"kind": "fight", "unit": "liberators", "data": {"target": "reavers"}}, {},
     "liberators: fight reavers"),
    ({"kind": "shoot", "unit": "dev-1", "data": {"target": "boyz-1", "outcome": {
        "shots": 6, "hits": 2, "wounds": 1}}}, {"dev-1": "Devastators"},
     "Devastators: fire at boyz-1 (6 shots, 2 hits, 1 wound, 1 slain)"),
])
def test_replay_captions_read_with_any_unit(event, names, text):
    from battlesight.viewer.replay_timeline import caption

    assert caption(event, 1 if event["kind"] == "shoot" else 0, names) == text


def test_a_unit_name_is_a_checked_scene_key(tmp_path):
    from tests.helpers import minimal_with, write_scene

    good = write_scene(tmp_path, minimal_with().replace(
        "profile: tactical-squad}", "profile: tactical-squad, name: Tactical Squad}"))
    assert run_cli("validate", str(good))[0] == 0
    bad = write_scene(tmp_path, minimal_with().replace(
        "profile: tactical-squad}", "profile: tactical-squad, name: 3}"), "bad.yaml")
    code, _, err = run_cli("validate", str(bad))
    assert code == 2 and "units[tac-1].name: must be a non-empty string, got 3" in err


def test_render_matrix_json_lists_the_unit_lines_it_draws(tmp_path):
    import json

    pytest.importorskip("panda3d")
    from tests.schema_helpers import assert_valid

    code, out, _ = run_cli("render", DEMO, "--out", str(tmp_path / "m.png"), "--matrix",
                           "--json", "--size", "480x270", "--renderer", "tiny")
    drawn = json.loads(out)
    assert code == 0
    assert_valid("render", drawn)
    lines, cells = drawn["matrix"]["lines"], drawn["matrix"]["cells"]
    status = {(c["observer"], c["target"]): c["status"] for c in cells}
    assert lines and all(status[(x["observer"], x["target"])] == x["status"] for x in lines)
    units = drawn["matrix"]["units"]
    assert len(lines) == len({(x["observer"], x["target"]) for x in lines})
    assert all(x["observer"] in units and x["target"] in units for x in lines)


def test_turntable_frame_patterns_are_honoured_or_refused(tmp_path):
    pytest.importorskip("panda3d")
    out = tmp_path / "spin_%03d.png"
    code, _, _ = run_cli("render", DEMO, "--out", str(out), "--turntable", "2",
                         "--size", "48x32", "--renderer", "tiny")
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spin_000.png", "spin_001.png"]
    for name in ("spin_%s.png", "spin_%d_%d.png", "spin_50%.png"):
        code, _, err = run_cli("render", DEMO, "--out", str(tmp_path / name),
                               "--turntable", "2", "--size", "48x32", "--renderer", "tiny")
        assert code == 2 and err.startswith("battlesight render: --out ") and \
            "a frame pattern has one number" in err, err
    assert len(list(tmp_path.iterdir())) == 2  # nothing more written


def test_numbered_paths_without_a_pattern_keep_the_old_names():
    from battlesight.scenes.output import numbered_paths

    assert [p.name for p in numbered_paths("a/spin.png", 2)] == ["spin_000.png", "spin_001.png"]
    assert [p.name for p in numbered_paths("x%d.png", 2)] == ["x0.png", "x1.png"]


def _roofless(upper_floor: bool):
    """A roofless 150 x 100 mm building, 4 mm walls 60 mm high on a 3 mm slab, in inches;
    with upper_floor, a slab across it at 30 mm."""
    import trimesh

    def box(lo, hi):
        return trimesh.creation.box(bounds=[lo, hi])

    w, d, t, h = 150.0, 100.0, 4.0, 60.0
    parts = [box((0, 0, 0), (w, d, 3)), box((0, 0, 3), (t, d, h)), box((w - t, 0, 3), (w, d, h)),
             box((t, 0, 3), (w - t, t, h)), box((t, d - t, 3), (w - t, d, h))]
    if upper_floor:
        parts.append(box((t, t, 27), (w - t, d - t, 30)))
    mesh = trimesh.util.concatenate(parts)
    mesh.apply_scale(1 / 25.4)
    return mesh


def test_wall_tops_of_a_roofless_building_are_no_storey():
    from battlesight.geometry.floors import find_floors, has_room

    plain = _roofless(False)
    assert find_floors(plain.vertices, plain.faces) == ()  # the slab only: stood on as a hill
    storeyed = _roofless(True)
    np.testing.assert_allclose(find_floors(storeyed.vertices, storeyed.faces),
                               [3 / 25.4, 30 / 25.4], atol=1e-6)
    # the room test itself: a 25 mm base fits on a 26 mm square, not on a 24 mm one
    square = np.array([[[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 1], [0, 1]]], float)
    assert has_room(square * 26 / 25.4) and not has_room(square * 24 / 25.4)


def _obj_with_parts(path: Path, base_mm: float) -> None:
    """An OBJ figure in mm, z up, with a group named base (a disc base_mm wide) and a body."""
    import trimesh

    disc = trimesh.creation.cylinder(radius=base_mm / 2, height=3.0, sections=32)
    disc.apply_translation((0, 0, 1.5))
    body = trimesh.creation.box(extents=(10.0, 8.0, 25.0))
    body.apply_translation((0, 0, 15.5))
    lines, offset = [], 0
    for name, part in (("base", disc), ("body", body)):
        lines.append(f"g {name}")
        lines += [f"v {x:.5f} {y:.5f} {z:.5f}" for x, y, z in part.vertices]
        lines += ["f " + " ".join(str(offset + i + 1) for i in face) for face in part.faces]
        offset += len(part.vertices)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


MESH_BASE_SCENE = """\
format: 1
ruleset: wh40k6
table: [48, 48]
models:
  - id: hero
    player: 1
    at: [10, 10]
    shape: hero.obj
    units: mm
{base}  - {{id: foe, player: 2, at: [40, 40]}}
"""


@pytest.mark.parametrize("base, warned", [("    base: 60\n", True), ("    base: 32\n", False),
                                          ("", False)])
def test_a_mesh_base_part_the_scene_base_disagrees_with_is_warned(tmp_path, base,
                                                                  warned):
    _obj_with_parts(tmp_path / "hero.obj", 32.0)
    path = tmp_path / "s.yaml"
    path.write_text(MESH_BASE_SCENE.format(base=base), encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    assert code == 0, err
    lines = [x for x in err.splitlines() if "warning:" in x]
    if not warned:
        assert not lines, err
        return
    assert len(lines) == 1 and lines[0].startswith(
        f"{path}:10: models[hero].base: warning: its mesh has its own base part of 32 mm, "
        "not 60 mm"), err
    assert "give base: 32" in lines[0]
