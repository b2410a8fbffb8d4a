"""Low-level closed-mesh primitives shared by the terrain and model builders.

Every mesh made here is closed (watertight), outward oriented (positive volume) and free of
degenerate faces, and is built with ``process=False`` so that no vertex is ever merged behind
our back: several shells concatenated into one mesh keep their own vertices. Units are inches,
z up; 2D polygons are (k, 2) arrays in the xy plane, counter-clockwise unless said otherwise.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

import mapbox_earcut
import numpy as np

from .mesh import Mesh, as_trimesh
from .plan import (  # noqa: F401 - 2D helpers re-exported for the builders
    ArrayLike,
    clean_ring,
    ellipse,
    rectangle,
    ring_next,
    ring_prev,
    rotation_2d,
    signed_area,
    to_table,
)

#: Smallest side, thickness or height the builders make, inches (0.01" is a quarter of a
#: millimetre): below it the plan tolerances merge corners and the ray scenes lose the faces.
MIN_SIDE = 0.01


class BuildInputError(ValueError):
    """An input a builder cannot make geometry from. ``param`` names the input as the scene
    format names it (``size``, ``floors``, ``polygon``, ...), so a scene check can point at it."""

    def __init__(self, param: str, message: str):
        super().__init__(message)
        self.param = param


def require_side(param: str, value: float, what: str = "") -> float:
    """value as a float when it is finite and at least MIN_SIDE; else BuildInputError."""
    v = float(value)
    if not (math.isfinite(v) and v >= MIN_SIDE):
        label = f"{what} {param}" if what else param
        raise BuildInputError(param, f"{label} must be at least {MIN_SIDE:g}\", got {value!r}")
    return v


def require_simple_polygon(points: ArrayLike, param: str = "polygon") -> None:
    """BuildInputError unless the outline is a simple polygon (shapely 2's validity: no
    self-intersection, no repeated ring, some area)."""
    import shapely

    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(p) < 3 or not np.all(np.isfinite(p)):
        raise BuildInputError(param, "an outline needs at least 3 finite [x, y] points")
    ring = shapely.Polygon(p)
    if not ring.is_valid:
        raise BuildInputError(param, f"outline is not a simple polygon: {_invalid_why(ring)}")
    if ring.area <= MIN_SIDE * MIN_SIDE:
        raise BuildInputError(param, "outline has no area")


def _invalid_why(ring) -> str:
    """shapely's reason in a player's words: 'its edges cross near (15, 15)'."""
    import shapely

    reason = shapely.is_valid_reason(ring)
    where = re.search(r"\[\s*(-?[\d.e+-]+)\s+(-?[\d.e+-]+)", reason)
    near = f" near ({float(where[1]):.4g}, {float(where[2]):.4g})" if where else ""
    if reason.lower().startswith(("self-intersection", "ring self-intersection")):
        return f"its edges cross{near}; list the points in order around the outline"
    if reason.lower().startswith("too few points"):
        return "it has fewer than 3 distinct points"
    return reason.split("[")[0].strip().lower() + near


def _tri_areas(points: np.ndarray, tris: np.ndarray) -> np.ndarray:
    a, b, c = points[tris[:, 0]], points[tris[:, 1]], points[tris[:, 2]]
    return 0.5 * (
        (b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0])
    )


def _is_full_triangulation(points: np.ndarray, tris: np.ndarray, n_holes: int, area: float) -> bool:
    """Whether tris uses every point, has the count of a proper triangulation (n + 2h - 2) and
    tiles the area with positive triangles: no vertex was dropped (no T-junction)."""
    if len(tris) != len(points) + 2 * n_holes - 2 or len(np.unique(tris)) != len(points):
        return False
    areas = _tri_areas(points, tris)
    return bool(np.all(areas > 0) and abs(areas.sum() - area) <= 1e-9 * max(1.0, area))


def _split_t_junctions(points: np.ndarray, tris: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Split every triangle that has a polygon vertex inside one of its edges (earcut drops
    vertices that are collinear with their neighbours, leaving such T-junctions)."""
    for _ in range(len(points)):
        a = points[tris]  # (m, 3, 2)
        b = np.roll(a, -1, axis=1)
        ab = b - a
        length2 = np.maximum(np.einsum("mek,mek->me", ab, ab), 1e-300)
        ap = points[None, None, :, :] - a[:, :, None, :]  # (m, 3, n, 2)
        t = np.einsum("menk,mek->men", ap, ab) / length2[..., None]
        cross = ap[..., 0] * ab[..., None, 1] - ap[..., 1] * ab[..., None, 0]
        on = (np.abs(cross) <= tol * np.sqrt(length2)[..., None]) & (t > tol) & (t < 1 - tol)
        hit = np.argwhere(on)
        if len(hit) == 0:
            return tris
        _, first = np.unique(hit[:, 0], return_index=True)
        keep = np.ones(len(tris), dtype=bool)
        new = []
        for m, e, v in hit[first]:
            i, j, k = tris[m, e], tris[m, (e + 1) % 3], tris[m, (e + 2) % 3]
            new += [(i, v, k), (v, j, k)]
            keep[m] = False
        tris = np.concatenate([tris[keep], np.array(new, dtype=np.int64)])
    return tris


