"""`battlesight import`: one small input per format, written here to the format's published
structure (no third-party files), imported, validated and analysed; the one-line refusals of
input an importer cannot read; a roster's stats against the system's own data."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import trimesh
from battlesight.rulesets.aos2.warscroll import STAT_KEYS as AOS2_STATS
from battlesight.rulesets.core.profiles import load_data
from battlesight.rulesets.whfb6.profile import STAT_KEYS as WHFB6_STATS
from battlesight.scenes import load_scene
from battlesight.scenes.importers import FORMATS, tts

import battlesight
from battlesight.analysis.maps import scene_deployment
from battlesight.cli.main import main

EXAMPLES = Path(__file__).resolve().parent.parent / "scenes" / "examples"


def imported(tmp_path: Path, name: str, content: str | bytes, fmt: str, *extra: str) -> Path:
    """Write the input, import it, return the scene written (the import must succeed)."""
    src = tmp_path / name
    src.write_bytes(content if isinstance(content, bytes) else content.encode())
    out = tmp_path / f"{Path(name).stem}-scene.yaml"
    assert main(["import", str(src), "--format", fmt, *extra, "--out", str(out)]) == 0
    return out


def analysed(path: Path) -> battlesight.Battlefield:
    """The scene through the validate gate and the layout analysis."""
    assert main(["validate", "--strict", str(path)]) == 0
    bf = battlesight.load(path, strict=True)
    figures = bf.analyze(grid=2).figures
    assert 0.0 <= figures["terrain_area"] <= 1.0
    return bf


def test_registry_lists_each_format():
    assert set(FORMATS) == {"godot40k", "deploy-helper", "tts", "battlescribe"}


# -- godot40k ----------------------------------------------------------------------------------

GODOT = {
    "id": "small_layout", "name": "Small Layout", "recommended_deployments": ["tipping_point"],
    "pieces": [
        {"id": "area-large-1", "type": "ruins", "piece_class": "area",
         "polygon": [[34, 35.5], [34, 47], [41, 47], [41, 35.5]], "position": [37.5, 41.25],
         "height": "tall", "height_inches": 5, "traits": ["obscuring", "difficult_ground"],
         "is_objective": True, "objective_role": "expansion"},
        {"id": "corner-1", "type": "ruins", "piece_class": "feature",
         "polygon": [[34.5, 36], [39.5, 36], [39.5, 36.5], [35, 36.5], [35, 40.5],
                     [34.5, 40.5]],
         "position": [36, 37.2], "height": "tall", "height_inches": 5,
         "traits": ["obscuring"], "parent_area_id": "area-large-1"},
        {"id": "area-trapezoid-2", "type": "ruins", "piece_class": "area",
         "polygon": [[10, 20], [18, 20], [16, 26], [12, 26]], "height_inches": 3,
         "traits": ["difficult_ground"]},
    ],
}
GODOT_OLD = {
    "id": "layout_x", "name": "Old style", "pieces": [
        {"id": "ruins_1", "type": "ruins", "position": [9.0, 5.0], "size": [12.0, 6.0],
         "height": "tall", "rotation": 90.0,
         "walls": [{"id": "wall_south", "local_start": [-6.0, 3.0], "local_end": [6.0, 3.0],
                    "type": "solid", "blocks_los": True},
                   {"id": "wall_east", "local_start": [6.0, -3.0], "local_end": [6.0, 3.0],
                    "type": "window", "blocks_los": False}]}]}


def test_godot40k_layout(tmp_path):
    out = imported(tmp_path, "layout.json", json.dumps(GODOT), "godot40k")
    bf = analysed(out)
    scene = bf.scene
    assert scene.table == (44.0, 60.0) and scene.ruleset == "wh40k6"
    area = scene.piece("area-large-1")
    assert area.type == "area" and area.data["difficult"] is True
    # y is flipped: the file's y 35.5..47 (down) is the table's 13..24.5 (up)
    assert np.asarray(area.data["polygon"])[:, 1].tolist() == [24.5, 13, 13, 24.5]
    # the L of walls is two boxes, 5" tall, in the area's group
    walls = [p for p in scene.terrain if p.type == "box"]
    assert len(walls) == 2 and {tuple(p.data["size"]) for p in walls} == {(0.5, 4.5, 5),
                                                                           (4.5, 0.5, 5)}
    assert {p.group for p in walls} == {"area-large-1"}
    src = scene.extra["x-source"]
    assert src["deployments"] == ["tipping_point"]
    # the same layout for wmh2: difficult ground is rough terrain there
    wmh2 = imported(tmp_path, "layout2.json", json.dumps(GODOT), "godot40k", "--ruleset", "wmh2")
    trap = load_scene(wmh2).piece("area-trapezoid-2")
    assert trap.data.get("rough") is True and "difficult" not in trap.data
    assert src["objectives"][0]["at"] == [37.5, 18.75]


def test_godot40k_older_layout(tmp_path):
    scene = analysed(imported(tmp_path, "old.json", json.dumps(GODOT_OLD), "godot40k")).scene
    ruin = scene.piece("ruins-1")
    assert ruin.data["at"] == [9, 55] and ruin.data["rotation"] == -90
    assert ruin.data["walls"] == ["south", "east"] and ruin.data["height"] == 5


# -- deploy-helper -----------------------------------------------------------------------------

DEPLOY = {
    "id": "small-1", "name": "Small", "source": "custom", "boardWidth": 60, "boardHeight": 44,
    "pieces": [
        {"id": "piece-1", "name": "Ruin L", "position": {"x": 23, "y": 10}, "rotation": 90,
         "blocking": True, "height": 5, "category": "ruins",
         "shapes": [{"type": "rectangle", "width": 10, "height": 5},
                    {"type": "line", "start": {"x": 1, "y": 1}, "end": {"x": 9, "y": 1},
                     "thickness": 1}]},
        {"id": "piece-2", "position": {"x": 40, "y": 30}, "mirrored": True, "blocking": True,
         "height": 4, "shapes": [{"type": "rectangle", "width": 6, "height": 4},
                                 {"type": "rectangle", "width": 5, "height": 3}]},
        {"id": "piece-3", "shape": {"type": "rectangle", "width": 6, "height": 4},
         "position": {"x": 2, "y": 20}, "blocking": False, "height": 2},
    ],
    "deploymentZones": [
        {"name": "Attacker", "shape": {"type": "rectangle", "width": 60, "height": 12},
         "position": {"x": 0, "y": 0}},
        {"name": "Opponent", "shape": {"type": "rectangle", "width": 60, "height": 12},
         "position": {"x": 0, "y": 32}}],
}


def test_deploy_helper_layout(tmp_path):
    scene = analysed(imported(tmp_path, "dh.json", json.dumps(DEPLOY), "deploy-helper")).scene
    assert scene.table == (60.0, 44.0)
    # the wall line (1, 1) -> (9, 1), turned 90 degrees clockwise about (23, 10) on the y-down
    # board: (22, 11) -> (22, 19); on the table (y up): (22, 33) -> (22, 25)
    wall = scene.piece("piece-1-2")
    assert (wall.type, wall.data["from"], wall.data["to"]) == ("wall", [22, 33], [22, 25])
    assert wall.group == "piece-1" and scene.piece("piece-1").type == "area"
    # mirrored: the 5 x 3 box spans x 35..40 (x -> -x about the position), y 44-30-3..44-30
    box = scene.piece("piece-2-2")
    assert box.data["at"] == [37.5, 12.5] and box.data["size"][:2] == [5, 3]
    assert scene.piece("piece-3").type == "area"
    zones = scene_deployment(scene).zones
    assert zones[1][:, 1].min() == 32 and zones[2][:, 1].max() == 12


# -- tts ---------------------------------------------------------------------------------------

URL_WALL = "http://cloud-3.steamusercontent.com/ugc/1234/ABCD/"
URL_MINI = "https://example.com/minis/marine.obj"


def tts_save(tmp_path: Path) -> tuple[Path, Path]:
    """A save with a wall, two models and a deck; the mod cache with the two OBJ files."""
    mods = tmp_path / "Mods" / "Models"
    mods.mkdir(parents=True)
    wall = trimesh.creation.box([6, 3, 0.5])  # 6" long in x, 3" tall in y (y up), 0.5" deep
    wall.apply_translation([0, 1.5, 0])
    mini = trimesh.creation.cylinder(radius=0.5, height=1.25)
    mini.apply_transform(trimesh.transformations.rotation_matrix(-np.pi / 2, [1, 0, 0]))
    mini.apply_translation([0, 0.625, 0])
    for url, mesh in ((URL_WALL, wall), (URL_MINI, mini)):
        name = re.sub(r"[^A-Za-z0-9]", "", url) + ".obj"
        (mods / name).write_text(trimesh.exchange.obj.export_obj(mesh))

    def obj(nick, tags, x, z, turn, url, scale=1.0):
        return {"Name": "Custom_Model", "Nickname": nick, "Tags": tags,
                "Transform": {"posX": x, "posY": 1.0, "posZ": z, "rotX": 0, "rotY": turn,
                              "rotZ": 0, "scaleX": scale, "scaleY": scale, "scaleZ": scale},
                "CustomMesh": {"MeshURL": url, "DiffuseURL": ""}}

    save = {"SaveName": "Small save", "ObjectStates": [
        obj("Ruin wall", ["terrain"], -10, 5, 90, URL_WALL, 2.0),
        obj("Marine", ["model", "player 2", "base 32"], 10, -5, 0, URL_MINI),
        obj("Scout", ["model"], -20, 0, 0, URL_MINI),
        {"Name": "Deck", "Nickname": "Cards"}]}
    path = tmp_path / "save.json"
    path.write_text(json.dumps(save))
    return path, tmp_path / "Mods"


def test_tts_cache_name_rule():
    assert tts.cache_name("http://x.com/a-b.obj?v=2") == "httpxcomabobjv2.obj"


def test_tts_save(tmp_path):
    save, mods = tts_save(tmp_path)
    out = tmp_path / "table.yaml"
    assert main(["import", str(save), "--format", "tts", "--mods", str(mods),
                 "--out", str(out)]) == 0
    bf = analysed(out)
    scene = bf.scene
    wall = scene.piece("ruin-wall")
    # table-centred (-10, 5) on a 72 x 48 table; a TTS turn of 90 (clockwise) is -90 here
    assert (wall.type, wall.data["at"], wall.data["rotation"]) == ("mesh", [26, 29], -90)
    lo, hi = bf.world.terrain["ruin-wall"].geometry.solid.bounds
    # scale 2: 12" long (now along y), 6" tall, standing on the table
    assert (hi - lo).tolist() == pytest.approx([1.0, 12.0, 6.0])
    marine, scout = scene.model("marine"), scene.model("scout")
    assert (marine.player, marine.base, marine.at) == (2, 32, (46.0, 19.0))
    assert scout.player == 1 and scout.height == pytest.approx(1.25)  # from its mesh
    assert (tmp_path / "table-meshes").is_dir() and len(list((tmp_path / "table-meshes")
                                                             .iterdir())) == 2


def test_tts_missing_mesh_is_one_line(tmp_path, capsys):
    save, _ = tts_save(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "t.yaml"
    assert main(["import", str(save), "--format", "tts", "--mods", str(empty),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"{save}: ObjectStates[0].CustomMesh.MeshURL: mesh "
                   f"httpcloud3steamusercontentcomugc1234ABCD.obj not found in {empty}"]
    assert not out.exists() and not (tmp_path / "t-meshes").exists()


# -- battlescribe ------------------------------------------------------------------------------

def roster(system_name: str, units: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<roster id="r1" name="Test" battleScribeVersion="2.03" gameSystemId="gs"
        gameSystemName="{system_name}" xmlns="http://www.battlescribe.net/schema/rosterSchema">
  <forces><force id="f1" name="Army" entryId="e" catalogueId="c" catalogueName="Cat">
    <selections>{units}</selections>
  </force></forces>
</roster>"""


