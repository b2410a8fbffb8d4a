"""Hostile files (issue 26): every refusal names the file, where and what is wrong in the
user's terms (never a library's text, never cut before the message); a number no command can
read is refused by the gate as by every command; writers never go through a symbolic link and
never replace a file with an incomplete one. Each input is written here, in its real format."""

from __future__ import annotations

import json
import os
import struct
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from battlesight.scenes.output import IncompleteOutput, IncompleteWrite, write_output

from battlesight.cli.main import main
from tests.helpers import DEMO, MINIMAL, line_of, minimal_with, write_scene
from tests.test_importers import DEPLOY, GODOT, tts_save

CUBE = [[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)]
CUBE_TRIANGLES = [0, 1, 3, 0, 3, 2, 4, 6, 7, 4, 7, 5, 0, 4, 5, 0, 5, 1, 2, 3, 7, 2, 7, 6,
                  0, 2, 6, 0, 6, 4, 1, 5, 7, 1, 7, 3]


def glb_bytes(vertices, indices) -> bytes:
    """A binary glTF holding one indexed triangle mesh, written to the glTF 2.0 layout."""
    v = np.asarray(vertices, np.float32).tobytes()
    i = np.asarray(indices, np.uint32).tobytes()
    gltf = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
            "nodes": [{"mesh": 0, "name": "box"}],
            "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
            "buffers": [{"byteLength": len(v) + len(i)}],
            "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": len(v)},
                            {"buffer": 0, "byteOffset": len(v), "byteLength": len(i)}],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": len(vertices), "type": "VEC3",
                 "min": np.min(vertices, 0).tolist(), "max": np.max(vertices, 0).tolist()},
                {"bufferView": 1, "componentType": 5125, "count": len(indices),
                 "type": "SCALAR"}]}
    text = json.dumps(gltf).encode()
    text += b" " * (-len(text) % 4)
    data = v + i + b"\0" * (-(len(v) + len(i)) % 4)
    body = (struct.pack("<II", len(text), 0x4E4F534A) + text
            + struct.pack("<II", len(data), 0x004E4942) + data)
    return struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body


def mesh_scene(tmp_path: Path, name: str, content: bytes, units: str = "in") -> Path:
    (tmp_path / name).write_bytes(content)
    return write_scene(tmp_path, minimal_with(
        terrain=f"- {{id: prop, type: mesh, file: {name}, at: [40, 10], units: {units}}}"))


def refusal(capsys) -> list[str]:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()


# -- numbers -----------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt, layout", [("godot40k", GODOT), ("deploy-helper", DEPLOY),
                                         ("tts", {"SaveName": "s", "ObjectStates": []})])
@pytest.mark.parametrize("number, why", [("9" * 4301, "whole number too large"),
                                         ("NaN", "not a finite number"),
                                         ("1e400", "number too large")])
def test_importers_refuse_numbers_no_scene_holds_at_their_line(tmp_path, capsys, fmt, layout,
                                                               number, why):
    """Python's int-string limit (4,300 digits) was a traceback; now every JSON importer
    refuses the number as the scene reader does, at its line."""
    text = json.dumps(layout, indent=1)
    text = text.replace("{", '{\n "x-huge": ' + number + ",", 1)
    src = tmp_path / "layout.json"
    src.write_text(text)
    out = tmp_path / "out.yaml"
    assert main(["import", str(src), "--format", fmt, "--out", str(out)]) == 2
    (line,) = refusal(capsys)
    assert line.startswith(f"{src}:2: json: ") and why in line and len(line) <= 400
    assert not out.exists()


def far_layouts(tmp_path: Path) -> dict[str, tuple[dict, list[str], str]]:
    """Each JSON format with one coordinate of 1e300: (data, extra arguments, its key)."""
    godot = json.loads(json.dumps(GODOT))
    godot["pieces"][1]["polygon"][0][0] = 1e300
    deploy = json.loads(json.dumps(DEPLOY))
    deploy["pieces"][0]["position"]["x"] = 1e300
    save, mods = tts_save(tmp_path)
    tts = json.loads(save.read_text())
    tts["ObjectStates"][0]["Transform"]["posX"] = 1e300
    return {"godot40k": (godot, [], "pieces[1].polygon[0][0]"),
            "deploy-helper": (deploy, [], "pieces[0].position.x"),
            "tts": (tts, ["--mods", str(mods)], "ObjectStates[0].Transform.posX")}


