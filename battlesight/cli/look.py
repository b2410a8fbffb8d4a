"""The look options of `render` (and the settings they become): --mat, --no-inch-grid,
--army P=COLOUR and --flat. Panda3D is not imported here (the parser stays light)."""

from __future__ import annotations

from battlesight.cli.errors import UsageError
from battlesight.scenes.limits import shown

MAT_CHOICES = ("auto", "grass", "desert", "city", "plain")  # ("auto", *textures.MATS)


def add_look_options(parser) -> None:
    """Add the look options to a command's parser."""
    parser.add_argument("--mat", choices=MAT_CHOICES, default="auto",
                        help="table mat texture (default auto: city under a wh40k6 table's "
                             "ruins or buildings, else grass)")
    parser.add_argument("--no-inch-grid", action="store_true",
                        help="leave the inch grid off the table mat")
    parser.add_argument("--army", action="append", default=[], metavar="P=COLOUR",
                        help="player P's army colour: a name (red, blue, green, ...) or "
                             "#rrggbb; repeat for each player")
    parser.add_argument("--flat", action="store_true",
                        help="the flat fixed-function look (no shadows, textures or "
                             "anti-aliasing), as the software renderer draws")


def parse_armies(values: list[str]) -> dict[int, tuple[float, float, float, float]]:
    """['1=red', '2=#2050e0'] -> {1: rgba, 2: rgba}; UsageError for a bad entry."""
    from battlesight.viewer.palette import parse_colour

    armies = {}
    for value in values:
        player, sep, colour = str(value).partition("=")
        if not sep or not player.strip().isdigit() or not 1 <= int(player) <= 99:
            raise UsageError(f"bad --army {shown(value)}; write PLAYER=COLOUR, e.g. 1=red")
        try:
            armies[int(player)] = parse_colour(colour)
        except ValueError as error:
            raise UsageError(f"--army {shown(value)}: {error}") from None
    return armies


def look_settings(args) -> dict:
    """RenderSettings keywords of the parsed look options."""
    return {"lit": not args.flat, "mat": args.mat, "grid": not args.no_inch_grid,
            "armies": parse_armies(args.army)}
