"""QA of the day's changes outside the mesh cache: the formation hull (GEOS since scipy left the
ray-only commands) runs on every shapely the project accepts, ..."""

from __future__ import annotations

import numpy as np
import shapely
from battlesight.geometry import planar


def _area(ring: np.ndarray) -> float:
    x, y = ring[:, 0], ring[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def test_convex_hull_needs_no_shapely_2_1(monkeypatch):
    monkeypatch.delattr(shapely, "orient_polygons", raising=False)  # pyproject: shapely>=2
    points = np.random.default_rng(3).uniform(0, 10, size=(200, 2))
    ring = planar.convex_hull(points)
    assert _area(ring) > 0  # counter-clockwise
    assert np.isclose(_area(ring), shapely.convex_hull(shapely.multipoints(points)).area)
    np.testing.assert_array_equal(planar.convex_hull([[0, 0], [1, 1], [3, 3], [2, 2]]),
                                  [[0, 0], [3, 3]])


def test_play_out_where_the_scene_s_mesh_files_are_not_found_is_refused(tmp_path, capsys):
    from battlesight.cli.main import main
    from tests.helpers import ROOT, minimal_with, write_scene

    here = tmp_path / "table"
    here.mkdir()
    (here / "stone.glb").write_bytes((ROOT / "assets" / "terrain" / "statue.glb").read_bytes())
    scene = write_scene(here, minimal_with(
        terrain="- {id: stone, type: mesh, file: stone.glb, at: [40, 10]}\n"
                "- {id: statue, type: mesh, file: assets/terrain/statue.glb, at: [40, 30]}"))
    actions = tmp_path / "actions.yaml"
    actions.write_text("actions:\n  - {do: next}\n")
    elsewhere = tmp_path / "saves" / "turn2.yaml"
    elsewhere.parent.mkdir()
    assert main(["play", str(scene), "--actions", str(actions), "--out", str(elsewhere)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "mesh files (stone.glb) are found from its own folder" in err[0]
    assert not elsewhere.exists()  # the bundled statue is found from anywhere: not named
    beside = here / "turn2.yaml"
    assert main(["play", str(scene), "--actions", str(actions), "--out", str(beside)]) == 0
    assert main(["validate", "--strict", str(beside)]) == 0