def triangulate(outer: ArrayLike, holes: Iterable[ArrayLike] = ()) -> tuple[np.ndarray, np.ndarray]:
    """Triangulation of a polygon with optional holes that uses every vertex (no T-junctions, so
    extrusions stay watertight).

    Returns (points (n, 2): the cleaned outer ring (CCW) then each hole (CW), triangles (m, 3)
    indices into points, every triangle counter-clockwise). Convex rings are fanned; others go
    through earcut, whose T-junctions (vertices it drops as collinear) are split, and the result
    is checked. Raises ValueError when the polygon cannot be triangulated (self-intersecting).
    """
    rings = [clean_ring(outer, ccw=True)] + [clean_ring(h, ccw=False) for h in holes]
    points = np.concatenate(rings)
    n = len(points)
    if len(rings) == 1:
        e1 = ring_next(points) - points
        e0 = points - ring_prev(points)
        if np.all(e0[:, 0] * e1[:, 1] - e0[:, 1] * e1[:, 0] > 0):  # strictly convex: fan
            return points, np.column_stack(
                [np.zeros(n - 2, np.int64), np.arange(1, n - 1), np.arange(2, n)]
            )
    ends = np.cumsum([len(r) for r in rings]).astype(np.uint32)
    tris = mapbox_earcut.triangulate_float64(points, ends).astype(np.int64).reshape(-1, 3)
    if len(tris):
        flip = _tri_areas(points, tris) < 0
        tris[flip] = tris[flip][:, ::-1]
        tris = _split_t_junctions(points, tris)
    area = signed_area(rings[0]) + sum(signed_area(h) for h in rings[1:])
    if _is_full_triangulation(points, tris, len(rings) - 1, area):
        return points, tris
    raise ValueError("polygon could not be triangulated (self-intersecting?)")


# ---- meshes ----------------------------------------------------------------------------------


def make_mesh(vertices: np.ndarray, faces: np.ndarray) -> Mesh:
    """A Mesh of vertices (n, 3) and faces (m, 3) exactly as given (no merging, no repair)."""
    return Mesh(vertices, faces)


def _ring_sides(start: int, count: int, offset: int) -> np.ndarray:
    """(2*count, 3) faces of the quads between ring [start, start+count) and the ring `offset`
    indices above it, outward when the lower ring runs counter-clockwise (solid on its left)."""
    i = start + np.arange(count)
    j = start + (np.arange(count) + 1) % count
    return np.concatenate(
        [np.column_stack([i, j, j + offset]), np.column_stack([i, j + offset, i + offset])]
    )


