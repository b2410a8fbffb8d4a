"""Saving keeps the user's file: only what changed is rewritten (scenes.save.kept_yaml)."""

from __future__ import annotations

import dataclasses
import difflib
import shutil

import pytest
import yaml
from battlesight.scenes import load_scene, save_scene, scene_from_dict
from battlesight.scenes.loader import check_scene_file
from battlesight.scenes.save import scene_text, scene_to_dict, scene_to_yaml
from battlesight.scenes.yamlpatch import CannotPatch, patch_yaml, same
from battlesight.viewer.editing import LayoutEditor
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import EXAMPLE_FILES, MINIMAL

#: written by hand: comments, block and flow style, odd spacing, quotes, an unknown key
HAND_WRITTEN = """\
# my table for Saturday
format: 1
ruleset:   wh40k6      # 6th edition
table: [48,48]

terrain:
    # the big ruin in the middle
    - id: ruin-a
      type: ruin
      at: [ 24, 34 ]
      size: [12, 6]
      floors: [3, 6]
      height: 8
      walls: [north, west]
      windows: true
      rotation: 0
    - id: 'wall-1'
      type:  wall
      from: [10, 20]
      to:   [22, 20]
      height: 2.5
      painted: "not yet"    # a key battlesight does not know
units:
    - {id: tac-1, player: 1, profile: tactical-squad}
models:
    - id: sgt        # the sergeant
      unit: tac-1
      at: [12, 6]
    - id: boy
      player: 2
      at: [30,40]
      facing: 180
"""


@pytest.fixture
def hand(tmp_path):
    path = tmp_path / "table.yaml"
    path.write_text(HAND_WRITTEN)
    return path


def changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    """(lines removed, lines added) between two texts."""
    diff = list(difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="",
                                     n=0))[2:]
    removed = [line[1:] for line in diff if line.startswith("-")]
    added = [line[1:] for line in diff if line.startswith("+")]
    return removed, added


def moved(scene, model_id, at=None, facing=None):
    """The scene with one model moved and/or turned."""
    model = scene.model(model_id)
    new = dataclasses.replace(model, at=at if at is not None else model.at,
                              facing=facing if facing is not None else model.facing)
    return dataclasses.replace(scene, models=[new if m.id == model_id else m
                                              for m in scene.models])


def test_a_moved_model_changes_one_line(hand):
    save_scene(moved(load_scene(hand), "boy", at=(31, 40.5)), hand)
    assert changed_lines(HAND_WRITTEN, hand.read_text()) == (
        ["      at: [30,40]"], ["      at: [31,40.5]"])
    assert load_scene(hand).model("boy").at == (31, 40.5)


def test_a_turned_model_without_facing_gains_one_line(hand):
    save_scene(moved(load_scene(hand), "sgt", facing=90), hand)
    assert changed_lines(HAND_WRITTEN, hand.read_text()) == ([], ["      facing: 90"])
    text = hand.read_text()
    assert text.index("facing: 90") > text.index("at: [12, 6]")  # in the clean form's order


def test_editor_turn_changes_the_rotation_line_only(hand):
    editor = LayoutEditor(load_scene(hand), grid=None)
    editor.rotate("ruin-a", 15)
    editor.save()
    assert changed_lines(HAND_WRITTEN, hand.read_text()) == (
        ["      rotation: 0"], ["      rotation: 15"])


def test_editor_move_of_a_wall_changes_its_end_points_only(hand):
    editor = LayoutEditor(load_scene(hand), grid=None)
    editor.move("wall-1", 1, 0)
    editor.save()
    assert changed_lines(HAND_WRITTEN, hand.read_text()) == (
        ["      from: [10, 20]", "      to:   [22, 20]"],
        ["      from: [11, 20]", "      to:   [23, 20]"])


def test_an_added_piece_is_one_entry_in_the_users_style(hand, tmp_path):
    editor = LayoutEditor(load_scene(hand), grid=None)
    editor.add("crater", (40, 10))
    editor.save()
    text = hand.read_text()
    removed, added = changed_lines(HAND_WRITTEN, text)
    assert removed == []
    assert added[0] == "    - id: crater-1"  # the siblings' dash and key columns
    assert all(line.startswith("      ") and not line.startswith("       ")
               for line in added[1:])
    assert text.index("crater-1") > text.index("not yet") > 0  # after the last piece
    assert "      at: [40, 10]" in added[1:] and load_scene(hand).piece("crater-1").get("radius")
    # beside flow-style siblings the entry is one flow mapping on one line
    flow = tmp_path / "flow.yaml"
    flow.write_text(MINIMAL)
    editor = LayoutEditor(load_scene(flow), grid=None)
    editor.add("crater", (40, 10))
    editor.save()
    removed, added = changed_lines(MINIMAL, flow.read_text())
    assert removed == [] and len(added) == 1
    assert added[0].startswith("  - {id: crater-1, type: crater, at: [40, 10]")


