"""Write output files safely: whole or not at all, never through a link or a device.

Every file battlesight writes (scenes, logs, GLB, PNG, GIF, MP4, fields) goes through here:
the data goes to a temporary file beside the target, which is then renamed over it, so a
reader never sees half a file and a failed command leaves nothing behind. A target that is a
symbolic link, a FIFO, a device, a socket or a folder is refused (``UnsafeOutput``, an
OSError naming the path) rather than replaced, and so is a target whose folder is a symbolic
link (a file is never written through one). New files get mode ``0o666 & ~umask``, as any
program's would; a file replaced keeps its mode. The path `-` is standard output: its content
is built whole first and written there last.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from .textfiles import is_stdio, special_kind

#: what a temporary file's name holds (``.NAME.XXXXXX.tmp.SUFFIX``): tests look for leftovers
TEMP_MARK = ".tmp"


class UnsafeOutput(OSError):
    """An output path that must not be written (a link, a FIFO, a device, a folder...)."""

    def __init__(self, path: str | os.PathLike[str], why: str):
        super().__init__(errno.EINVAL, why, os.fspath(path))


class IncompleteWrite(ValueError):
    """Raised by a writer function or a `check` when the file it wrote is not whole (an
    encoder that stopped half-way); `write_outputs` turns it into IncompleteOutput."""


class IncompleteOutput(OSError):
    """A file its writer left incomplete (an encoder that stopped half-way on a full disk):
    not renamed over the target, which stays as it was."""

    def __init__(self, path: str | os.PathLike[str], why: str):
        super().__init__(errno.EIO, why, os.fspath(path))


#: real paths of the files this run reads (the scene, its meshes, an actions file): no
#: output may replace one of them
_INPUTS: set[str] = set()


def protect_inputs(paths: Iterable[str | os.PathLike[str]]) -> None:
    """Note files this run reads, so that `check_target` refuses to write over them."""
    _INPUTS.update(os.path.realpath(p) for p in paths)


def is_protected(path: str | os.PathLike[str]) -> bool:
    """Whether path is (a link to) a file this run reads."""
    return os.path.realpath(path) in _INPUTS


def forget_inputs() -> None:
    """Start a new run (the command line calls this first)."""
    _INPUTS.clear()


def check_target(path: str | os.PathLike[str]) -> Path:
    """The path, if a file may be written there: it names nothing yet or a regular file, in
    an existing folder, and no file this run reads (see `protect_inputs`). UnsafeOutput
    otherwise."""
    target = Path(path)
    if is_protected(target):
        raise UnsafeOutput(target, "is a file this command reads (the scene, one of its mesh "
                                   "files or the actions file); give another file, nothing "
                                   "was written")
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise UnsafeOutput(target, f"cannot write here: {error.strerror or error}") from None
    if mode is not None and stat.S_ISLNK(mode):
        raise UnsafeOutput(target, "is a symbolic link; refusing to write through or over it "
                                   "(give the real path)")
    kind = None if mode is None else special_kind(mode)
    if kind is not None:
        raise UnsafeOutput(target, f"is {kind}; refusing to replace it with a file")
    if not target.parent.is_dir():
        raise UnsafeOutput(target, f"folder {target.parent} does not exist")
    if target.parent.is_symlink():
        raise UnsafeOutput(target, f"its folder {target.parent} is a symbolic link; refusing "
                                   "to write through it (give the real folder)")
    return target


def folder_target(path: str | os.PathLike[str]) -> Path:
    """A folder an output may be written into or made as: not a symbolic link (nothing is
    written through one), not a file; UnsafeOutput otherwise."""
    folder = Path(path)
    if folder.is_symlink():
        raise UnsafeOutput(folder, "is a symbolic link; refusing to write through it (give "
                                   "the real folder)")
    if folder.exists() and not folder.is_dir():
        raise UnsafeOutput(folder, "is a file, not a folder")
    return folder


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _new_mode(target: Path) -> int:
    """The replaced file's mode, or what a new file would get under the umask."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return 0o666 & ~_umask()


