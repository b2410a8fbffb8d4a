"""Layout analysis: the analytic cases of issue 7, zones from maps, forest rules per ruleset."""

import numpy as np
import pytest
from battlesight.geometry.plan import signed_area
from battlesight.scenes import scene_from_dict

from battlesight.analysis import (
    analyze_scene,
    deployment_map,
    scene_deployment,
    standard_model,
)


def layout(terrain=(), ruleset="wh40k6", table=(72, 48), deployment="dawn-of-war"):
    return scene_from_dict({"format": 1, "name": "t", "ruleset": ruleset, "table": list(table),
                            "terrain": list(terrain), "models": [], "deployment": deployment})


def mirror(piece: dict, table=(72, 48)) -> dict:
    """The piece turned 180 degrees about the table's centre (Dawn of War swaps the zones)."""
    w, d = table
    out = dict(piece, id=piece["id"] + "-m")
    for key in ("at", "from", "to"):
        if key in piece:
            out[key] = [w - piece[key][0], d - piece[key][1]]
    for key in ("polygon", "trunks"):
        if key in piece:
            out[key] = [[w - x, d - y] for x, y in piece[key]]
    if "walls" in piece:
        swap = {"north": "south", "south": "north", "east": "west", "west": "east"}
        out["walls"] = [swap[s] for s in piece["walls"]]
    return out


def test_empty_table_is_fully_exposed():
    f = analyze_scene(layout(), grid=2.0).figures
    assert f["zone_to_zone_exposure"] == 1.0
    assert f["exposure"] == {"1": 1.0, "2": 1.0} and f["visible_share"] == {"1": 1.0, "2": 1.0}
    assert f["fairness"] == 0.0 and f["terrain_area"] == 0.0 and f["blocking_area"] == 0.0
    assert f["longest_lane"] == pytest.approx(np.hypot(70, 46), abs=1e-3)  # corner cells
    assert f["fairness_source"] == "both zones are equally exposed"


def test_wall_across_the_whole_width_cuts_all_sight_between_zones():
    wall = {"id": "w", "type": "wall", "from": [0, 24], "to": [72, 24], "height": 3}
    f = analyze_scene(layout([wall]), grid=2.0).figures
    assert f["zone_to_zone_exposure"] == 0.0 and f["longest_lane"] == 0.0
    assert f["longest_lane_ends"] is None
    assert 0.0 < f["exposure"]["1"] < 0.5  # only its own half still sees zone 1
    assert f["blocking_area"] == pytest.approx(36 / 3456, abs=2e-3)  # 72" x 0.5"
    low = {"id": "w", "type": "wall", "from": [0, 24], "to": [72, 24], "height": 1}
    assert analyze_scene(layout([low]), grid=2.0).figures["zone_to_zone_exposure"] == 1.0


PIECES = [
    {"id": "ruin", "type": "ruin", "at": [14.3, 17.1], "size": [8, 6], "height": 6,
     "floors": [3], "walls": ["north", "west"], "windows": True, "rotation": 20},
    {"id": "box", "type": "box", "at": [40.2, 15.3], "size": [6, 4, 5], "rotation": 35},
    {"id": "wall", "type": "wall", "from": [24.1, 28.2], "to": [31.3, 33.4], "height": 2.5},
    {"id": "hill", "type": "hill", "at": [58.7, 20.6], "size": [9, 6], "height": 2},
    {"id": "wood", "type": "forest", "polygon": [[50, 30], [58, 29], [59, 36], [51, 37]],
     "height": 5, "trunks": [[53.1, 32.2], [55.9, 34.3]]},
]


@pytest.mark.parametrize("ruleset", ["wh40k6", "wmh2"])
def test_mirrored_layout_is_fair(ruleset):
    table = (72, 48) if ruleset == "wh40k6" else (48, 48)
    pieces = PIECES if ruleset == "wh40k6" else [p for p in PIECES if p["id"] != "box"]
    if ruleset == "wmh2":
        pieces = [dict(p) for p in pieces]
        for p in pieces:  # squeeze into 48"
            for key in ("at", "from", "to"):
                if key in p:
                    p[key] = [p[key][0] * 2 / 3, p[key][1]]
            if "polygon" in p:
                p["polygon"] = [[x * 2 / 3, y] for x, y in p["polygon"]]
                p["trunks"] = [[x * 2 / 3, y] for x, y in p["trunks"]]
    scene = layout(pieces + [mirror(p, table) for p in pieces], ruleset, table,
                   "dawn-of-war" if ruleset == "wh40k6" else None)
    f = analyze_scene(scene, grid=1.0).figures
    assert abs(f["fairness"]) <= 0.002
    assert f["exposure"]["1"] == pytest.approx(f["exposure"]["2"], abs=0.002)
    assert f["visible_share"]["1"] == pytest.approx(f["visible_share"]["2"], abs=0.002)
    assert 0.2 < f["zone_to_zone_exposure"] < 0.99
    by_area = [a["difference"] for a in f["fairness_by_area"]]
    assert sum(by_area) == pytest.approx(f["fairness"], abs=1e-3)


