"""Visible fractions against answers computed independently of the ray engine.

The reference integrates over the same projected area the engine samples (the plane across the
line from the eye to the centre of the target's bounds) on a dense grid, intersecting each ray
with the cylinder and the wall in closed form with numpy.

Every test runs on each installed Embree back-end (embreex, and open3d's RaycastingScene, which
serves where embreex has no wheel): `BATTLESIGHT_RAYS` forces the one each run uses.
"""

import os

import numpy as np
import pytest
from battlesight.geometry import ray
from battlesight.geometry.visibility import visibility
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import cylinder_world, wall_geometry

#: the Embree back-ends this run can use; CI installs both (open3d-cpu in the test extra)
BACKENDS = [name for name in ray.available_engines() if name in ("embreex", "open3d")]


@pytest.fixture(autouse=True, scope="module", params=BACKENDS)
def ray_backend(request):
    """Every test of the module once per back-end: new ray scenes use the one forced here."""
    if request.param == "open3d":
        pytest.importorskip("open3d", reason="open3d is installed but does not load here")
    before = os.environ.get("BATTLESIGHT_RAYS")
    os.environ["BATTLESIGHT_RAYS"] = request.param
    yield request.param
    if before is None:
        del os.environ["BATTLESIGHT_RAYS"]
    else:
        os.environ["BATTLESIGHT_RAYS"] = before


def test_the_forced_back_end_casts_the_rays(ray_backend):
    """The worlds of these tests really use the back-end forced for the run."""
    scene = ray.RayScene([wall_geometry(5.0, 1.0, THICKNESS).solid])
    assert scene.engine == ray_backend
    assert type(scene._backend).__name__ == {"embreex": "_EmbreeBackend",
                                             "open3d": "_Open3DBackend"}[ray_backend]


RADIUS, HEIGHT, EYE = 0.63, 1.6, 1.44
THICKNESS = 0.2


