"""What wh40k6 tells the importers (`battlesight import`, docs/import.md): a BattleScribe
roster's stat names (WS BS S T W I A Ld Sv), bases by unit type, the 2" coherency its units
keep (wh40k6 §3), and the rules keys of a layout's traits (difficult ground, ruins: §6.1,
§5.2)."""

from __future__ import annotations

from battlesight.scenes.importers.common import SystemImport

_PROFILE = ("WS", "BS", "S", "T", "W", "I", "A", "Ld", "Sv")
#: a vehicle's (and walker's) line besides BS (wh40k6 §11): armour facings and hull points
_VEHICLE = ("Front", "Side", "Rear", "HP")

IMPORT = SystemImport(
    stats={**{key.lower(): key for key in _PROFILE}, "save": "Sv",
           **{key.lower(): key for key in _VEHICLE}},
    unit_profiles=("unit", "model", "vehicle", "walker"),
    bases={"monstrous": 60, "bike": 40, "jump": 32, "infantry": 25, "default": 25},
    unit_gap=1.0,  # under the 2" unit coherency
    traits={"difficult_ground": {"difficult": True}, "ruins": {"feature": "ruins"}},
    roster_games=r"warhammer 40,?000|warhammer 40k|\bwh40k\b|\b40k\b",
    roster_not=r"kill team|horus heresy|apocalypse|necromunda|shadow war|combat patrol"
               r"|boarding action",
    edition=6,
)
