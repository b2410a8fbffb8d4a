"""Importers: other tools' files as battlesight scenes (`battlesight import`), one module per
format, registered in FORMATS. Each reads a file into scene data (docs/import.md says what it
imports and what it leaves out); the command runs the validate gate before writing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import battlescribe, deploy_helper, godot40k, tts
from .common import Imported, ImportOptions, SystemImport

__all__ = ["DEFAULT_RULESETS", "FORMATS", "ROSTERS", "Imported", "ImportOptions",
           "SystemImport"]

Reader = Callable[[Path, ImportOptions], Imported]

#: format name -> its reader
FORMATS: dict[str, Reader] = {
    godot40k.NAME: godot40k.read,
    deploy_helper.NAME: deploy_helper.read,
    tts.NAME: tts.read,
    battlescribe.NAME: battlescribe.read,
}
#: the system a layout or save is read for when --ruleset names none (a roster: its --onto
#: scene's)
DEFAULT_RULESETS: dict[str, str] = {
    godot40k.NAME: godot40k.DEFAULT_RULESET,
    deploy_helper.NAME: deploy_helper.DEFAULT_RULESET,
    tts.NAME: tts.DEFAULT_RULESET,
}
#: formats that add units to an existing scene (--onto) rather than make a new one
ROSTERS = frozenset({battlescribe.NAME})
