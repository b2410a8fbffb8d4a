"""numpy arrays -> Panda3D geometry, through memoryviews (no per-vertex Python loops).

Triangles get per-face normals (vertices are unmerged) so faceted terrain reads under a
directional light; indices are 32-bit so big meshes are safe.
"""

from __future__ import annotations

import mapbox_earcut
import numpy as np
from panda3d.core import (
    Geom,
    GeomEnums,
    GeomLines,
    GeomNode,
    GeomTriangles,
    GeomVertexArrayFormat,
    GeomVertexData,
    GeomVertexFormat,
    InternalName,
    Material,
    NodePath,
)


def _fill(array, values: np.ndarray, code: str) -> None:
    view = memoryview(array).cast("B").cast(code)
    view[:] = values.ravel()


def _geom_node(name: str, fmt, data: np.ndarray, indices: np.ndarray, prim) -> GeomNode:
    vdata = GeomVertexData(name, fmt, Geom.UH_static)
    vdata.unclean_set_num_rows(len(data))
    _fill(vdata.modify_array(0), np.ascontiguousarray(data, dtype=np.float32), "f")
    prim.set_index_type(GeomEnums.NT_uint32)
    handle = prim.modify_vertices()
    handle.unclean_set_num_rows(indices.size)
    _fill(handle, np.ascontiguousarray(indices, dtype=np.uint32), "I")
    geom = Geom(vdata)
    geom.add_primitive(prim)
    node = GeomNode(name)
    node.add_geom(geom)
    return node


def face_normals(tris: np.ndarray) -> np.ndarray:
    """(n, 3) unit normals of triangles (n, 3, 3) (zero for degenerate ones)."""
    normal = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    length = np.linalg.norm(normal, axis=1, keepdims=True)
    return np.divide(normal, length, out=np.zeros_like(normal), where=length > 0)


def triangles_node(name: str, vertices: np.ndarray, faces: np.ndarray) -> GeomNode:
    """A GeomNode of the triangles faces (m, 3) over vertices (n, 3), per-face normals."""
    tris = np.asarray(vertices, dtype=np.float64)[np.asarray(faces, dtype=np.int64)]
    return soup_node(name, tris)


def soup_node(name: str, tris: np.ndarray) -> GeomNode:
    """A GeomNode of a triangle soup (n, 3, 3) with per-face normals."""
    tris = np.asarray(tris, dtype=np.float64).reshape(-1, 3, 3)
    normals = np.repeat(face_normals(tris), 3, axis=0)
    data = np.concatenate([tris.reshape(-1, 3), normals], axis=1)
    indices = np.arange(len(data), dtype=np.uint32)
    return _geom_node(name, GeomVertexFormat.get_v3n3(), data, indices,
                      GeomTriangles(Geom.UH_static))


_SURFACE_FORMAT = None


def surface_format() -> GeomVertexFormat:
    """Vertex, normal, colour (rgba) and texture coordinate, all float32 in one array."""
    global _SURFACE_FORMAT
    if _SURFACE_FORMAT is None:
        array = GeomVertexArrayFormat()
        array.add_column(InternalName.get_vertex(), 3, Geom.NT_float32, Geom.C_point)
        array.add_column(InternalName.get_normal(), 3, Geom.NT_float32, Geom.C_normal)
        array.add_column(InternalName.get_color(), 4, Geom.NT_float32, Geom.C_color)
        array.add_column(InternalName.get_texcoord(), 2, Geom.NT_float32, Geom.C_texcoord)
        _SURFACE_FORMAT = GeomVertexFormat.register_format(GeomVertexFormat(array))
    return _SURFACE_FORMAT


def surface_node(name: str, tris: np.ndarray, uvs: np.ndarray | None = None,
                 shade: np.ndarray | None = None, normals: np.ndarray | None = None
                 ) -> GeomNode:
    """A triangle soup (n, 3, 3) with texture coordinates uvs (n, 3, 2), a grey vertex colour
    per corner shade (n, 3) (the lit look reads it as ambient occlusion) and normals (n, 3, 3)
    (default per face)."""
    tris = np.asarray(tris, dtype=np.float64).reshape(-1, 3, 3)
    n = len(tris)
    if normals is None:
        normals = np.repeat(face_normals(tris), 3, axis=0)
    uv = np.zeros((n * 3, 2)) if uvs is None else np.asarray(uvs, float).reshape(-1, 2)
    grey = np.ones(n * 3) if shade is None else np.asarray(shade, float).reshape(-1)
    colour = np.column_stack([grey, grey, grey, np.ones(n * 3)])
    data = np.concatenate([tris.reshape(-1, 3), np.asarray(normals, float).reshape(-1, 3),
                           colour, uv], axis=1)
    indices = np.arange(len(data), dtype=np.uint32)
    return _geom_node(name, surface_format(), data, indices, GeomTriangles(Geom.UH_static))


