"""What is drawn over the battlefield: sight lines, sample points, a ruler, a heatmap, legends.

Builders attach unlit nodes under a parent and return the screen labels that go with them; the
3D ones are geometry (tubes, octahedra), never wide lines, so the software renderer draws them.
"""

from __future__ import annotations

import numpy as np
from panda3d.core import (
    CardMaker,
    LTexCoord,
    NodePath,
    SamplerState,
    TextNode,
    Texture,
    TransparencyAttrib,
)

from . import geom, palette
from .rulings import STATUS_TEXT, DrawnSight, SightLine
from .scenegraph import base_radii
from .stage import ScreenLabel, add_text

LINE_RADIUS = 0.09  # inches
SAMPLE_SIZE = 0.035
READING_MARKER = 0.45  # inches: the diamond on a line another reading would judge otherwise


def aim_point(world, line: SightLine) -> np.ndarray:
    """Where a sight line ends: the mean of the seen samples, else the target's centre."""
    vis = line.visibility
    seen = vis.points[vis.blocker_of < 0] if len(vis.points) else np.zeros((0, 3))
    if len(seen):
        return seen.mean(axis=0)
    return np.asarray(world.models[line.target].mesh.bounds.mean(axis=0), float)


def _unlit(parent: NodePath, name: str, soup: np.ndarray, colour: palette.Colour) -> NodePath:
    node = parent.attach_new_node(geom.soup_node(name, soup))
    node.set_color(*colour)
    node.set_light_off(1)
    if colour[3] < 1.0:
        node.set_transparency(TransparencyAttrib.M_alpha)
    return node


def draw_sight_lines(parent: NodePath, world, sights: list[DrawnSight],
                     radius: float = LINE_RADIUS, clear_of_eye: float = 0.0) -> list[ScreenLabel]:
    """One tube per drawn sight (a target unit's line, or a model's: `rulings.drawn_sights`)
    from the observer's eye to its target model, in its colour; its label above that model.
    With the camera at the eye, tubes start `clear_of_eye` inches out (at most half way), so
    they do not fill the picture."""
    labels = []
    for sight in sights:
        line = sight.line
        end = aim_point(world, line)
        start = np.asarray(line.start, float)
        span = end - start
        length = float(np.linalg.norm(span))
        if clear_of_eye > 0 and length > 0:
            start = start + span * min(clear_of_eye / length, 0.5)
        node = _unlit(parent, f"sight-{line.target}",
                      geom.tubes_soup([start], [end], radius), sight.colour)
        node.set_tag("sight", line.target)
        if sight.readings:  # another reading of an ambiguous rule changes a verdict here
            _unlit(parent, f"reading-{line.target}",
                   geom.markers_soup([(start + end) / 2], READING_MARKER), palette.SELECTED)
        labels.append(ScreenLabel(label_point(world.models[line.target]), sight.text,
                                  sight.colour, kind="sight", model=line.target))
    return labels


def label_point(model) -> np.ndarray:
    """Where a model's label is anchored: the top of its volume, over its centre."""
    bounds = np.asarray(model.mesh.bounds, float)
    centre = bounds.mean(axis=0)
    return np.array([centre[0], centre[1], bounds[1][2]])


def draw_samples(parent: NodePath, vis, size: float = SAMPLE_SIZE) -> None:
    """The sample points on a target: seen ones light, hidden ones dark."""
    if not len(vis.points):
        return
    seen = vis.blocker_of < 0
    _unlit(parent, "samples-seen", geom.markers_soup(vis.points[seen], size), palette.SAMPLE_SEEN)
    _unlit(parent, "samples-hidden", geom.markers_soup(vis.points[~seen], size),
           palette.SAMPLE_HIDDEN)


