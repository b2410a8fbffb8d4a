"""The refined (adaptive) layout analysis against the exhaustive one (`analyze --exact`)."""

import json
from dataclasses import replace

import numpy as np
import pytest
from battlesight.geometry.sightgrid import refine
from battlesight.geometry.sightgrid.forked import exhaustive_pair_sight
from battlesight.geometry.sightgrid.refine import (
    default_stride,
    field_difference,
    refined_pair_sight,
)
from battlesight.geometry.sightgrid.shared_sight import SharedSight
from battlesight.geometry.sightgrid.viewshed import pair_sight, standing_grid
from battlesight.scenes import scene_from_dict

from battlesight.analysis import analyze_scene, generate_layout, standard_model
from battlesight.analysis.analyze import terrain_world
from battlesight.bench.analysis import analysis_row, batch_row, format_layout_bench
from battlesight.cli.main import main

# three generated layouts of different systems: ruins with windows, forests with canopies that
# block (wmh2), hills, walls, meshes
LAYOUTS = [("wh40k6", 1), ("wmh2", 1), ("aos2", 2)]


def _refined_and_exact(tmp_path, capsys, scene, grid: str):
    """((field, figures) of the default analysis, the same of --exact) of scene at grid."""
    runs = {}
    for method in ("refined", "exact"):
        out = tmp_path / f"{method}.npy"
        extra = ["--exact"] if method == "exact" else []
        assert main(["analyze", str(scene), "--grid", grid, "--json", "--save-field", str(out),
                     *extra]) == 0
        runs[method] = (np.load(out), json.loads(capsys.readouterr().out))
    return runs["refined"], runs["exact"]


@pytest.mark.parametrize("ruleset, seed", LAYOUTS)
def test_saved_field_and_figures_match_exact_on_three_layouts(ruleset, seed, tmp_path, capsys,
                                                             monkeypatch):
    # a 2" lattice over a 1" grid: the refinement of a 0.5" analysis, at a quarter of the cells
    monkeypatch.setattr(refine, "COARSE_INCHES", 2.0)
    monkeypatch.setattr(refine, "MIN_SURE", 0.0)  # refine whatever the sample says
    scene = tmp_path / "layout.yaml"
    assert main(["generate", "--ruleset", ruleset, "--seed", str(seed), "--out",
                 str(scene)]) == 0
    capsys.readouterr()
    (field, fast), (reference, exact) = _refined_and_exact(tmp_path, capsys, scene, "1")
    diff = field_difference(field, reference)
    assert diff["mean_abs"] <= 0.004 and diff["share_over"] <= 0.005, diff
    for key in ("exposure", "visible_share", "visible_any"):
        for p in exact[key]:
            assert fast[key][p] == pytest.approx(exact[key][p], abs=0.01), key
    for key in ("zone_to_zone_exposure", "fairness", "terrain_area", "blocking_area"):
        assert fast[key] == pytest.approx(exact[key], abs=0.01), key
    assert fast["longest_lane"] == pytest.approx(exact["longest_lane"], abs=2.0)
    assert [c["passed"] for c in fast["checks"]] == [c["passed"] for c in exact["checks"]]
    for a, b in zip(fast["fairness_by_area"], exact["fairness_by_area"], strict=True):
        assert a["difference"] == pytest.approx(b["difference"], abs=0.01)


def _small_zones(path):
    """The scene at path with two 12" x 4" deployment zones (a 0.5" field against --exact
    at the cost of a test)."""
    import yaml

    data = yaml.safe_load(path.read_text())
    w, h = data["table"]
    x0, x1 = w / 2 - 6, w / 2 + 6
    data["deployment"] = {1: [[x0, 0], [x1, 0], [x1, 4], [x0, 4]],
                          2: [[x0, h - 4], [x1, h - 4], [x1, h], [x0, h]]}
    path.write_text(yaml.safe_dump(data))


@pytest.mark.parametrize("ruleset, seed", LAYOUTS)
def test_saved_field_at_half_an_inch_matches_exact_on_three_layouts(ruleset, seed, tmp_path,
                                                                   capsys):
    # the default refinement of a 0.5" grid (its 1" lattice, windows checked) on every field
    scene = tmp_path / "layout.yaml"
    assert main(["generate", "--ruleset", ruleset, "--seed", str(seed), "--out",
                 str(scene)]) == 0
    _small_zones(scene)
    capsys.readouterr()
    (field, fast), (reference, exact) = _refined_and_exact(tmp_path, capsys, scene, "0.5")
    assert fast["method"] == "refined" and fast["segments"] < 0.8 * exact["segments"]
    diff = field_difference(field, reference)
    assert diff["mean_abs"] <= 0.004 and diff["share_over"] <= 0.005, diff
    for key in ("exposure", "visible_share", "visible_any"):
        for p in exact[key]:
            assert fast[key][p] == pytest.approx(exact[key][p], abs=0.01), key
    assert fast["zone_to_zone_exposure"] == pytest.approx(exact["zone_to_zone_exposure"],
                                                          abs=0.01)
    assert [c["passed"] for c in fast["checks"]] == [c["passed"] for c in exact["checks"]]