def chars(**values: str) -> str:
    return "".join(f'<characteristic name="{k.replace("_", " ")}" typeId="t">{v}'
                   "</characteristic>" for k, v in values.items())


LIBERATORS = f"""
<selection id="s1" name="Liberators" entryId="e1" number="1" type="unit">
  <profiles><profile id="p1" name="Liberators" typeId="t1" typeName="Unit">
    <characteristics>{chars(Move='5&quot;', Wounds="2", Bravery="7", Save="4+")}
    </characteristics></profile></profiles>
  <selections>
    <selection id="s2" name="Liberator" entryId="e2" number="4" type="model">
      <profiles><profile id="p2" name="Warhammer" typeId="t2" typeName="Melee Weapons">
        <characteristics>{chars(Range='1&quot;', Attacks="2", To_Hit="4+", To_Wound="3+",
                                Rend="-", Damage="1")}</characteristics>
      </profile></profiles>
    </selection>
    <selection id="s3" name="Liberator-Prime" entryId="e3" number="1" type="model"/>
  </selections>
  <categories><category id="k1" name="ORDER" entryId="k1" primary="false"/>
    <category id="k2" name="STORMCAST ETERNAL" entryId="k2" primary="false"/></categories>
</selection>"""


def test_battlescribe_aos2_roster_matches_the_warscroll(tmp_path):
    onto = EXAMPLES / "aos2_ruins_obstacles.yaml"
    out = imported(tmp_path, "host.ros", roster("Age of Sigmar", LIBERATORS), "battlescribe",
                   "--onto", str(onto), "--player", "2")
    bf = analysed(out)
    scene = bf.scene
    before = load_scene(onto)
    unit = next(u for u in scene.units if u["id"] not in {v["id"] for v in before.units})
    # the roster's stat line is the system's own Liberators data
    assert unit["stats"] == load_data("aos2")["models"]["liberator"]["stats"] == {
        "move": 5, "wounds": 2, "bravery": 7, "save": 4}
    assert unit["weapons"][0] == {"name": "warhammer", "range": 1, "attacks": 2, "to_hit": 4,
                                  "to_wound": 3, "rend": 0, "damage": 1, "type": "melee"}
    models = scene.unit_models(unit["id"])
    assert len(models) == 5 and all(m.player == 2 for m in models)
    # legal formation: in player 2's zone, coherent (1" in aos2), clear of terrain and models
    board = bf.board
    zone = scene_deployment(scene).zones[2]
    from battlesight.geometry.planar import covers

    assert covers(np.array([m.at for m in models]), zone).all()
    pts = np.array([m.at for m in models])
    gaps = np.hypot(*(pts[:, None] - pts[None]).transpose(2, 0, 1)) - 32 / 25.4
    np.fill_diagonal(gaps, np.inf)
    assert (gaps.min(axis=1) <= 1.0).all() and gaps.min() >= 0
    for m in models:
        assert not board.pieces_under(m.id)
    assert min(np.hypot(a.at[0] - b.at[0], a.at[1] - b.at[1])
               for a in models for b in before.models) > 2.0
    profile = board.profile(models[0].id)
    assert (profile.move, profile.wounds, profile.bravery, profile.save) == (5, 2, 7, 4)


