"""QA of the mesh-file readings kept between commands (`geometry.meshcache`): an ASCII STL (read
by trimesh) is kept as a GLB is; a reading is read again when a file the mesh file refers to
changes (an OBJ's texture, a glTF's .bin), not only the file itself; a read-only cache is read."""

from __future__ import annotations

import json
import os
import tempfile

import numpy as np
import pytest
from battlesight.geometry import meshcache, meshdeps, meshfile
from battlesight.viewer import mesh_textures
from PIL import Image

from tests.helpers import minimal_with, write_scene
from tests.test_meshcache import STATUE, _command

_ASCII_BOX = "solid box\n" + "".join(
    f"facet normal 0 0 0\nouter loop\n{' '.join(f'vertex {x} {y} {z}' for x, y, z in tri)}\n"
    "endloop\nendfacet\n"
    for tri in [((0, 0, 0), (4, 0, 0), (4, 3, 0)), ((0, 0, 0), (4, 3, 0), (0, 3, 0)),
                ((0, 0, 2), (4, 3, 2), (4, 0, 2)), ((0, 0, 2), (0, 3, 2), (4, 3, 2)),
                ((0, 0, 0), (4, 0, 2), (4, 0, 0)), ((0, 0, 0), (0, 0, 2), (4, 0, 2)),
                ((0, 3, 0), (4, 3, 0), (4, 3, 2)), ((0, 3, 0), (4, 3, 2), (0, 3, 2)),
                ((0, 0, 0), (0, 3, 0), (0, 3, 2)), ((0, 0, 0), (0, 3, 2), (0, 0, 2)),
                ((4, 0, 0), (4, 3, 2), (4, 3, 0)), ((4, 0, 0), (4, 0, 2), (4, 3, 2))]
) + "endsolid box\n"


def test_ascii_stl_is_kept_so_the_next_command_imports_no_trimesh(tmp_path):
    (tmp_path / "box.stl").write_text(_ASCII_BOX)
    path = write_scene(tmp_path, minimal_with(
        terrain="- {id: crate, type: mesh, file: box.stl, at: [36, 10]}"))
    cache = tmp_path / "cache"
    assert _command(cache, "los", str(path), "--all", "--json") == {"code": 0, "trimesh": True}
    assert _command(cache, "los", str(path), "--all", "--json") == {"code": 0, "trimesh": False}


def _textured_obj(folder, colour) -> str:
    (folder / "rock.obj").write_text(
        "mtllib rock.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 1\nvt 0 0\nvt 1 0\nvt 0 1\n"
        "usemtl stone\nf 1/1 2/2 3/3\n")
    (folder / "rock.mtl").write_text(
        "newmtl stone\nKd 1 1 1\nmap_Kd paint.png\nbump -bm 0.5 relief.png\n")
    _paint(folder, colour, 1)
    return str(folder / "rock.obj")


def _paint(folder, colour, stamp) -> None:
    """The texture in one colour, its modification time set (distinct across repaints)."""
    Image.new("RGB", (4, 4), colour).save(folder / "paint.png")
    os.utime(folder / "paint.png", ns=(stamp * 10**9, stamp * 10**9))


def test_repainted_obj_texture_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "cache"))
    path = _textured_obj(tmp_path, (200, 0, 0))
    first = mesh_textures.file_textures(path)
    assert tuple(first[0][2][0, 0, :3]) == (200, 0, 0)
    _paint(tmp_path, (0, 0, 200), 2)  # only the image changes: the OBJ keeps its time
    again = mesh_textures.file_textures(path)
    assert tuple(again[0][2][0, 0, :3]) == (0, 0, 200)


def _gltf(folder, top: float) -> str:
    """A one-triangle .gltf whose vertices lie in tri.bin (the triangle's apex at y=top)."""
    points = np.array([[0, 0, 0], [1, 0, 0], [0, top, 1]], np.float32)
    blob = points.tobytes() + np.array([0, 1, 2], np.uint32).tobytes()
    (folder / "tri.bin").write_bytes(blob)
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
           "nodes": [{"mesh": 0, "name": "tri"}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
           "buffers": [{"uri": "tri.bin", "byteLength": len(blob)}],
           "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36},
                           {"buffer": 0, "byteOffset": 36, "byteLength": 12}],
           "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                          "min": points.min(0).tolist(), "max": points.max(0).tolist()},
                         {"bufferView": 1, "componentType": 5125, "count": 3,
                          "type": "SCALAR"}]}
    path = folder / "tri.gltf"
    if not path.exists():
        path.write_text(json.dumps(doc))
    os.utime(path, ns=(10**9, 10**9))  # the .gltf itself never changes
    os.utime(folder / "tri.bin", ns=(int(top) * 10**9,) * 2)
    return str(path)