def test_moving_a_tall_block_to_the_other_half_moves_the_figures():
    block = {"id": "block", "type": "box", "size": [10, 4, 8]}
    near_one = analyze_scene(layout([dict(block, at=[36, 18])]), grid=1.0).figures
    near_two = analyze_scene(layout([dict(block, at=[36, 30])]), grid=1.0).figures
    # the block hides player 1's zone while it stands in player 1's half, and player 2's after
    assert near_one["exposure"]["1"] < near_two["exposure"]["1"]
    assert near_one["exposure"]["2"] > near_two["exposure"]["2"]
    assert near_one["fairness"] < 0 < near_two["fairness"]
    assert near_one["fairness"] == pytest.approx(-near_two["fairness"], abs=0.002)
    assert near_one["visible_share"]["1"] < near_two["visible_share"]["1"]
    assert "player 2's zone is more exposed" in near_one["fairness_source"]
    assert near_one["zone_to_zone_exposure"] == pytest.approx(
        near_two["zone_to_zone_exposure"], abs=0.002)


def test_forests_block_by_ruleset():
    wood = {"id": "wood", "type": "forest", "height": 5, "trunks": 0,
            "polygon": [[0, 20], [48, 20], [48, 28], [0, 28]]}
    thin = dict(wood, polygon=[[0, 23.4], [48, 23.4], [48, 24.6], [0, 24.6]])
    for ruleset, limit in (("wmh2", 3.0), ("whfb6", 2.0)):
        for band in (wood, thin):  # never through a forest, however thin
            scene = layout([band], ruleset, (48, 48), None)
            assert analyze_scene(scene, grid=2.0).figures["zone_to_zone_exposure"] == 0.0
        a = analyze_scene(layout([wood], ruleset, (48, 48), None), grid=1.0)
        assert a.figures["blocking_area"] == pytest.approx(8 / 48, abs=0.01)
        seen = a.fields["seen_from_1"][:, 24]  # column x = 24.5, row k at y = k + 0.5
        assert seen[20] > 0.5  # half an inch inside: seen from zone 1
        assert seen[int(20 + limit + 1)] == 0.0  # deeper than the limit: hidden
        assert seen[29] == 0.0  # behind the wood
    for ruleset in ("aos2", "wh40k6"):  # forests do not block: sight is blocked physically
        scene = layout([wood], ruleset, (48, 48), None)
        assert analyze_scene(scene, grid=2.0).figures["zone_to_zone_exposure"] == 1.0


def test_deployment_maps_of_wh40k6():
    table = (72, 48)
    dow = deployment_map("wh40k6", "Dawn of War").zones(table)
    assert abs(signed_area(dow[1])) == 72 * 12 and dow[2][:, 1].min() == 36
    haa = deployment_map("wh40k6", "hammer_and_anvil").zones(table)
    assert haa[1][:, 0].max() == 24 and haa[2][:, 0].min() == 48
    vs = deployment_map("wh40k6", "vanguard-strike").zones(table)
    for zone in vs.values():  # each: own half, more than 12" from the diagonal
        line = np.array([48.0, 72.0]) / np.hypot(48, 72)
        dist = np.abs(zone @ line - 48 * 72 / np.hypot(48, 72))
        assert dist.min() == pytest.approx(12.0)
        c = 48 * 72 - 12 * np.hypot(48, 72)  # 48 x + 72 y < c
        assert abs(signed_area(zone)) == pytest.approx(0.5 * (c / 48) * (c / 72))
    with pytest.raises(ValueError, match="Dawn of War"):
        deployment_map("wh40k6", "pitched battle")
    assert deployment_map("wmh2").zones((48, 48))[2][:, 1].min() == 38


def test_zones_come_from_the_scene_or_the_ruleset_default():
    polys = {1: [[0, 0], [72, 0], [72, 6], [0, 6]], 2: [[0, 42], [72, 42], [72, 48], [0, 48]]}
    scene = layout(deployment=polys)
    assert scene_deployment(scene).source == "scene"
    dow = {1: [[72, 0], [72, 12], [0, 12], [0, 0]], 2: [[0, 36], [72, 36], [72, 48], [0, 48]]}
    assert scene_deployment(layout(deployment=dow)).source == "dawn-of-war"  # recognised
    assert scene_deployment(scene, "vanguard strike").source == "vanguard-strike"
    assert scene_deployment(layout(deployment=None)).source == "dawn-of-war"
    f = analyze_scene(scene, grid=2.0).figures
    assert f["cells"]["zone"] == {"1": 108, "2": 108}


def test_standard_model_overrides_and_json_keys():
    model = standard_model("wh40k6", base=40, height=3.0)
    assert model.base == 40 and model.height == 3.0 and model.eye == 1.4
    assert standard_model("wmh2", height=2.25).eye == 2.25  # a volume's eye is its top
    with pytest.raises(ValueError):
        standard_model("chess")
    f = analyze_scene(layout(PIECES), grid=2.0, model=model).figures
    for key in ("zone_to_zone_exposure", "visible_share", "fairness", "longest_lane",
                "terrain_area", "blocking_area", "checks", "grid", "seconds"):
        assert key in f
    assert f["standard_model"]["base"] == 40 and f["grid"] == 2.0
    assert all(set(c) >= {"rule", "passed", "detail"} for c in f["checks"])


def test_table_share_is_the_exact_area_of_the_union_on_the_table():
    from battlesight.geometry import planar

    square = np.array([[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]])
    shifted = square + [2.0, 2.0]  # overlaps the first by 2 x 2
    off = square + [-2.0, 10.0]  # a quarter of it on the table (2 x 2 in its corner)
    share = planar.table_share([square, shifted, off], (24.0, 12.0))
    assert share == pytest.approx((16 + 16 - 4 + 4) / 288.0, abs=1e-12)
    assert planar.table_share([], (24.0, 12.0)) == 0.0
