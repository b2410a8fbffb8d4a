"""Many models' rays in few engine calls (`placed.first_hits_at`: one call per shared volume
scene, each ray moved into its own model's frame) hit what each model's own scene hits."""

from __future__ import annotations

import numpy as np
from battlesight.geometry.placed import first_hits_at

import battlesight
from tests.helpers import EXAMPLES


def test_rays_at_many_models_hit_as_at_each_model_alone():
    world = battlesight.load(EXAMPLES / "demo.yaml").world
    models = list(world.models.values())
    assert len({id(m.volume) for m in models}) > 1 and len({m.facing for m in models}) > 1
    rng = np.random.default_rng(3)
    scenes, counts, origins, directions = [], [], [], []
    for k, model in enumerate(models):
        body = frozenset(n for n in model.volume.part_names if n != "base") or None
        for parts in (None, body):
            n = 40 + k
            eye = model.position + np.array([6.0, -5.0, 2.0])
            corners = model.part_vertices(parts)
            d = corners[rng.integers(0, len(corners), n)] + rng.normal(0.0, 0.3, (n, 3)) - eye
            scenes.append(model.part_scene(parts))
            counts.append(n)
            origins.append(np.repeat(eye[None], n, axis=0))
            directions.append(d / np.linalg.norm(d, axis=1, keepdims=True))
    origins, directions = np.concatenate(origins), np.concatenate(directions)
    dist, geom = first_hits_at(scenes, np.array(counts), origins, directions)
    assert 0 < (geom >= 0).mean() < 1  # some rays meet their model, some pass by
    at = np.concatenate([[0], np.cumsum(counts)])
    for k, scene in enumerate(scenes):
        alone_d, alone_g = scene.first_hit(origins[at[k]:at[k + 1]], directions[at[k]:at[k + 1]])
        np.testing.assert_array_equal(geom[at[k]:at[k + 1]], alone_g)
        np.testing.assert_allclose(dist[at[k]:at[k + 1]], alone_d, rtol=1e-6, atol=1e-6)
    empty = first_hits_at(scenes[:1], np.array([0]), np.zeros((0, 3)), np.zeros((0, 3)))
    assert len(empty[0]) == len(empty[1]) == 0