@pytest.mark.parametrize("fmt", ["godot40k", "deploy-helper", "tts"])
def test_importers_refuse_coordinates_no_table_holds_before_numpy_warns(tmp_path, capsys, fmt):
    """A 1e300 coordinate overflowed the outline arithmetic (shapely and numpy warnings)."""
    data, extra, key = far_layouts(tmp_path)[fmt]
    src = tmp_path / "far.json"
    src.write_text(json.dumps(data))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would fail the import
        assert main(["import", str(src), "--format", fmt, *extra, "--out",
                     str(tmp_path / "far.yaml")]) == 2
    assert refusal(capsys) == [f"{src}: {key}: 1e+300 is beyond 10,000: no table is that large"]


@pytest.mark.parametrize("value", ["18446744073709551616", ".nan", "-.inf", "1.0e+400"])
def test_a_misspelt_key_holding_a_number_no_command_reads_fails_the_gate_too(tmp_path, capsys,
                                                                             value):
    """validate said "ok (1 warning)" and every command then refused the scene: the gate and
    the commands now give the same error line."""
    scene = write_scene(tmp_path, MINIMAL + f"hieght: {value}\n")
    assert main(["validate", str(scene)]) == 2
    gate = [line for line in refusal(capsys) if ": hieght: " in line]
    assert main(["los", str(scene), "--from", "sgt", "--to", "boy"]) == 2
    command = [line for line in refusal(capsys) if ": hieght: " in line]
    # the gate: the number's error, and the unknown key's warning; the command: the same error
    assert len(gate) == 2 and command == gate[:1] and "warning" not in gate[0]
    assert "warning: unknown key" in gate[1]


def test_a_very_long_unknown_key_still_says_what_is_wrong(tmp_path, capsys):
    scene = write_scene(tmp_path, MINIMAL + "hei" + "g" * 900 + "ht: 1\n")
    assert main(["validate", str(scene)]) == 0
    (line,) = refusal(capsys)
    assert len(line) <= 400 and line.endswith("name it 'x-...')") and "unknown key" in line


# -- mesh files --------------------------------------------------------------------------------

def test_a_glb_whose_indices_point_past_its_vertices_is_refused_at_its_file_key(tmp_path,
                                                                               capsys):
    """It was "internal error while reading the scene: IndexError(...)", no line, no key."""
    bad = list(CUBE_TRIANGLES)
    bad[4] = 1000
    scene = mesh_scene(tmp_path, "broken.glb", glb_bytes(CUBE, bad))
    assert main(["validate", str(scene)]) == 2
    line = refusal(capsys)[0]
    assert line.startswith(f"{scene}:") and ": terrain[prop].file: broken.glb: " in line
    assert "point past its 8 vertices (index 1,000)" in line and "Error" not in line


def test_a_gltf_missing_its_data_is_refused_in_a_modellers_terms(tmp_path, capsys):
    (tmp_path / "model.gltf").write_text(json.dumps(
        {"asset": {"version": "2.0"}, "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
         "accessors": [{"bufferView": 3, "count": 8, "type": "VEC3", "componentType": 5126}]}))
    scene = write_scene(tmp_path, minimal_with(
        terrain="- {id: prop, type: mesh, file: model.gltf, at: [40, 10]}"))
    assert main(["validate", str(scene)]) == 2
    line = refusal(capsys)[0]
    assert line.endswith("model.gltf: cannot be read as GLTF: it refers to an accessor, buffer "
                         "view or buffer it does not hold, or gives one in the wrong form")


def test_a_mesh_the_reader_needs_a_missing_library_for_is_refused_without_its_name(
        tmp_path, capsys, monkeypatch):
    """trimesh guesses a non-UTF-8 ASCII STL's encoding with charset_normalizer; where that is
    not installed its "No module named 'charset_normalizer'" reached the user."""
    monkeypatch.setitem(sys.modules, "charset_normalizer", None)  # import fails, as uninstalled
    facets = "".join(f"facet normal 0 0 1\n outer loop\n vertex {a}\n vertex {b}\n vertex {c}\n"
                     " endloop\nendfacet\n" for a, b, c in (("0 0 0", "1 0 0", "0 1 0"),
                                                             ("0 0 0", "0 1 0", "0 0 1")))
    stl = b"solid caf\xe9\n" + facets.encode() + b"endsolid\n"
    scene = mesh_scene(tmp_path, "latin.stl", stl)
    assert main(["validate", str(scene)]) == 2
    (line, _) = refusal(capsys)
    assert line.endswith("latin.stl: cannot be read as STL: it is not UTF-8 text (save it as "
                         "UTF-8)")


