"""Best-of timing for the benchmark rows (`battlesight bench`): each figure is the fastest of a
few runs, so a busy moment on a shared machine does not count against the code."""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

#: where the bench's commands keep their compiled modules (made on first use, one per run)
_PYCACHE: list[str] = []


def best_of(fn: Callable[[], object], repeat: int = 3,
            clock: Callable[[], float] = time.perf_counter) -> float:
    """The fewest seconds one call of fn took, over repeat calls (wall time; clock=
    time.process_time: this process's CPU time, what a loaded machine's queue does not add)."""
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times)


def command_env() -> dict[str, str]:
    """The environment the bench runs whole commands in: as an installed wheel runs, with its
    modules' bytecode compiled once and kept (pip compiles it at install), not recompiled by
    every command where the shell sets PYTHONDONTWRITEBYTECODE (about 0.2 s a command here).
    The bytecode goes to a temporary folder of this run, never into the source tree; the
    package is compiled into it on first use, so no timed command pays for compiling."""
    first = not _PYCACHE
    if first:
        _PYCACHE.append(tempfile.mkdtemp(prefix="battlesight-bench-pyc-"))
        atexit.register(shutil.rmtree, _PYCACHE[0], True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = _PYCACHE[0]
    if first:
        _compile_package(env)
    return env


def _compile_package(env: dict[str, str]) -> None:
    """Compile every module of the package (its subpackages' folders, wherever installed)."""
    from importlib.util import find_spec

    names = ("battlesight", *(f"battlesight.{n}" for n in ("geometry", "rulesets", "scenes",
                                                          "viewer")))
    folders = sorted({os.path.dirname(find_spec(n).origin) for n in names})
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