def mesh_node(name: str, mesh) -> GeomNode:
    """A GeomNode of a trimesh.Trimesh (its arrays, never a file)."""
    return triangles_node(name, mesh.vertices, mesh.faces)


def lines_node(name: str, starts: np.ndarray, ends: np.ndarray) -> GeomNode:
    """One-pixel line segments starts[i] -> ends[i] ((n, 3) each)."""
    pts = np.stack([np.asarray(starts, float), np.asarray(ends, float)], axis=1).reshape(-1, 3)
    indices = np.arange(len(pts), dtype=np.uint32)
    return _geom_node(name, GeomVertexFormat.get_v3(), pts, indices, GeomLines(Geom.UH_static))


def tubes_soup(starts: np.ndarray, ends: np.ndarray, radius: float, sides: int = 6) -> np.ndarray:
    """Triangles (n * 2 * sides, 3, 3) of open prisms around segments: lines with a thickness
    every renderer draws (the software one has no wide lines)."""
    a = np.atleast_2d(np.asarray(starts, float))
    b = np.atleast_2d(np.asarray(ends, float))
    axis = b - a
    length = np.linalg.norm(axis, axis=1, keepdims=True)
    axis = np.divide(axis, length, out=np.tile([[0.0, 0.0, 1.0]], (len(a), 1)), where=length > 0)
    helper = np.where(np.abs(axis[:, 2:3]) < 0.9, [[0.0, 0.0, 1.0]], [[1.0, 0.0, 0.0]])
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = np.cross(axis, u)
    ang = np.linspace(0.0, 2 * np.pi, sides, endpoint=False)
    cos, sin = np.cos(ang)[None, :, None], np.sin(ang)[None, :, None]
    ring = radius * (cos * u[:, None] + sin * v[:, None])
    ra, rb = a[:, None] + ring, b[:, None] + ring  # (n, sides, 3)
    ra2, rb2 = np.roll(ra, -1, axis=1), np.roll(rb, -1, axis=1)
    quads1 = np.stack([ra, ra2, rb2], axis=2)
    quads2 = np.stack([ra, rb2, rb], axis=2)
    return np.concatenate([quads1, quads2], axis=1).reshape(-1, 3, 3)


def markers_soup(points: np.ndarray, size: float) -> np.ndarray:
    """Triangles (n * 8, 3, 3) of small octahedra at points (n, 3)."""
    p = np.atleast_2d(np.asarray(points, float))
    if not len(p):
        return np.zeros((0, 3, 3))
    d = size * np.eye(3)
    faces = []
    for sx in (1, -1):
        for sy in (1, -1):
            for sz in (1, -1):
                tri = [sx * d[0], sy * d[1], sz * d[2]]
                faces.append(tri if sx * sy * sz > 0 else tri[::-1])
    octa = np.array(faces)  # (8, 3, 3)
    return (p[:, None, None, :] + octa[None]).reshape(-1, 3, 3)


def polygon_soup(polygon: np.ndarray, z: float) -> np.ndarray:
    """Triangles (k, 3, 3) filling a simple polygon (k, 2) at height z, facing up."""
    poly = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    if len(poly) < 3:
        return np.zeros((0, 3, 3))
    idx = mapbox_earcut.triangulate_float64(poly, np.array([len(poly)], dtype=np.uint32))
    pts = np.column_stack([poly, np.full(len(poly), z)])
    tris = pts[np.asarray(idx, dtype=np.int64).reshape(-1, 3)]
    flip = face_normals(tris)[:, 2] < 0
    tris[flip] = tris[flip][:, ::-1]
    return tris


def ring_soup(rx: float, ry: float, width: float, z: float, n: int = 48) -> np.ndarray:
    """Triangles of a flat elliptical ring (outer semi-axes rx, ry) around the origin at z."""
    t = np.linspace(0.0, 2 * np.pi, n, endpoint=False)
    outer = np.column_stack([rx * np.cos(t), ry * np.sin(t), np.full(n, z)])
    inner = np.column_stack([(rx - width) * np.cos(t), (ry - width) * np.sin(t), np.full(n, z)])
    o2, i2 = np.roll(outer, -1, axis=0), np.roll(inner, -1, axis=0)
    return np.concatenate([np.stack([inner, outer, o2], 1), np.stack([inner, o2, i2], 1)])


def outline_segments(polygon: np.ndarray, z: float) -> tuple[np.ndarray, np.ndarray]:
    """Edges of a closed polygon (k, 2) at height z as (starts, ends)."""
    poly = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    pts = np.column_stack([poly, np.full(len(poly), z)])
    return pts, np.roll(pts, -1, axis=0)


def paint(node: NodePath, colour: tuple[float, float, float, float]) -> NodePath:
    """Give a lit node its colour through a material (ambient = diffuse = colour).

    A flat colour attribute would be squared by the software renderer under lights; a
    material looks the same on every back end.
    """
    material = Material(f"paint-{node.get_name()}")
    material.set_ambient(colour)
    material.set_diffuse(colour)
    node.set_material(material, 1)
    return node
