"""Write output files safely: whole or not at all, never through a link or a device.

Every file battlesight writes (scenes, logs, GLB, PNG, GIF, MP4, fields) goes through here:
the data goes to a temporary file beside the target, which is then renamed over it, so a
reader never sees half a file and a failed command leaves nothing behind. A target that is a
symbolic link, a FIFO, a device, a socket or a folder is refused (``UnsafeOutput``, an
OSError naming the path) rather than replaced. New files get mode ``0o666 & ~umask``, as any
program's would; a file replaced keeps its mode.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

from .yamlread import special_kind

#: what a temporary file's name holds (``.NAME.XXXXXX.tmp.SUFFIX``): tests look for leftovers
TEMP_MARK = ".tmp"


class UnsafeOutput(OSError):
    """An output path that must not be written (a link, a FIFO, a device, a folder...)."""

    def __init__(self, path: str | os.PathLike[str], why: str):
        super().__init__(errno.EINVAL, why, os.fspath(path))


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
    return target


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


def write_output(path: str | os.PathLike[str], content: Content) -> Path:
    """Write ``content`` (bytes, text as UTF-8, or a function that writes the file at the
    path it is given) to ``path`` safely; returns the path."""
    return write_outputs({path: content})[0]


def write_outputs(files: Mapping[str | os.PathLike[str], Content]) -> list[Path]:
    """Write several files all or none: every target checked, every temporary file written,
    then all renamed. Returns the paths written."""
    targets = [check_target(p) for p in files]
    if len({t.resolve() for t in targets}) < len(targets):
        raise UnsafeOutput(targets[0], "the same file is named for two outputs")
    with ExitStack() as stack:
        temps = [stack.enter_context(_kept_temp(t)) for t in targets]
        for tmp, content in zip(temps, files.values(), strict=True):
            _write(tmp, content)
        for tmp, target in zip(temps, targets, strict=True):
            _finish(tmp, target)
    return targets


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