def measure(a: np.ndarray, b: np.ndarray, gap: float = 0.0) -> dict[str, float]:
    """Distances between points a and b: 3D, in plan and in height; `gap` is taken off (the
    base radii when measuring base to base)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    plan = float(np.hypot(*(b - a)[:2]))
    rise = float(b[2] - a[2])
    return {"distance": max(0.0, float(np.hypot(plan, rise)) - gap),
            "plan": max(0.0, plan - gap), "height": rise}


def draw_ruler(parent: NodePath, a: np.ndarray, b: np.ndarray, gap: float = 0.0,
               note: str = "") -> list[ScreenLabel]:
    """A white tube from a to b with its length, plan length and height difference."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    for node in (
        _unlit(parent, "ruler", geom.tubes_soup([a], [b], LINE_RADIUS * 0.8), palette.RULER),
        _unlit(parent, "ruler-ends", geom.markers_soup(np.array([a, b]), 0.18), palette.RULER),
    ):
        node.set_bin("fixed", 50)  # over terrain: a ruler is read, not hidden
        node.set_depth_test(False)
        node.set_depth_write(False)
    m = measure(a, b, gap)
    text = f'{m["distance"]:.1f}" (plan {m["plan"]:.1f}", height {m["height"]:+.1f}")'
    return [ScreenLabel((a + b) / 2, text + (f" {note}" if note else ""), palette.RULER,
                        kind="ruler")]


def ruler_ends(world, a, b, board=None) -> tuple[np.ndarray, np.ndarray, float, str]:
    """Ruler (start, end, gap, note) between two model ids (base to base) or two points.
    With the scene's board the note adds the ruleset's own base gap and measuring mode."""
    if isinstance(a, str) and isinstance(b, str):
        ma, mb = world.models[a], world.models[b]
        gap = sum(max(base_radii(m)) for m in (ma, mb))  # round bases; ovals approximate
        note = f"{a} to {b}, base to base"
        if board is not None and hasattr(board, "gap"):
            try:
                mode = board.ruleset.measure_mode
                note += f'; {board.ruleset.id} ({mode}): {board.gap(a, b):.2f}"'
            except Exception:  # noqa: BLE001 - keep the plain ruler
                pass
        return ma.position.copy(), mb.position.copy(), gap, note
    return np.asarray(a, float), np.asarray(b, float), 0.0, ""


def _pow2(n: int) -> int:
    return 1 << max(0, int(n - 1).bit_length())


def heat_texture(field: np.ndarray) -> tuple[Texture, tuple[float, float]]:
    """An RGBA texture of a (ny, nx) field in [0, 1] (row 0 at y = 0; NaN transparent),
    padded to powers of two for the software renderer, and the (u, v) extent of the field."""
    values = np.asarray(field, dtype=np.float64)
    ny, nx = values.shape
    rgba = np.zeros((_pow2(ny), _pow2(nx), 4), dtype=np.uint8)
    rgba[:ny, :nx] = (palette.heat_colours(values) * 255).round().astype(np.uint8)
    tex = Texture("heatmap")
    tex.setup_2d_texture(rgba.shape[1], rgba.shape[0], Texture.T_unsigned_byte, Texture.F_rgba8)
    tex.set_ram_image_as(np.ascontiguousarray(rgba).tobytes(), "RGBA")
    tex.set_magfilter(SamplerState.FT_nearest)
    tex.set_minfilter(SamplerState.FT_nearest)
    tex.set_wrap_u(SamplerState.WM_clamp)
    tex.set_wrap_v(SamplerState.WM_clamp)
    return tex, (nx / rgba.shape[1], ny / rgba.shape[0])


def draw_heatmap(decals: NodePath, field: np.ndarray, table: tuple[float, float],
                 bounds: tuple[float, float, float, float] | None = None) -> NodePath:
    """A (ny, nx) field drawn as a translucent texture over the table (or over bounds
    (x0, y0, x1, y1)); values are clipped to [0, 1]."""
    x0, y0, x1, y1 = bounds or (0.0, 0.0, table[0], table[1])
    tex, (u, v) = heat_texture(field)
    maker = CardMaker("heatmap")
    maker.set_frame(x0, x1, y0, y1)
    maker.set_uv_range(LTexCoord(0, 0), LTexCoord(u, v))
    card = decals.attach_new_node(maker.generate())
    card.set_p(-90)  # the card's (x, z) frame becomes (x, y) on the table, facing up
    card.set_texture(tex)
    card.set_transparency(TransparencyAttrib.M_alpha)
    return card