def reference_fraction(eye, target_x, wall_x, wall_h, wall_half_width=20.0, n=900):
    """Visible share of an upright cylinder (axis at (target_x, 0), radius RADIUS, z in
    [0, HEIGHT]) seen from eye behind a wall x in wall_x +- THICKNESS/2, z < wall_h."""
    eye = np.asarray(eye, float)
    centre = np.array([target_x, 0.0, HEIGHT / 2])
    forward = (centre - eye) / np.linalg.norm(centre - eye)
    right = np.cross(forward, [0, 0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    u = np.linspace(-0.3, 0.3, n)
    uu, vv = np.meshgrid(u, u)
    dirs = forward + uu[..., None] * right + vv[..., None] * up
    dirs = dirs.reshape(-1, 3)
    # ray / infinite cylinder x^2 + y^2 = r^2 about the target axis
    ox, oy = eye[0] - target_x, eye[1]
    a = dirs[:, 0] ** 2 + dirs[:, 1] ** 2
    b = 2 * (ox * dirs[:, 0] + oy * dirs[:, 1])
    c = ox**2 + oy**2 - RADIUS**2
    disc = b * b - 4 * a * c
    t_side = np.where(disc >= 0, (-b - np.sqrt(np.maximum(disc, 0))) / (2 * a), np.inf)
    z_side = eye[2] + t_side * dirs[:, 2]
    side_hit = (disc >= 0) & (z_side >= 0) & (z_side <= HEIGHT)
    # top cap (eye above the top) and the rays that enter through it
    with np.errstate(divide="ignore", invalid="ignore"):
        t_top = (HEIGHT - eye[2]) / dirs[:, 2]
    px, py = ox + t_top * dirs[:, 0], oy + t_top * dirs[:, 1]
    top_hit = (t_top > 0) & (px**2 + py**2 <= RADIUS**2) & (eye[2] > HEIGHT)
    t = np.where(top_hit & (~side_hit | (t_top < t_side)), t_top, t_side)
    on_target = side_hit | top_hit
    # the wall: blocked if the ray is below wall_h anywhere within its thickness
    hidden = np.zeros(len(dirs), bool)
    for x_face in (wall_x - THICKNESS / 2, wall_x + THICKNESS / 2):
        t_face = (x_face - eye[0]) / dirs[:, 0]
        z = eye[2] + t_face * dirs[:, 2]
        y = eye[1] + t_face * dirs[:, 1]
        hidden |= (t_face > 0) & (t_face < t) & (z < wall_h) & (np.abs(y) < wall_half_width)
    return float((on_target & ~hidden).sum() / on_target.sum())


@pytest.mark.parametrize("wall_h", [0.4, 0.8, 1.2, 1.5, 1.8])
@pytest.mark.parametrize("target_x", [6.0, 12.0, 24.0])
def test_wall_between_eye_and_cylinder(wall_h, target_x):
    wall_x = target_x / 2
    world = cylinder_world([(0.0, 0.0), (target_x, 0.0)], RADIUS, HEIGHT, EYE)
    world.add_terrain("wall", "wall", wall_geometry(wall_x, wall_h, THICKNESS))
    seen = visibility(world, "m0", "m1")
    expected = reference_fraction([0, 0, EYE], target_x, wall_x, wall_h)
    assert seen.visible_fraction == pytest.approx(expected, abs=0.02)
    if expected < 1:
        assert set(seen.blockers) == {"wall"}
        assert seen.blockers["wall"] == pytest.approx(1 - seen.visible_fraction)


@pytest.mark.parametrize("wall_x", [2.0, 5.0, 8.0])
def test_wall_position_sweep_from_high_eye(wall_x):
    world = cylinder_world([(0.0, 0.0), (10.0, 0.0)], RADIUS, HEIGHT, EYE)
    world.move_model("m0", (0.0, 0.0), z=2.0)  # observer on a 2" step: sees the target's top
    world.add_terrain("wall", "wall", wall_geometry(wall_x, 2.2, THICKNESS))
    seen = visibility(world, "m0", "m1")
    expected = reference_fraction([0, 0, 2.0 + EYE], 10.0, wall_x, 2.2)
    assert seen.visible_fraction == pytest.approx(expected, abs=0.02)


def test_wall_moved_off_the_line_hides_nothing():
    world = cylinder_world([(0.0, 0.0), (12.0, 0.0)], RADIUS, HEIGHT, EYE)
    world.add_terrain("wall", "wall", wall_geometry(6.0, 5.0, THICKNESS, centre_y=5.0, width=4))
    seen = visibility(world, "m0", "m1")
    assert seen.visible_fraction == 1.0
    assert seen.blockers == {}


def test_tall_box_hides_half_the_target_sideways():
    """A tall box whose face lies in the vertical plane through the eye and the target's axis
    hides exactly the half of the silhouette on its side."""
    import trimesh
    from battlesight.geometry.types import TerrainGeometry

    world = cylinder_world([(0.0, 0.0), (12.0, 0.0)], RADIUS, HEIGHT, EYE)
    block = trimesh.creation.box([2.0, 3.0, 6.0])
    block.apply_translation([6.0, -1.5, 3.0])  # y in [-3, 0]: face on the plane y = 0
    world.add_terrain("block", "box", TerrainGeometry(block))
    seen = visibility(world, "m0", "m1")
    assert seen.visible_fraction == pytest.approx(0.5, abs=0.02)
    assert seen.blockers["block"] == pytest.approx(0.5, abs=0.02)


def test_target_never_blocks_itself_and_observer_never_blocks_its_own_sight():
    world = cylinder_world([(0.0, 0.0), (3.0, 0.0)], RADIUS, HEIGHT, EYE)
    seen = visibility(world, "m0", "m1")
    assert seen.visible_fraction == 1.0
    assert seen.rays > seen.samples >= 400


def test_intervening_model_is_named_as_blocker():
    world = cylinder_world([(0.0, 0.0), (10.0, 0.0), (5.0, 0.7)], RADIUS, HEIGHT, EYE)
    seen = visibility(world, "m0", "m1")
    assert 0 < seen.visible_fraction < 1
    assert list(seen.blockers) == ["m2"]
    ignored = visibility(world, "m0", "m1", skip=("m2",))
    assert ignored.visible_fraction == 1.0


@settings(max_examples=25, deadline=None)
@given(
    low=st.floats(0.1, 2.5),
    grow=st.floats(0.0, 1.5),
    wall_x=st.floats(2.0, 10.0),
)
def test_fraction_never_rises_as_a_wall_grows(low, grow, wall_x):
    fractions = []
    for height in (low, low + grow):
        world = cylinder_world([(0.0, 0.0), (12.0, 0.0)], RADIUS, HEIGHT, EYE)
        world.add_terrain("wall", "wall", wall_geometry(wall_x, height, THICKNESS))
        fractions.append(visibility(world, "m0", "m1").visible_fraction)
    assert fractions[1] <= fractions[0]


@settings(max_examples=25, deadline=None)
@given(
    width=st.floats(0.2, 3.0),
    shrink=st.floats(0.0, 1.0),
    offset=st.floats(-1.0, 1.0),
)
def test_narrower_blocker_never_lowers_the_fraction(width, shrink, offset):
    fractions = []
    for w in (width, width * (1 - shrink)):
        world = cylinder_world([(0.0, 0.0), (12.0, 0.0)], RADIUS, HEIGHT, EYE)
        world.add_terrain(
            "post", "wall", wall_geometry(6.0, 3.0, THICKNESS, centre_y=offset, width=w)
        )
        fractions.append(visibility(world, "m0", "m1").visible_fraction)
    assert fractions[1] >= fractions[0]


def test_sample_count_grows_with_the_targets_angular_size():
    near = visibility(cylinder_world([(0.0, 0.0), (1.5, 0.0)], RADIUS, HEIGHT, EYE), "m0", "m1")
    far = visibility(cylinder_world([(0.0, 0.0), (30.0, 0.0)], RADIUS, HEIGHT, EYE), "m0", "m1")
    assert 400 <= far.samples < 480
    assert near.samples > 2 * far.samples
