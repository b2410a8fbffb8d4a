"""The two-pass sight sample (geometry/visibility.py): a short first pass settles the queries
whose samples are all hidden, the rest continue the same sequence to the full count. It must
stay within the 0.02 error bound of the visible share against the full sample on every pair of
a generated table, and cast far fewer rays."""

from __future__ import annotations

import numpy as np
import pytest
from battlesight.geometry import visibility as vis
from battlesight.scenes.build import build_world
from battlesight.scenes.generate import generate_table


@pytest.fixture(scope="module")
def both():
    world = build_world(generate_table(1, models=36))
    ids = list(world.models)
    queries = [vis.SightQuery(a, b) for a in ids for b in ids if a != b]
    fast = vis.visibility_many(world, queries)
    full_pass = vis.FIRST_PASS_SAMPLES
    try:
        vis.FIRST_PASS_SAMPLES = 10**9  # one pass: the full sample of every query
        full = vis.visibility_many(world, queries)
    finally:
        vis.FIRST_PASS_SAMPLES = full_pass
    return fast, full


def test_fast_path_within_the_error_bound_of_the_full_sample(both):
    fast, full = both
    a = np.array([v.visible_fraction for v in full])
    b = np.array([v.visible_fraction for v in fast])
    assert len(a) == 36 * 35
    # the table has every kind of pair: fully seen, fully hidden and partly hidden
    assert (a == 1).any() and (a == 0).any() and ((a > 0.1) & (a < 0.9)).any()
    assert np.abs(a - b).max() <= 0.02
    # a verdict only changes where the full sample itself sees under 2% of the target
    flipped = (a > 0) != (b > 0)
    assert (a[flipped] <= 0.02).all()


def test_fast_path_casts_fewer_rays_and_keeps_the_samples(both):
    fast, full = both
    assert sum(v.rays for v in fast) < 0.6 * sum(v.rays for v in full)
    for f, g in zip(fast, full, strict=True):
        assert (f.observer, f.target) == (g.observer, g.target)
        # the samples are the points the shares are counted over
        assert len(f.points) == len(f.blocker_of) == len(f.area_of) > 0
        assert f.visible_fraction == pytest.approx(np.mean(f.blocker_of < 0))
        if f.visible_fraction > 0:
            # what the first pass cannot settle gets (about) the full sample
            assert len(f.points) >= 0.8 * len(g.points)