def test_battlescribe_rosz_and_whfb6_names(tmp_path):
    halberdiers = f"""
<selection id="s1" name="Halberdiers" entryId="e1" number="10" type="unit">
  <profiles><profile id="p1" name="Halberdier" typeId="t" typeName="Profile">
    <characteristics>{chars(Mv="4", WS="3", BS="3", S="3", T="3", W="1", I="3", A="1",
                            Ld="7")}</characteristics></profile>
    <profile id="p2" name="Halberd" typeId="w" typeName="Weapon">
      <characteristics>{chars(Range="Combat", Strength="+1")}</characteristics></profile>
    <profile id="p3" name="Spiky Thing" typeId="w" typeName="Weapon">
      <characteristics>{chars(Range="Combat")}</characteristics></profile>
  </profiles>
</selection>"""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("army.ros", roster("Warhammer Fantasy 6th", halberdiers))
    out = imported(tmp_path, "army.rosz", buf.getvalue(), "battlescribe",
                   "--onto", str(EXAMPLES / "whfb6_village.yaml"))
    scene = analysed(out).scene
    unit = scene.units[-1]
    assert unit["id"] == "halberdiers-2"  # the village has its own halberdiers
    assert unit["stats"] == {k: v for k, v in load_data("whfb6")["models"]["halberdier"]
                             ["stats"].items() if k != "Sv"}
    assert unit["weapons"] == ["halberd"]  # what whfb6's data knows; 'spiky thing' left out
    assert len(scene.unit_models(unit["id"])) == 10