def extrude(points: np.ndarray, tris: np.ndarray, z0: float, z1: float) -> Mesh:
    """Closed solid from a 2D triangulation: points (n, 2), CCW triangles (m, 3) that share full
    edges (no T-junctions), extruded from z0 to z1. The walls follow the triangulation's boundary
    edges (outer boundary and holes alike). Faces: bottom (m), top (m), sides (2 per boundary
    edge)."""
    if not z1 > z0:
        raise ValueError(f"extrusion needs z1 > z0 (got {z0}, {z1})")
    pts = np.asarray(points, dtype=np.float64)
    tris = np.asarray(tris, dtype=np.int64)
    n = len(pts)
    edges = np.concatenate([tris[:, [0, 1]], tris[:, [1, 2]], tris[:, [2, 0]]])
    key = edges[:, 0] * n + edges[:, 1]
    boundary = edges[~np.isin(key, edges[:, 1] * n + edges[:, 0])]
    a, b = boundary[:, 0], boundary[:, 1]
    sides = np.concatenate([np.column_stack([a, b, b + n]), np.column_stack([a, b + n, a + n])])
    verts = np.vstack(
        [np.column_stack([pts, np.full(n, z0)]), np.column_stack([pts, np.full(n, z1)])]
    )
    return make_mesh(verts, np.concatenate([tris[:, ::-1], tris + n, sides]))


def prism(
    outer: ArrayLike, z0: float, z1: float, holes: Iterable[ArrayLike] = ()
) -> Mesh:
    """Closed prism of a 2D polygon (with optional holes) from z0 to z1 (z1 > z0)."""
    points, tris = triangulate(outer, holes)
    return extrude(points, tris, z0, z1)


def loft(rings: Sequence[ArrayLike], zs: Sequence[float]) -> Mesh:
    """Closed solid through stacked rings: rings[i] (k, 2), all counter-clockwise with the same k
    (matching vertices in order), placed at increasing heights zs[i].

    Faces, in order: bottom cap (k-2), then 2k per band between consecutive rings, then top cap
    (k-2). Caps are earcut triangulations, so convex or concave rings both work.
    """
    rs = [np.asarray(r, dtype=np.float64).reshape(-1, 2) for r in rings]
    k = len(rs[0])
    if len(rs) < 2 or any(len(r) != k for r in rs) or len(zs) != len(rs):
        raise ValueError("loft needs >= 2 rings of equal size and one z per ring")
    if np.any(np.diff(zs) <= 0):
        raise ValueError("loft heights must increase")
    if any(signed_area(r) <= 0 for r in rs):
        raise ValueError("loft rings must be counter-clockwise")
    verts = np.vstack([np.column_stack([r, np.full(k, z)]) for r, z in zip(rs, zs, strict=True)])
    _, bottom = triangulate(rs[0])
    _, top = triangulate(rs[-1])
    if len(bottom) != k - 2 or len(top) != k - 2:  # clean_ring dropped points
        raise ValueError("loft rings must not have repeated or collinear points")
    bands = [_ring_sides(i * k, k, k) for i in range(len(rs) - 1)]
    faces = np.concatenate([bottom[:, ::-1], *bands, top + (len(rs) - 1) * k])
    return make_mesh(verts, faces)


def revolve(
    profile: ArrayLike,
    segments: int = 48,
    scale_xy: tuple[float, float] = (1.0, 1.0),
    center: ArrayLike = (0.0, 0.0),
) -> Mesh:
    """Closed ring solid: the closed profile polygon (m, 2) of (r, z) points, all r > 0, swept a
    full turn about the z axis (a torus-like shell: no caps). scale_xy stretches it into an
    ellipse; center moves it in plan. 2*m*segments faces."""
    prof = clean_ring(profile, ccw=True)
    if np.any(prof[:, 0] <= 0):
        raise ValueError("revolve profile must keep r > 0")
    m = len(prof)
    t = np.linspace(0.0, 2.0 * np.pi, int(segments), endpoint=False)
    c, s = np.cos(t), np.sin(t)
    # vertex (j, i) = angle j, profile point i
    x = (prof[None, :, 0] * c[:, None]) * scale_xy[0] + center[0]
    y = (prof[None, :, 0] * s[:, None]) * scale_xy[1] + center[1]
    z = np.broadcast_to(prof[None, :, 1], x.shape)
    verts = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
    j, i = np.meshgrid(np.arange(segments), np.arange(m), indexing="ij")
    j, i = j.ravel(), i.ravel()
    j1, i1 = (j + 1) % segments, (i + 1) % m
    a, b, cc, d = j * m + i, j * m + i1, j1 * m + i1, j1 * m + i
    # a CCW profile swept CCW: (a, d, cc) and (a, cc, b) face outward
    faces = np.concatenate([np.column_stack([a, d, cc]), np.column_stack([a, cc, b])])
    return make_mesh(verts, faces)


