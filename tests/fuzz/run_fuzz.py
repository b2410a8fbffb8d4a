"""The long fuzz run: `python tests/fuzz/run_fuzz.py --minutes N [--seed S] [--report DIR]`.

Mutates the bundled scenes and actions files (see ``mutate``) and runs every command on each
input, in turn, for N minutes; prints, per command, the inputs tried and the counts of exits
0 and 2, tracebacks, hangs (runs past --timeout) and half-written files (temporary files left
behind, outputs written by a failed run). Each failing input is saved under --report with its
traceback, so it can be replayed. Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `tests.fuzz` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fuzz.mutate import COMMANDS, Outcome, fuzz_once  # noqa: E402

COLUMNS = ("tried", "exit 0", "exit 2", "tracebacks", "hangs", "half-written", "other exit")


def tally(counts: Counter, outcome: Outcome) -> None:
    counts["tried"] += 1
    if outcome.crashed:
        counts["tracebacks"] += 1
    elif outcome.hung:
        counts["hangs"] += 1
    elif outcome.code == 0:
        counts["exit 0"] += 1
    elif outcome.code == 2:
        counts["exit 2"] += 1
    else:
        counts["other exit"] += 1
    if outcome.half_written:
        counts["half-written"] += 1


def save_failure(folder: Path, index: int, outcome: Outcome) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    stem = folder / f"{index:05d}-{outcome.argv[0]}"
    stem.with_suffix(".yaml").write_text(outcome.input, encoding="utf-8")
    stem.with_suffix(".json").write_text(json.dumps({
        "argv": outcome.argv, "example": outcome.example, "code": outcome.code,
        "seconds": round(outcome.seconds, 2), "traceback": outcome.traceback,
        "stderr": outcome.stderr[-4000:], "temp_left": outcome.temp_left,
        "written_on_failure": outcome.written_on_failure}, indent=1), encoding="utf-8")


def table(results: dict[str, Counter]) -> str:
    rows = [["command", *COLUMNS]]
    rows += [[c, *(str(results[c][k]) for k in COLUMNS)] for c in COMMANDS]
    total = sum(results.values(), Counter())
    rows.append(["all", *(str(total[k]) for k in COLUMNS)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(v.rjust(w) if i else v.ljust(w)
                               for i, (v, w) in enumerate(zip(r, widths, strict=True)))
                     for r in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0, help="how long to run")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: time)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds one run may take before it counts as a hang")
    parser.add_argument("--report", type=Path, default=Path("fuzz-failures"),
                        help="folder for the failing inputs (default ./fuzz-failures)")
    parser.add_argument("--commands", default=",".join(COMMANDS),
                        help="comma-separated commands to fuzz (default: all)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    commands = [c for c in args.commands.split(",") if c]
    results = {c: Counter() for c in COMMANDS}
    end = time.monotonic() + args.minutes * 60
    index = 0
    print(f"fuzzing {', '.join(commands)} for {args.minutes:g} min, seed {seed}", flush=True)
    last_print = time.monotonic()
    while time.monotonic() < end:
        command = commands[index % len(commands)]
        outcome = fuzz_once(random.Random(rng.random()), command, timeout=args.timeout)
        tally(results[command], outcome)
        if not outcome.ok:
            save_failure(args.report, index, outcome)
            first = (outcome.traceback or outcome.stderr).strip().splitlines()[-1:] or [""]
            print(f"  #{index} {command} on {outcome.example}: {outcome.code}: "
                  f"{first[0][:160]}", flush=True)
        index += 1
        if time.monotonic() - last_print > 60:
            last_print = time.monotonic()
            print(f"  ... {index} runs", flush=True)
    print(table(results))
    total = sum(results.values(), Counter())
    return 1 if total["tracebacks"] or total["hangs"] or total["half-written"] or \
        total["other exit"] else 0


if __name__ == "__main__":
    sys.exit(main())
