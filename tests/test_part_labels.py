"""Part labels of mesh models by whole words, and a scene's ``parts:`` map for the names a file
really uses: the misreadings of substring matching are gone."""

from __future__ import annotations

import pytest
import trimesh
from battlesight.geometry.meshfile import export_glb
from battlesight.geometry.partnames import LABELS, VOCABULARY, part_label, words
from battlesight.scenes import load_scene
from battlesight.scenes.build import build_world

from tests.helpers import line_of, run_cli, write_scene


@pytest.mark.parametrize("name, label", [
    ("Marine_Armour_Detail", "body"),  # was 'tail' (armour deTAIL)
    ("Swing_arm", "arms"),  # was 'wing' (sWING)
    ("Drawing_pin", "body"),  # was 'wing' (draWING)
    ("Database", "body"),  # was 'base' (dataBASE)
    ("LeftWing", "wing"),
    ("Left_Wing.001", "wing"),
    ("tail-2", "tail"),
    ("BannerPole", "banner"),
    ("Arm_Weapon", "weapon"),  # an excludable word wins within one name
    ("HEADGear", "head"),
    ("Plinth", "base"),
    ("Cloak", "body"),
])
def test_labels_are_whole_words(name, label):
    assert part_label(name) == label


def test_words_split_at_separators_digits_and_case():
    assert words("Marine_Armour_Detail") == ["marine", "armour", "detail"]
    assert words("leftWing-02.R") == ["left", "wing", "r"]
    assert words("HEADGear") == ["head", "gear"]
    assert set(VOCABULARY) == set(LABELS)


def test_parts_map_overrides_the_words():
    assert part_label("Cloak", {"Cloak": "banner"}) == "banner"
    assert part_label("Banner_01", {"Cloak": "body"}) == "banner"


def figure_glb(folder) -> str:
    """A figure in inches whose node names the words misread: its base, its body and arm,
    a cloak and a flag under names of the file's own."""
    parts = {
        "Database": trimesh.creation.cylinder(radius=0.5, height=0.12).apply_translation(
            (0, 0, 0.06)),
        "Marine_Armour_Detail": trimesh.creation.box(extents=(0.4, 0.3, 1.2)).apply_translation(
            (0, 0, 0.72)),
        "Swing_arm": trimesh.creation.box(extents=(0.1, 0.1, 0.5)).apply_translation(
            (0.3, 0, 0.9)),
        "Cape": trimesh.creation.box(extents=(0.4, 0.05, 1.0)).apply_translation(
            (0, -0.2, 0.7)),
        "Flag_01": trimesh.creation.box(extents=(0.05, 0.4, 0.3)).apply_translation(
            (0, -0.3, 1.6)),
    }
    export_glb(list(parts.items()), folder / "figure.glb")
    return "figure.glb"


SCENE = """\
format: 1
ruleset: wh40k6
table: [24, 24]
models:
  - {{id: a, player: 1, at: [6, 6], shape: {fig}{keys}}}
  - {{id: b, player: 2, at: [18, 18]}}
"""


def test_scene_parts_map_labels_the_file_names(tmp_path):
    path = write_scene(tmp_path, SCENE.format(
        fig=figure_glb(tmp_path), keys=", parts: {Database: base, Cape: body, Flag_01: banner}"))
    world = build_world(load_scene(path))
    volume = world.models["a"].volume
    assert set(volume.part_names) == {"base", "body", "arms", "banner"}
    # the real body parts stay in the target: only the base and the flag are excludable
    body = volume.faces_of({"body"})
    assert len(body) == 2 * 12  # the armour and the cape
    # the flag is left out of the height (NOT_HEIGHT); the base is the mesh's own
    assert load_scene(path).model("a").height == pytest.approx(1.32, abs=1e-6)


@pytest.mark.parametrize("keys, key, fragment", [
    (", parts: {Cape: cloak}", "models[a].parts.Cape", "part label must be one of"),
    (", parts: {Capes: body}", "models[a].parts.Capes",
     "the mesh has no node named 'Capes'; did you mean 'Cape'?"),
    (", parts: [Cape]", "models[a].parts", "must be a mapping of node name -> part label"),
])
def test_bad_parts_map_refused(tmp_path, keys, key, fragment):
    path = write_scene(tmp_path, SCENE.format(fig=figure_glb(tmp_path), keys=keys))
    code, out, err = run_cli("validate", path)
    assert code == 2 and out == ""
    assert err.startswith(f"{path}:{line_of(path, 'id: a')}: {key}: ")
    assert fragment in err


def test_obj_objects_are_parts(tmp_path):
    """Each `o` object of an OBJ is a part of its own, named and labelled by its object name
    (trimesh merges them into the first object unless asked to split them)."""
    from battlesight.geometry.meshfile import load_mesh_file

    scene = trimesh.Scene()
    for name, height, z in [("Base", 0.12, 0.06), ("Marine_Armour_Detail", 1.2, 0.72),
                            ("Banner_01", 0.3, 1.6)]:
        part = trimesh.creation.box(extents=(0.4, 0.4, height)).apply_translation((0, 0, z))
        scene.add_geometry(part, node_name=name, geom_name=name)
    path = tmp_path / "figure.obj"
    scene.export(path)
    grouped = tmp_path / "grouped.obj"  # the same parts as `g` groups, as some exporters write
    grouped.write_text(path.read_text().replace("\no ", "\ng "))
    for file in (path, grouped):
        mesh, face_part, names = load_mesh_file(file)
        assert sorted(names) == ["Banner_01", "Base", "Marine_Armour_Detail"]
        labels = {part_label(names[i]) for i in set(face_part.tolist())}
        assert labels == {"base", "body", "banner"}
