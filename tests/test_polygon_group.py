"""Polygonal ruins and areas, and grouped pieces (docs/scene-format.md): a trapezoid or L ruin
is built with walls along its edges and floors inside them, every command's world holds it,
and shapes that share a `group` count as one piece for the set-up checks and layout figures."""

from __future__ import annotations

import numpy as np
import pytest
from battlesight.scenes import load_scene
from battlesight.scenes.footprints import layout_pieces, layout_spans

import battlesight
from battlesight.analysis import layout_checks
from battlesight.analysis.maps import scene_deployment
from battlesight.cli.main import main

from .helpers import line_of, write_scene
from .schema_helpers import assert_valid, errors

L_RUIN = """\
format: 1
ruleset: wh40k6
table: [72, 48]
terrain:
  - id: l-ruin
    type: ruin
    polygon: [[20, 20], [30, 20], [30, 24], [24, 24], [24, 30], [20, 30]]
    height: 5
    floors: [2.5]
    walls: [0, 1, 5]
models:
  - {id: upstairs, player: 1, at: [22, 22], floor: 1}
  - {id: south, player: 2, at: [25, 10]}
  - {id: north, player: 2, at: [22, 40]}
  - {id: inside, player: 1, at: [22, 27]}
"""


def test_polygonal_ruin_is_built_along_its_edges(tmp_path):
    bf = battlesight.load(write_scene(tmp_path, L_RUIN))
    entry = bf.world.terrain["l-ruin"]
    g = entry.geometry
    # the footprint is the L itself, not its hull: 10 x 4 + 4 x 6 = 64 sq in
    x, y = g.footprint[:, 0], g.footprint[:, 1]
    area = 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))
    assert area == pytest.approx(64.0)
    assert g.floors == pytest.approx((0.2, 2.5))
    assert g.solid.bounds.ravel().tolist() == pytest.approx([20, 20, 0, 30, 30, 5])
    # a model on floor 1 stands on the upper slab, inside the L
    assert bf.world.models["upstairs"].position[2] == pytest.approx(2.5)
    # the south wall (edge 0) stands between 'south' and 'inside'; the open north side
    # (edge 4, no wall) lets 'north' see 'inside' in full
    assert bf.sight("north", "inside").visible_fraction > 0.95
    walled = bf.sight("south", "inside")
    assert walled.visible_fraction < 0.6 and "l-ruin" in walled.blockers


def test_polygonal_ruin_through_every_command(tmp_path):
    path = write_scene(tmp_path, L_RUIN)
    assert main(["validate", str(path)]) == 0
    assert main(["los", str(path), "--from", "south", "--to", "inside", "--json"]) == 0
    assert main(["analyze", str(path), "--grid", "2", "--json"]) == 0
    assert main(["export", str(path), str(tmp_path / "out.glb")]) == 0
    assert (tmp_path / "out.glb").stat().st_size > 1000


@pytest.mark.parametrize("edit, key, words", [
    ("polygon: [[20, 20], [30, 30], [30, 20], [20, 30]]", "polygon", "not a simple polygon"),
    ("polygon: [[20, 20], [20.3, 20], [20.3, 30]]", "polygon", "no room for a floor"),
    ("walls: [0, 9]", "walls", "edge numbers run from 0 to 5"),
    ("walls: [north]", "walls", "edge numbers"),
    ("at: [3, 3]", "at", "takes no 'at'"),
])
def test_polygonal_ruin_refusals(tmp_path, capsys, edit, key, words):
    text = L_RUIN.replace("    walls: [0, 1, 5]\n", "")
    field = edit.split(":")[0]
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith(f"{field}:")]
    at = lines.index("    height: 5")
    text = "\n".join([*lines[:at], f"    {edit}", *lines[at:]]) + "\n"
    path = write_scene(tmp_path, text)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    line = line_of(path, edit.split(",")[0][:20])
    assert any(e.startswith(f"{path}:{line}: terrain[l-ruin].{key}: ") and words in e
               for e in err), err


def test_polygonal_area_piece(tmp_path):
    text = L_RUIN + "  - {id: far, player: 1, at: [54, 13]}\n"
    text = text.replace("models:\n", """  - id: rubble
    type: area
    polygon: [[50, 10], [58, 10], [56, 16], [52, 16]]
    height: 1
models:
""")
    bf = battlesight.load(write_scene(tmp_path, text))
    entry = bf.world.terrain["rubble"]
    assert entry.geometry.solid is None and entry.geometry.area is not None
    # wh40k6 reads an area piece as area terrain (§5.4): a model inside it is in cover
    verdict = bf.judge("south", "far")
    assert verdict.visible
    assert (verdict.cover.kind, verdict.cover.source, verdict.cover.value) == ("area", "rubble", 5)


