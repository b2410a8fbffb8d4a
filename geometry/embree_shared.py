"""Triangle meshes handed to Embree in place: float32 vertices and uint32 faces, no copies.

embreex's `TriangleMesh` copies every vertex and index into Embree's own buffers through one
Python-level item access each: for a 1M-face STL (3M vertices, every face its own three) that
copy is 1.6 s, four times Embree's BVH build of the same triangles (0.37 s). Embree can read
the caller's arrays where they are (`rtcSetSharedGeometryBuffer`); embreex does not expose it,
so `attach` calls it through ctypes on the libembree4 that embreex itself loaded.

That needs the scene's RTCScene handle, a C field of embreex's `EmbreeScene` object. It is read
at its place in Cython's object struct (header, RTCScene, int is_committed, the EmbreeDevice
object) only after the layout is checked: the struct's size, the device object at its place
is the one the scene was made with, is_committed reads as the attribute does, and Embree's
own `rtcGetSceneDevice` of the handle is the device's handle. Where any check fails (another
embreex build or platform) `attach` returns False and the caller copies through embreex.

The shared arrays must live as long as the scene: `attach` returns them for the caller to keep.
"""

from __future__ import annotations

import ctypes
import glob
import os
from functools import lru_cache

import numpy as np

__all__ = ["attach", "available"]

_GEOMETRY_TRIANGLE = 0
_BUFFER_INDEX, _BUFFER_VERTEX = 0, 1
_FORMAT_UINT3, _FORMAT_FLOAT3 = 0x5003, 0x9003
_HEADER = object.__basicsize__  # ob_refcnt and ob_type
_WORD = ctypes.sizeof(ctypes.c_void_p)


@lru_cache(maxsize=1)
def _library() -> ctypes.CDLL | None:
    """The libembree4 already loaded by embreex (RTLD_NOLOAD: never a second copy), or None."""
    if not hasattr(os, "RTLD_NOLOAD"):
        return None
    try:
        import embreex
    except ImportError:  # pragma: no cover - no embreex, no Embree
        return None
    folder = os.path.dirname(embreex.__file__)
    patterns = (os.path.join(folder + ".libs", "libembree4*"),  # auditwheel (Linux)
                os.path.join(folder, ".dylibs", "libembree4*"))  # delocate (macOS)
    for path in sorted(p for pattern in patterns for p in glob.glob(pattern)):
        try:
            lib = ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)
        except OSError:
            continue
        vp, size, uint = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint
        for name, res, args in (
            ("rtcNewGeometry", vp, [vp, ctypes.c_int]),
            ("rtcSetSharedGeometryBuffer", None, [vp, ctypes.c_int, uint, ctypes.c_int, vp,
                                                  size, size, size]),
            ("rtcCommitGeometry", None, [vp]),
            ("rtcAttachGeometry", uint, [vp, vp]),
            ("rtcReleaseGeometry", None, [vp]),
            ("rtcGetSceneDevice", vp, [vp]),
            ("rtcReleaseDevice", None, [vp]),
            ("rtcGetDeviceError", ctypes.c_int, [vp]),
        ):
            func = getattr(lib, name)
            func.restype, func.argtypes = res, args
        return lib
    return None


def _word(address: int) -> int:
    return ctypes.c_void_p.from_address(address).value or 0


def _handles(scene, device) -> tuple[int, int] | None:
    """(RTCScene, RTCDevice) of an embreex scene made with `device`, or None where the objects'
    layout is not the one this module knows."""
    if type(scene).__basicsize__ != _HEADER + 3 * _WORD or \
            type(device).__basicsize__ != _HEADER + _WORD:
        return None
    base = id(scene)
    if _word(base + _HEADER + 2 * _WORD) != id(device):
        return None
    if ctypes.c_int.from_address(base + _HEADER + _WORD).value != scene.is_committed:
        return None
    return _word(base + _HEADER), _word(id(device) + _HEADER)


def available(scene, device) -> bool:
    """Whether meshes can be attached to this embreex scene in place."""
    lib = _library()
    handles = _handles(scene, device) if lib is not None else None
    if handles is None or not handles[0] or not handles[1]:
        return False
    owner = lib.rtcGetSceneDevice(handles[0])
    if owner:
        lib.rtcReleaseDevice(owner)  # rtcGetSceneDevice gave a reference of its own
    return owner == handles[1]


def attach(scene, device, vertices: np.ndarray, faces: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray] | None:
    """Add one triangle mesh (vertices (n, 3), faces (m, 3)) to an uncommitted embreex scene
    whose `available` is true, Embree reading the returned float32 / uint32 arrays in place
    (keep them while the scene lives). None when Embree refuses (the scene is unchanged)."""
    lib = _library()
    scene_h, device_h = _handles(scene, device)
    n = len(vertices)
    index = np.asarray(faces)
    if scene.is_committed or (len(index) and not 0 <= int(index.min()) <= int(index.max()) < n):
        return None  # built already (it would not see the mesh), or a face off the vertices
    tris = np.ascontiguousarray(index, dtype=np.uint32)
    # one spare vertex: Embree reads each vertex with a 16-byte load, past the last one's 12
    verts = np.empty((n + 1, 3), dtype=np.float32)
    verts[:n] = vertices
    verts[n] = 0.0
    lib.rtcGetDeviceError(device_h)  # clears an error left by an earlier call
    geom = lib.rtcNewGeometry(device_h, _GEOMETRY_TRIANGLE)
    if not geom:
        return None
    lib.rtcSetSharedGeometryBuffer(geom, _BUFFER_VERTEX, 0, _FORMAT_FLOAT3,
                                   verts.ctypes.data, 0, 12, n)
    lib.rtcSetSharedGeometryBuffer(geom, _BUFFER_INDEX, 0, _FORMAT_UINT3,
                                   tris.ctypes.data, 0, 12, len(tris))
    lib.rtcCommitGeometry(geom)
    if lib.rtcGetDeviceError(device_h) != 0:
        lib.rtcReleaseGeometry(geom)
        return None
    lib.rtcAttachGeometry(scene_h, geom)
    lib.rtcReleaseGeometry(geom)  # the scene holds it now
    return verts, tris
