"""Pictures laid out for an audience: labels that never overlap or leave the frame (read back
from `render --json`), turntable frames that keep the whole table inside, an orthographic top
view, the who-sees-whom matrix picture, and turntable lengths from --fps / --seconds."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("panda3d")

from battlesight.viewer import palette  # noqa: E402
from battlesight.viewer.cameras import fit_orbit, frame_points  # noqa: E402
from battlesight.viewer.render import (  # noqa: E402
    OffscreenRenderer,
    RenderSettings,
    apply_settings,
    render_turntable,
)

from battlesight.cli.main import main  # noqa: E402
from tests import worlds  # noqa: E402
from tests.helpers import ROOT  # noqa: E402
from tests.schema_helpers import assert_valid  # noqa: E402

CITY = ROOT / "scenes" / "examples" / "wh40k6_city_ruins.yaml"
DEMO = ROOT / "scenes" / "examples" / "demo.yaml"


@pytest.fixture(autouse=True)
def software_renderer(monkeypatch):
    monkeypatch.setenv("BATTLESIGHT_RENDERER", "tiny")


def render_json(capsys, *args) -> dict:
    assert main(["render", *map(str, args), "--renderer", "tiny"]) == 0
    return json.loads(capsys.readouterr().out)


def overlapping(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_city_labels_with_sight_lines_never_overlap_and_stay_in_frame(tmp_path, capsys):
    """--los --per-model --labels on the city table: every model named exactly once (the
    targets by their sight line's label, the others by id), no two label boxes overlapping,
    every box inside the frame; the JSON validates against render.schema.json."""
    from battlesight.scenes.loader import load_scene

    width, height = 1280, 720
    drawn = render_json(capsys, CITY, "--out", tmp_path / "city.png", "--los", "sergeant",
                        "--per-model", "--labels", "--json", "--size", f"{width}x{height}")
    assert_valid("render", drawn)
    labels = drawn["labels"]
    ids = [m.id for m in load_scene(str(CITY)).models]
    named = [lab["model"] for lab in labels if lab["model"]]
    assert sorted(named) == sorted(ids)  # every model, none twice (sight + model labels)
    sight = {lab["model"]: lab["text"] for lab in labels if lab["kind"] == "sight"}
    assert sight == {line["target"]: f"{line['target']} {line['label']}"
                     for line in drawn["lines"]}
    boxes = [lab["box"] for lab in labels]
    for x0, y0, x1, y1 in boxes:
        assert 0 <= x0 < x1 <= width and 0 <= y0 < y1 <= height
    clashes = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlapping(a, b)]
    assert not clashes
    camera = drawn["camera"]
    assert camera["image_size"] == [width, height] and camera["projection"] == "perspective"


def test_unit_labels_and_eye_view_hidden_markers(tmp_path, capsys):
    """--labels unit: one label per unit. In an eye view, a model the eye does not see at
    all (plain sight 0, as its sight line says) is a 'hidden' marker at the bottom edge, and
    a model it partly sees is labelled at the model (by its unit's sight line, or its id)."""
    units = render_json(capsys, DEMO, "--out", tmp_path / "u.png", "--labels", "unit",
                        "--json", "--size", "640x360")
    texts = sorted(lab["text"] for lab in units["labels"])
    assert texts and all(lab["kind"] == "unit" for lab in units["labels"])
    assert any(t.startswith("tac-1 (") for t in texts) and any("boyz-1" in t for t in texts)
    eye = render_json(capsys, DEMO, "--out", tmp_path / "e.png", "--view", "eye:sgt:nob",
                      "--labels", "--json", "--size", "640x360")
    share = {line["target"]: line["geometric_share"] for line in eye["lines"]}
    kinds = {lab["model"]: lab for lab in eye["labels"] if lab["model"]}
    assert "sgt" not in kinds  # the eye's own model
    for target, lab in kinds.items():
        if share.get(target, 1.0) == 0.0:
            assert lab["kind"] == "hidden" and lab["box"][3] >= 360 - 30
        elif target in share:
            assert lab["kind"] in ("sight", "model")
    boxes = [lab["box"] for lab in eye["labels"]]
    assert not [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if overlapping(a, b)]


def test_every_turntable_frame_has_background_all_round_its_edge():
    """36 frames orbiting the city table: the outermost pixels of every frame are the
    background colour (the table and its tall ruins never touch the frame), and the table
    fills the frame (it reaches within 10% of two opposite edges)."""
    from battlesight.scenes.build import build_world
    from battlesight.scenes.loader import load_scene

    scene = load_scene(str(CITY))
    world = build_world(scene)
    width, height = 192, 108
    frames = render_turntable(world, scene, RenderSettings(width, height, backend="tiny"),
                              frames=36)
    assert len(frames) == 36
    background = np.array([round(c * 255) for c in palette.BACKGROUND[:3]])
    for i, image in enumerate(frames):
        ring = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]]).astype(int)
        off = np.abs(ring - background).max(axis=1) > 6
        assert not off.any(), f"frame {i}: {off.sum()} edge pixels are not background"
        drawn = np.abs(image.astype(int) - background).max(axis=2) > 6
        ys, xs = np.nonzero(drawn)
        fills_x = xs.min() < 0.1 * width and xs.max() > 0.9 * width
        fills_y = ys.min() < 0.1 * height and ys.max() > 0.9 * height
        assert fills_x or fills_y, f"frame {i} leaves the frame half empty"


