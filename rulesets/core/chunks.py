"""Many pairs judged in chunks whose size a memory budget sets, never the number of pairs.

A ruleset's judgement holds every ray of its batch at once, so one batch of all the pairs of
a big table grows with the pairs (1.1 GiB for the 39,800 pairs of 200 models). Every pair's
verdict is the same in any batch (tests/test_chunks.py), so the pairs are judged a chunk at a
time: the chunk holds as many pairs as the budget allows at the system's working memory per
pair (`Ruleset.pair_bytes`, measured on the bundled scenes; tests/test_chunks.py checks a
chunk stays within it), and the caller keeps what it needs of each chunk's verdicts (a line
of JSON, a cell of the unit table) before the next one is judged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .board import Board
    from .ruleset import Ruleset
    from .verdict import Verdict

T = TypeVar("T")

#: working memory one chunk of a judgement may take, bytes (what the process holds besides:
#: the interpreter, the libraries, the world and its ray scenes, about 150-300 MiB)
SIGHT_BUDGET = 256 * 2**20


def pairs_per_chunk(ruleset: Ruleset, budget: int | None = None) -> int:
    """How many pairs one chunk holds: the budget (default SIGHT_BUDGET) over the system's
    working memory per pair, at least one."""
    budget = SIGHT_BUDGET if budget is None else int(budget)
    if budget <= 0:
        raise ValueError(f"a memory budget must be positive, got {budget}")
    return max(1, budget // ruleset.pair_bytes)


def chunked(items: Sequence[T], size: int) -> Iterator[list[T]]:
    """items in consecutive lists of at most `size`, in order."""
    for lo in range(0, len(items), size):
        yield list(items[lo:lo + size])


def judge_in_chunks(ruleset: Ruleset, board: Board, pairs: Sequence[tuple[str, str]],
                    budget: int | None = None) -> Iterator[list[Verdict]]:
    """The ruleset's one judgement of the pairs, a chunk at a time (`pairs_per_chunk`):
    each chunk's verdicts, in pair order; together the same verdicts as one batch."""
    for chunk in chunked(pairs, pairs_per_chunk(ruleset, budget)):
        yield ruleset.judge(board, chunk)
