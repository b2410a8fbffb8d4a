"""Terrain as 40k sees it: cover values, area / difficult / dangerous terrain (wh40k6 §5.2,
§6.1, §6.2), read from a piece's scene type and rules data.

A piece's data may say `cover: 4` (or "4+"), `area: true`, `difficult: true`,
`dangerous: true`, `impassable: true`, and `feature:` one of the catalogue names below (the
digest's §5.2 table) to pick the defaults. Explicit keys always win (brief: `cover:` overrides).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from battlesight.geometry import planar

from .ambiguities import A6, A7, A8

if TYPE_CHECKING:
    from battlesight.geometry.placed import TerrainEntry
    from battlesight.rulesets.core.board import Board
    from battlesight.rulesets.core.measure import Outline

RULE_COVER_TABLE = "wh40k6 §5.2"
RULE_AREA = "wh40k6 §5.4"
RULE_FOREST = "wh40k6 §5.5"
RULE_CATEGORIES = "wh40k6 §6.1"

#: feature name -> cover save (wh40k6 §5.2 / §6.2; A6 hedge 5+, A7 fortifications 3+)
FEATURE_COVER = {
    "razor wire": 6, "forest": 5, "wood": 5, "jungle": 5, "area terrain": 5, "crater": 5,
    "ruin": 4, "ruins": 4, "derelict fortification": 4, "trench": 4, "trenches": 4,
    "fortification": 3, "hedge": 5, "building": 4, "wreck": 5, "vehicle wreck": 5,
    "barricade": 4, "barricades": 4, "wall": 4, "defence line": 4, "aegis defence line": 4,
    "ammo dump": 5, "comms relay": 5, "fuel dump": 5, "gun emplacement": 4,
    "imperial statue": 3, "statue": 3, "ridge line": 4, "hill": 4, "hill crest": 4,
    "chaos shrine": 4, "tank traps": 4, "scrub": 5, "wreckage": 4, "rubble": 4,
    "ironbark forest": 3, "industrial waste": 5, "river": None, "open": None,
}
#: scene type -> cover when the piece names no feature and gives no `cover:`
TYPE_COVER = {"wall": 4, "box": 4, "ruin": 4, "hill": 4, "forest": 5, "crater": 5, "mesh": 5,
              "area": 5}
AREA_FEATURES = {"forest", "wood", "jungle", "crater", "wreckage", "rubble", "area terrain",
                 "ironbark forest", "industrial waste"}
DIFFICULT_FEATURES = AREA_FEATURES | {
    "ruin", "ruins", "barricade", "barricades", "wall", "defence line", "aegis defence line",
    "ammo dump", "comms relay", "fuel dump", "gun emplacement", "imperial statue", "statue",
    "chaos shrine", "trench", "trenches", "scrub", "razor wire", "wreck", "vehicle wreck",
    "river", "building",
}
DANGEROUS_FEATURES = {"razor wire", "wreck", "vehicle wreck"}
FOREST_FEATURES = {"forest", "wood", "jungle", "ironbark forest"}


def _feature(entry: TerrainEntry) -> str:
    return str(entry.data.get("feature", entry.kind)).strip().lower()


def parse_cover(raw: Any) -> int | None:
    """A `cover:` value as the save it gives: 4 or '4+' -> 4; none, '-' or false -> None.
    ValueError for anything else (the scene check reports it with this message)."""
    if raw is None or raw is False or (isinstance(raw, str) and raw.strip().lower()
                                       in ("-", "none", "")):
        return None
    text = str(raw).strip().rstrip("+") if isinstance(raw, (int, str)) else ""
    if isinstance(raw, bool) or not text.isdigit() or not 2 <= int(text) <= 6:
        raise ValueError("must be a cover save from 2 to 6 (4 for a 4+ save), or none")
    return int(text)


def cover_value(entry: TerrainEntry) -> int | None:
    """Cover save this piece gives (None: none), `cover:` first, then feature, then type."""
    if "cover" in entry.data:
        return parse_cover(entry.data["cover"])
    feature = _feature(entry)
    if feature == "hedge" and A6.means("6+"):
        return 6
    if feature == "fortification" and A7.means("4+"):
        return 4
    if feature in FEATURE_COVER:
        return FEATURE_COVER[feature]
    return TYPE_COVER.get(entry.kind, 5)


def is_forest(entry: TerrainEntry) -> bool:
    return entry.kind == "forest" or _feature(entry) in FOREST_FEATURES


def is_area(entry: TerrainEntry) -> bool:
    """Area terrain (§5.4): forests, craters, rubble, `area` pieces; a ruin's base unless
    `based: false`."""
    if "area" in entry.data:
        return bool(entry.data["area"])
    if entry.kind == "ruin":
        return bool(entry.data.get("based", True))
    return entry.kind in ("forest", "crater", "area") or _feature(entry) in AREA_FEATURES


def is_difficult(entry: TerrainEntry) -> bool:
    """Difficult terrain (§6.1): area terrain, ruins, forests, most battlefield debris."""
    if "difficult" in entry.data:
        return bool(entry.data["difficult"])
    if is_dangerous(entry) or is_area(entry):
        return True
    return entry.kind in ("ruin", "forest", "crater") or _feature(entry) in DIFFICULT_FEATURES


def is_dangerous(entry: TerrainEntry) -> bool:
    if "dangerous" in entry.data:
        return bool(entry.data["dangerous"])
    return _feature(entry) in DANGEROUS_FEATURES


def is_impassable(entry: TerrainEntry) -> bool:
    if "impassable" in entry.data:
        return bool(entry.data["impassable"])
    return entry.kind == "box" and not entry.data.get("difficult", False)


def overlaps(outline: Outline, footprint: planar.PolygonLike) -> bool:
    """Any part of the base inside the footprint (A9); footprint: (k, 2) or a shapely shape
    (`TerrainGeometry.shape`)."""
    return planar.meet(outline.shape, footprint)


def pieces_in(board: Board, model_id: str, test: Callable[[TerrainEntry], bool]
              ) -> list[tuple[str, TerrainEntry]]:
    """(piece name, the shape read for it) of each piece of that kind the model's base
    overlaps (A9): a grouped piece is one, entered anywhere in its outline, and read by its
    first shape that passes `test` (`Groups.first`)."""
    out = []
    for name in board.pieces_in(model_id):
        entry = board.groups.first(name, test)
        if entry is not None:
            out.append((name, entry))
    return out


def area_cover(board: Board, model_id: str) -> tuple[int, str, str] | None:
    """(value, piece name, rule) of the best area terrain the model is in (§5.4, §5.5, A8):
    the piece's own value, 5+ when it has none; a based ruin only counts on its ground floor.
    A group is area terrain when one of its shapes is, with that shape's value."""
    best: tuple[int, str, str] | None = None
    floor = board.floor_of(model_id)
    for name, entry in pieces_in(board, model_id, is_area):
        if entry.kind == "ruin" and floor:
            continue
        value = 5 if A8.means("always-5+") else cover_value(entry) or 5
        rule = RULE_FOREST if is_forest(entry) else RULE_AREA
        if best is None or value < best[0]:
            best = (value, name, rule)
    return best


def difficult_pieces(board: Board, model_id: str) -> list[str]:
    return [name for name, _ in pieces_in(board, model_id, is_difficult)]