def test_fit_orbit_centres_the_projected_box():
    """The fitted camera sees every framed point inside the margin and centres them."""
    world = worlds.skirmish_world()
    points = frame_points(world)
    with OffscreenRenderer(world, None, 320, 180, "tiny") as renderer:
        for heading in (0.0, 70.0, 200.0):
            renderer.view.set_orbit(fit_orbit(heading, -35.0, points, 320 / 180))
            pixels, ok = renderer.view.stage.project(points)
            assert ok.all()
            x, y = pixels[:, 0], pixels[:, 1]
            assert abs((x.min() + x.max()) / 2 - 160) < 2 and abs((y.min() + y.max()) / 2 - 90) < 2
            assert x.min() < 0.1 * 320 or y.min() < 0.1 * 180  # tight on one axis


def top_view(world) -> tuple[np.ndarray, object]:
    with OffscreenRenderer(world, None, 640, 400, "tiny") as renderer:
        apply_settings(renderer.view, RenderSettings(view="top"))
        return renderer.render(), renderer.view.stage


def test_top_view_is_orthographic():
    """A tall box near a corner does not lean in the top view: its top and its foot project
    to the same pixels, and the pixels the box changes (against the same table without it)
    are its footprint's, not a leaning side's."""
    bare = worlds.one_model_world(at=(60.0, 40.0))
    world = worlds.one_model_world(at=(60.0, 40.0))
    world.add_terrain("tower", "box", worlds.box_terrain((4.0, 4.0, 0.0), (8.0, 8.0, 12.0)))
    without, _ = top_view(bare)
    image, stage = top_view(world)
    assert stage.pose.ortho is not None
    foot, _ = stage.project(np.array([[4.0, 4.0, 0.0], [8.0, 8.0, 0.0]]))
    top, _ = stage.project(np.array([[4.0, 4.0, 12.0], [8.0, 8.0, 12.0]]))
    assert np.abs(foot - top).max() < 0.5
    ys, xs = np.nonzero(np.abs(image.astype(int) - without.astype(int)).max(axis=2) > 0)
    (x0, y1), (x1, y0) = foot
    inside = (xs > x0 - 1.5) & (xs < x1 + 1.5) & (ys > y0 - 1.5) & (ys < y1 + 1.5)
    assert len(xs) > 0.8 * (x1 - x0) * (y1 - y0) and inside.all()