def test_every_field_of_the_api_matches_exact():
    scene = generate_layout("wh40k6", 3)
    world = terrain_world(scene)
    fast = analyze_scene(scene, 1.0, world=world, stride=2)
    exact = analyze_scene(scene, 1.0, world=world, exact=True)
    for name, values in exact.fields.items():
        diff = field_difference(fast.fields[name], values)
        assert diff["mean_abs"] <= 0.004 and diff["share_over"] <= 0.005, (name, diff)
    # at the default lattice a 1" grid shares nothing: every pair cast, split over processes
    split = analyze_scene(scene, 1.0, world=world)
    assert split.figures["segments"] == pytest.approx(exact.figures["segments"], rel=1e-4)
    for name, values in exact.fields.items():
        assert field_difference(split.fields[name], values)["mean_abs"] <= 1e-4
    # a 0.5" grid, refined on its default lattice by default, in small zones
    small = replace(scene, deployment={1: [[24, 0], [36, 0], [36, 4], [24, 4]],
                                       2: [[36, 44], [48, 44], [48, 48], [36, 48]]})
    fine = analyze_scene(small, 0.5, world=world)
    reference = analyze_scene(small, 0.5, world=world, exact=True)
    assert fine.figures["method"] == "refined"
    for name, values in reference.fields.items():
        diff = field_difference(fine.fields[name], values)
        assert diff["mean_abs"] <= 0.004 and diff["share_over"] <= 0.005, (name, diff)


def _grid_case(terrain, cell=1.0):
    scene = scene_from_dict({"format": 1, "name": "t", "ruleset": "wh40k6", "table": [36, 24],
                             "terrain": terrain, "models": []})
    world = terrain_world(scene)
    model = standard_model("wh40k6")
    grid = standing_grid(world, cell, heights=(0.05, model.eye))
    rows = np.flatnonzero(grid.standable)
    ny, nx = grid.shape
    iy, ix = np.divmod(rows, nx)
    groups = [rows[iy < 6], rows[iy >= ny - 6]]
    return world, grid, rows, groups, model.sight_test()


THIN = [  # pillars far thinner than the 2" lattice, and a ruin with windows
    {"id": f"p{i}", "type": "wall", "from": [8 + 4 * i, 9 + i], "to": [8.3 + 4 * i, 9 + i],
     "height": 3, "thickness": 0.3} for i in range(5)
] + [{"id": "ruin", "type": "ruin", "at": [27, 14], "size": [6, 5], "height": 5,
      "floors": [2.5], "walls": ["north", "west"], "windows": True, "rotation": 15}]


def test_thin_pieces_and_windows_are_cast_not_interpolated():
    # a 0.5" grid on its default 1" lattice: windows and piers wider than its step are checked
    world, grid, rows, groups, test = _grid_case(THIN, 0.5)
    cols = np.concatenate(groups)
    exact = pair_sight(world, grid.foot, rows, cols, test)
    fast = refined_pair_sight(world, grid, rows, groups, test, stride=2, workers=1)
    assert fast.segments < exact.segments
    assert np.mean(fast.sees != exact.sees) <= 1e-3
    assert np.mean(fast.seen != exact.seen) <= 1e-3
    # every pair cast (stride 1): the exhaustive matrices, pair for pair
    full = refined_pair_sight(world, grid, rows, groups, test, stride=1, workers=1)
    assert np.mean(full.sees != exact.sees) <= 1e-4 and np.mean(full.seen != exact.seen) <= 1e-4


def test_two_processes_give_the_one_process_answer():
    world, grid, rows, groups, test = _grid_case(THIN)
    one = refined_pair_sight(world, grid, rows, groups, test, stride=2, workers=1)
    two = refined_pair_sight(world, grid, rows, groups, test, stride=2, workers=2)
    assert np.array_equal(one.sees, two.sees) and np.array_equal(one.seen, two.seen)
    assert one.segments == two.segments


