"""What a file argument names and its text, read safely: a regular file or, for `-`, standard
input; never more than a limit, never blocking on a FIFO or a device; UTF-8.

The scene and actions readers (``yamlread``), the importers and the writers (``output``, for
`-` as standard output and for what a path names) take these from here.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import Any

from . import limits
from .errors import SceneProblem

#: the message of a file that is not there (the loader raises `SceneFileNotFound` for it)
NO_SUCH_FILE = "no such file"

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def special_kind(mode: int) -> str | None:
    """'a FIFO (named pipe)', 'a folder', ... for a file mode that is not a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


#: the file name that stands for standard input (and, as an output, standard output)
STDIO = "-"
#: how problems name what was read from standard input
STDIN_NAME = "<stdin>"


def is_stdio(path: Any) -> bool:
    """Whether a file argument is `-`: standard input (or output)."""
    return isinstance(path, (str, os.PathLike)) and os.fspath(path) == STDIO


def file_label(path: str | os.PathLike[str]) -> str:
    """How problems name a file: its path, or ``<stdin>`` for `-`."""
    return STDIN_NAME if is_stdio(path) else str(path)


def read_stdin(limit: int) -> bytes | None:
    """Standard input's bytes, read to its end but never more than ``limit + 1`` of them;
    None when it holds more than ``limit``."""
    data = sys.stdin.buffer.read(limit + 1)
    return None if len(data) > limit else data


def read_text(path: str | os.PathLike[str], file: str, what: str = "scene file",
              limit: int = limits.MAX_YAML_BYTES) -> tuple[str | None, list[SceneProblem]]:
    """The UTF-8 text of a regular file (or standard input, for `-`) of at most ``limit``
    bytes, or (None, [problem]).

    Never blocks on a file (FIFOs are refused, the open is non-blocking) and never reads more
    than ``limit + 1`` bytes (so /dev/zero or a growing file cannot fill the memory).
    """
    def problem(message: str) -> tuple[None, list[SceneProblem]]:
        return None, [SceneProblem(file, None, "file", message)]

    article = "an" if what[:1] in "aeiou" else "a"
    too_big = f"larger than {limit // limits.MiB} MiB, the limit for {article} {what}"
    if is_stdio(path):
        data = read_stdin(limit)
        if data is None:
            return problem(too_big)
    else:
        data, why = _read_regular(path, limit, f"{article} {what}")
        if data is None:
            return problem(why or too_big)
    try:
        return data.decode("utf-8-sig"), []
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        return None, [SceneProblem(file, line, "file", f"not UTF-8 text (column {column}: "
                                   f"{exc.reason}); save it as UTF-8")]


def _read_regular(path: str | os.PathLike[str], limit: int,
                  what: str) -> tuple[bytes | None, str | None]:
    """(bytes, None) of a regular file of at most ``limit`` bytes; (None, why) when it cannot
    be read, (None, None) when it is too large."""
    refused = "is {}, not " + what + " (only regular files are read)"
    try:
        info = os.stat(path)
        kind = special_kind(info.st_mode)
        if kind is not None:
            return None, refused.format(kind)
        if info.st_size > limit:
            return None, None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0)
                     | getattr(os, "O_CLOEXEC", 0))
        try:
            kind = special_kind(os.fstat(fd).st_mode)  # it may have changed since the stat
            if kind is not None:
                return None, refused.format(kind)
            chunks, size = [], 0
            while size <= limit:
                chunk = os.read(fd, min(limit + 1 - size, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        finally:
            os.close(fd)
    except FileNotFoundError:
        return None, NO_SUCH_FILE
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    return (None, None) if size > limit else (b"".join(chunks), None)
