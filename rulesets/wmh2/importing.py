"""What wmh2 tells the importers (`battlesight import`, docs/import.md): the rules keys of a
layout's traits (difficult ground is rough terrain, wmh2 §7). It reads no rosters."""

from __future__ import annotations

from battlesight.scenes.importers.common import SystemImport

IMPORT = SystemImport(traits={"difficult_ground": {"rough": True}})
