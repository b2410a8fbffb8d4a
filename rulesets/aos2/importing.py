"""What aos2 tells the importers (`battlesight import`, docs/import.md): a BattleScribe
roster's warscroll names (`Unit` profile: Move, Wounds, Bravery, Save; weapons as warscroll
entries, `warscroll.py`), bases and the 1" coherency its units keep (aos2 §3.2)."""

from __future__ import annotations

from battlesight.scenes.importers.common import SystemImport

from .warscroll import STAT_KEYS

IMPORT = SystemImport(
    stats={key: key for key in STAT_KEYS},
    unit_profiles=("unit", "model", "warscroll"),
    weapon_keys={"range": "range", "attacks": "attacks", "to hit": "to_hit",
                 "to wound": "to_wound", "rend": "rend", "damage": "damage"},
    keywords=True,
    bases={"monster": 100, "cavalry": 60, "hero": 40, "default": 32},
    unit_gap=0.5,  # under the 1" unit coherency
    roster_games=r"age of sigmar|\baos\b",
    roster_not=r"warcry|underworlds|kill team",
    edition=2,
)
