"""What whfb6 tells the importers (`battlesight import`, docs/import.md): a BattleScribe
roster's characteristic names (M WS BS S T W I A Ld Sv; BSData prints Move as `Mv`), bases by
troop type, and ranks that stand base to base."""

from __future__ import annotations

from battlesight.scenes.importers.common import SystemImport

from .profile import STAT_KEYS

IMPORT = SystemImport(
    stats={**{key.lower(): key for key in STAT_KEYS}, "mv": "M", "move": "M", "save": "Sv"},
    unit_profiles=("profile", "model", "unit", "troop"),
    bases={"monster": 50, "cavalry": 25, "infantry": 20, "default": 20},
    unit_gap=0.0,  # ranked units stand base to base
    roster_games=r"warhammer fantasy|\bwhfb\b|warhammer: fantasy",
    roster_not=r"old world|age of sigmar",
    edition=6,
)