def box(center: ArrayLike, size: ArrayLike, rotation: float = 0.0) -> Mesh:
    """Closed box (12 faces) of size (sx, sy, sz) centred on center (3,), turned by rotation
    degrees CCW about the vertical axis through its centre."""
    sx, sy, sz = (float(v) for v in size)
    if min(sx, sy, sz) <= 0:
        raise ValueError(f"box size must be positive, got {(sx, sy, sz)}")
    cx, cy, cz = (float(v) for v in center)
    ring = to_table(rectangle(sx, sy), (cx, cy), rotation)
    return prism(ring, cz - 0.5 * sz, cz + 0.5 * sz)


def oval_cylinder(
    rx: float, ry: float, z0: float, z1: float, center: ArrayLike = (0.0, 0.0), segments: int = 32
) -> Mesh:
    """Closed elliptic cylinder, semi-axes rx (x) and ry (y), from z0 to z1."""
    ring = ellipse(rx, ry, segments) + np.asarray(center, dtype=np.float64)[:2]
    return loft([ring, ring], [z0, z1])


def frustum(bottom: ArrayLike, top: ArrayLike, z0: float, z1: float) -> Mesh:
    """Closed frustum between two matching counter-clockwise rings at z0 and z1."""
    return loft([bottom, top], [z0, z1])


#: the regular icosahedron: the 12 cyclic permutations of (0, +-1, +-phi), and its 20 faces
#: wound outward
_PHI = (1.0 + 5.0**0.5) / 2.0
_ICOSAHEDRON_VERTICES = np.array(
    [[-1, _PHI, 0], [1, _PHI, 0], [-1, -_PHI, 0], [1, -_PHI, 0], [0, -1, _PHI], [0, 1, _PHI],
     [0, -1, -_PHI], [0, 1, -_PHI], [_PHI, 0, -1], [_PHI, 0, 1], [-_PHI, 0, -1], [-_PHI, 0, 1]])
_ICOSAHEDRON_FACES = np.array(
    [[0, 11, 5], [0, 5, 1], [0, 1, 7], [0, 7, 10], [0, 10, 11], [1, 5, 9], [5, 11, 4],
     [11, 10, 2], [10, 7, 6], [7, 1, 8], [3, 9, 4], [3, 4, 2], [3, 2, 6], [3, 6, 8], [3, 8, 9],
     [4, 9, 5], [2, 4, 11], [6, 2, 10], [8, 6, 7], [9, 8, 1]])


