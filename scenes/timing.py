"""Best-of timing for the benchmark rows (`battlesight bench`): each figure is the fastest of a
few runs, so a busy moment on a shared machine does not count against the code."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of(fn: Callable[[], object], repeat: int = 3) -> float:
    """The fewest seconds one call of fn took, over repeat calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)