@pytest.mark.parametrize("scale, units", [(1e30, "in"), (3e38, "mm"), (1e6, "cm")])
def test_a_mesh_larger_than_any_table_is_refused_before_numpy_warns(tmp_path, capsys, scale,
                                                                    units):
    """Huge-coordinate meshes passed validate and made `render` print numpy RuntimeWarnings;
    the gate refuses them as it refuses such numbers in scene files."""
    scene = mesh_scene(tmp_path, "huge.glb", glb_bytes(np.asarray(CUBE) * scale, CUBE_TRIANGLES),
                       units)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["validate", str(scene)]) == 2
        assert main(["export", str(scene), str(tmp_path / "out.glb")]) == 2
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    lines = refusal(capsys)
    assert len(lines) == 3 and lines[0] == lines[2]
    assert ": terrain[prop].file: huge.glb: is " in lines[0]
    assert "beyond the 10,000\" limit of any scene's coordinates" in lines[0]
    assert not (tmp_path / "out.glb").exists()


# -- deployment --------------------------------------------------------------------------------

def test_a_deployment_map_the_system_lacks_fails_validate_strict_as_analyze(tmp_path, capsys):
    scene = write_scene(tmp_path, MINIMAL + "deployment: nowhere\n")
    assert main(["validate", "--strict", str(scene)]) == 2
    gate = refusal(capsys)[0]
    assert gate == (f"{scene}:{line_of(scene, 'deployment:')}: deployment: wh40k6 has no "
                    "deployment map 'nowhere'; known: Dawn of War, Hammer and Anvil, "
                    "Vanguard Strike")
    assert main(["analyze", str(scene), "--grid", "4"]) == 2
    assert refusal(capsys)[0] == gate
    good = write_scene(tmp_path, MINIMAL + "deployment: hammer and anvil\n", "good.yaml")
    assert main(["validate", "--strict", str(good)]) == 0


# -- writers -----------------------------------------------------------------------------------

def test_a_writer_left_incomplete_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"the old file")

    def incomplete(path: Path) -> None:
        if path.read_bytes()[-3:] != b"end":
            raise IncompleteWrite("it stops before its end")

    with pytest.raises(IncompleteOutput) as caught:
        write_output(target, b"half a fi", check=incomplete)
    assert caught.value.filename == str(target) and "nothing was written" in str(caught.value)
    assert target.read_bytes() == b"the old file" and os.listdir(tmp_path) == ["out.bin"]
    write_output(target, b"a whole file: end", check=incomplete)
    assert target.read_bytes() == b"a whole file: end"


def test_demo_refuses_a_symbolic_link_for_its_pictures_folder(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert main(["demo", "--out", str(tmp_path / "link")]) == 2
    assert refusal(capsys) == [f"battlesight demo: --out {tmp_path / 'link'} is a symbolic "
                               "link; refusing to write through it (give the real folder)"]
    assert list(real.iterdir()) == []


def test_a_tts_import_refuses_a_symbolic_link_for_its_mesh_folder(tmp_path, capsys):
    save, mods = tts_save(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "table-meshes").symlink_to(elsewhere)
    out = tmp_path / "table.yaml"
    assert main(["import", str(save), "--format", "tts", "--mods", str(mods),
                 "--out", str(out)]) == 2
    (line,) = refusal(capsys)
    assert "is a symbolic link; refusing to write through it" in line
    assert list(elsewhere.iterdir()) == [] and not out.exists()


def test_replay_on_a_full_disk_refuses_and_keeps_the_old_video(tmp_path):
    """The encoder's writes fail past 3,000 bytes (RLIMIT_FSIZE: what a full disk does to a
    write): replay printed "wrote battle.mp4", exit 0, and left an unreadable 3 KB file."""
    pytest.importorskip("panda3d")
    resource = pytest.importorskip("resource")
    import signal
    import subprocess

    actions = tmp_path / "actions.yaml"
    actions.write_text("seed: 1\nactions:\n  - {do: move, unit: tac-1, by: [0, 6]}\n")
    log, video = tmp_path / "log.json", tmp_path / "battle.mp4"
    assert main(["play", str(DEMO), "--actions", str(actions), "--log", str(log)]) == 0
    replay = [sys.executable, "-m", "battlesight", "replay", str(DEMO), "--log", str(log),
              "--out", str(video), "--size", "128x72", "--fps", "4", "--flat"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    assert subprocess.run(replay, env=env, capture_output=True).returncode == 0
    old = video.read_bytes()

    def full_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))

    run = subprocess.run(replay, env=env, capture_output=True, text=True, preexec_fn=full_disk)
    assert run.returncode == 2 and "wrote" not in run.stdout and "Traceback" not in run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith(f"battlesight replay: {video}: the video ")  # named, in one line
    assert line.endswith("is the disk full?); nothing was written")
    assert video.read_bytes() == old and sorted(os.listdir(tmp_path)) == [
        "actions.yaml", "battle.mp4", "log.json"]