def _boxes(group: bool) -> str:
    pieces = []
    for i, (x, y) in enumerate([(4, 4), (8, 4), (4, 8), (8, 8)]):
        grp = "    group: block\n" if group else ""
        pieces.append(f"  - id: box-{i}\n    type: box\n    at: [{x}, {y}]\n"
                      f"    size: [2, 2, 3]\n{grp}")
    for i, (x, y) in enumerate([(36, 12), (60, 12), (12, 36), (36, 36), (60, 36)]):
        pieces.append(f"  - id: ruin-{i}\n    type: ruin\n    at: [{x}, {y}]\n"
                      "    size: [6, 4]\n    height: 4\n")
    return "format: 1\nruleset: wh40k6\ntable: [72, 48]\nterrain:\n" + "".join(pieces)


def test_group_counts_as_one_piece_in_the_set_up_checks(tmp_path):
    def d3_check(scene):
        checks = layout_checks(scene, scene_deployment(scene))
        return next(c for c in checks if "D3 pieces" in c.detail)

    loose = load_scene(write_scene(tmp_path, _boxes(False), "loose.yaml"))
    grouped = load_scene(write_scene(tmp_path, _boxes(True), "grouped.yaml"))
    assert not d3_check(loose).passed and "[0-24, 0-24]: 4" in d3_check(loose).detail
    assert d3_check(grouped).passed and "[0-24, 0-24]: 1" in d3_check(grouped).detail
    prints = layout_pieces(grouped)
    assert "block" in prints and not any(k.startswith("box-") for k in prints)
    # the group's outline: the hull of four 2" boxes 4" apart, 6" across
    assert layout_spans(grouped)["block"] == pytest.approx(np.hypot(6, 6))
    # named after one of its pieces, the group still spans all of them
    named = load_scene(write_scene(tmp_path, _boxes(True).replace("group: block",
                                                                  "group: box-0"), "n.yaml"))
    assert layout_spans(named)["box-0"] == pytest.approx(np.hypot(6, 6))
    # the "more than 3\" apart" check no longer pairs a group's own shapes
    apart = next(c for c in layout_checks(grouped, scene_deployment(grouped))
                 if "apart" in c.detail)
    assert "box-" not in apart.detail


def test_group_must_be_a_name(tmp_path, capsys):
    path = write_scene(tmp_path, _boxes(True).replace("group: block", "group: 3", 1))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{line_of(path, 'group: 3')}: terrain[box-0].group: must be a non-empty" in err


def test_group_is_one_feature_for_aos2_cover(tmp_path):
    """aos2 §5.1: a unit wholly within a feature; a model across two shapes of one group is
    within that feature, across two loose pieces it is within neither."""
    text = """\
format: 1
ruleset: aos2
table: [72, 48]
terrain:
  - {id: floor-a, type: area, polygon: [[30, 20], [34, 20], [34, 26], [30, 26]], group: ruin}
  - {id: floor-b, type: area, polygon: [[34, 20], [38, 20], [38, 26], [34, 26]], group: ruin}
  - {id: loose-a, type: area, polygon: [[50, 20], [54, 20], [54, 26], [50, 26]]}
  - {id: loose-b, type: area, polygon: [[54, 20], [58, 20], [58, 26], [54, 26]]}
models:
  - {id: shooter, player: 1, at: [34, 5]}
  - {id: grouped, player: 2, at: [34, 23]}
  - {id: loose, player: 2, at: [54, 23]}
"""
    bf = battlesight.load(write_scene(tmp_path, text))
    grouped, loose = bf.judge("shooter", "grouped"), bf.judge("shooter", "loose")
    assert grouped.cover.in_cover and grouped.cover.source == "ruin"
    assert not loose.cover.in_cover
    # a group named after one of its pieces: loose-b joins loose-a
    joined = text.replace("[58, 20], [58, 26], [54, 26]]}",
                          "[58, 20], [58, 26], [54, 26]], group: loose-a}")
    bf = battlesight.load(write_scene(tmp_path, joined, "joined.yaml"))
    assert bf.judge("shooter", "loose").cover.source == "loose-a"


def test_polygon_area_and_group_in_the_scene_schema():
    import yaml

    data = yaml.safe_load(L_RUIN)
    data["terrain"] += [
        {"id": "rubble", "type": "area", "polygon": [[50, 10], [58, 10], [56, 16]],
         "group": "yard"},
        {"id": "pad", "type": "area", "at": [60, 30], "size": [4, 3], "group": "yard"}]
    assert_valid("scene", data)
    data["terrain"][0]["at"] = [3, 3]  # a polygon ruin takes no at
    assert errors("scene", data)


def test_pieces_too_close_are_named_plainly():
    """Ids hold hyphens (the importers' `area-large-9`): a close pair reads 'a and b', never
    'area-large-9-area-medium-15'."""
    from battlesight.rulesets.core.setup_checks import apart

    square = np.array([[0, 0], [2, 0], [2, 2], [0, 2]], float)
    check = apart({"area-large-9": square, "area-medium-15": square + [3, 0]}, 3.0, "§6.8")
    assert not check.passed and 'area-large-9 and area-medium-15 1.0"' in check.detail