def test_battlescribe_wh40k6_squad_in_coherency(tmp_path):
    squad = f"""
<selection id="s1" name="Tactical Squad" entryId="e1" number="1" type="unit">
  <selections>
    <selection id="s2" name="Space Marine" entryId="e2" number="9" type="model">
      <profiles><profile id="p1" name="Space Marine" typeId="t" typeName="Unit">
        <characteristics>{chars(Unit_Type="Infantry", WS="4", BS="4", S="4", T="4", W="1",
                                I="4", A="1", Ld="8", Save="3+")}</characteristics></profile>
        <profile id="p2" name="Boltgun" typeId="w" typeName="Weapon">
          <characteristics>{chars(Range='24&quot;', S="4", AP="5",
                                  Type="Rapid Fire")}</characteristics></profile>
      </profiles>
    </selection>
    <selection id="s3" name="Space Marine Sergeant" entryId="e3" number="1" type="model"/>
  </selections>
</selection>"""
    out = imported(tmp_path, "marines.ros", roster("Warhammer 40,000 6th", squad),
                   "battlescribe", "--onto", str(EXAMPLES / "wh40k6_city_ruins.yaml"))
    scene = analysed(out).scene
    unit = scene.units[-1]
    assert unit["stats"] == load_data("wh40k6")["models"]["tactical-marine"]["stats"]
    assert unit["weapons"] == ["boltgun"]
    models = scene.unit_models(unit["id"])
    pts = np.array([m.at for m in models])
    gaps = np.hypot(*(pts[:, None] - pts[None]).transpose(2, 0, 1)) - 25 / 25.4
    np.fill_diagonal(gaps, np.inf)
    assert len(models) == 10 and (gaps.min(axis=1) <= 2.0).all() and gaps.min() > 0


