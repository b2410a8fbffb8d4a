"""Hidden models are still drawn where they stand: a unit inside a wood and one under a ruin
floor give at least a third of the army-colour pixels they give in the open (issue 25), in the
overview and the top view, on the software renderer and on headless GL when it is here."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.viewer import platform  # noqa: E402
from battlesight.viewer.render import OffscreenRenderer, RenderSettings, apply_settings  # noqa: E402

BACKENDS = ["tiny"] + (["headlessgl"] if "headlessgl" in platform.available_backends() else [])
SIZE = (400, 250)
#: each unit's two model positions inside its cover, and in the open in front of them
HIDDEN = {"wood": [(13.0, 26.0), (15.0, 26.0)], "ruin": [(33.0, 26.0), (35.0, 26.0)]}
OPEN = [(23.0, 10.0), (25.0, 10.0)]


def scene_data(moved: str | None = None) -> dict:
    """A wood and a two-storey ruin with a red unit in each; `moved` stands in the open."""
    models = [{"id": "e1", "unit": "foe", "player": 2, "at": [40, 6]}]
    for unit, spots in HIDDEN.items():
        for i, spot in enumerate(OPEN if unit == moved else spots):
            models.append({"id": f"{unit}-m{i}", "unit": unit, "player": 1, "at": list(spot)})
    return {"format": 1, "name": "hidden", "ruleset": "wh40k6", "table": [48, 36],
            "terrain": [{"id": "wood-1", "type": "forest", "height": 6,
                         "polygon": [[8, 20], [20, 20], [20, 32], [8, 32]]},
                        {"id": "ruin-1", "type": "ruin", "at": [34, 26], "size": [10, 8],
                         "floors": [3], "height": 6, "walls": ["north", "west"]}],
            "models": models}


def red_pixels(backend: str, view: str, data: dict, unit: str) -> int:
    """Red (player 1's colour, shaded or x-ray) pixels in the screen box of unit's models."""
    import battlesight

    field = battlesight.load(data)
    world = field.world
    with OffscreenRenderer(world, field.scene, *SIZE, backend) as renderer:
        apply_settings(renderer.view, RenderSettings(*SIZE, view=view, legend=False))
        image = renderer.render()
        corners = np.concatenate([m.mesh.vertices for m in world.models.values()
                                  if m.unit == unit])
        pixels, ok = renderer.view.stage.project(corners)
    assert ok.all()
    (x0, y0), (x1, y1) = np.floor(pixels.min(0)).astype(int), np.ceil(pixels.max(0)).astype(int)
    box = image[max(y0 - 2, 0):y1 + 3, max(x0 - 2, 0):x1 + 3].astype(int)
    r, g, b = box[..., 0], box[..., 1], box[..., 2]
    return int(((r > 60) & (r > 1.8 * g) & (r > 1.8 * b)).sum())


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("view", ["iso", "top"])
@pytest.mark.parametrize("unit", ["wood", "ruin"])
def test_a_hidden_unit_shows_a_third_of_its_open_pixels(backend, view, unit):
    hidden = red_pixels(backend, view, scene_data(), unit)
    in_open = red_pixels(backend, view, scene_data(moved=unit), unit)
    assert in_open > 40, in_open  # the unit in the open is drawn at all
    assert hidden >= in_open / 3, (hidden, in_open)


def test_an_eye_view_shows_what_the_eye_sees_without_silhouettes():
    """A model's eye view draws no x-ray silhouettes (its unseen targets are marked at the
    frame's edge instead); going back to an overview draws them again."""
    from battlesight.viewer.sceneview import SceneView

    import battlesight

    field = battlesight.load(scene_data())
    view = SceneView(field.world, field.scene, *SIZE)
    xrays = view.graph.xrays
    assert set(xrays) == set(field.world.models)
    view.set_view("eye:e1:wood-m0")
    assert all(node.is_hidden() for node in xrays.values())
    view.set_view("top")
    assert not any(node.is_hidden() for node in xrays.values())
