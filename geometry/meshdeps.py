"""The files a mesh file reads besides itself, for the key of what was read from it.

A `.gltf` keeps its triangles in `.bin` buffers and its textures in images beside it, an OBJ its
materials in `.mtl` libraries that name texture maps, a PLY may name a `TextureFile`. A reading
kept under the main file's size and modification time alone (`geometry.meshcache`, the reading
kept in memory) would stay stale when only one of those is edited: a repainted texture, a
re-exported buffer. `file_key` adds the size and time of each of them, so editing any one makes a
new key. References are found with a byte search (an OBJ's `mtllib` lines, a glTF's `uri`s),
never by parsing the geometry; data URIs and paths that are not there are skipped.
"""

from __future__ import annotations

import json
import mmap
import os
import re
from functools import lru_cache
from urllib.parse import unquote

__all__ = ["file_key", "references"]

_MAP = re.compile(rb"^[ \t]*(?:map_\w+|bump|disp|decal|refl)[ \t]+([^\r\n]+)",
                  re.MULTILINE | re.IGNORECASE)
_PLY_TEXTURE = re.compile(rb"^comment[ \t]+TextureFile[ \t]+([^\r\n]+)", re.MULTILINE)


def file_key(path: str | os.PathLike) -> tuple:
    """(real path, mtime_ns, size, ((real path, mtime_ns, size) of each file it refers to,
    ...)) of a mesh file; raises OSError when the file itself cannot be stat'ed."""
    real = os.path.realpath(path)
    stat = os.stat(real)
    deps = []
    for dep in _references_of(real, stat.st_mtime_ns, stat.st_size):
        try:
            dep_stat = os.stat(dep)
        except OSError:
            continue
        deps.append((dep, dep_stat.st_mtime_ns, dep_stat.st_size))
    return real, stat.st_mtime_ns, stat.st_size, tuple(deps)


@lru_cache(maxsize=256)
def _references_of(real: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """`references` once per version of a file (a command asks for a piece's key several
    times; the files referred to are stat'ed every time)."""
    return tuple(references(real))


def references(path: str) -> list[str]:
    """Real paths of the files a mesh file refers to (sorted, each once)."""
    suffix = os.path.splitext(path)[1].lower()
    try:
        if suffix == ".obj":
            found = _obj_references(path)
        elif suffix in (".gltf", ".glb"):
            found = _gltf_references(path, suffix)
        elif suffix == ".ply":
            found = [_beside(path, name) for name in _header_matches(path, _PLY_TEXTURE)]
        else:
            found = []
    except (OSError, ValueError):  # unreadable: the reading itself will say so
        return []
    return sorted({os.path.realpath(p) for p in found if p})


def _beside(path: str, name: bytes | str) -> str:
    """A referenced file name, relative to the referring file's folder."""
    text = name.decode("utf-8", "replace") if isinstance(name, bytes) else name
    return os.path.join(os.path.dirname(path), text.strip())


def _matches(path: str, pattern: re.Pattern) -> list[bytes]:
    """Every first group of pattern in a (small) file: a material library."""
    with open(path, "rb") as f:
        return [m.group(1) for m in pattern.finditer(f.read())]


def _statements(path: str, keyword: bytes) -> list[bytes]:
    """What follows `keyword` on each line of a file that starts with it (after blanks),
    found in place with mmap's find (a 30 MB OBJ in milliseconds, where a regular expression
    over every line takes a quarter of a second)."""
    found = []
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return []
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
            at = data.find(keyword)
            while at != -1:
                start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
                end = len(data)
                for stop in (data.find(b"\n", at), data.find(b"\r", at)):
                    if stop != -1:
                        end = min(end, stop)
                rest = data[at + len(keyword):end]
                if not data[start:at].strip() and rest[:1] in (b" ", b"\t"):
                    found.append(rest.strip())
                at = data.find(keyword, end)
    return found


def _header_matches(path: str, pattern: re.Pattern) -> list[bytes]:
    """pattern's first groups in a PLY header (up to `end_header`)."""
    with open(path, "rb") as f:
        head = f.read(65536)
    return [m.group(1) for m in pattern.finditer(head.split(b"end_header", 1)[0])]


def _obj_references(path: str) -> list[str]:
    """An OBJ's material libraries and the texture maps they name (the map's file name is the
    last word of its line, after any options)."""
    found = []
    for line in _statements(path, b"mtllib"):
        library = _beside(path, line)
        found.append(library)
        if os.path.isfile(library):
            found += [_beside(library, m.split()[-1]) for m in _matches(library, _MAP)
                      if m.split()]
    return found


def _gltf_references(path: str, suffix: str) -> list[str]:
    """A glTF's external buffers and images (a GLB's JSON chunk: its embedded ones have no
    uri)."""
    with open(path, "rb") as f:
        if suffix == ".glb":
            head = f.read(20)
            if len(head) < 20 or head[:4] != b"glTF":
                return []
            text = f.read(int.from_bytes(head[12:16], "little"))
        else:
            text = f.read()
    doc = json.loads(text)
    if not isinstance(doc, dict):
        return []
    uris = [item.get("uri") for key in ("buffers", "images") for item in doc.get(key) or ()
            if isinstance(item, dict)]
    return [_beside(path, unquote(u)) for u in uris
            if isinstance(u, str) and u and not u.startswith("data:")]