def test_battlescribe_bases_file(tmp_path):
    bases = tmp_path / "bases.yaml"
    bases.write_text("Liberators: 40\n")
    out = imported(tmp_path, "host.ros", roster("Age of Sigmar", LIBERATORS), "battlescribe",
                   "--onto", str(EXAMPLES / "aos2_ruins_obstacles.yaml"), "--bases", str(bases))
    scene = load_scene(out)
    assert {m.base for m in scene.unit_models(scene.units[-1]["id"])} == {40}
    bases.write_text("Liberators: big\n")
    assert main(["import", str(tmp_path / "host.ros"), "--format", "battlescribe", "--onto",
                 str(EXAMPLES / "aos2_ruins_obstacles.yaml"), "--bases", str(bases),
                 "--out", str(tmp_path / "x.yaml")]) == 2


def test_each_system_declares_its_own_names():
    """The importers hold no system's names: each system's package declares them
    (`rulesets/<id>/importing.py`), in the names its own profiles read."""
    from battlesight.rulesets.core.rules_data import system_import
    from battlesight.rulesets.wh40k6.scene_checks import STATS as WH40K6_STATS

    assert set(system_import("aos2").stats.values()) == set(AOS2_STATS)
    assert set(system_import("whfb6").stats.values()) == set(WHFB6_STATS)
    assert set(system_import("wh40k6").stats.values()) <= set(WH40K6_STATS)
    assert not system_import("wmh2").reads_rosters
    assert system_import("wmh2").traits["difficult_ground"] == {"rough": True}


