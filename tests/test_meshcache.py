"""Mesh-file readings kept on disk between commands (`geometry.meshcache`): a second command on
a scene with a GLB reads no mesh file and imports no trimesh, a changed file is read again, a
broken entry is ignored, `BATTLESIGHT_CACHE=off` keeps nothing, the folder stays bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
from battlesight.geometry import meshcache, meshfile
from battlesight.viewer import mesh_textures

from tests.helpers import ROOT, minimal_with, write_scene

STATUE = ROOT / "assets" / "terrain" / "statue.glb"

_PROBE = """
import json, sys
from battlesight.cli.main import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "trimesh": "trimesh" in sys.modules}), file=sys.stderr)
"""


def _scene(tmp_path):
    (tmp_path / "stone.glb").write_bytes(STATUE.read_bytes())
    return write_scene(tmp_path, minimal_with(
        terrain="- {id: stone, type: mesh, file: stone.glb, at: [24, 20]}"))


def _command(cache, *args) -> dict:
    env = {**os.environ, "BATTLESIGHT_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True, text=True,
                          timeout=300, env=env)
    return json.loads(done.stderr.strip().splitlines()[-1])


def test_second_command_reads_the_kept_mesh_without_trimesh(tmp_path):
    path, cache = _scene(tmp_path), tmp_path / "cache"
    first = _command(cache, "los", str(path), "--all", "--json")
    assert first == {"code": 0, "trimesh": True}
    kinds = sorted(p.name.split("-")[0] for p in (cache / "meshes").glob("*.npz"))
    assert kinds == ["mesh", "plan"]
    assert _command(cache, "los", str(path), "--all", "--json") == {"code": 0, "trimesh": False}
    os.utime(tmp_path / "stone.glb", ns=(1, 1))  # a changed file: read again
    assert _command(cache, "validate", str(path)) == {"code": 0, "trimesh": True}


def test_kept_reading_is_the_file_s_reading(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "cache"))
    meshfile.clear_cache()
    read = meshfile.load_mesh_file(STATUE)
    meshfile.clear_cache()
    kept = meshfile.load_mesh_file(STATUE)  # from the entry the first call wrote
    np.testing.assert_array_equal(kept[0].vertices, read[0].vertices)
    np.testing.assert_array_equal(kept[0].faces, read[0].faces)
    np.testing.assert_array_equal(kept[1], read[1])
    assert kept[2] == read[2]


def test_broken_entry_is_read_from_the_file_again(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "cache"))
    meshfile.clear_cache()
    read = meshfile.load_mesh_file(STATUE)
    for entry in (tmp_path / "cache" / "meshes").glob("mesh-*.npz"):
        entry.write_bytes(b"not a zip file")
    meshfile.clear_cache()
    again = meshfile.load_mesh_file(STATUE)
    np.testing.assert_array_equal(again[0].vertices, read[0].vertices)


def test_off_keeps_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", "off")
    assert meshcache.folder() is None
    meshcache.write("mesh", ("x",), {"a": np.zeros(3)})
    assert meshcache.read("mesh", ("x",)) is None
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path))
    with meshcache.disabled():
        meshcache.write("mesh", ("x",), {"a": np.zeros(3)})
    assert not (tmp_path / "meshes").exists()


def test_folder_is_trimmed_to_its_bound_least_recently_used_first(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path))
    monkeypatch.setattr(meshcache, "MAX_BYTES", 3 * 8_500)
    for k in range(5):
        meshcache.write("mesh", (k,), {"a": np.zeros(1000)})  # 8 kB and a header each
        entry = meshcache._entry("mesh", (k,))
        os.utime(entry, (k, k))
    left = sorted(int(meshcache.read("mesh", (k,)) is not None) for k in range(5))
    assert sum(left) == 3
    assert meshcache.read("mesh", (4,)) is not None and meshcache.read("mesh", (0,)) is None


def test_kept_textures_are_the_read_ones():
    uv = np.random.default_rng(1).uniform(size=(4, 3, 2))
    image = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)
    parts = [(4, uv, image), (2, None, None)]
    back = mesh_textures._parts_of(mesh_textures._arrays_of(parts))
    assert [p[0] for p in back] == [4, 2] and back[1][1:] == (None, None)
    np.testing.assert_array_equal(back[0][1], uv)
    np.testing.assert_array_equal(back[0][2], image)
    assert mesh_textures._parts_of(mesh_textures._arrays_of(None)) is None


def test_file_textures_entry_for_an_untextured_file(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "cache"))
    assert mesh_textures.file_textures(STATUE) is None
    assert list((tmp_path / "cache" / "meshes").glob("textures-*.npz"))
    assert mesh_textures.file_textures(STATUE) is None


def test_entries_of_other_reader_code_are_never_read(tmp_path, monkeypatch):
    """The key holds a digest of the reading modules' source: an outline or storey finder
    changed since an entry was written never serves that entry."""
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path))
    meshcache.write("plan", ("k",), {"ring": np.ones((3, 2))})
    assert meshcache.read("plan", ("k",)) is not None
    monkeypatch.setattr(meshcache, "_code", lambda: "another version of floors.py")
    assert meshcache.read("plan", ("k",)) is None
