"""Generated tables: a random but valid scene of a given size, for benchmarks and designers."""

from __future__ import annotations

import numpy as np

from .loader import scene_from_dict
from .model import Scene

_KINDS = ("ruin", "wall", "box", "hill", "forest", "crater")


def generate_table(
    seed: int = 0,
    table: tuple[float, float] = (72.0, 48.0),
    pieces: int = 40,
    models: int = 100,
    ruleset: str = "wh40k6",
    zone_depth: float = 12.0,
) -> Scene:
    """A table with `pieces` terrain pieces spread over it (no two overlapping) and `models`
    cylinder models, half per player, in the two long-edge deployment zones, clear of terrain.
    Pieces carry geometry only: each system gives them its own cover by type (so the table
    is valid for every ruleset; 40k's defaults are the 4+ and 5+ it once wrote).
    """
    rng = np.random.default_rng(seed)
    width, depth = table
    placed: list[tuple[float, float, float]] = []  # (x, y, radius) of each piece
    terrain = []
    for i in range(pieces):
        kind = _KINDS[i % len(_KINDS)]
        for _ in range(500):
            piece, radius = _random_piece(rng, kind, f"{kind}-{i}", width, depth)
            x, y = piece.pop("_centre")
            if all(np.hypot(x - px, y - py) > radius + pr + 0.3 for px, py, pr in placed):
                placed.append((x, y, radius))
                terrain.append(piece)
                break
    model_list = []
    spots: list[tuple[float, float]] = []
    for k in range(models):
        player = 1 + k % 2
        for _ in range(2000):
            x = rng.uniform(1.0, width - 1.0)
            y = rng.uniform(1.0, zone_depth - 1.0)
            if player == 2:
                y = depth - y
            free = all(np.hypot(x - px, y - py) > pr + 0.7 for px, py, pr in placed)
            if free and all(np.hypot(x - sx, y - sy) > 1.3 for sx, sy in spots):
                break
        else:
            raise ValueError(f"no room for {models} models clear of {pieces} pieces (seed {seed})")
        spots.append((x, y))
        model_list.append({
            "id": f"p{player}-m{k // 2}", "unit": f"p{player}-u{k // 20}", "player": player,
            "at": [round(x, 3), round(y, 3)], "facing": 0 if player == 1 else 180,
            "base": 32, "height": 1.6, "shape": "cylinder",
        })
    data = {
        "format": 1, "name": f"generated table (seed {seed})", "ruleset": ruleset,
        "table": [width, depth], "terrain": terrain, "models": model_list,
        "deployment": {
            1: [[0, 0], [width, 0], [width, zone_depth], [0, zone_depth]],
            2: [[0, depth - zone_depth], [width, depth - zone_depth], [width, depth], [0, depth]],
        },
    }
    return scene_from_dict(data, file=f"<generated seed {seed}>")


def _random_piece(rng, kind: str, piece_id: str, width: float, depth: float):
    """A piece dict (with a private '_centre') and its bounding radius in plan."""
    x = float(rng.uniform(4.0, width - 4.0))
    y = float(rng.uniform(6.0, depth - 6.0))
    rot = float(rng.choice([0, 15, 30, 45, 60, 90]))
    r = lambda lo, hi: round(float(rng.uniform(lo, hi)), 2)  # noqa: E731
    if kind == "ruin":
        sx, sy = r(4, 7), r(3, 5)
        height = r(5, 8)
        piece = {"type": "ruin", "at": [x, y], "size": [sx, sy], "rotation": rot,
                 "height": height, "floors": [3.0], "walls": ["north", "west"], "windows": True}
        radius = np.hypot(sx, sy) / 2
    elif kind == "wall":
        length = r(3, 7)
        a = np.radians(rot)
        dx, dy = np.cos(a) * length / 2, np.sin(a) * length / 2
        piece = {"type": "wall", "from": [round(x - dx, 3), round(y - dy, 3)],
                 "to": [round(x + dx, 3), round(y + dy, 3)], "height": r(1, 3),
                 "thickness": 0.5}
        radius = length / 2 + 0.3
    elif kind == "box":
        sx, sy = r(2, 5), r(2, 5)
        piece = {"type": "box", "at": [x, y], "size": [sx, sy, r(2, 6)], "rotation": rot}
        radius = np.hypot(sx, sy) / 2
    elif kind == "hill":
        sx, sy = r(4, 7), r(3, 5)
        piece = {"type": "hill", "at": [x, y], "size": [sx, sy], "height": r(1, 2.5),
                 "rotation": rot}
        radius = max(sx, sy) / 2
    elif kind == "forest":
        radius = r(2, 3.5)
        angles = np.sort(rng.uniform(0, 2 * np.pi, 7))
        polygon = [[round(x + radius * np.cos(t) * rng.uniform(0.7, 1.0), 3),
                    round(y + radius * np.sin(t) * rng.uniform(0.7, 1.0), 3)] for t in angles]
        piece = {"type": "forest", "polygon": polygon, "height": r(4, 6)}
    else:
        radius = r(1.5, 3)
        piece = {"type": "crater", "at": [x, y], "radius": radius, "depth": 0.5}
    piece = {"id": piece_id, **piece, "_centre": (x, y)}
    return piece, float(radius)
