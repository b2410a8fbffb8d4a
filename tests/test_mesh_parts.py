"""Labelled parts of mesh files: the wall tops of a roofless building are no storey, and a mesh
base part the scene base disagrees with is warned."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.helpers import run_cli


def _roofless(upper_floor: bool):
    """A roofless 150 x 100 mm building, 4 mm walls 60 mm high on a 3 mm slab, in inches;
    with upper_floor, a slab across it at 30 mm."""
    import trimesh

    def box(lo, hi):
        return trimesh.creation.box(bounds=[lo, hi])

    w, d, t, h = 150.0, 100.0, 4.0, 60.0
    parts = [box((0, 0, 0), (w, d, 3)), box((0, 0, 3), (t, d, h)), box((w - t, 0, 3), (w, d, h)),
             box((t, 0, 3), (w - t, t, h)), box((t, d - t, 3), (w - t, d, h))]
    if upper_floor:
        parts.append(box((t, t, 27), (w - t, d - t, 30)))
    mesh = trimesh.util.concatenate(parts)
    mesh.apply_scale(1 / 25.4)
    return mesh


def test_wall_tops_of_a_roofless_building_are_no_storey():
    from battlesight.geometry.floors import find_floors, has_room

    plain = _roofless(False)
    assert find_floors(plain.vertices, plain.faces) == ()  # the slab only: stood on as a hill
    storeyed = _roofless(True)
    np.testing.assert_allclose(find_floors(storeyed.vertices, storeyed.faces),
                               [3 / 25.4, 30 / 25.4], atol=1e-6)
    # the room test itself: a 25 mm base fits on a 26 mm square, not on a 24 mm one
    square = np.array([[[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 1], [0, 1]]], float)
    assert has_room(square * 26 / 25.4) and not has_room(square * 24 / 25.4)


def _obj_with_parts(path: Path, base_mm: float) -> None:
    """An OBJ figure in mm, z up, with a group named base (a disc base_mm wide) and a body."""
    import trimesh

    disc = trimesh.creation.cylinder(radius=base_mm / 2, height=3.0, sections=32)
    disc.apply_translation((0, 0, 1.5))
    body = trimesh.creation.box(extents=(10.0, 8.0, 25.0))
    body.apply_translation((0, 0, 15.5))
    lines, offset = [], 0
    for name, part in (("base", disc), ("body", body)):
        lines.append(f"g {name}")
        lines += [f"v {x:.5f} {y:.5f} {z:.5f}" for x, y, z in part.vertices]
        lines += ["f " + " ".join(str(offset + i + 1) for i in face) for face in part.faces]
        offset += len(part.vertices)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


MESH_BASE_SCENE = """\
format: 1
ruleset: wh40k6
table: [48, 48]
models:
  - id: hero
    player: 1
    at: [10, 10]
    shape: hero.obj
    units: mm
{base}  - {{id: foe, player: 2, at: [40, 40]}}
"""


@pytest.mark.parametrize("base, warned", [("    base: 60\n", True), ("    base: 32\n", False),
                                          ("", False)])
def test_a_mesh_base_part_the_scene_base_disagrees_with_is_warned(tmp_path, base,
                                                                  warned):
    _obj_with_parts(tmp_path / "hero.obj", 32.0)
    path = tmp_path / "s.yaml"
    path.write_text(MESH_BASE_SCENE.format(base=base), encoding="utf-8")
    code, _, err = run_cli("validate", str(path))
    assert code == 0, err
    lines = [x for x in err.splitlines() if "warning:" in x]
    if not warned:
        assert not lines, err
        return
    assert len(lines) == 1 and lines[0].startswith(
        f"{path}:10: models[hero].base: warning: its mesh has its own base part of 32 mm, "
        "not 60 mm"), err
    assert "give base: 32" in lines[0]
