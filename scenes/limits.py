"""Every size limit of battlesight's inputs, in one table.

Each limit bounds what one input can cost: the bytes read, the YAML nodes built, the points a
builder triangulates, the rays a command casts, the cells an analysis fills. Every reader and
checker takes its bound from here (``limits.MAX_...``), so the numbers cannot disagree, and
each refusal names the limit it hit.
"""

from __future__ import annotations

import math
from typing import Any

MiB = 1024 * 1024

# -- files -----------------------------------------------------------------------------------
#: bytes of one YAML file (scene or actions file); the reader reads at most one byte more
MAX_YAML_BYTES = 16 * MiB
#: YAML values of one document once every alias is expanded (an alias counts as a copy of
#: what it names, so a "billion laughs" document is refused while it is still being read);
#: a large scene holds about 20,000, and 200,000 take about 1.5 s to read
MAX_YAML_NODES = 200_000
#: nesting of YAML mappings and lists (a scene needs about 8)
MAX_YAML_DEPTH = 64
#: characters of one YAML string
MAX_YAML_STRING = 1 * MiB
#: whole numbers beyond this size are refused (|n| < 2**63: fits every integer type)
MAX_INT = 2**63 - 1

# -- scene contents --------------------------------------------------------------------------
#: corners of one polygon outline (forest, area, hill, ...)
MAX_POLYGON_POINTS = 1000
#: trees in one forest (``trunks``: a count or a list of points)
MAX_TRUNKS = 1000
#: longest table side, inches (a 72" x 48" table is usual; 1000" is about 25 metres)
MAX_TABLE_SIDE = 1000.0
#: largest absolute coordinate, inches, of any point in a scene
MAX_COORDINATE = 10_000.0
#: terrain pieces and models in one scene
MAX_TERRAIN_PIECES = 5000
MAX_MODELS = 5000

# -- command work ----------------------------------------------------------------------------
#: silhouette samples per sight line (`shoot --samples`)
MIN_SAMPLES = 16
MAX_SAMPLES = 100_000
#: cells of one analysis or heatmap grid (table area / grid cell area)
MAX_GRID_CELLS = 1_000_000
#: analysis grid cell size, inches
MIN_GRID = 0.1
MAX_GRID = 12.0
#: frames of one turntable
MAX_TURNTABLE_FRAMES = 720
#: pixels of all a turntable's frames together (they are held in memory: 3 bytes each)
MAX_TURNTABLE_PIXELS = 300_000_000
#: frames of one `replay` (streamed to the encoder: this bounds time, not memory; 10 min at 30 fps)
MAX_REPLAY_FRAMES = 18_000
#: pixels a side of a rendered picture
MIN_IMAGE_SIDE = 16
MAX_IMAGE_SIDE = 8192
#: layouts of one `generate --count` or `analyze --bench` batch
MAX_LAYOUTS = 100_000
#: seeds: 0 .. 2**32 - 1 (every random generator takes these)
MAX_SEED = 2**32 - 1
#: Dask workers of a local cluster
MAX_WORKERS = 256

# -- messages --------------------------------------------------------------------------------
#: characters of one error line; longer lines are cut and end in "..."
MAX_MESSAGE = 400
#: characters of a value shown inside a message
MAX_SHOWN = 60


def shorten(text: str, limit: int = MAX_MESSAGE) -> str:
    """text on one line, cut to ``limit`` characters (ending in '...' when cut)."""
    line = " ".join(str(text).splitlines())
    return line if len(line) <= limit else line[:max(limit - 3, 0)] + "..."


def shown(value: Any, limit: int = MAX_SHOWN) -> str:
    """repr(value) for a message, cut to ``limit`` characters.

    Containers are walked only until ``limit`` characters are written, so a value built from
    nested aliases costs no more to show than a short one.
    """
    parts: list[str] = []
    size = 0

    def emit(text: str) -> None:
        nonlocal size
        parts.append(text)
        size += len(text)

    def walk(v: Any) -> None:
        if size > limit:
            return
        if isinstance(v, dict):
            emit("{")
            for i, (k, x) in enumerate(v.items()):
                if size > limit:
                    break
                emit(", " if i else "")
                walk(k)
                emit(": ")
                walk(x)
            emit("}")
        elif isinstance(v, (list, tuple)):
            emit("[")
            for i, x in enumerate(v):
                if size > limit:
                    break
                emit(", " if i else "")
                walk(x)
            emit("]")
        elif isinstance(v, str):
            emit(repr(v[:limit + 1]))
        else:
            emit(repr(v))

    walk(value)
    return shorten("".join(parts), limit)


def is_finite_number(value: Any) -> bool:
    """True for an int or float (not bool) that is finite and within the limits above."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        return abs(value) <= MAX_INT
    return math.isfinite(value)