def test_default_casts_every_pair_where_few_answers_could_be_shared(monkeypatch):
    world, grid, rows, groups, test = _grid_case(THIN)
    exhaustive = refined_pair_sight(world, grid, rows, groups, test, stride=1, workers=1)
    refined = refined_pair_sight(world, grid, rows, groups, test, stride=2, workers=1)
    monkeypatch.setattr(refine, "COARSE_INCHES", 2.0)
    monkeypatch.setattr(refine, "MIN_SURE", 1.01)  # no sample is that sure: cast every pair
    fallback = refined_pair_sight(world, grid, rows, groups, test, workers=1)
    assert np.array_equal(fallback.sees, exhaustive.sees)
    assert np.array_equal(fallback.seen, exhaustive.seen)
    sample = fallback.segments - exhaustive.segments  # a few segments per sampled pair
    assert refine.SAMPLE <= sample <= 6 * refine.SAMPLE
    monkeypatch.setattr(refine, "MIN_SURE", 0.0)
    assert refined_pair_sight(world, grid, rows, groups, test, workers=1).segments > \
        refined.segments  # the sample, then the refinement
    assert refine._sure_share(SharedSight(world, grid.foot, test, 2.0), rows,
                              np.concatenate(groups)) > 0.3


def test_stride_and_field_difference():
    assert default_stride(0.5) == 2 and default_stride(0.25) == 4 and default_stride(1.0) == 1
    world, grid, rows, groups, test = _grid_case([])
    with pytest.raises(ValueError, match="power of two"):
        refined_pair_sight(world, grid, rows, groups, test, stride=3)
    a = np.array([[0.0, 0.5], [np.nan, 1.0]])
    b = np.array([[0.1, 0.5], [np.nan, 1.0]])
    assert field_difference(a, b) == pytest.approx({"mean_abs": 0.1 / 3, "share_over": 1 / 3})


def test_bench_rows(capsys, monkeypatch):
    scene = generate_layout("wh40k6", 1)
    monkeypatch.setattr(refine, "COARSE_INCHES", 8.0)  # a 2-cell lattice over a 4" grid
    monkeypatch.setattr(refine, "MIN_SURE", 1.01)  # the default casts every pair
    fine = analysis_row(scene, 4.0, repeat=1)
    assert fine["method"] == "every pair" and fine["field_mean_abs"] <= 1e-4
    assert fine["speedup"] > 0 and fine["forced_mean_abs"] <= 0.004  # the refinement measured
    coarse = analysis_row(scene, 6.0, repeat=1, exact_reference=False)
    batch = batch_row("wh40k6", 1, 2, 6.0, workers=1)
    assert batch["layouts"] == 2 and batch["dask_layouts_per_min"] > 0
    assert batch["dask_running_per_min"] > batch["dask_layouts_per_min"]  # less the start
    text = format_layout_bench({"ruleset": "wh40k6", "table": [72, 48], "pieces": 12,
                                "fine": fine, "coarse": coarse, "batch": batch,
                                "crowded": {"pieces": 30, "fine": fine, "coarse": coarse}})
    assert "vs --exact" in text and "Dask batch, 1 workers" in text and "per layout" in text
    assert "refinement forced on" in text and "table, 30 pieces" in text
    assert text.count("analysis at 4\"") == 2


def test_exhaustive_split_over_two_processes_is_pair_sight():
    world, grid, rows, groups, test = _grid_case(THIN)
    exact = pair_sight(world, grid.foot, rows, np.concatenate(groups), test)
    split = exhaustive_pair_sight(world, grid.foot, rows, groups, test, workers=2)
    # the same pairs cast (a zone's square once per unordered pair), a few the other way round
    assert abs(split.segments - exact.segments) <= 1e-4 * exact.segments
    assert np.mean(split.sees != exact.sees) <= 1e-4 and np.mean(split.seen != exact.seen) <= 1e-4
    one = exhaustive_pair_sight(world, grid.foot, rows, groups, test, workers=1)
    assert np.array_equal(one.sees, exact.sees) and one.segments == exact.segments


def test_a_wall_is_thin_along_its_length_only_and_a_trunk_every_way():
    from battlesight.geometry import terrain
    from battlesight.geometry.sightgrid.shared_sight import WAYS, _thin_ways, _ways

    wall = terrain.wall((0, 0), (6, 0), 2.0).solid  # along x, 6" long
    ways = _thin_ways(wall, 2.0)
    along = _ways(np.array([[1.0, 0.0, 0.0], [1.0, 0.1, 0.0], [-1.0, -0.05, 0.0]]))
    across = _ways(np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 0.5, 0.0]]))
    assert ways[along].all() and not ways[across].any()
    assert 2 <= ways.sum() <= WAYS // 4  # within ~20 degrees of its length
    trunk = terrain.forest([[0, 0], [6, 0], [6, 6], [0, 6]], 5, trunks=[[3, 3]]).solid
    assert _thin_ways(trunk, 2.0).all()
    box = terrain.box((0, 0), (3, 3, 3)).solid
    assert not _thin_ways(box, 2.0).any()
