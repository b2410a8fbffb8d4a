"""The world: standing heights, floors, windows, and rebuilding only what moved."""

import numpy as np
import pytest
from battlesight.geometry import ruins, terrain
from battlesight.geometry.visibility import visibility
from battlesight.geometry.world import World

from tests.helpers import cylinder_volume, cylinder_world

VOLUME = cylinder_volume(0.63, 1.6, 1.44)


def ruin_world(windows: bool, walls=("south",), floors=(3.0,), height=4.0) -> World:
    world = World((72.0, 48.0))
    world.add_terrain(
        "ruin", "ruin",
        ruins.ruin((20.0, 20.0), (8.0, 6.0), height, floors=floors, walls=walls,
                   windows=windows),
    )
    return world


def test_models_stand_on_hills_boxes_and_the_table():
    world = World((72.0, 48.0))
    world.add_terrain("hill", "hill", terrain.hill((10.0, 10.0), (8.0, 6.0), 2.0))
    world.add_terrain("crate", "box", terrain.box((30.0, 10.0), (3.0, 3.0, 1.5)))
    assert world.add_model("on-hill", VOLUME, (10.0, 10.0)).position[2] == pytest.approx(2.0)
    assert world.add_model("on-box", VOLUME, (30.0, 10.0)).position[2] == pytest.approx(1.5)
    assert world.add_model("table", VOLUME, (50.0, 10.0)).position[2] == 0.0
    assert world.models["on-hill"].eye[2] == pytest.approx(3.44)


def test_ruin_floors_set_the_height_and_missing_floors_are_refused():
    world = ruin_world(windows=False, floors=(3.0, 6.0), height=8.0)
    ground = world.add_model("g", VOLUME, (20.0, 21.0))
    upper = world.add_model("u", VOLUME, (21.0, 21.0), floor=1)
    top = world.add_model("t", VOLUME, (19.0, 21.0), floor=2)
    assert ground.position[2] == pytest.approx(world.terrain["ruin"].floors[0])
    assert upper.position[2] == pytest.approx(3.0)
    assert top.position[2] == pytest.approx(6.0)
    with pytest.raises(ValueError, match="no floor 3"):
        world.add_model("x", VOLUME, (20.0, 19.0), floor=3)
    with pytest.raises(ValueError, match="no ruin"):
        world.add_model("y", VOLUME, (60.0, 40.0), floor=1)


def test_upper_floor_sees_over_the_parapet_that_hides_the_target_from_the_ground():
    world = ruin_world(windows=False)
    world.add_model("ground", VOLUME, (20.0, 18.0))  # ruin spans y 17..23; south wall at 17
    world.add_model("upper", VOLUME, (21.0, 18.0), floor=1)  # eye 4.44 over a 4" parapet
    world.add_model("target", VOLUME, (20.5, 9.0))
    from_ground = visibility(world, "ground", "target")
    from_upper = visibility(world, "upper", "target")
    assert from_ground.visible_fraction == 0.0
    assert list(from_ground.blockers) == ["ruin"]
    # similar triangles: only the lowest ~0.5" (30-35%) stays under the parapet line
    assert 0.6 < from_upper.visible_fraction < 0.75


def test_sight_passes_through_a_window_and_not_through_a_solid_wall():
    fractions = {}
    for windows in (True, False):
        world = ruin_world(windows=windows, height=6.0)
        world.add_model("inside", VOLUME, (20.0, 22.0))  # 5" behind the middle window
        world.add_model("outside", VOLUME, (20.0, 12.0))  # its sill hides the lowest part
        fractions[windows] = visibility(world, "inside", "outside").visible_fraction
    assert fractions[False] == 0.0
    assert 0.2 < fractions[True] < 1.0


