"""What was read from a mesh file, kept on disk between commands.

Reading a GLB, OBJ, STL or PLY goes through trimesh, whose import (with scipy's) costs about
0.45 s, and a big file's outline and storeys take seconds more. Every command on a scene with a
mesh file would pay that again; instead the arrays read (and the outline worked out) are kept as
`.npz` files, keyed by the file's real path, size and modification time (and those of the files
it refers to, `geometry.meshdeps`: a texture, a .bin) and by how it was read,
and a later command loads the arrays with numpy alone. A changed file has another key, so it is
read again; an entry that cannot be read back is ignored (the file is read as if there were none).

Where: `$BATTLESIGHT_CACHE`, else `$XDG_CACHE_HOME/battlesight`, else `~/.cache/battlesight`;
`BATTLESIGHT_CACHE=off` keeps nothing. Entries are written to a temporary file and renamed into
place (never through a link); past `MAX_BYTES` the least recently used entries are removed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import numpy as np

#: bumped whenever what an entry holds changes: older entries are then never read
VERSION = 1
#: the modules whose code decides what an entry holds: the digest of their source is part of
#: every key, so a new reader, outline or storey finder never gets an older version's entries
READERS = ("meshcache", "meshdeps", "meshfile", "stl", "outline", "floors", "primitives")
#: the folder holds at most this many bytes of entries (least recently used go first)
MAX_BYTES = 2 * 1024**3
_OFF = {"", "0", "off", "no", "false", "none"}
_disabled = [False]


def folder() -> Path | None:
    """The cache folder, None when caching is off."""
    if _disabled[0]:
        return None
    value = os.environ.get("BATTLESIGHT_CACHE")
    if value is not None:
        return None if value.strip().lower() in _OFF else Path(value).expanduser() / "meshes"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "battlesight" / "meshes"


@contextmanager
def disabled() -> Iterator[None]:
    """Neither read nor write entries inside (a cold read in the benchmark)."""
    before = _disabled[0]
    _disabled[0] = True
    try:
        yield
    finally:
        _disabled[0] = before


def _entry(kind: str, key: tuple) -> Path | None:
    root = folder()
    if root is None:
        return None
    import hashlib  # here: a command on a scene without mesh files never needs it

    digest = hashlib.sha256(repr((VERSION, _code(), kind, key)).encode()).hexdigest()[:32]
    return root / f"{kind}-{digest}.npz"


@lru_cache(maxsize=1)
def _code() -> str:
    """The digest of the source of the READERS modules (beside this one), read once."""
    import hashlib

    digest = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for name in READERS:
        try:
            digest.update((here / f"{name}.py").read_bytes())
        except OSError:  # an install without sources: the version alone keys the code
            digest.update(name.encode())
    return digest.hexdigest()[:16]


def read(kind: str, key: tuple) -> dict[str, np.ndarray] | None:
    """The arrays kept under (kind, key), None when there are none (or they cannot be read)."""
    path = _entry(kind, key)
    if path is None or path.is_symlink() or not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except Exception:  # noqa: BLE001 - a torn or foreign entry: read the mesh file instead
        return None
    try:
        os.utime(path)  # recently used: trimmed last
    except OSError:  # a read-only cache (another user's, a read-only mount) is still read
        pass
    return arrays


def write(kind: str, key: tuple, arrays: dict[str, np.ndarray]) -> None:
    """Keep arrays under (kind, key); a cache that cannot be written is no error."""
    path = _entry(kind, key)
    if path is None:
        return
    import tempfile

    temp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".entry-", suffix=".tmp")
        with os.fdopen(handle, "wb") as out:
            np.savez(out, **arrays)
        os.replace(temp, path)
        temp = None
        _trim(path.parent)
    except OSError:
        pass
    finally:
        if temp is not None:
            Path(temp).unlink(missing_ok=True)


def _trim(root: Path) -> None:
    """Remove the least recently used entries until the folder holds at most MAX_BYTES."""
    entries = []
    for path in root.glob("*.npz"):
        try:
            stat = path.stat()
        except OSError:
            continue
        entries.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in entries)
    for _, size, path in sorted(entries):
        if total <= MAX_BYTES:
            break
        path.unlink(missing_ok=True)
        total -= size
