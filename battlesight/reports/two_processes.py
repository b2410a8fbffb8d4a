"""Work over a long list in two processes: the second half in a child forked after the caller
has built what the work reads (the world, its ray engine, the board: shared copy-on-write), the
first half here, the child's results back through a pipe. Used by `los --all`, whose pairs are
independent (each pair's verdict is the same in any batch; tests/test_los_all.py)."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

#: fewer items than this are done here alone: a fork and the pickling cost more than they save
MIN_ITEMS = 2000


def processes_for(items: int) -> int:
    """How many processes `in_two_processes` uses for this many items (1 or 2): two where
    the list is long, the machine has a second core and the system can fork."""
    return 2 if items >= MIN_ITEMS and hasattr(os, "fork") and (os.cpu_count() or 1) > 1 else 1


def in_two_processes(work: Callable[[list[T]], list[R]], items: Sequence[T]) -> list[R]:
    """work(items), in order, with the second half done by a forked child where
    `processes_for` says two. The child writes nothing but its results; if it fails (or cannot
    be forked), its half is done here, so an error is raised by this process, as serially."""
    items = list(items)
    if processes_for(len(items)) == 1:
        return work(items)
    half = len(items) // 2
    read, write = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return work(items)
    if pid == 0:  # the child: its half, pickled into the pipe; never back into the caller
        code = 1
        try:
            os.close(read)
            data = pickle.dumps(work(items[half:]), protocol=pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(data)
            code = 0
        finally:
            os._exit(code)  # no atexit, no flush of buffers the parent owns
    os.close(write)
    try:
        first = work(items[:half])
    finally:
        with os.fdopen(read, "rb") as pipe:
            data = pipe.read()  # the child waits on a full pipe until this reads it
        _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        return first + work(items[half:])
    return first + pickle.loads(data)


def lines_in_two_processes(work: Callable[[list[T]], Iterable[str]], items: Sequence[T]
                           ) -> Iterator[str]:
    """The lines of work(items) (text without a newline each), in order, as they are made:
    the first half's from here while a forked child (where `processes_for` says two) writes
    the second half's to a temporary file, read back line by line once this half is done, so
    neither process holds all the lines. As `in_two_processes`, a child that fails (or cannot
    be forked) has its half done here."""
    items = list(items)
    if processes_for(len(items)) == 1:
        yield from work(items)
        return
    import tempfile  # only where two processes share the work (not on `los --from`'s path)

    half = len(items) // 2
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        try:
            pid = os.fork()
        except OSError:
            yield from work(items)
            return
        if pid == 0:  # the child: its half's lines into the file; never back into the caller
            code = 1
            try:
                with os.fdopen(os.dup(spool.fileno()), "w", encoding="utf-8") as out:
                    for line in work(items[half:]):
                        out.write(line + "\n")
                code = 0
            finally:
                os._exit(code)
        try:
            yield from work(items[:half])
        finally:
            _, status = os.waitpid(pid, 0)
        if status != 0:
            yield from work(items[half:])
            return
        spool.seek(0)
        for line in spool:
            yield line[:-1]
