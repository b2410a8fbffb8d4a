"""Grouped pieces in the rules (docs/scene-format.md, "Grouped pieces"): a ruin made of a small
footprint and two wall boxes in one `group` is one piece for wh40k6, wmh2 and whfb6. A model
between the walls, off the footprint but inside the group's outline, is in the piece; the
cover source and the blockers a verdict and `shoot` report name the group; the layout
figures count one piece. The same scene without `group` reads as it always did."""

from __future__ import annotations

import json

import pytest
from battlesight.rulesets.core.groups import Groups
from battlesight.scenes import load_scene

import battlesight
from battlesight.analysis.analyze import analyze_scene
from battlesight.cli.main import main

from .helpers import write_scene

#: a 3" x 2" footprint behind the target, two 1.2" wall boxes 8" apart, the target between the
#: walls (its base off the footprint), one firer to the south (a clear view) and one to the
#: west (the west wall hides most of the target)
SCENE = """\
format: 1
ruleset: {rs}
table: [48, 48]
terrain:
  - {{id: patch, type: area, at: [24, 27], size: [3, 2]{extra}{group}}}
  - {{id: w1, type: box, at: [20, 24], size: [1, 8, 1.2]{group}}}
  - {{id: w2, type: box, at: [28, 24], size: [1, 8, 1.2]{group}}}
models:
  - {{id: target, player: 1, at: [24, 23], facing: 180}}
  - {{id: south, player: 2, at: [24, 10], facing: 0}}
  - {{id: west, player: 2, at: [10, 23], facing: 270}}
"""
#: what makes the footprint the system's area terrain: wh40k6 §5.4 area terrain (an `area`
#: piece), a wmh2 forest giving concealment, a whfb6 building giving hard cover
AREA_KEYS = {"wh40k6": "", "wmh2": ", forest: true, concealment: true",
             "whfb6": ", kind: building, cover: hard"}
#: the cover the target in the piece has against the south firer, who sees all of it
IN_PIECE = {"wh40k6": (5, "wh40k6 §5.4"), "wmh2": (2, "wmh2 §6"), "whfb6": (-2, "whfb6 §5.1")}


def _scene(tmp_path, rs: str, grouped: bool):
    text = SCENE.format(rs=rs, extra=AREA_KEYS[rs], group=", group: ruin-a" if grouped else "")
    return write_scene(tmp_path, text, name=f"{rs}-{'grouped' if grouped else 'plain'}.yaml")


@pytest.mark.parametrize("rs", ["wh40k6", "wmh2", "whfb6"])
def test_a_model_between_the_walls_is_in_the_grouped_piece(tmp_path, rs):
    bf = battlesight.load(_scene(tmp_path, rs, grouped=True))
    groups = bf.board.groups
    assert groups.names() == ["ruin-a"] and groups.piece_of("w2") == "ruin-a"
    assert bf.board.pieces_in("target") == ["ruin-a"]  # off the footprint, inside the outline
    assert bf.board.pieces_under("target") == []  # no shape of its own under the base
    v = bf.judge("south", "target")
    assert v.visible and v.cover.in_cover
    assert (v.cover.value, v.cover.rule) == IN_PIECE[rs] and v.cover.source == "ruin-a"


@pytest.mark.parametrize("rs", ["wh40k6", "wmh2", "whfb6"])
def test_without_group_the_model_is_in_the_open(tmp_path, rs):
    bf = battlesight.load(_scene(tmp_path, rs, grouped=False))
    assert bf.board.groups.names() == ["patch", "w1", "w2"]
    assert bf.board.pieces_in("target") == []
    v = bf.judge("south", "target")
    assert v.visible and not v.cover.in_cover


@pytest.mark.parametrize("rs", ["wh40k6", "wmh2", "whfb6"])
def test_the_blocking_wall_is_named_by_its_group(tmp_path, rs):
    plain = battlesight.load(_scene(tmp_path, rs, grouped=False)).judge("west", "target")
    grouped = battlesight.load(_scene(tmp_path, rs, grouped=True)).judge("west", "target")
    assert list(plain.blockers) == ["w1"]
    assert grouped.blockers == {"ruin-a": pytest.approx(plain.blockers["w1"])}
    assert grouped.visible == plain.visible and grouped.seen_share == plain.seen_share
    if rs == "wh40k6":  # hidden 68% by the wall's 4+: the source is the piece
        assert (plain.cover.source, grouped.cover.source) == ("w1", "ruin-a")
        assert grouped.cover.value == plain.cover.value == 4
    if rs == "wmh2":  # the lines the wall stopped, under the group's name and the wall's kind
        assert grouped.details["blocked_by"] == [
            {**plain.details["blocked_by"][0], "id": "ruin-a"}]
    if rs == "whfb6":
        assert grouped.details["blocked_by"] == {"ruin-a": plain.details["blocked_by"]["w1"]}