def test_a_deleted_model_removes_its_entry_and_nothing_else(hand):
    scene = load_scene(hand)
    save_scene(dataclasses.replace(scene, models=[m for m in scene.models if m.id != "sgt"]),
               hand)
    assert changed_lines(HAND_WRITTEN, hand.read_text()) == (
        ["    - id: sgt        # the sergeant", "      unit: tac-1", "      at: [12, 6]"], [])
    editor = LayoutEditor(load_scene(hand), grid=None)
    editor.delete("ruin-a")
    editor.save()
    removed, added = changed_lines(HAND_WRITTEN, hand.read_text())
    assert added == [] and removed[0] == "    - id: ruin-a" and len(removed) == 12
    assert "    # the big ruin in the middle" in hand.read_text()  # the comment above stays


def test_comments_quotes_and_unknown_keys_survive_many_edits(hand):
    editor = LayoutEditor(load_scene(hand), grid=1.0)
    editor.move("ruin-a", 2, 1)
    editor.rotate("wall-1", 90)
    editor.add("box", (40, 8))
    editor.set("ruin-a", height=7)
    editor.save()
    text = hand.read_text()
    for kept in ("# my table for Saturday", "ruleset:   wh40k6      # 6th edition",
                 "table: [48,48]", "    # the big ruin in the middle", "- id: 'wall-1'",
                 '      painted: "not yet"    # a key battlesight does not know',
                 "    - id: sgt        # the sergeant",
                 "    - {id: tac-1, player: 1, profile: tactical-squad}"):
        assert kept in text
    assert load_scene(hand).piece("wall-1").get("painted") == "not yet"
    assert load_scene(hand) == editor.scene


def _edits(scene):
    """A move, a turn, an added and a deleted model and piece, a changed and a new key."""
    first, last = scene.models[0], scene.models[-1]
    x, y = last.at
    models = [dataclasses.replace(m, at=(round(x + 0.25, 3), y), facing=(m.facing + 30) % 360)
              if m is last else m for m in scene.models if m is not first]
    models.append(dataclasses.replace(first, id="added-model", at=first.at))
    terrain = list(scene.terrain)
    piece = terrain.pop(0)
    terrain.append(dataclasses.replace(piece, id="added-piece"))
    if terrain:
        terrain[0] = dataclasses.replace(terrain[0], data={**terrain[0].data, "x-note": "hi"})
    return dataclasses.replace(scene, models=models, terrain=terrain,
                               extra={**scene.extra, "x-saved-by": "test"})


@pytest.mark.parametrize("path", [*EXAMPLE_FILES, "hand"], ids=lambda p: getattr(p, "name", p))
def test_saved_file_reloads_to_exactly_the_edited_scene(tmp_path, hand, path):
    source = hand if path == "hand" else tmp_path / path.name
    if path != "hand":
        shutil.copy(path, source)
    before = source.read_text()
    read = load_scene(source)
    edited = _edits(read)
    # the deleted model's and piece's lines (to the next entry) and the moved model's two
    deleted = (read.models[1].line - read.models[0].line) + 2 + (
        read.terrain[1].line - read.terrain[0].line)
    save_scene(edited, source)
    again, problems = check_scene_file(source)
    assert problems == [] and again == edited
    text = source.read_text()
    assert text != scene_to_yaml(edited)  # kept, not rewritten in full
    comments = [line for line in before.splitlines() if line.lstrip().startswith("#")]
    assert all(line in text.splitlines() for line in comments)
    removed, _ = changed_lines(before, text)
    assert len(removed) <= deleted + 1  # and the line of the piece given a key


def test_a_scene_without_a_file_is_written_in_full(tmp_path, hand):
    built = scene_from_dict(scene_to_dict(load_scene(hand)))
    assert built.path is None
    assert scene_text(built, tmp_path / "x.yaml") == scene_to_yaml(built)
    scene = load_scene(hand)
    assert scene_text(scene, hand, keep=False) == scene_to_yaml(scene)


