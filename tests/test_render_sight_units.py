"""Sight lines that read at thirty targets (issue 25): one line per target unit by default,
coloured and counted by the one unit aggregation `los --all` prints (`unit_cells`), and labels
that never overlap, each nearer its own model than any other."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.rulesets.core.unit_matrix import unit_cells  # noqa: E402
from battlesight.viewer.labels import TIE, box_distances  # noqa: E402
from battlesight.viewer.overlays import label_point  # noqa: E402
from battlesight.viewer.render import RenderSettings, render_drawing  # noqa: E402
from battlesight.viewer.rulings import SMALL_UNIT, drawn_sights, sight_lines  # noqa: E402

import battlesight  # noqa: E402

CITY = battlesight.example("wh40k6_city_ruins")
SIZE = (640, 400)


@pytest.fixture(scope="module")
def city():
    field = battlesight.load(CITY)
    return field.scene, field.world


def test_one_line_per_target_unit_from_the_shared_unit_cells(city):
    scene, world = city
    lines = sight_lines(world, scene, "dev-1")
    assert len(lines) >= 28
    cells = unit_cells(scene, [line.verdict.to_dict() for line in lines])
    sights = drawn_sights(scene, lines)
    big = [s for s in sights if s.cell.size > SMALL_UNIT]
    assert len(big) == len({s.unit for s in big}) and len(sights) < len(lines)
    for sight in big:
        cell = cells[(sight.cell.observer, sight.unit)]
        assert sight.cell == cell and sight.line.status == cell.status
        assert f"{cell.seen} of {cell.size} seen" in sight.text or cell.seen == 0
        if cell.cover:
            assert cell.cover in sight.text
    assert len(drawn_sights(scene, lines, per_model=True)) == len(lines)


@pytest.mark.parametrize("per_model", [False, True])
@pytest.mark.parametrize("view", ["iso", "top"])
def test_labels_never_overlap_and_each_is_nearest_its_own_model(city, view, per_model):
    scene, world = city
    settings = RenderSettings(*SIZE, view=view, los="dev-1", per_model=per_model,
                              backend="tiny")
    _, drawing = render_drawing(world, scene, settings)
    labels = [d for d in drawing.labels if d.label.kind == "sight"]
    expected = len(drawn_sights(scene, drawing.lines, per_model))
    assert len(labels) >= (expected if not per_model else expected // 2), len(labels)
    boxes = np.array([d.box for d in labels])
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i], boxes[j]
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]), \
                (labels[i].label.text, labels[j].label.text)
    ids = list(world.models)
    points = drawing_pixels(world, scene, settings, ids)
    for d in labels:
        own = ids.index(d.label.model)
        dist = box_distances(np.array([d.box]), points)[0]
        # the default picture (a line per unit): always nearest its own; a line per model in
        # a crowd of thirty may not find such a place, and then has a leader line to it
        assert dist[own] <= dist.min() + TIE or (per_model and d.leader), d.label.text


def drawing_pixels(world, scene, settings, ids) -> np.ndarray:
    """The pixels of every model's label point under the camera the picture used."""
    from battlesight.viewer.render import OffscreenRenderer, apply_settings

    with OffscreenRenderer(world, scene, settings.width, settings.height, "tiny") as r:
        apply_settings(r.view, settings)
        pixels, _ = r.view.stage.project(np.array([label_point(world.models[i]) for i in ids]))
    return pixels
