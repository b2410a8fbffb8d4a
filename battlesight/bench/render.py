"""The picture rows of `battlesight bench`: whole `battlesight render` commands (a fresh process
each: imports, scene load, drawing, PNG) of the bundled city table's 1920x1080 overview in the
lit look (shadow map, 4x multisampling, occlusion, mats) against the flat look, best of a few
runs, so the figure and its reference are measured in the same minute on the same machine.
Each command's CPU seconds (user + system, every thread) are given too: on a machine others
share, they say what the command costs where wall time only says how busy the machine was.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from battlesight.bench.timing import command_env
from battlesight.scenes import EXAMPLES_DIR

TARGET_S = 1.5  # issue 15: a 1920x1080 lit overview with shadows and AA, whole command
SCENE = EXAMPLES_DIR / "wh40k6_city_ruins.yaml"
_WROTE = re.compile(r"\((\d+)x(\d+), (\w+), ([0-9.]+) s\)")


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _command(scene: Path, out: Path, size: tuple[int, int], flat: bool
             ) -> tuple[float, float, str, float]:
    """(whole seconds, drawing seconds the command reports, back end, CPU seconds) of one
    render command."""
    args = [sys.executable, "-m", "battlesight", "render", str(scene), "--out", str(out),
            "--size", f"{size[0]}x{size[1]}"] + (["--flat"] if flat else [])
    env = command_env()  # compiles the package on first use: before the clock
    start, cpu = time.perf_counter(), _cpu_children()
    result = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    whole, cpu = time.perf_counter() - start, _cpu_children() - cpu
    if result.returncode != 0:
        raise RuntimeError(f"render failed: {result.stderr.strip()[-300:]}")
    match = _WROTE.search(result.stdout)
    return whole, float(match.group(4)) if match else float("nan"), (
        match.group(3) if match else "?"), cpu


def render_bench(scene: Path = SCENE, size: tuple[int, int] = (1920, 1080),
                 repeat: int = 3) -> dict:
    """Best-of-repeat whole-command and drawing seconds of the lit and the flat overview."""
    figures: dict = {"scene": scene.name, "size": list(size), "target_s": TARGET_S}
    with tempfile.TemporaryDirectory() as tmp:
        for look, flat in (("lit", False), ("flat", True)):
            runs = [_command(scene, Path(tmp) / f"{look}.png", size, flat)
                    for _ in range(repeat)]
            best = min(runs)
            figures[f"{look}_command_s"] = round(best[0], 3)
            figures[f"{look}_draw_s"] = round(min(r[1] for r in runs), 3)
            figures[f"{look}_backend"] = best[2]
            figures[f"{look}_cpu_s"] = round(min(r[3] for r in runs), 3)
    figures["lit_vs_flat"] = round(figures["lit_command_s"] / figures["flat_command_s"], 3)
    return figures


def format_render_bench(f: dict) -> str:
    """The rows as text."""
    w, h = f["size"]
    return "\n".join([
        f"  render {f['scene']} overview {w}x{h}, whole command (best of runs):",
        f"    lit (shadows, 4x AA, {f['lit_backend']})      {f['lit_command_s']:8.2f} s"
        f"   (drawing {f['lit_draw_s']:.2f} s; target {f['target_s']:g} s)",
        f"    flat (reference, {f['flat_backend']})          {f['flat_command_s']:8.2f} s"
        f"   (drawing {f['flat_draw_s']:.2f} s; lit {f['lit_vs_flat']:.2f}x flat)",
        f"    CPU seconds per command: lit {f['lit_cpu_s']:.2f}, flat {f['flat_cpu_s']:.2f}",
    ])