@lru_cache(maxsize=4)
def _unit_sphere(subdivisions: int) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of the unit icosphere: the icosahedron with every face split in four
    at its edge midpoints `subdivisions` times, the new vertices pushed out to the sphere."""
    vertices = _ICOSAHEDRON_VERTICES / np.linalg.norm(_ICOSAHEDRON_VERTICES, axis=1)[:, None]
    faces = _ICOSAHEDRON_FACES
    for _ in range(subdivisions):
        edges = np.sort(np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]]),
                        axis=1)
        unique, index = np.unique(edges, axis=0, return_inverse=True)
        middle = vertices[unique].mean(axis=1)
        mid = index.reshape(3, -1).T + len(vertices)  # ab, bc, ca of each face
        a, b, c = faces.T
        ab, bc, ca = mid.T
        faces = np.concatenate([np.column_stack(f) for f in
                                ((a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca))])
        vertices = np.vstack([vertices, middle / np.linalg.norm(middle, axis=1)[:, None]])
    return vertices, faces


def sphere(center: ArrayLike, radius: float, subdivisions: int = 2) -> Mesh:
    """Closed icosphere (20 * 4**subdivisions faces)."""
    v, f = _unit_sphere(int(subdivisions))
    return make_mesh(v * float(radius) + np.asarray(center, dtype=np.float64), f.copy())


# ---- transforms and assembly -----------------------------------------------------------------


def transform(mesh: Mesh, matrix: np.ndarray) -> Mesh:
    """New mesh with vertices moved by the 4x4 matrix; winding flipped when the matrix mirrors,
    so the result stays outward oriented."""
    m = np.asarray(matrix, dtype=np.float64)
    # einsum, not `@`: a BLAS product of a long (n, 3) array by a 3x3 starts threads that
    # make it several times slower on a busy machine (1M-face meshes are moved here)
    verts = np.einsum("ij,kj->ik", np.asarray(mesh.vertices), m[:3, :3]) + m[:3, 3]
    faces = np.asarray(mesh.faces)
    if np.linalg.det(m[:3, :3]) < 0:
        faces = faces[:, ::-1]
    return make_mesh(verts, faces.copy())


def z_rotation(degrees: float, at: ArrayLike = (0.0, 0.0), z: float = 0.0) -> np.ndarray:
    """4x4 matrix: rotate by degrees CCW about the z axis through the origin, then translate the
    origin to (at[0], at[1], z)."""
    m = np.eye(4)
    m[:2, :2] = rotation_2d(degrees)
    m[0, 3], m[1, 3], m[2, 3] = float(at[0]), float(at[1]), float(z)
    return m


def place(
    mesh: Mesh, at: ArrayLike = (0.0, 0.0), rotation: float = 0.0, z: float = 0.0
) -> Mesh:
    """Copy of a mesh built about the local origin, turned by rotation and moved to (at, z)."""
    return transform(mesh, z_rotation(rotation, at, z))


def concatenate(meshes: Iterable[Mesh | None]) -> Mesh | None:
    """One mesh holding every shell (vertices kept apart, nothing merged); None when empty."""
    parts = [m for m in meshes if m is not None and len(m.faces)]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [len(m.vertices) for m in parts[:-1]])
    verts = np.vstack([m.vertices for m in parts])
    faces = np.vstack([np.asarray(m.faces) + o for m, o in zip(parts, offsets, strict=True)])
    return make_mesh(verts, faces)


def concatenate_labeled(
    parts: Sequence[tuple[str, Mesh]],
) -> tuple[Mesh, np.ndarray, tuple[str, ...]]:
    """Concatenate labelled shells. Returns (mesh, face_part (n_faces,) int index into names,
    names: the distinct labels in first-seen order)."""
    names: list[str] = []
    labels = []
    for name, mesh in parts:
        if name not in names:
            names.append(name)
        labels.append(np.full(len(mesh.faces), names.index(name), dtype=np.int64))
    mesh = concatenate(m for _, m in parts)
    if mesh is None:
        raise ValueError("nothing to concatenate")
    return mesh, np.concatenate(labels), tuple(names)


def mesh_problems(mesh: Mesh, min_area: float = 1e-12) -> list[str]:
    """What is wrong with a mesh that should be closed and outward oriented ([] when fine)."""
    problems = []
    if len(mesh.faces) == 0:
        return ["no faces"]
    mesh = as_trimesh(mesh)
    if not mesh.is_watertight:
        problems.append("not watertight")
    if not mesh.is_winding_consistent:
        problems.append("inconsistent winding")
    if not mesh.volume > 0:
        problems.append(f"volume {mesh.volume:.6g} not positive")
    small = int(np.sum(mesh.area_faces <= min_area))
    if small:
        problems.append(f"{small} degenerate faces")
    if not np.all(np.isfinite(mesh.vertices)):
        problems.append("non-finite vertices")
    return problems