def test_a_source_gone_bad_gives_the_full_form(hand):
    scene = moved(load_scene(hand), "boy", at=(31, 40))
    hand.write_text("format: 1\nruleset: nope\n")  # changed behind the window's back
    save_scene(scene, hand)
    assert hand.read_text() == scene_to_yaml(scene)
    assert load_scene(hand) == scene


def test_saving_keeps_what_the_file_gained_since_it_was_read(hand):
    scene = moved(load_scene(hand), "boy", at=(31, 40))
    hand.write_text(HAND_WRITTEN.replace("models:\n", "models:  # added in an editor\n"))
    save_scene(scene, hand)
    assert "models:  # added in an editor" in hand.read_text()
    assert load_scene(hand) == scene


def test_save_as_keeps_the_text_and_names_the_scene(tmp_path, hand):
    scene = moved(load_scene(hand), "boy", at=(31, 40))
    other = tmp_path / "other.yaml"
    save_scene(scene, other)
    assert load_scene(other) == scene  # the name ("table", from the file) is written out
    assert changed_lines(HAND_WRITTEN, other.read_text()) == (
        ["      at: [30,40]"], ["name: table", "      at: [31,40]"])


def test_windows_line_ends_stay(tmp_path):
    path = tmp_path / "crlf.yaml"
    path.write_bytes(HAND_WRITTEN.replace("\n", "\r\n").encode())
    save_scene(moved(load_scene(path), "sgt", facing=45), path)
    data = path.read_bytes()
    assert b"      facing: 45\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")


def test_patch_yaml_flow_mappings_and_sequences():
    text = "a: {x: 1, y: [1, 2, 3]}  # c\nb: [p, q]\n"
    assert patch_yaml(text, {"a": {"x": 1, "y": [1, 2, 3]}, "b": ["p", "q"]},
                      {"a": {"y": [1, 5, 3], "z": True}, "b": ["p", "q", "r"]}) == \
        "a: {y: [1, 5, 3], z: true}  # c\nb: [p, q, r]\n"


def test_an_added_model_leaves_out_defaults_and_what_its_unit_gives(hand):
    scene = load_scene(hand)
    new = dataclasses.replace(scene.model("sgt"), id="marine-2", at=(14, 6), facing=90)
    save_scene(dataclasses.replace(scene, models=[*scene.models, new]), hand)
    assert changed_lines(HAND_WRITTEN, hand.read_text()) == ([], [
        "    - id: marine-2", "      unit: tac-1", "      at: [14, 6]", "      facing: 90"])
    assert load_scene(hand).model("marine-2") == new


def test_an_edit_on_a_shared_anchor_writes_the_full_form(tmp_path):
    path = tmp_path / "anchors.yaml"
    path.write_text(MINIMAL.replace("at: [30, 40], facing: 180, base: 32",
                                    "at: [30, 40], facing: 180, base: &b 32")
                    + "  - {id: boy-2, player: 2, at: [34, 40], base: *b}\n")
    scene = load_scene(path)
    boy = dataclasses.replace(scene.model("boy-2"), base=40.0)
    edited = dataclasses.replace(scene, models=[boy if m.id == "boy-2" else m
                                                for m in scene.models])
    save_scene(edited, path)
    assert path.read_text() == scene_to_yaml(edited) and load_scene(path) == edited


scalars = (st.none() | st.booleans() | st.integers(-1000, 1000)
           | st.floats(-100, 100, allow_nan=False).map(lambda v: round(v, 3))
           | st.text(alphabet="ab :#-'\"\n", max_size=4))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from("pqr"), inner, max_size=3), max_leaves=6)
documents = st.dictionaries(st.sampled_from("abcd"), values, min_size=1, max_size=4)


@settings(max_examples=80, deadline=None)
@given(old=documents, new=documents, flow=st.sampled_from([None, False, True]),
       indent=st.sampled_from([2, 4]))
def test_patched_text_reads_as_the_new_data(old, new, flow, indent):
    text = "# kept\n" + yaml.safe_dump(old, default_flow_style=flow, indent=indent,
                                       sort_keys=False)
    try:
        patched = patch_yaml(text, old, new)
    except CannotPatch:
        return
    assert same(yaml.safe_load(patched), new)
    assert patched.startswith("# kept\n")