@pytest.mark.parametrize("rs", ["wh40k6", "wmh2", "whfb6"])
def test_shoot_and_los_name_the_group(tmp_path, rs, capsys):
    path = _scene(tmp_path, rs, grouped=True)
    assert main(["shoot", str(path), "--unit", "west", "--target", "target", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["targets"][0]["cover"]["source"] == "ruin-a"
    assert main(["los", str(path), "--from", "west"]) == 0
    out = capsys.readouterr().out
    hidden = battlesight.load(path).judge("west", "target").blockers["ruin-a"]
    assert f"ruin-a {hidden:.0%}" in out and "w1" not in out  # 'hidden by' names the piece


def test_wh40k6_difficult_terrain_and_moves_name_the_group(tmp_path):
    from battlesight.rulesets.core.moves import Dest
    from battlesight.rulesets.wh40k6.movement import check_path_40k
    from battlesight.rulesets.wh40k6.terrain import difficult_pieces

    bf = battlesight.load(_scene(tmp_path, "wh40k6", grouped=True))
    assert difficult_pieces(bf.board, "target") == ["ruin-a"]  # area terrain is difficult
    into = check_path_40k(bf.board, "south", Dest((24.0, 20.5)), float("inf"))
    assert into.difficult == ("ruin-a",)  # entered between the walls, by the group's outline
    plain = battlesight.load(_scene(tmp_path, "wh40k6", grouped=False))
    assert difficult_pieces(plain.board, "target") == []
    assert check_path_40k(plain.board, "south", Dest((24.0, 20.5)), float("inf")).difficult == ()


def test_wmh2_rough_ground_is_the_groups_outline(tmp_path):
    from battlesight.rulesets.wmh2.movement import plan_path

    text = SCENE.format(rs="wmh2", extra=", rough: true", group=", group: ruin-a")
    bf = battlesight.load(write_scene(tmp_path, text, name="rough.yaml"))
    path = plan_path(bf.board, "south", [(24.0, 21.5)])  # 1.5" into the ruin, between walls
    assert path.rough == ["ruin-a"] and path.cost == pytest.approx(path.length + 1.5, abs=0.2)
    plain = SCENE.format(rs="wmh2", extra=", rough: true", group="")
    bf = battlesight.load(write_scene(tmp_path, plain, name="rough-plain.yaml"))
    path = plan_path(bf.board, "south", [(24.0, 21.5)])
    assert path.rough == [] and path.cost == pytest.approx(path.length)


@pytest.mark.parametrize("rs", ["wh40k6", "wmh2", "whfb6"])
def test_layout_figures_count_the_group_once(tmp_path, rs):
    for grouped, pieces in ((True, 1), (False, 3)):
        scene = load_scene(_scene(tmp_path, rs, grouped))
        figures = analyze_scene(scene, grid=4.0).figures
        assert figures["pieces"] == pieces
        if grouped:  # the ground between the walls is the ruin's: the hull of its shapes
            assert figures["terrain_area"] == pytest.approx(9 * 8 / 48 / 48, abs=0.004)
        else:
            assert figures["terrain_area"] == pytest.approx((6 + 16) / 48 / 48, abs=0.002)


def test_groups_outline_and_shares():
    import numpy as np
    import shapely
    from battlesight.geometry.placed import TerrainEntry
    from battlesight.geometry.types import TerrainGeometry

    def entry(ident, ring, **data):
        geometry = TerrainGeometry(None, footprint=np.array(ring, float))
        return TerrainEntry(ident, "box", geometry, data)

    square = [[0, 0], [2, 0], [2, 2], [0, 2]]
    terrain = {"a": entry("a", square, group="g"),
               "b": entry("b", [[p[0] + 2, p[1]] for p in square], group="g"),
               "c": entry("c", [[p[0] + 6, p[1]] for p in square]), "g": entry("g", square)}
    groups = Groups(terrain)
    assert groups.names() == ["g", "c"] and groups.piece_of("g") == "g"  # named after a shape
    assert groups.outline("g").area == pytest.approx(8.0)  # touching: their union
    assert groups.under(shapely.Point(5, 1)) == []
    assert groups.shares({"c": 0.1, "a": 0.2, "b": 0.3, "m": 0.05}) == {
        "g": pytest.approx(0.5), "c": 0.1, "m": 0.05}


def test_validate_refuses_a_group_whose_shapes_disagree(tmp_path, capsys):
    text = SCENE.format(rs="wh40k6", extra=", cover: 4", group=", group: ruin-a").replace(
        "size: [1, 8, 1.2], group: ruin-a}\n  - {id: w2",
        "size: [1, 8, 1.2], group: ruin-a, cover: 5}\n  - {id: w2")
    path = write_scene(tmp_path, text, name="conflict.yaml")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()[0]
    assert err == (f"{path}:6: terrain[w1].cover: group 'ruin-a' already has cover 4 (from "
                   "'patch'): every shape of a group gives the same cover, or leaves it out")