# -- refusals ----------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt, content, expected", [
    ("godot40k", '{\n "pieces": [\n  {"id": 1,}\n ]\n}', "{src}:3: json: Expecting property"),
    ("godot40k", '{"name": "x"}', "{src}: pieces: missing: this is not a warhammer-40k-godot"),
    ("godot40k", json.dumps({"pieces": [{"id": "a", "piece_class": "area",
                                         "polygon": [[0, 0], [1, 1]]}]}),
     "{src}: pieces[0].polygon: needs at least 3 points, got 2"),
    ("deploy-helper", json.dumps({"pieces": [{"id": "a", "position": {"x": 1, "y": 1},
                                              "shapes": [{"type": "hexagon"}]}]}),
     "{src}: pieces[0].shapes[0].type: unknown shape 'hexagon'"),
    ("tts", '{"SaveName": "x"}', "{src}: ObjectStates: missing: this is not a Tabletop"),
])
def test_unreadable_input_is_one_line(tmp_path, capsys, fmt, content, expected):
    src = tmp_path / "in.json"
    src.write_text(content)
    out = tmp_path / "out.yaml"
    assert main(["import", str(src), "--format", fmt, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(expected.format(src=src)), err
    assert not out.exists()


def test_roster_refusals(tmp_path, capsys):
    src = tmp_path / "r.ros"
    src.write_text(roster("Age of Sigmar", LIBERATORS))
    out = tmp_path / "o.yaml"
    assert main(["import", str(src), "--format", "battlescribe", "--out", str(out)]) == 2
    assert "needs --onto SCENE" in capsys.readouterr().err
    bad = tmp_path / "bad.ros"
    bad.write_text("<roster>\n<forces>\n</roster>\n")
    onto = str(EXAMPLES / "aos2_ruins_obstacles.yaml")
    assert main(["import", str(bad), "--format", "battlescribe", "--onto", onto,
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{bad}:3: xml: mismatched tag"), err
    assert main(["import", str(src), "--format", "battlescribe", "--onto", onto,
                 "--player", "7", "--out", str(out)]) == 2
    assert "no deployment zone for player 7" in capsys.readouterr().err
    assert main(["import", str(src), "--format", "battlescribe", "--onto",
                 str(EXAMPLES / "wmh2_hills_forest.yaml"), "--out", str(out)]) == 2
    assert "rosters are not read for wmh2" in capsys.readouterr().err
    assert not out.exists()


def test_godot40k_turned_walls_and_linked_areas(tmp_path):
    """A feature outline turned off the axes (float noise in its corners, as the real files
    have) is cut into boxes without slivers; areas sharing a link_group are one group."""
    turn = np.radians(33.0)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    ell = np.array([[0, 0], [5, 0], [5, 0.5], [0.5, 0.5], [0.5, 4], [0, 4]], float)
    outline = (ell @ rot.T + [22, 30] + 1e-4 * np.sin(np.arange(6))[:, None]).round(4)
    layout = {"pieces": [
        {"id": "a", "piece_class": "area", "polygon": [[18, 26], [22, 26], [22, 34], [18, 34]],
         "link_group": "Center"},
        {"id": "b", "piece_class": "area", "polygon": [[22, 26], [27, 26], [27, 34], [22, 34]],
         "link_group": "Center"},
        {"id": "wall", "piece_class": "feature", "polygon": outline.tolist(),
         "height_inches": 5, "parent_area_id": "b"}]}
    scene = analysed(imported(tmp_path, "turned.json", json.dumps(layout), "godot40k")).scene
    boxes = [p for p in scene.terrain if p.type == "box"]
    assert len(boxes) == 2 and all(min(p.data["size"][:2]) >= 0.45 for p in boxes)
    # the file's 33 degrees on a y-down board is -33 on the table (a box may turn by 90s)
    assert all(abs((p.data["rotation"] + 33 + 45) % 90 - 45) < 0.01 for p in boxes)
    assert {p.group for p in scene.terrain} == {"link-center"}


def test_godot40k_older_inner_wall_and_woods(tmp_path):
    """An older file's wall across the inside of a ruin (layout_2's `wall_center`) is a wall
    piece in the ruin's group, turned with it; a `woods` piece is a forest of its rectangle."""
    layout = {"pieces": [
        {"id": "ruins_8", "type": "ruins", "position": [10.0, 11.0], "size": [12.0, 6.0],
         "height": "medium", "rotation": 90.0,
         "walls": [{"id": "wall_east", "local_start": [6.0, -3.0], "local_end": [6.0, 3.0]},
                   {"id": "wall_center", "local_start": [-3.0, 0.0], "local_end": [3.0, 0.0],
                    "type": "window", "blocks_los": False}]},
        {"id": "woods_1", "type": "woods", "position": [4.0, 18.0], "size": [4.0, 4.0],
         "height": "low", "rotation": 0.0, "traits": ["difficult_ground"], "walls": []}]}
    scene = analysed(imported(tmp_path, "inner.json", json.dumps(layout), "godot40k")).scene
    ruin, wall = scene.piece("ruins-8"), scene.piece("ruins-8-wall-center")
    assert ruin.data["walls"] == ["east"] and ruin.group == wall.group == "ruins-8"
    # turned 90 clockwise on the y-down board, the wall runs along the table's y at x = 10
    assert wall.type == "wall" and wall.data["from"] == [10, 52] and wall.data["to"] == [10, 46]
    assert wall.data["height"] == 3
    wood = scene.piece("woods-1")
    assert wood.type == "forest" and wood.data["difficult"] is True
    assert sorted(map(tuple, wood.data["polygon"])) == [(2, 40), (2, 44), (6, 40), (6, 44)]
    bad = {"pieces": [{"id": "r", "position": [5, 5], "size": [4, 4],
                       "walls": [{"local_start": [-3, 0], "local_end": [3, 0]}]}]}
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(bad))
    assert main(["import", str(src), "--format", "godot40k", "--out",
                 str(tmp_path / "bad.yaml")]) == 2
    assert not (tmp_path / "bad.yaml").exists()


def test_tts_mirrored_object_and_accented_names(tmp_path):
    """A negative scale mirrors the mesh (faces kept outward, so it is a closed solid the rays
    and the drawing see from outside); accented nicknames keep their letters in the ids."""
    save, mods = tts_save(tmp_path)
    data = json.loads(save.read_text())
    wall = data["ObjectStates"][0]
    wall["Nickname"] = "Ruïne große Mauer"
    wall["Transform"].update(scaleX=-2.0, scaleY=2.0, scaleZ=2.0)
    save.write_text(json.dumps(data, ensure_ascii=False))
    out = tmp_path / "mirror.yaml"
    assert main(["import", str(save), "--format", "tts", "--mods", str(mods),
                 "--out", str(out)]) == 0
    bf = analysed(out)
    piece = bf.scene.piece("ruine-grosse-mauer")
    mesh = trimesh.load(out.parent / piece.data["file"], force="mesh")
    assert mesh.is_volume and mesh.volume > 0  # outward faces: a positive volume
    assert mesh.volume == pytest.approx(6 * 3 * 0.5 * 8, rel=1e-6)


def test_battlescribe_nested_transport_and_repeated_weapons(tmp_path):
    """A squad's Rhino selected inside it is a unit of its own with its vehicle line (it was
    dropped, its weapons given to the squad); a weapon every model carries is listed once; an
    'Æ' in a name stays a letter in the id."""
    line = chars(WS="4", BS="4", S="4", T="4", W="1", I="4", A="1", Ld="8", Sv="3+")
    bolt = ('<profile id="w" name="Boltgun" typeId="w" typeName="Weapon"><characteristics>'
            + chars(Range='24&quot;', Strength="4", AP="5", Type="Rapid Fire")
            + "</characteristics></profile>")
    storm = bolt.replace("Boltgun", "Storm Bolter").replace("Rapid Fire", "Assault 2")
    squad = f"""
<selection id="u" name="Tactical Squad Ærø" entryId="e" number="1" type="unit">
  <profiles><profile id="p" name="Space Marine" typeId="t" typeName="Unit">
    <characteristics>{line}</characteristics></profile></profiles>
  <selections>
    <selection id="m1" name="Space Marine" entryId="e" number="9" type="model">
      <profiles>{bolt}</profiles></selection>
    <selection id="m2" name="Space Marine Sergeant" entryId="e" number="1" type="model">
      <profiles>{bolt}</profiles></selection>
    <selection id="r" name="Rhino" entryId="e" number="1" type="unit">
      <profiles><profile id="v" name="Rhino" typeId="t" typeName="Vehicle"><characteristics>
        {chars(BS="4", Front="11", Side="11", Rear="10", HP="3")}</characteristics></profile>
        {storm}</profiles></selection>
  </selections>
</selection>"""
    out = imported(tmp_path, "rhino.ros", roster("Warhammer 40,000 6th", squad),
                   "battlescribe", "--onto", str(EXAMPLES / "wh40k6_city_ruins.yaml"))
    scene = analysed(out).scene
    units = {u["id"]: u for u in scene.units}
    assert units["tactical-squad-aero"]["weapons"] == ["boltgun"]
    rhino = units["rhino"]
    assert rhino["stats"] == {"BS": 4, "Front": 11, "Side": 11, "Rear": 10, "HP": 3}
    assert rhino["weapons"] == ["storm bolter"]
    assert len(scene.unit_models("rhino")) == 1
    assert len(scene.unit_models("tactical-squad-aero")) == 10


def test_a_scene_the_gate_refuses_is_reported_against_the_input(tmp_path, capsys):
    """A crossed outline passes the reader but not the gate: the one line names the input
    file (the --out scene was never written, so naming it sent the user to no file)."""
    src = tmp_path / "bow.json"
    src.write_text(json.dumps({"pieces": [{"id": "a", "piece_class": "area",
                                           "polygon": [[10, 10], [14, 14], [14, 10],
                                                       [10, 14]]}]}))
    out = tmp_path / "bow.yaml"
    assert main(["import", str(src), "--format", "godot40k", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"{src}: terrain[a].polygon: outline is not")
    assert err[0].endswith(f"(in the imported scene; {out} not written)")
    assert not out.exists()