def los_all_cells(capsys, path) -> dict[tuple[str, str], str]:
    """The cells of `los --all`'s text table, read by its column rule."""
    assert main(["los", str(path), "--all"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rule = next(i for i, line in enumerate(lines) if set(line) <= {"-", " "} and line)
    spans, start = [], 0
    for part in lines[rule].split("  "):
        spans.append((start, start + len(part)))
        start += len(part) + 2
    units = [lines[rule - 1][a:b].strip() for a, b in spans][1:]
    cells = {}
    for row in lines[rule + 1:rule + 1 + len(units)]:
        values = [row[a:b].strip() for a, b in spans]
        cells.update({(values[0], u): v for u, v in zip(units, values[1:], strict=True)
                      if v != "-"})
    return cells


def test_matrix_picture_draws_the_cells_los_all_prints(tmp_path, capsys):
    """render --matrix: its cells are los --all's, the camera is the orthographic top view,
    and along each pair's half line the picture shows its cell's verdict colour."""
    from battlesight.scenes.build import build_world
    from battlesight.scenes.loader import load_scene
    from battlesight.viewer.matrix_view import line_halves, unit_centres, unit_players

    drawn = render_json(capsys, DEMO, "--out", tmp_path / "m.png", "--matrix", "--json",
                        "--size", "960x540")
    assert_valid("render", drawn)
    assert drawn["camera"]["projection"] == "orthographic"
    cells = {(c["observer"], c["target"]): c["text"] for c in drawn["matrix"]["cells"]}
    assert cells == los_all_cells(capsys, DEMO)

    scene = load_scene(str(DEMO))
    world = build_world(scene)
    with OffscreenRenderer(world, scene, 960, 540, "tiny") as renderer:
        apply_settings(renderer.view, RenderSettings(960, 540, matrix=True))
        image = renderer.render()
        units, unit_cells = renderer.view.matrix
        halves = line_halves(unit_centres(world, scene), unit_players(scene), units, unit_cells)
        assert halves
        for cell, start, end in halves:
            colour = np.array([round(c * 255) for c in palette.RULING[cell.status][:3]])
            ts = np.linspace(0.25, 0.9, 12)
            pixels, ok = renderer.view.stage.project(start + (end - start) * ts[:, None])
            hits = 0
            for (x, y), inside in zip(pixels, ok, strict=True):
                if not inside:
                    continue
                x, y = int(round(x)), int(round(y))
                patch = image[max(y - 2, 0):y + 3, max(x - 2, 0):x + 3].reshape(-1, 3)
                hits += bool((np.abs(patch.astype(int) - colour).max(axis=1) <= 8).any())
            assert hits >= 8, (cell.observer, cell.target, cell.status, hits)


def test_turntable_length_from_fps_and_seconds(tmp_path, capsys):
    """--seconds S at --fps F writes S x F frames, the GIF timed at F; bad combinations are
    one-line refusals."""
    from PIL import Image

    gif = tmp_path / "spin.gif"
    assert main(["render", str(DEMO), "--out", str(gif), "--seconds", "0.2", "--fps", "20",
                 "--size", "64x48", "--renderer", "tiny"]) == 0
    assert "4 frames at 20 fps" in capsys.readouterr().out
    with Image.open(gif) as im:
        assert im.n_frames == 4 and im.info["duration"] == 50
    for args, words in ((["--fps", "30"], "--fps goes with"),
                        (["--turntable", "3", "--seconds", "1"], "not both"),
                        (["--matrix", "--los", "sgt"], "--matrix"),
                        (["--matrix", "--view", "iso"], "--matrix"),
                        (["--fps", "500", "--turntable", "3"], "--fps")):
        out = tmp_path / ("x.gif" if "--matrix" not in args else "x.png")
        assert exit_code(["render", str(DEMO), "--out", str(out), *args]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1 and not out.exists()


def exit_code(argv: list[str]) -> int:
    """The command's exit code, whether it returns it or argparse exits with it."""
    try:
        return main(argv)
    except SystemExit as stop:
        return int(stop.code)


def test_stream_view_fills_a_16_9_frame():
    """--view stream: the table spans the frame's width (within the margin) from its long
    side, and nothing it frames leaves the picture."""
    from battlesight.scenes.build import build_world
    from battlesight.scenes.loader import load_scene

    scene = load_scene(str(CITY))
    world = build_world(scene)
    with OffscreenRenderer(world, scene, 640, 360, "tiny") as renderer:
        apply_settings(renderer.view, RenderSettings(640, 360, view="stream"))
        pixels, ok = renderer.view.stage.project(frame_points(world))
    assert ok.all()
    span_x = np.ptp(pixels[:, 0]) / 640
    span_y = np.ptp(pixels[:, 1]) / 360
    assert span_x > 0.95 or span_y > 0.95
    assert span_x * span_y > 0.8  # the framed box covers most of the picture


def test_window_zoom_and_pan_keep_the_top_view_orthographic():
    """In the window, the wheel and a pan keep the top view orthographic (the film shrinks
    as it zooms in); turning away from straight down is a perspective view."""
    from battlesight.viewer.interact import Controller

    world = worlds.skirmish_world()
    with OffscreenRenderer(world, None, 480, 270, "tiny") as renderer:
        controller = Controller(renderer.view, loader=lambda: (worlds.skirmish_world(), None))
        renderer.view.set_view("top")
        film = renderer.view.stage.pose.ortho
        controller.zoom(2)
        assert 0 < renderer.view.stage.pose.ortho < film
        controller.pan(20, 10)
        assert renderer.view.stage.pose.ortho is not None
        controller.orbit(30, -40)
        assert renderer.view.stage.pose.ortho is None


def test_matrix_of_a_table_without_models(tmp_path, capsys):
    """A scene validate accepts with no models: --matrix draws the table and an empty grid."""
    scene = tmp_path / "empty.yaml"
    scene.write_text("format: 1\nruleset: wh40k6\ntable: [48, 48]\nterrain:\n"
                     "  - {id: b, type: box, at: [10, 10], size: [4, 4, 4]}\n", encoding="utf-8")
    drawn = render_json(capsys, scene, "--out", tmp_path / "m.png", "--matrix", "--labels",
                        "--json", "--size", "160x100")
    assert drawn["matrix"] == {"units": [], "cells": [], "lines": []} and drawn["labels"] == []
    assert (tmp_path / "m.png").is_file()


def test_switching_to_an_eye_view_relabels_the_hidden_models():
    """The window's views share one SceneView: going from the overview to a model's eye
    turns the labels of the models that eye cannot see into hidden markers, and back."""
    from battlesight.scenes.build import build_world
    from battlesight.scenes.loader import load_scene

    scene = load_scene(str(DEMO))
    world = build_world(scene)
    with OffscreenRenderer(world, scene, 640, 360, "tiny") as renderer:
        view = renderer.view
        apply_settings(view, RenderSettings(640, 360, labels=True))
        assert not [d for d in view.stage.drawn_labels if d.label.kind == "hidden"]
        view.set_view("eye:sgt:nob")
        unseen = {v.target for v in view.judge([("sgt", m) for m in world.models if m != "sgt"])
                  if v.geometric_share <= 0}
        assert unseen
        kinds = {lab.model: lab.kind for lab in view.stage.labels}
        assert all(kinds[m] == "hidden" for m in unseen) and "sgt" not in kinds
        view.set_view("iso")
        assert {lab.kind for lab in view.stage.labels} == {"model"}