def heat_legend(parent: NodePath, title: str, width: float, height: float,
                size: float = 15, notes: list[str] = ()
                ) -> tuple[NodePath, tuple[float, float, float, float]]:
    """The heatmap's colour key in the bottom-right corner; notes (what the field is and
    where it comes from) under the colours. Returns its node and pixel box."""
    stops = (0.0, 0.25, 0.5, 0.75, 1.0)
    colours = palette.heat_colours(np.array(stops))
    rows = [(tuple(c[:3]) + (1.0,), f"{round(100 * v)}%") for v, c in zip(stops, colours,
                                                                        strict=True)]
    w = max(text_width(t, size) for t in [title, "100%", *notes]) + 3.2 * size
    h = size * 1.45 * (len(rows) + 1 + len(notes)) + size * 0.8
    x, y = width - w - 12, height - h - 12
    node, (w, h) = draw_legend(parent, title, rows[::-1], list(notes), x=x, y=y, size=size)
    return node, (x, y, x + w, y + h)


def draw_outline(parent: NodePath, polygon: np.ndarray, heights: tuple[float, ...] = (0.05,),
                 colour: palette.Colour = palette.SELECTED,
                 radius: float = LINE_RADIUS) -> NodePath:
    """A plan outline (k, 2) drawn as tubes at each height, over everything (a selected
    terrain piece in edit mode)."""
    poly = np.asarray(polygon, dtype=np.float64)
    root = parent.attach_new_node("outline")
    for z in heights:
        a, b = geom.outline_segments(poly, float(z))
        _unlit(root, "outline-ring", geom.tubes_soup(a, b, radius), colour)
    root.set_bin("fixed", 45)
    root.set_depth_test(False)
    root.set_depth_write(False)
    return root


def panel(parent: NodePath, x: float, y: float, w: float, h: float,
          colour: palette.Colour = palette.PANEL) -> NodePath:
    """A filled rectangle on the 2D overlay with its top-left corner at pixel (x, y)."""
    maker = CardMaker("panel")
    maker.set_frame(x, x + w, -y - h, -y)
    node = parent.attach_new_node(maker.generate())
    node.set_color(*colour)
    if colour[3] < 1.0:
        node.set_transparency(TransparencyAttrib.M_alpha)
    return node


def text_width(text: str, size: float) -> float:
    node = TextNode("measure")
    node.set_text(text)
    return node.get_width() * size


def draw_legend(parent: NodePath, title: str, rows: list[tuple[palette.Colour | None, str]],
                notes: list[str] = (), x: float = 12, y: float = 12,
                size: float = 16) -> tuple[NodePath, tuple[float, float]]:
    """A legend panel: a title, rows of (swatch colour or None, text), then notes; returns
    its node and its (width, height) in pixels."""
    root = parent.attach_new_node("legend")
    lines = [title] + [t for _, t in rows] + list(notes)
    width = max(text_width(t, size) for t in lines) + 3.2 * size
    height = size * 1.45 * len(lines) + size * 0.8
    panel(root, x, y, width, height)
    cy = y + size * 1.3
    add_text(root, title, x + size * 0.6, cy, size)
    for colour, text in rows:
        cy += size * 1.45
        if colour is not None:
            panel(root, x + size * 0.6, cy - size * 0.8, size * 1.4, size * 0.9, colour)
        add_text(root, text, x + size * 2.4, cy, size)
    for text in notes:
        cy += size * 1.45
        add_text(root, text, x + size * 0.6, cy, max(size * 0.85, 11.0),
                 palette.darker(palette.TEXT, 0.8))
    return root, (width, height)


def sight_legend(parent: NodePath, observer: str, lines: list[SightLine], x: float = 12,
                 y: float = 12, size: float = 16) -> tuple[NodePath, tuple[float, float]]:
    """The legend of a set of sight lines: what each colour means and the rules of their
    verdicts (each line's own verdict is its label, by its target: never repeated here)."""
    rows: list[tuple[palette.Colour | None, str]] = [
        (palette.RULING[s], f"{palette.RULING_NAMES[s]}: {STATUS_TEXT[s]}")
        for s in ("clear", "cover", "hidden")
    ]
    rules = sorted({line.verdict.rule for line in lines}) or ["no enemy models"]
    notes = [f"rule: {r}" for r in rules]
    return draw_legend(parent, f"Sight lines from {observer}", rows, notes, x, y, size)
