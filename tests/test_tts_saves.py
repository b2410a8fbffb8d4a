"""Tabletop Simulator saves as players have them (issue 26): read as leniently as TTS reads them
(a raw newline and tab inside a MeshURL), untagged figures found by their mesh (size, a round
base, copies) with the guess said in a warning, `--model-tag` deciding alone when given, and
messages that name a long mesh whole enough to read on one line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import trimesh
from battlesight.scenes import load_scene
from battlesight.scenes.importers import tts

from battlesight.cli.main import main

URL_CRATE = "http://cloud-3.steamusercontent.com/ugc/99/CRATE/"
URL_TROOPER = "http://cloud-3.steamusercontent.com/ugc/99/TROOPER/"
URL_HERO = "http://cloud-3.steamusercontent.com/ugc/99/HERO/"


def _cache(mods: Path, url: str, mesh: trimesh.Trimesh) -> None:
    name = re.sub(r"[^A-Za-z0-9]", "", url) + ".obj"
    (mods / name).write_text(trimesh.exchange.obj.export_obj(mesh))


def _obj(nick: str, url: str, x: float, z: float, tags=None) -> dict:
    return {"Name": "Custom_Model", "Nickname": nick, "Tags": tags or [],
            "Transform": {"posX": x, "posY": 1.0, "posZ": z, "rotX": 0, "rotY": 0, "rotZ": 0,
                          "scaleX": 1, "scaleY": 1, "scaleZ": 1},
            "CustomMesh": {"MeshURL": url, "DiffuseURL": ""}}


def untagged_save(tmp_path: Path, raw_text: str | None = None) -> tuple[Path, Path]:
    """A save with no tags at all: a 6" crate (terrain), three copies of a square 1.5" trooper
    (a squad) and one hero on a round 1.25" base."""
    mods = tmp_path / "Mods" / "Models"
    mods.mkdir(parents=True)
    crate = trimesh.creation.box([6, 3, 4])
    crate.apply_translation([0, 1.5, 0])
    trooper = trimesh.creation.box([1.5, 1.6, 1.0])  # not round: a figure by its copies
    trooper.apply_translation([0, 0.8, 0])
    hero = trimesh.creation.cylinder(radius=0.625, height=1.8)
    hero.apply_transform(trimesh.transformations.rotation_matrix(-np.pi / 2, [1, 0, 0]))
    hero.apply_translation([0, 0.9, 0])
    for url, mesh in ((URL_CRATE, crate), (URL_TROOPER, trooper), (URL_HERO, hero)):
        _cache(mods, url, mesh)
    objects = [_obj("Crate", URL_CRATE, 0, 0), _obj("Hero", URL_HERO, -20, -15)]
    objects += [_obj(f"Trooper {i}", URL_TROOPER, -25 + 3 * i, -18) for i in range(3)]
    path = tmp_path / "save.json"
    path.write_text(raw_text if raw_text is not None else
                    json.dumps({"SaveName": "Untagged", "ObjectStates": objects}))
    return path, tmp_path / "Mods"


def _import(save: Path, mods: Path, out: Path, *extra: str) -> int:
    return main(["import", str(save), "--format", "tts", "--mods", str(mods), *extra,
                 "--out", str(out)])


def test_untagged_figures_are_found_by_their_mesh_and_the_guess_is_said(tmp_path, capsys):
    save, mods = untagged_save(tmp_path)
    out = tmp_path / "t.yaml"
    assert _import(save, mods, out) == 0
    err = capsys.readouterr().err
    scene = load_scene(out)
    assert {m.id for m in scene.models} == {"hero", "trooper-0", "trooper-1", "trooper-2"}
    assert [p.id for p in scene.terrain] == ["crate"]
    assert "1 untagged object(s) of mesh" in err and "on a round base" in err
    assert "3 untagged object(s) of mesh" in err and "used by 3 objects" in err
    assert "tag them 'terrain'" in err
    assert abs(scene.model("hero").base - 31.75) < 0.5  # its 1.25" plan, in mm


def test_model_tag_decides_alone_when_given(tmp_path, capsys):
    save, mods = untagged_save(tmp_path)
    data = json.loads(save.read_text())
    data["ObjectStates"][1]["Tags"] = ["hq"]  # the hero only
    save.write_text(json.dumps(data))
    out = tmp_path / "t.yaml"
    assert _import(save, mods, out, "--model-tag", "hq") == 0
    assert "untagged" not in capsys.readouterr().err
    scene = load_scene(out)
    assert [m.id for m in scene.models] == ["hero"]
    assert len(scene.terrain) == 4  # the troopers: untagged Custom_Models are terrain


def test_a_mesh_url_with_a_raw_newline_and_tab_reads_as_tts_reads_it(tmp_path):
    """TTS saves a pasted URL with its line break: JSON's strict rule refuses the control
    characters, TTS's own parser does not, and its cache name drops them."""
    save, mods = untagged_save(tmp_path)
    text = save.read_text().replace(json.dumps(URL_HERO), json.dumps(URL_HERO)[:-1] + '\n\t"')
    assert "\n\t" in text
    save.write_text(text)
    out = tmp_path / "t.yaml"
    assert _import(save, mods, out) == 0
    assert "hero" in {m.id for m in load_scene(out).models}


def test_a_long_mesh_name_is_shown_whole_or_elided_never_cut(tmp_path, capsys):
    url = "http://cloud-3.steamusercontent.com/ugc/" + "7" * 300 + "/"
    save = tmp_path / "save.json"
    save.write_text(json.dumps({"ObjectStates": [_obj("Tower", url, 0, 0, ["terrain"])]}))
    (tmp_path / "mods").mkdir()
    assert _import(save, tmp_path / "mods", tmp_path / "t.yaml") == 2
    line = capsys.readouterr().err.strip()
    assert "\n" not in line and line.endswith(f"not found in {tmp_path / 'mods'}")
    assert "..." in line and len(line) < 400
    assert tts.shown_name("a" * 20) == "a" * 20
