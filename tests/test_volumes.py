"""Model volumes: closed, labelled, sized from the base and height, eye where it belongs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import trimesh
from battlesight.geometry.mesh import as_trimesh
from battlesight.geometry.meshfile import export_glb
from battlesight.geometry.primitives import mesh_problems
from battlesight.geometry.types import ModelVolume
from battlesight.geometry.volumes import (
    BASE_THICKNESS,
    base_radii,
    cylinder_volume,
    humanoid_volume,
    mesh_volume,
    part_label,
)

ROOT = Path(__file__).resolve().parent.parent
MARINE = ROOT / "assets" / "models" / "marine.glb"


def part_vertices(vol: ModelVolume, name: str) -> np.ndarray:
    faces = vol.mesh.faces[vol.faces_of({name})]
    return vol.mesh.vertices[np.unique(faces)]


def assert_volume(vol: ModelVolume) -> None:
    assert mesh_problems(vol.mesh) == []
    assert vol.face_part.shape == (len(vol.mesh.faces),)
    assert vol.face_part.min() >= 0 and vol.face_part.max() < len(vol.part_names)
    assert len(set(vol.part_names)) == len(vol.part_names)
    assert vol.eye.shape == (3,)


def test_base_radii():
    assert base_radii(32) == pytest.approx((16 / 25.4, 16 / 25.4))
    assert base_radii([60, 35]) == pytest.approx((30 / 25.4, 17.5 / 25.4))
    for bad in (0, -5, [60], [60, 0], float("nan")):
        with pytest.raises(ValueError):
            base_radii(bad)


def test_cylinder_round():
    vol = cylinder_volume(32, 1.6)
    assert_volume(vol)
    r = 16 / 25.4
    np.testing.assert_allclose(vol.mesh.bounds, [[-r, -r, 0], [r, r, 1.6]], atol=1e-9)
    np.testing.assert_allclose(vol.eye, [0, 0, 1.44])
    assert vol.part_names == ("base", "body")
    assert part_vertices(vol, "base")[:, 2].max() == pytest.approx(BASE_THICKNESS)
    assert part_vertices(vol, "body")[:, 2].min() == pytest.approx(BASE_THICKNESS)
    assert vol.mesh.volume == pytest.approx(np.pi * r * r * 1.6, rel=0.01)


def test_cylinder_oval_extents_follow_facing():
    vol = cylinder_volume([60, 35], 2.0, eye=1.7)
    assert_volume(vol)
    ry, rx = 30 / 25.4, 17.5 / 25.4
    np.testing.assert_allclose(vol.mesh.bounds, [[-rx, -ry, 0], [rx, ry, 2.0]], atol=1e-9)
    assert vol.eye[2] == 1.7


def test_humanoid_parts_and_eye():
    vol = humanoid_volume(32, 1.6)
    assert_volume(vol)
    assert set(vol.part_names) == {"base", "legs", "torso", "arms", "head", "weapon"}
    for name in vol.part_names:
        assert len(vol.faces_of({name})) > 0
    assert vol.mesh.bounds[1][2] == pytest.approx(1.6)
    assert vol.mesh.bounds[0][2] == 0
    # the weapon is held forward, in front of the torso
    weapon, torso = part_vertices(vol, "weapon"), part_vertices(vol, "torso")
    assert weapon[:, 1].max() > torso[:, 1].max() + 0.3
    # the eye is inside the head, near its front surface, at the default height
    head = part_vertices(vol, "head")
    centre = 0.5 * (head.min(axis=0) + head.max(axis=0))
    radius = 0.5 * (head[:, 2].max() - head[:, 2].min())
    assert vol.eye[2] == pytest.approx(0.92 * 1.6)
    assert np.linalg.norm(vol.eye - centre) < radius
    assert vol.eye[1] > centre[1] + 0.5 * radius
    # a ray from the eye straight ahead leaves the volume within a few hundredths of an inch
    loc, _, _ = as_trimesh(vol.mesh).ray.intersects_location([vol.eye], [[0, 1, 0]])
    assert len(loc) and np.min(np.linalg.norm(loc - vol.eye, axis=1)) < 0.05


def test_humanoid_banner_oval_base_and_scale():
    vol = humanoid_volume([60, 35], 3.0, banner=True)
    assert_volume(vol)
    assert "banner" in vol.part_names
    banner = part_vertices(vol, "banner")
    assert banner[:, 1].max() < 0 and banner[:, 2].max() > 3.0  # behind, above the head
    base = part_vertices(vol, "base")
    np.testing.assert_allclose(base.max(axis=0)[:2], [17.5 / 25.4, 30 / 25.4], atol=1e-9)
    body = vol.mesh.vertices[np.unique(vol.mesh.faces[vol.faces_of({"head"})])]
    assert body[:, 2].max() == pytest.approx(3.0)
    small = humanoid_volume(25, 1.2)
    assert small.mesh.bounds[1][2] == pytest.approx(1.2)


def test_part_labels():
    assert part_label("Left_Wing.001") == "wing"
    assert part_label("weapon_bolter") == "weapon"
    assert part_label("BaseRim") == "base"
    assert part_label("left_leg") == "legs"
    assert part_label("Helmet") == "head"
    assert part_label("Rivets") == "body"


def test_mesh_volume_from_marine_asset():
    vol = mesh_volume(MARINE, 32, height=1.6)
    assert_volume(vol)
    assert set(vol.part_names) == {"base", "legs", "torso", "arms", "head", "weapon", "banner"}
    # the file faces glTF +Z; the volume faces +y like the humanoid it was made from
    weapon = part_vertices(vol, "weapon")
    assert weapon[:, 1].mean() > 0.2
    assert part_vertices(vol, "head")[:, 2].max() == pytest.approx(1.6)
    assert vol.mesh.bounds[0][2] == pytest.approx(0, abs=1e-9)
    head = part_vertices(vol, "head")
    assert head[:, 2].min() < vol.eye[2] < head[:, 2].max()
    assert vol.eye[1] > 0
    bigger = mesh_volume(MARINE, 32, height=3.2)
    assert part_vertices(bigger, "head")[:, 2].max() == pytest.approx(3.2)


def test_mesh_volume_adds_a_base_when_missing(tmp_path):
    figure = trimesh.creation.box(extents=(0.5, 0.4, 2.0))
    figure.apply_translation((3, 3, 5))  # anywhere in the file
    path = tmp_path / "figure.glb"
    export_glb([("Body", figure)], path)
    vol = mesh_volume(path, [60, 35], height=1.5)
    assert_volume(vol)
    assert set(vol.part_names) == {"body", "base"}
    np.testing.assert_allclose(vol.mesh.bounds[:, 2], [0, 1.5], atol=1e-9)
    body = part_vertices(vol, "body")
    assert body[:, 2].min() == pytest.approx(BASE_THICKNESS)
    np.testing.assert_allclose(0.5 * (body.min(axis=0) + body.max(axis=0))[:2], [0, 0], atol=1e-9)
    base = part_vertices(vol, "base")
    np.testing.assert_allclose(base.max(axis=0)[:2], [17.5 / 25.4, 30 / 25.4], atol=1e-9)
    np.testing.assert_allclose(vol.eye, [0, 0, 0.9 * 1.5])


def test_volume_rejects_bad_sizes():
    with pytest.raises(ValueError):
        cylinder_volume(32, 0)
    with pytest.raises(ValueError):
        humanoid_volume(32, 0.2)
    with pytest.raises(ValueError):
        cylinder_volume(32, 1.6, eye=-1)
