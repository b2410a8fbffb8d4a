"""Colours of everything the viewer draws (RGBA, 0..1), in one place so legends can name them.

Players: 1 red, 2 blue, 3 yellow, 4 purple (then grey). Terrain by scene type. Sight-line
rulings: clear green, cover amber, not visible magenta; these three are drawn unlit so they reach
the image exactly as written here (tests look for them pixel by pixel).
"""

from __future__ import annotations

Colour = tuple[float, float, float, float]

BACKGROUND: Colour = (0.11, 0.12, 0.15, 1.0)
TABLE: Colour = (0.30, 0.36, 0.29, 1.0)
TABLE_EDGE: Colour = (0.22, 0.18, 0.14, 1.0)
GRID_INCH: Colour = (0.36, 0.42, 0.35, 1.0)
GRID_FOOT: Colour = (0.50, 0.56, 0.48, 1.0)  # every 6"

PLAYERS: dict[int, Colour] = {
    1: (0.86, 0.18, 0.14, 1.0),  # red
    2: (0.18, 0.38, 0.90, 1.0),  # blue
    3: (0.92, 0.80, 0.16, 1.0),  # yellow
    4: (0.62, 0.28, 0.80, 1.0),  # purple
}
PLAYER_NAMES = {1: "red", 2: "blue", 3: "yellow", 4: "purple"}
NEUTRAL: Colour = (0.70, 0.70, 0.70, 1.0)

TERRAIN: dict[str, Colour] = {
    "ruin": (0.62, 0.62, 0.64, 1.0),  # stone grey
    "wall": (0.55, 0.36, 0.20, 1.0),  # brown
    "box": (0.52, 0.50, 0.46, 1.0),  # concrete
    "hill": (0.47, 0.50, 0.26, 1.0),  # green-brown
    "forest": (0.42, 0.28, 0.14, 1.0),  # trunks
    "crater": (0.20, 0.17, 0.15, 1.0),  # dark
    "mesh": (0.72, 0.66, 0.54, 1.0),  # sand
    "area": (0.46, 0.42, 0.33, 1.0),  # rubble (the ground decal of an area piece)
}
FOREST_CANOPY: Colour = (0.16, 0.55, 0.18, 0.40)  # translucent green (area volume)
AREA: Colour = (0.55, 0.55, 0.30, 0.30)  # other area volumes
OTHER_TERRAIN: Colour = (0.60, 0.58, 0.52, 1.0)

RULING: dict[str, Colour] = {
    "clear": (0.10, 0.95, 0.25, 1.0),  # green
    "cover": (1.00, 0.70, 0.05, 1.0),  # amber
    "hidden": (0.95, 0.10, 0.85, 1.0),  # magenta
}
RULING_NAMES = {"clear": "green", "cover": "amber", "hidden": "magenta"}

SAMPLE_SEEN: Colour = (0.85, 1.00, 0.85, 1.0)
SAMPLE_HIDDEN: Colour = (0.25, 0.05, 0.25, 1.0)
RULER: Colour = (1.00, 1.00, 1.00, 1.0)
SELECTED: Colour = (1.00, 1.00, 0.55, 1.0)
TEXT: Colour = (0.95, 0.95, 0.92, 1.0)
PANEL: Colour = (0.0, 0.0, 0.0, 0.62)


def player_colour(player: int | None) -> Colour:
    """The colour of a player's models (grey for None or players past 4)."""
    return PLAYERS.get(player, NEUTRAL) if player is not None else NEUTRAL


def darker(colour: Colour, factor: float = 0.55) -> Colour:
    """The colour scaled towards black, alpha kept."""
    r, g, b, a = colour
    return (r * factor, g * factor, b * factor, a)


def heat_colours(values):
    """(..., 4) float RGBA for values in [0, 1]: blue (0) through yellow to red (1); NaN clear."""
    import numpy as np

    v = np.clip(np.nan_to_num(np.asarray(values, dtype=np.float64), nan=0.0), 0.0, 1.0)
    stops = np.array([0.0, 0.35, 0.65, 1.0])
    cols = np.array([[0.15, 0.25, 0.85], [0.20, 0.80, 0.80], [0.95, 0.90, 0.20],
                     [0.90, 0.15, 0.10]])
    rgb = np.stack([np.interp(v, stops, cols[:, i]) for i in range(3)], axis=-1)
    alpha = np.where(np.isnan(np.asarray(values, dtype=np.float64)), 0.0, 0.62)
    return np.concatenate([rgb, alpha[..., None]], axis=-1)


NAMED: dict[str, Colour] = {
    **{name: PLAYERS[p] for p, name in PLAYER_NAMES.items()},
    "green": (0.20, 0.62, 0.22, 1.0), "orange": (0.95, 0.50, 0.10, 1.0),
    "white": (0.92, 0.92, 0.90, 1.0), "black": (0.12, 0.12, 0.13, 1.0),
    "grey": NEUTRAL, "gray": NEUTRAL, "brown": (0.50, 0.32, 0.18, 1.0),
    "cyan": (0.15, 0.75, 0.85, 1.0), "pink": (0.92, 0.45, 0.65, 1.0),
}


def parse_colour(text: str) -> Colour:
    """A colour from a name (`NAMED`) or #rgb / #rrggbb; ValueError otherwise."""
    word = str(text).strip().lower()
    if word in NAMED:
        return NAMED[word]
    digits = word[1:] if word.startswith("#") else ""
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    try:
        if len(digits) != 6:
            raise ValueError
        r, g, b = (int(digits[i:i + 2], 16) / 255.0 for i in (0, 2, 4))
    except ValueError:
        raise ValueError(f"bad colour {text!r}: use a name ({', '.join(sorted(NAMED))}) "
                         "or #rrggbb") from None
    return (r, g, b, 1.0)

MOVE_LEGAL: Colour = (0.20, 0.85, 1.00, 1.0)  # cyan: a drag the rules allow
MOVE_ILLEGAL: Colour = (1.00, 0.22, 0.10, 1.0)  # red-orange: a drag the rules refuse
RANGE_RING: Colour = (0.95, 0.95, 0.70, 1.0)  # weapon ranges of the selected unit
MOVE_RING: Colour = (0.20, 0.85, 1.00, 1.0)  # its move allowance
