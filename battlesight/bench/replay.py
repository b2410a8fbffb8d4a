"""The replay row of `battlesight bench` (issue 15): the whole `battlesight replay` command of
the bundled two-turn 40k game (docs/examples/wh40k6_actions.yaml) at 1280x720 and 30 fps, in
the lit look beside the flat one, each a fresh process (imports, scene load, every frame drawn
and encoded to H.264), measured in the same minute on the same machine.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from battlesight.bench.timing import command_env
from battlesight.scenes import EXAMPLES_DIR

from .render import _cpu_children

TARGET_S = 60.0  # issue 15: a two-turn replay of the bundled 40k game, 1280x720, 30 fps
ROOT = Path(__file__).resolve().parents[2]  # the source checkout (its docs/)
SCENE = EXAMPLES_DIR / "wh40k6_city_ruins.yaml"
ACTIONS = ROOT / "docs" / "examples" / "wh40k6_actions.yaml"
_WROTE = re.compile(r"\((\d+) frames, ([0-9.]+) s at")


def _battlesight(*args: str) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "battlesight", *args], capture_output=True,
                            text=True, timeout=900, env=command_env())
    if result.returncode != 0:
        raise RuntimeError(f"battlesight {args[0]} failed: {result.stderr.strip()[-300:]}")
    return result


def replay_bench(size: str = "1280x720", fps: float = 30.0) -> dict:
    """Whole-command and CPU seconds of the lit and the flat replay of the bundled game."""
    figures: dict = {"scene": SCENE.name, "size": size, "fps": fps, "target_s": TARGET_S}
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "log.json"
        _battlesight("play", str(SCENE), "--actions", str(ACTIONS), "--log", str(log))
        for look, extra in (("lit", []), ("flat", ["--flat"])):
            start, cpu = time.perf_counter(), _cpu_children()
            result = _battlesight("replay", str(SCENE), "--log", str(log), "--out",
                                  str(Path(tmp) / f"{look}.mp4"), "--size", size, "--fps",
                                  f"{fps:g}", *extra)
            figures[f"{look}_command_s"] = round(time.perf_counter() - start, 2)
            figures[f"{look}_cpu_s"] = round(_cpu_children() - cpu, 2)
            match = _WROTE.search(result.stdout)
            figures["frames"] = int(match.group(1)) if match else None
            figures["video_s"] = float(match.group(2)) if match else None
    figures["lit_vs_flat"] = round(figures["lit_command_s"] / figures["flat_command_s"], 3)
    return figures


def format_replay_bench(f: dict) -> str:
    """The rows as text."""
    per = 1000 * f["lit_command_s"] / f["frames"] if f.get("frames") else float("nan")
    return "\n".join([
        f"  replay {f['scene']} two-turn game, {f['size']} at {f['fps']:g} fps, "
        f"{f['frames']} frames ({f['video_s']:g} s of video), whole command:",
        f"    lit (shadows, 2x AA)                 {f['lit_command_s']:8.2f} s"
        f"   ({per:.0f} ms a frame; target {f['target_s']:g} s)",
        f"    flat (reference)                     {f['flat_command_s']:8.2f} s"
        f"   (lit {f['lit_vs_flat']:.2f}x flat)",
        f"    CPU seconds per command: lit {f['lit_cpu_s']:.2f}, flat {f['flat_cpu_s']:.2f}",
    ])
