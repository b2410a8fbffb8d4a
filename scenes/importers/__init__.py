"""Importers: other tools' files as battlesight scenes (`battlesight import`), one module per
format, registered in FORMATS. Each reads a file into scene data (docs/import.md says what it
imports and what it leaves out); the command runs the validate gate before writing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from . import battlescribe, deploy_helper, godot40k, tts
from .common import Imported, ImportOptions

__all__ = ["FORMATS", "ROSTERS", "Imported", "ImportOptions"]

Reader = Callable[[Path, ImportOptions], Imported]

#: format name -> its reader
FORMATS: dict[str, Reader] = {
    godot40k.NAME: godot40k.read,
    deploy_helper.NAME: deploy_helper.read,
    tts.NAME: tts.read,
    battlescribe.NAME: battlescribe.read,
}
#: formats that add units to an existing scene (--onto) rather than make a new one
ROSTERS = frozenset({battlescribe.NAME})
