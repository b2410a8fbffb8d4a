"""The ray back-ends behind `geometry.ray.RayScene`: embreex, open3d's RaycastingScene (where
embreex has no wheel) and the forced choice by `BATTLESIGHT_RAYS`."""

import numpy as np
import pytest
from battlesight.geometry import ray, terrain


def _boxes_and_segments(n: int = 3000):
    meshes = [terrain.box((0, 0), (2, 2, 2)).solid, terrain.box((10, 0), (2, 2, 3)).solid]
    rng = np.random.default_rng(7)
    starts = rng.uniform(-8, 18, (n, 3))
    ends = rng.uniform(-8, 18, (n, 3))
    starts[:, 2], ends[:, 2] = rng.uniform(0, 3, n), rng.uniform(0, 3, n)
    return meshes, starts, ends


def test_open3d_gives_embreex_answers_ray_for_ray():
    """Both Embree back-ends: the same blocked rays, the same first mesh hit, the same distance
    to float32 precision."""
    pytest.importorskip("embreex")
    pytest.importorskip("open3d")
    meshes, starts, ends = _boxes_and_segments()
    directions, lengths = ray.segments(starts, ends)
    answers = {}
    for name in ("embreex", "open3d"):
        scene = ray.RayScene(meshes, name)
        answers[name] = (scene.occluded(starts, directions, lengths),
                         *scene.first_hit(starts, directions, lengths))
    (occ_a, dist_a, geom_a), (occ_b, dist_b, geom_b) = answers["embreex"], answers["open3d"]
    assert 0.05 < occ_a.mean() < 0.95  # the case has both answers
    assert np.array_equal(occ_a, occ_b) and np.array_equal(geom_a, geom_b)
    hit = geom_a >= 0
    assert np.array_equal(np.isinf(dist_a), ~hit)
    assert np.allclose(dist_a[hit], dist_b[hit], atol=1e-4)


def test_the_environment_forces_a_back_end(monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_RAYS", ray.available_engines()[0])
    assert ray.engine() == ray.available_engines()[0]
    monkeypatch.setenv("BATTLESIGHT_RAYS", "optix")
    with pytest.raises(RuntimeError, match="embreex, open3d, trimesh"):
        ray.engine()
    monkeypatch.delenv("BATTLESIGHT_RAYS")
    assert ray.engine() == ray.available_engines()[0]


def test_the_bench_has_a_row_per_installed_back_end():
    from battlesight.scenes.build import build_world
    from battlesight.scenes.generate import generate_table

    from battlesight.bench.rays import los_segments, segment_throughput

    world = build_world(generate_table(1, pieces=6, models=6))
    starts, ends = los_segments(world, 2000, np.random.default_rng(1))
    row = segment_throughput(world, starts, ends)
    installed = {n for n in ray.available_engines() if n != "trimesh"}
    assert set(row["engines"]) == installed
    assert all(r["agreement"] == 1.0 and r["rays_per_s"] > 0 for r in row["engines"].values())
