"""Binary STL read straight into arrays: one `np.fromfile` of the facet records.

A binary STL is an 80-byte header, a facet count and 50 bytes per facet (a normal, three
corners, all float32, and a 2-byte attribute). trimesh reads the same numbers but then hashes
the arrays and checks the stored normals: 0.2 s of a 1M-face file's 0.25 s. The stored normals
are not read (the ray engine and the outline take the winding); every facet keeps its own three
corners, as the file has them (nothing merged: Embree and the outline need no shared vertices).
ASCII STL is left to trimesh (`binary_stl` says None).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["binary_stl", "facet_count"]

_HEADER = 84
_FACET = np.dtype([("normal", "<f4", (3,)), ("corners", "<f4", (3, 3)), ("attribute", "<u2")])


def facet_count(path: str | os.PathLike) -> int | None:
    """The facet count of a whole binary STL (its size is 84 + 50 * the count its header
    gives), None for any other file (an ASCII STL, which trimesh reads)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        head = f.read(_HEADER)
    if len(head) < _HEADER:
        return None
    count = int.from_bytes(head[80:84], "little")
    if count < 1 or size != _HEADER + _FACET.itemsize * count:
        return None
    return count


def binary_stl(path: str | os.PathLike) -> tuple[np.ndarray, np.ndarray] | None:
    """(vertices (3m, 3) float64, faces (m, 3) int64) of a binary STL of m facets, the corners
    of facet i being vertices 3i, 3i+1, 3i+2; None when the file is not a whole binary STL
    (an ASCII STL: its size is not 84 + 50 * the count its header gives)."""
    count = facet_count(path)
    if count is None:
        return None
    facets = np.fromfile(path, dtype=_FACET, count=count, offset=_HEADER)
    vertices = facets["corners"].reshape(-1, 3).astype(np.float64)
    return vertices, np.arange(3 * count, dtype=np.int64).reshape(-1, 3)