def test_moving_a_model_rebuilds_only_the_model_scene():
    world = cylinder_world([(0.0, 0.0), (10.0, 0.0)], 0.63, 1.6, 1.44)
    world.add_terrain("wall", "wall", terrain.wall((5.0, -3.0), (5.0, 3.0), 3.0))
    before = visibility(world, "m0", "m1")
    solid, builds = world.solid_scene, world.terrain_builds
    world.move_model("m1", (10.0, 10.0))
    after = visibility(world, "m0", "m1")
    assert world.solid_scene is solid and world.terrain_builds == builds
    assert before.visible_fraction == 0.0 and after.visible_fraction == 1.0


def test_blocked_segments_agree_with_first_blockers():
    world = cylinder_world([(0.0, 0.0), (10.0, 0.0)], 0.63, 1.6, 1.44)
    world.add_terrain("wall", "wall", terrain.wall((5.0, -3.0), (5.0, 3.0), 1.0))
    rng = np.random.default_rng(3)
    starts = np.column_stack([rng.uniform(-2, 2, 500), rng.uniform(-4, 4, 500),
                              rng.uniform(0.1, 3, 500)])
    ends = starts + rng.normal(size=(500, 3)) * 6
    blocked = world.blocked(starts, ends)
    directions = (ends - starts) / np.linalg.norm(ends - starts, axis=1, keepdims=True)
    first, _ = world.first_blockers(starts, directions, np.linalg.norm(ends - starts, axis=1))
    assert 0 < blocked.mean() < 1
    assert np.array_equal(blocked, first >= 0)


def test_forest_canopy_is_reported_not_blocking():
    world = cylinder_world([(0.0, 0.0), (12.0, 0.0)], 0.63, 1.6, 1.44)
    square = [(5.0, -2.0), (7.0, -2.0), (7.0, 2.0), (5.0, 2.0)]
    world.add_terrain("wood", "forest", terrain.forest(square, 5.0, trunks=[(6.0, 1.8)]))
    seen = visibility(world, "m0", "m1")
    assert seen.visible_fraction == 1.0
    assert seen.through["wood"] == pytest.approx(1.0)


def test_humanoid_observer_never_blocks_its_own_sight():
    """The eye is inside the head: rays start where they leave the observer's own volume, and
    re-entering it (a ray down past its own torso or weapon) never counts as blocked."""
    from battlesight.geometry import volumes

    world = World((72.0, 48.0))
    world.add_model("looker", volumes.humanoid_volume(32, 1.6), (10.0, 10.0), facing=0.0)
    world.add_model("close", VOLUME, (10.0, 11.6))  # almost in base contact, straight ahead
    world.add_model("behind", VOLUME, (10.0, 5.0))  # behind: seen past its own head
    for target in ("close", "behind"):
        assert visibility(world, "looker", target).visible_fraction == 1.0


def test_points_to_target_answers_each_sight_point():
    from battlesight.geometry.visibility import points_to_target

    world = cylinder_world([(0.0, 0.0), (12.0, 0.0)], 0.63, 1.6, 1.44)
    world.add_terrain("wall", "wall", terrain.wall((6.0, -3.0), (6.0, 3.0), 2.0))
    points = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.44], [0.0, 0.0, 3.5], [0.0, 0.0, 6.0]])
    results = points_to_target(world, points, "m1", observer="m0")
    fractions = [r.visible_fraction for r in results]
    assert fractions[0] == 0.0
    assert fractions == sorted(fractions) and fractions[-1] > 0.9
    assert all(np.allclose(r.eye, p) for r, p in zip(results, points, strict=True))


def test_thousands_of_ray_scenes_alive_at_once_share_one_embree_device():
    """Each Embree scene used to get a device of its own; about a thousand live devices crash
    the process (segfault), which a long `play` or a big batch reaches. Run apart, so a crash
    fails this test instead of the whole suite."""
    import subprocess
    import sys

    code = ("import numpy as np, trimesh; from battlesight.geometry.ray import RayScene; "
            "box = trimesh.creation.box(); keep = [RayScene([box]) for _ in range(2500)]; "
            "print(bool(keep[-1].occluded(np.array([[0, 0, 5.0]]), np.array([[0, 0, -1.0]]), "
            "np.array([10.0]))[0]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "True"