@contextmanager
def output_file(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write to; renamed over ``path`` when the block
    ends without an exception, removed otherwise. The target is checked before and again
    just before the rename."""
    target = check_target(path)
    with _kept_temp(target) as tmp:
        yield tmp
        _finish(tmp, target)


def _finish(tmp: Path, target: Path) -> None:
    check_target(target)
    os.chmod(tmp, _new_mode(target))
    os.replace(tmp, target)


Content = bytes | str | Callable[[Path], None]


def _write(tmp: Path, content: Content) -> None:
    if callable(content):
        content(tmp)
    elif isinstance(content, str):
        tmp.write_text(content, encoding="utf-8")
    else:
        tmp.write_bytes(content)


def write_output(path: str | os.PathLike[str], content: Content,
                 check: Callable[[Path], None] | None = None) -> Path:
    """Write ``content`` (bytes, text as UTF-8, or a function that writes the file at the
    path it is given) to ``path`` safely (`-`: standard output); `check` raises
    IncompleteWrite when the file written is incomplete. Returns the path."""
    return write_outputs({path: content}, check)[0]


def write_outputs(files: Mapping[str | os.PathLike[str], Content],
                  check: Callable[[Path], None] | None = None) -> list[Path]:
    """Write several files all or none: every target checked, every temporary file written
    (and passed to `check`; it, or a writer function, raises IncompleteWrite for a file left
    incomplete: then IncompleteOutput, and no file is replaced), then all renamed;
    the one `-` among them, if any, is written to standard output after the renames. Returns
    the paths written."""
    to_stdout = [p for p in files if is_stdio(p)]
    if len(to_stdout) > 1:
        raise UnsafeOutput(STDOUT_NAME, "standard output (-) is named for two outputs")
    named = {p: c for p, c in files.items() if not is_stdio(p)}
    targets = [check_target(p) for p in named]
    if len({t.resolve() for t in targets}) < len(targets):
        raise UnsafeOutput(targets[0], "the same file is named for two outputs")
    with ExitStack() as stack:
        temps = [stack.enter_context(_kept_temp(t)) for t in targets]
        for tmp, target, content in zip(temps, targets, named.values(), strict=True):
            _checked_write(tmp, target, content, check)
        piped = _stdout_bytes(files[to_stdout[0]], check) if to_stdout else None
        for tmp, target in zip(temps, targets, strict=True):
            _finish(tmp, target)
    if piped is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(piped)
        sys.stdout.buffer.flush()
        targets.append(Path(STDOUT_NAME))
    return targets


#: how messages name standard output
STDOUT_NAME = "<stdout>"


def _stdout_bytes(content: Content, check: Callable[[Path], None] | None) -> bytes:
    """The whole of what goes to standard output: text as UTF-8, bytes as they are, a writer
    function's file (written to a temporary folder, checked, read back). Binary data is
    refused when standard output is a terminal."""
    if isinstance(content, str):
        return content.encode("utf-8")
    if sys.stdout.isatty():
        raise UnsafeOutput(STDOUT_NAME, "is a terminal: pipe the output into a file or a "
                                        "program, or give a file name")
    if not callable(content):
        return bytes(content)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder) / "out"
        _checked_write(tmp, Path(STDOUT_NAME), content, check)
        return tmp.read_bytes()


def _checked_write(tmp: Path, target: Path, content: Content,
                   check: Callable[[Path], None] | None) -> None:
    """Write content to tmp and check it; IncompleteOutput naming the target when the writer
    or the check finds it incomplete (IncompleteWrite)."""
    try:
        _write(tmp, content)
        if check is not None:
            check(tmp)
    except IncompleteWrite as error:
        raise IncompleteOutput(target, f"{error}; nothing was written") from None


@contextmanager
def _kept_temp(target: Path) -> Iterator[Path]:
    """A temporary file beside target, removed at the end unless it was renamed."""
    import tempfile  # here: a command that writes nothing (`los`) never imports it

    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f"{TEMP_MARK}{target.suffix}",
                                dir=target.parent)
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
    finally:
        tmp.unlink(missing_ok=True)


# -- strict JSON -----------------------------------------------------------------------------

class NotJSON(ValueError):
    """Data that strict JSON cannot hold (NaN, infinity, an object of no JSON type)."""


def _json_default(value: Any) -> Any:
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    item = getattr(value, "item", None)  # numpy scalars and 0-d arrays
    tolist = getattr(value, "tolist", None)  # numpy arrays
    if callable(tolist):
        return tolist()
    if callable(item):
        return item()
    raise TypeError(f"a value of type {type(value).__name__}")


#: a printf-style frame number in a file name: %d, %3d or %03d
FRAME_NUMBER = re.compile(r"%(0?[1-9]?)d")


def numbered_paths(path: str | os.PathLike[str], count: int) -> list[Path]:
    """The names of `count` numbered files for path: a printf-style number in its name
    (`spin_%03d.png`: spin_000.png, spin_001.png, ...) stands where it is; without one,
    `_000`, `_001`, ... go before the suffix. ValueError for a name with another `%` in it
    (`%s`, two numbers), which a frame number would silently get wrong."""
    path = Path(path)
    found = FRAME_NUMBER.findall(path.name)
    if path.name.count("%") == 0:
        stem = path.with_suffix("")
        return [Path(f"{stem}_{i:03d}{path.suffix}") for i in range(count)]
    if len(found) != 1 or path.name.count("%") != 1:
        raise ValueError(f"{path.name}: a frame pattern has one number, %d or %03d (for "
                         "example spin_%03d.png); other % signs are not allowed")
    return [path.with_name(path.name % i) for i in range(count)]


def to_json(data: Any, indent: int | None = 2) -> str:
    """Strict JSON text of data (no NaN or Infinity); NotJSON, in one line, when it cannot
    be written."""
    try:
        return json.dumps(data, indent=indent, allow_nan=False, default=_json_default)
    except ValueError as error:
        raise NotJSON(f"holds a number JSON cannot write (NaN or infinite): {error}") from None
    except TypeError as error:
        raise NotJSON(f"holds data JSON cannot write: {error}") from None
    except RecursionError:
        raise NotJSON("is nested too deep for JSON") from None

