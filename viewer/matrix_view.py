"""`render --matrix`: who sees whom drawn on the top view, and the unit-by-unit grid beside it.

One line per pair of enemy units between their centres, each half coloured by the verdict of
the unit at its end looking at the other (`unit_matrix.UnitCell.status`, the ruleset's
verdicts), and the grid of the same cells `los --all` prints, drawn on the 2D overlay.
"""

from __future__ import annotations

import numpy as np
from battlesight.rulesets.core.unit_matrix import UnitCell
from panda3d.core import NodePath

from . import geom, palette
from .overlays import LINE_RADIUS, _unlit, panel, text_width
from .stage import ScreenLabel, add_text

GRID_NOTES = ("rows look at columns: models seen / unit size, commonest cover",
              "colour: the best verdict of any pair (green clear, amber cover, magenta none)")


def unit_centres(world, scene) -> dict[str, np.ndarray]:
    """Unit id -> (3,) the mean of its models' positions, at the height of their tops."""
    groups: dict[str, list] = {}
    for model in scene.models:
        if model.id in world.models:
            groups.setdefault(model.unit or model.id, []).append(world.models[model.id])
    return {u: np.array([*np.mean([m.position[:2] for m in ms], axis=0),
                         max(float(m.mesh.bounds[1][2]) for m in ms)])
            for u, ms in groups.items()}


def unit_players(scene) -> dict[str, int | None]:
    """Unit id -> the player of its first model."""
    out: dict[str, int | None] = {}
    for model in scene.models:
        out.setdefault(model.unit or model.id, model.player)
    return out


def line_halves(centres: dict[str, np.ndarray], players: dict[str, int | None],
                units: list[str], cells: dict[tuple[str, str], UnitCell]
                ) -> list[tuple[UnitCell, np.ndarray, np.ndarray]]:
    """(cell, start, end) of each half line: from a unit's centre half way to an enemy
    unit's, for every ordered pair of enemy units."""
    out = []
    for a in units:
        for b in units:
            if a == b or players.get(a) == players.get(b) or (a, b) not in cells:
                continue
            start, other = centres[a], centres[b]
            out.append((cells[(a, b)], start, (start + other) / 2.0))
    return out


def half_line_dicts(halves: list[tuple[UnitCell, np.ndarray, np.ndarray]]) -> list[dict]:
    """The drawn half lines as `render --json` lists them: the observing and target units,
    the cell's status and text, and the half's ends (inches, z up)."""
    return [{"observer": cell.observer, "target": cell.target, "status": cell.status,
             "text": cell.text, "start": [round(float(v), 4) for v in start],
             "end": [round(float(v), 4) for v in end]} for cell, start, end in halves]


def draw_matrix_lines(parent: NodePath, halves, centres: dict[str, np.ndarray]
                      ) -> list[ScreenLabel]:
    """The half lines (over the terrain, so every pair shows), a dot at each unit's centre,
    and a label per unit."""
    for status in ("hidden", "cover", "clear"):  # the best verdicts drawn last, on top
        mine = [(s, e) for cell, s, e in halves if cell.status == status]
        if not mine:
            continue
        starts, ends = (np.array(v) for v in zip(*mine, strict=True))
        node = _unlit(parent, f"matrix-{status}",
                      geom.tubes_soup(starts, ends, LINE_RADIUS * 1.6), palette.RULING[status])
        node.set_bin("fixed", 40 + ("hidden", "cover", "clear").index(status))
        node.set_depth_test(False)
        node.set_depth_write(False)
    if centres:
        dots = _unlit(parent, "matrix-units",
                      geom.markers_soup(np.array(list(centres.values())), 0.45), palette.RULER)
        dots.set_bin("fixed", 44)
        dots.set_depth_test(False)
    return [ScreenLabel(p, u, palette.TEXT, kind="unit") for u, p in centres.items()]


ROW = 2.5  # a grid row's height in text sizes: the count, then the cover under it
COVER = 0.72  # the cover line's text size, as a share of the grid's


def grid_size(units: list[str], cells: dict[tuple[str, str], UnitCell],
              size: float) -> tuple[float, float]:
    """(width, height) in pixels of the grid panel."""
    cell = _cell_width(cells, size)
    head = _head_width(units, size)
    notes = max(text_width(t, size * 0.85) for t in GRID_NOTES)
    width = max(head + cell * len(units), notes) + 1.2 * size
    return width, size * (ROW * len(units) + 3.2) + 2 * size * 1.45 + size


def _head_width(units: list[str], size: float) -> float:
    """Wide enough for the numbered row names."""
    return max((text_width(f"{i + 1} {u}", size) for i, u in enumerate(units)), default=0.0) + size


def _cell_width(cells: dict[tuple[str, str], UnitCell], size: float) -> float:
    """Wide enough for every cell's count and its cover line."""
    widths = [text_width("99/99", size)]
    widths += [text_width(c.cover, size * COVER) for c in cells.values() if c.cover]
    return max(widths) + 0.8 * size


def draw_grid(parent: NodePath, units: list[str], cells: dict[tuple[str, str], UnitCell],
              x: float, y: float, size: float) -> tuple[float, float, float, float]:
    """The unit-by-unit grid (rows observe, columns are targets, numbered as the rows) with
    each cell's text on its verdict colour; returns its pixel box."""
    width, height = grid_size(units, cells, size)
    root = parent.attach_new_node("matrix-grid")
    panel(root, x, y, width, height)
    row_h = size * ROW
    cell_w = _cell_width(cells, size)
    head = _head_width(units, size)
    left, top = x + 0.6 * size, y + 0.4 * size
    add_text(root, "Who sees whom", left, top + size, size)
    for j in range(len(units)):
        add_text(root, str(j + 1), left + head + cell_w * (j + 0.5), top + size * 2.6, size,
                 align="center")
    ink = (0.0, 0.0, 0.0, 1.0)
    for i, a in enumerate(units):
        cy = top + size * 3.2 + row_h * i
        add_text(root, f"{i + 1} {a}", left, cy + size * 1.5, size)
        for j, b in enumerate(units):
            cx = left + head + cell_w * j
            if a == b:
                add_text(root, "-", cx + cell_w / 2, cy + size * 1.5, size, align="center")
                continue
            cell = cells[(a, b)]
            panel(root, cx + 1, cy + 1, cell_w - 2, row_h - 2, palette.RULING[cell.status])
            add_text(root, f"{cell.seen}/{cell.size}", cx + cell_w / 2, cy + size * 1.05, size,
                     ink, align="center")
            if cell.cover:
                add_text(root, cell.cover, cx + cell_w / 2, cy + size * 2.1, size * COVER, ink,
                         align="center")
    ny = top + size * 3.2 + row_h * len(units) + size
    for note in GRID_NOTES:
        add_text(root, note, left, ny, size * 0.85, palette.darker(palette.TEXT, 0.8))
        ny += size * 1.45
    return x, y, x + width, y + height
