"""A grid segment's answer does not depend on the end it is cast from: `analyze` (the forked
every-pair method at grids of 1" and coarser) and `analyze --exact` cast some segments from
opposite ends, and on a grid whose segments run exactly through the edges of walls and windows
the ray engine's rounding could answer the two casts differently."""

import numpy as np
import pytest
from battlesight.geometry.sightgrid.caster import CLEAR, GridCaster
from battlesight.geometry.sightgrid.viewshed import pair_sight, standing_grid
from battlesight.scenes.loader import load_scene

from battlesight import example
from battlesight.analysis.analyze import terrain_world
from battlesight.analysis.standard import standard_model


@pytest.fixture(scope="module")
def city():
    scene = load_scene(example("wh40k6_city_ruins"))
    world = terrain_world(scene)
    model = standard_model(scene.ruleset)
    return world, standing_grid(world, 2.0, heights=(0.05, model.eye)), model.sight_test()


def test_codes_are_the_same_from_either_end(city):
    world, grid, test = city
    caster = GridCaster(world, grid.foot, test)
    cells = np.flatnonzero(grid.standable)
    a, b = np.repeat(cells, len(cells)), np.tile(cells, len(cells))
    keep = a < b
    a, b = a[keep], b[keep]
    (h0, h1), (h2, h3) = test.pairs
    for hs, ht in ((h0, h1), (h2, h3)):
        for classify in (True, False):
            there = caster.codes(a, hs, b, ht, classify=classify)
            back = caster.codes(b, ht, a, hs, classify=classify)
            assert np.array_equal(there, back)
            assert (there == CLEAR).any() and (there != CLEAR).any()


def test_sight_does_not_depend_on_the_order_of_the_cells(city):
    world, grid, test = city
    cells = np.flatnonzero(grid.standable)
    forward = pair_sight(world, grid.foot, cells, cells, test)
    order = cells[::-1]
    backward = pair_sight(world, grid.foot, order, order, test)
    assert np.array_equal(forward.sees, backward.sees[::-1, ::-1])
    assert np.array_equal(forward.seen, backward.seen[::-1, ::-1])


def test_every_pair_analysis_equals_exact_at_two_inches():
    # the default at 2" (every pair, forked) and --exact (one process) cast some segments from
    # opposite ends: same fields, same figures
    from battlesight.analysis.analyze import analyze_scene

    scene = load_scene(example("wh40k6_city_ruins"))
    default = analyze_scene(scene, 2.0, workers=2)
    exact = analyze_scene(scene, 2.0, exact=True)
    assert default.figures["method"] == "every pair"
    for name, field in exact.fields.items():
        assert np.array_equal(default.fields[name], field, equal_nan=True), name
    skip = {"method", "seconds", "cpu_seconds", "segments"}
    assert {k: v for k, v in default.figures.items() if k not in skip} == \
        {k: v for k, v in exact.figures.items() if k not in skip}
