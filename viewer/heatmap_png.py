"""Top-down PNG of a layout analysis (pillow only, headless): the table, a field over it with a
colour bar, terrain outlines by kind, the deployment zones, the longest lane and the figures.

The table is drawn with y up (player 1's edge, y = 0, at the bottom), `PPI` pixels per inch
(fewer for large tables). Cells where no model can stand are dark grey. No Panda3D here.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np
from battlesight.scenes.footprints import footprints, layout_pieces
from battlesight.scenes.output import write_output
from battlesight.viewer import palette
from PIL import Image, ImageDraw, ImageFont

from battlesight.analysis import LayoutAnalysis

PPI = 12
MAX_WIDTH = 1000  # pixels for the table
LEFT, TOP, RIGHT, BOTTOM = 24, 64, 120, 28
NO_STAND = (52, 52, 56, 255)
TITLES = {
    "exposure": "share of zone cells that see the cell",
    "seen_from": "share of player {p}'s zone that sees the cell",
    "sees": "share of player {p}'s zone the cell sees",
}


def _rgb(colour, alpha: float | None = None) -> tuple[int, int, int, int]:
    r, g, b, a = colour
    return (int(r * 255), int(g * 255), int(b * 255), int(255 * (a if alpha is None else alpha)))


def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow without FreeType sizes
        return ImageFont.load_default()


def field_title(name: str) -> str:
    """What a field shows, in words."""
    if name in TITLES:
        return TITLES[name]
    kind, _, player = name.rpartition("_")
    return TITLES.get(kind, name).format(p=player)


def render_heatmap(analysis: LayoutAnalysis, field: str = "exposure") -> Image.Image:
    """The picture as an RGBA image."""
    scene = analysis.scene
    width, depth = scene.table
    ppi = min(PPI, MAX_WIDTH / width)
    tw, td = int(round(width * ppi)), int(round(depth * ppi))
    image = Image.new("RGBA", (LEFT + tw + RIGHT, TOP + td + BOTTOM), _rgb(palette.BACKGROUND))

    def px(points) -> list[tuple[float, float]]:
        p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
        return [(LEFT + x * ppi, TOP + (depth - y) * ppi) for x, y in p]

    values = analysis.fields[field]
    rgba = (palette.heat_colours(values) * 255).astype(np.uint8)
    rgba[..., 3] = np.where(np.isnan(values), 0, 200)
    rgba[np.isnan(values)] = NO_STAND
    heat = Image.fromarray(rgba[::-1].copy(), "RGBA").resize((tw, td), Image.NEAREST)
    table = Image.new("RGBA", (tw, td), _rgb(palette.TABLE))
    image.alpha_composite(Image.alpha_composite(table, heat), (LEFT, TOP))

    draw = ImageDraw.Draw(image, "RGBA")
    small = _font(11)
    for inch in range(6, int(width), 6):
        draw.line(px([[inch, 0], [inch, depth]]), fill=(255, 255, 255, 28), width=1)
    for inch in range(6, int(depth), 6):
        draw.line(px([[0, inch], [width, inch]]), fill=(255, 255, 255, 28), width=1)
    for player, zone in analysis.deployment.zones.items():
        colour = _rgb(palette.player_colour(player))
        draw.line(px(np.vstack([zone, zone[:1]])), fill=colour, width=3)
    prints = footprints(scene)
    for piece in scene.terrain:
        poly = prints[piece.id]
        colour = (palette.FOREST_CANOPY if piece.type == "forest"
                  else palette.TERRAIN.get(piece.type, palette.OTHER_TERRAIN))
        outline = _rgb(colour, 1.0)
        draw.polygon(px(poly), outline=(0, 0, 0, 255), width=4)
        draw.polygon(px(poly), outline=outline, width=2)
    for name, poly in layout_pieces(scene).items():  # a group labelled once, by its name
        cx, cy = px(poly.mean(axis=0))[0]
        draw.text((cx, cy), name, fill=(255, 255, 255, 230), font=small, anchor="mm",
                  stroke_width=2, stroke_fill=(0, 0, 0, 255))
    if analysis.lane is not None:
        ends = px(analysis.lane)
        draw.line(ends, fill=(255, 255, 255, 255), width=2)
        for x, y in ends:
            draw.ellipse([x - 4, y - 4, x + 4, y + 4], fill=(255, 255, 255, 255))
    draw.rectangle([LEFT, TOP, LEFT + tw, TOP + td], outline=_rgb(palette.TABLE_EDGE), width=2)
    _colour_bar(draw, LEFT + tw + 24, TOP, td - 24, small)
    _captions(draw, analysis, field, tw, td)
    return image


def _colour_bar(draw: ImageDraw.ImageDraw, x: int, top: int, height: int, font) -> None:
    steps = np.linspace(1.0, 0.0, height)
    colours = (palette.heat_colours(steps) * 255).astype(int)
    for i, c in enumerate(colours):
        draw.line([(x, top + i), (x + 18, top + i)], fill=(c[0], c[1], c[2], 255))
    draw.rectangle([x, top, x + 18, top + height], outline=(220, 220, 220, 255))
    for v in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = top + (1.0 - v) * (height - 1)
        draw.line([(x + 18, y), (x + 24, y)], fill=(220, 220, 220, 255))
        draw.text((x + 27, y), f"{v:.2f}", fill=(230, 230, 230, 255), font=font, anchor="lm")
    draw.rectangle([x, top + height + 8, x + 18, top + height + 20], fill=NO_STAND,
                   outline=(220, 220, 220, 255))
    draw.text((x + 27, top + height + 14), "no stand", fill=(230, 230, 230, 255), font=font,
              anchor="lm")


def _captions(draw: ImageDraw.ImageDraw, analysis: LayoutAnalysis, field: str, tw: int,
              td: int) -> None:
    f = analysis.figures
    big, small = _font(16), _font(12)
    zones = analysis.deployment.source
    draw.text((LEFT, 8), f"{f['scene']}  ({f['ruleset']}, {zones}, {f['grid']:g}\" grid)",
              fill=(240, 240, 235, 255), font=big)
    exp = "  ".join(f"p{p} {v:.2f}" for p, v in f["exposure"].items())
    line = (f"zone-to-zone {f['zone_to_zone_exposure']:.2f}   exposure {exp}   "
            f"fairness {f['fairness']:+.3f}   lane {f['longest_lane']:.0f}\"   "
            f"terrain {f['terrain_area']:.0%} (blocking {f['blocking_area']:.0%})")
    draw.text((LEFT, 32), line, fill=(220, 220, 215, 255), font=small)
    draw.text((LEFT, 46), f"field: {field_title(field)}; white line: longest lane",
              fill=(180, 180, 175, 255), font=small)
    colours = "  ".join(f"player {p}: {palette.PLAYER_NAMES.get(p, 'grey')} outline"
                        for p in analysis.deployment.zones)
    draw.text((LEFT, TOP + td + 8), colours, fill=(200, 200, 195, 255), font=small)


def heatmap_png_bytes(analysis: LayoutAnalysis, field: str = "exposure") -> bytes:
    """The heatmap as PNG bytes (RGB)."""
    buffer = io.BytesIO()
    render_heatmap(analysis, field).convert("RGB").save(buffer, format="PNG")
    return buffer.getvalue()


def write_heatmap(analysis: LayoutAnalysis, path: str | os.PathLike[str],
                  field: str = "exposure") -> Path:
    """Write the PNG safely (``scenes.output``: temporary file beside it, then a rename)."""
    return write_output(path, heatmap_png_bytes(analysis, field))