def test_gltf_with_a_rewritten_bin_is_read_again(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "cache"))
    path = _gltf(tmp_path, 2.0)
    meshfile.clear_cache()
    assert meshfile.mesh_extents(path)[2] == 2.0  # y-up: the file's y is the height
    _gltf(tmp_path, 5.0)  # same size, new numbers
    assert meshfile.mesh_extents(path)[2] == 5.0  # the reading kept in memory is not used
    meshfile.clear_cache()
    assert meshfile.mesh_extents(path)[2] == 5.0  # nor the one kept on disk


def test_references_of_each_format(tmp_path):
    obj = _textured_obj(tmp_path, (1, 2, 3))
    assert meshdeps.references(obj) == [str(tmp_path / name)  # a map's file: its last word
                                        for name in ("paint.png", "relief.png", "rock.mtl")]
    assert [dep[0] for dep in meshdeps.file_key(obj)[3]] == [  # one not there is no key
        str(tmp_path / "paint.png"), str(tmp_path / "rock.mtl")]
    (tmp_path / "lines.obj").write_bytes(
        b"# mtllib commented.mtl\r\n  mtllib a.mtl\r\nusemtl mtllibx\r\nmtllib\tb.mtl")
    assert meshdeps.references(str(tmp_path / "lines.obj")) == [
        str(tmp_path / "a.mtl"), str(tmp_path / "b.mtl")]  # each on a line of its own
    assert meshdeps.references(_gltf(tmp_path, 2.0)) == [str(tmp_path / "tri.bin")]
    assert meshdeps.references(str(STATUE)) == []  # a GLB with everything inside
    (tmp_path / "broken.gltf").write_text("{not json")
    assert meshdeps.references(str(tmp_path / "broken.gltf")) == []


def test_read_only_cache_is_still_read(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path))
    meshcache.write("mesh", ("k",), {"a": np.arange(3)})

    def refuse(*_args, **_kwargs):
        raise PermissionError("read-only file system")

    monkeypatch.setattr(os, "utime", refuse)
    np.testing.assert_array_equal(meshcache.read("mesh", ("k",))["a"], np.arange(3))


def test_unwritable_or_linked_cache_folder_is_no_error(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "link"))  # a linked folder: used
    meshcache.write("mesh", ("k",), {"a": np.arange(2)})
    assert list((real / "meshes").glob("*.npz"))
    assert meshcache.read("mesh", ("k",)) is not None
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "file").write_text("")
    for root in ("dangling", "file"):  # not a folder: nothing kept, nothing raised
        monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / root))
        meshcache.write("mesh", ("k",), {"a": np.arange(2)})
        assert meshcache.read("mesh", ("k",)) is None
    assert not (tmp_path / "nowhere").exists()

    def refuse(*_args, **_kwargs):
        raise PermissionError("unwritable")

    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "other"))
    monkeypatch.setattr(tempfile, "mkstemp", refuse)  # meshcache imports it where it writes
    meshcache.write("mesh", ("k",), {"a": np.arange(2)})
    assert meshcache.read("mesh", ("k",)) is None


def test_an_entry_that_is_a_link_is_never_read_and_writing_replaces_the_link(tmp_path,
                                                                            monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path))
    meshcache.write("mesh", ("elsewhere",), {"a": np.arange(3)})
    target = meshcache._entry("mesh", ("elsewhere",))
    entry = meshcache._entry("mesh", ("k",))
    entry.symlink_to(target)
    assert meshcache.read("mesh", ("k",)) is None
    meshcache.write("mesh", ("k",), {"a": np.arange(5)})
    assert not entry.is_symlink() and len(meshcache.read("mesh", ("k",))["a"]) == 5
    assert len(meshcache.read("mesh", ("elsewhere",))["a"]) == 3  # the link's target kept


def test_gltf_whose_bin_is_missing_names_it(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_CACHE", str(tmp_path / "cache"))
    path = _gltf(tmp_path, 2.0)
    (tmp_path / "tri.bin").unlink()
    meshfile.clear_cache()
    with pytest.raises(meshfile.MeshFileError, match="it refers to tri.bin, not found beside"):
        meshfile.load_mesh_file(path)
