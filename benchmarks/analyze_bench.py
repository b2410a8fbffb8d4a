"""Layout analysis benchmark: `python benchmarks/analyze_bench.py [--workers N] [--layouts K]`.

The same figures as `battlesight analyze --bench`: one full analysis of a generated 72 x 48
layout at a 1" grid on one core, and layouts per minute in a batch (serial and on Dask).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from battlesight.bench.analysis import bench, format_bench  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--grid", type=float, default=1.0)
    parser.add_argument("--layouts", type=int, default=8)
    parser.add_argument("--workers", type=int)
    args = parser.parse_args()
    print(format_bench(bench(args.seed, args.grid, args.layouts, args.workers)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
