"""Model volumes in the model's local frame: bottom of the base at the origin, facing +y.

Bases are given in millimetres as printed: a round diameter, or an oval (along the facing,
across). Every volume is closed and outward oriented; a humanoid or mesh volume is a union of
closed part shells that may interpenetrate where parts join (legs into torso, hands on the
weapon); the head is a sphere and the eye lies inside it, just behind its front surface.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .mesh import Mesh
from .meshfile import load_mesh_file
from .partnames import part_label
from .primitives import (
    box,
    concatenate_labeled,
    ellipse,
    loft,
    oval_cylinder,
    sphere,
    transform,
    z_rotation,
)
from .types import MM_PER_INCH, ModelVolume

__all__ = [
    "base_radii",
    "cylinder_volume",
    "humanoid_volume",
    "mesh_model",
    "mesh_volume",
    "part_label",
]

BASE_THICKNESS = 0.12  # inches
BASE_SEGMENTS = 32
#: The bottom of a mesh model measured for its base size, inches (1.5 mm).
BASE_SLAB = 0.06
#: A measured base is round when along and across differ by at most this share.
BASE_ROUND_SHARE = 0.05
#: A mesh's lowest slab is the given base when both sizes are within this share of it.
BASE_MATCH_SHARE = 0.2
NOT_HEIGHT = ("banner", "antenna")  # parts left out when measuring a mesh's height
FRONTS = {"+y": 0.0, "-y": 180.0, "+x": 90.0, "-x": -90.0}


def base_radii(base: float | Sequence[float]) -> tuple[float, float]:
    """(ry, rx) in inches: the base's semi-axis along the facing (y) and across it (x), from a
    round diameter or an oval (along, across), both in millimetres."""
    dims = [float(base)] * 2 if np.ndim(base) == 0 else [float(v) for v in base]  # type: ignore[arg-type]
    if len(dims) != 2 or not all(math.isfinite(d) and d > 0 for d in dims):
        raise ValueError(f"base must be a positive diameter or [along, across] in mm, got {base!r}")
    return 0.5 * dims[0] / MM_PER_INCH, 0.5 * dims[1] / MM_PER_INCH


def _check_height(height: float, eye: float | None) -> None:
    if not (math.isfinite(height) and height > 0):
        raise ValueError(f"model height must be a positive number, got {height!r}")
    if eye is not None and not (math.isfinite(eye) and eye > 0):
        raise ValueError(f"model eye height must be a positive number, got {eye!r}")


def cylinder_volume(
    base: float | Sequence[float],
    height: float,
    eye: float | None = None,
    segments: int = BASE_SEGMENTS,
) -> ModelVolume:
    """The base's footprint (circle or ellipse, `segments` points) from z = 0 to height, as one
    closed shell: faces of the bottom BASE_THICKNESS slice (and the bottom cap) are 'base', the
    rest 'body'. 6 * segments - 4 faces (188 for 32). Eye on the axis at eye (default
    0.9 * height)."""
    _check_height(height, eye)
    ry, rx = base_radii(base)
    ring = ellipse(rx, ry, segments)
    bt = min(BASE_THICKNESS, 0.5 * height)
    mesh = loft([ring, ring, ring], [0.0, bt, float(height)])
    k = len(ring)
    n_base = (k - 2) + 2 * k  # bottom cap, then the side band of the base slice
    face_part = np.zeros(len(mesh.faces), dtype=np.int64)
    face_part[n_base:] = 1
    eye_z = 0.9 * height if eye is None else float(eye)
    return ModelVolume(mesh, face_part, ("base", "body"), np.array([0.0, 0.0, eye_z]))


def _beam(p0: Sequence[float], p1: Sequence[float], width: float, depth: float) -> Mesh:
    """Horizontal box from plan point p0 to p1 (x, y, z centre height), width across, depth tall."""
    a, b = np.asarray(p0, dtype=np.float64), np.asarray(p1, dtype=np.float64)
    d = b[:2] - a[:2]
    angle = math.degrees(math.atan2(d[1], d[0]))
    return box(0.5 * (a + b), (float(np.linalg.norm(d)), width, depth), angle)


def _head_eye(centre: np.ndarray, radius: float, eye_z: float) -> np.ndarray:
    """Eye point at height eye_z inside a spherical head, a fifth of the radius behind its front
    surface (on the axis of the head when eye_z misses the head)."""
    dz = eye_z - centre[2]
    if abs(dz) < 0.9 * radius:
        front = math.sqrt(radius * radius - dz * dz)
        return np.array([centre[0], centre[1] + front - 0.2 * radius, eye_z])
    return np.array([centre[0], centre[1], eye_z])


def humanoid_volume(
    base: float | Sequence[float],
    height: float,
    eye: float | None = None,
    banner: bool = False,
    segments: int = BASE_SEGMENTS,
) -> ModelVolume:
    """A trooper from primitives, standing on its base and facing +y, head top at `height`.

    Parts (u = height - base thickness; z above the base top): 'base' disc BASE_THICKNESS thick;
    'legs' two boxes 0..0.46u; 'torso' box 0.44..0.82u, 0.30u wide, 0.17u deep; 'head' sphere of
    radius 0.095u touching `height`; 'arms' upper arms at the torso's sides and forearms reaching
    forward to a 'weapon' box 0.5u long held forward and slightly across the body at 0.6u.
    banner=True adds a 'banner' pole behind the back and a flag, rising 0.3u above `height`.
    About 500 faces (icosphere head of 320). The eye is at `eye` (default 0.92 * height) inside
    the head, 0.2 head radii behind its front surface.
    """
    _check_height(height, eye)
    if height <= 2 * BASE_THICKNESS:
        raise ValueError(f'humanoid height must exceed {2 * BASE_THICKNESS}", got {height}')
    ry, rx = base_radii(base)
    bt = BASE_THICKNESS
    u = float(height) - bt
    z = lambda f: bt + f * u  # noqa: E731 - height above the base top as a fraction of u

    parts: list[tuple[str, Mesh]] = [
        ("base", oval_cylinder(rx, ry, 0.0, bt, (0, 0), segments))
    ]
    leg = (0.11 * u, 0.12 * u, 0.46 * u + 0.01)
    for side in (-1, 1):
        parts.append(("legs", box((side * 0.065 * u, 0.0, bt - 0.01 + 0.5 * leg[2]), leg)))
    parts.append(("torso", box((0.0, 0.0, z(0.63)), (0.30 * u, 0.17 * u, 0.38 * u))))
    head_r = 0.095 * u
    head_c = np.array([0.0, 0.0, float(height) - head_r])
    parts.append(("head", sphere(head_c, head_r, subdivisions=2)))

    # weapon: a rifle held forward, turned 15 degrees across the body
    w_dir = np.array([-math.sin(math.radians(15.0)), math.cos(math.radians(15.0))])
    w_mid = np.array([0.04 * u, 0.27 * u])
    w_len = 0.50 * u
    rear, fore = w_mid - 0.5 * w_len * w_dir, w_mid + 0.5 * w_len * w_dir
    parts.append(("weapon", _beam((*rear, z(0.60)), (*fore, z(0.60)), 0.05 * u, 0.08 * u)))

    shoulder_x = 0.15 * u + 0.04 * u - 0.005 * u
    for side, grip in ((1, 0.30), (-1, 0.62)):
        parts.append(
            ("arms", box((side * shoulder_x, 0.0, z(0.69)), (0.08 * u, 0.10 * u, 0.26 * u)))
        )
        hand = rear + grip * w_len * w_dir
        elbow = (side * shoulder_x, 0.0, z(0.60))
        parts.append(("arms", _beam(elbow, (*hand, z(0.60)), 0.075 * u, 0.075 * u)))

    if banner:
        pole_y = -(0.085 + 0.04) * u
        pole_top = float(height) + 0.3 * u
        pole = oval_cylinder(0.02 * u, 0.02 * u, z(0.40), pole_top, (0.0, pole_y), 8)
        flag = box(
            (0.0, pole_y - 0.15 * u, pole_top - 0.02 * u - 0.11 * u), (0.02 * u, 0.30 * u, 0.22 * u)
        )
        parts += [("banner", pole), ("banner", flag)]

    mesh, face_part, names = concatenate_labeled(parts)
    eye_z = 0.92 * float(height) if eye is None else float(eye)
    return ModelVolume(mesh, face_part, names, _head_eye(head_c, head_r, eye_z))


@dataclass(frozen=True)
class MeshModel:
    """A model volume made from a mesh file, with the sizes found on it.

    height: bottom of the base to the top of the parts other than NOT_HEIGHT, inches.
    base_mm: the base as the scene format writes it (a round diameter, or [along, across]),
    millimetres: the one given, else measured on the mesh's base.
    own_base: whether the base is the mesh's own (a part labelled base, or its lowest slab),
    rather than a disc added under it.
    part_base_mm: the plan size (mm, as base_mm) of its part labelled base, None without one:
    a `base` given beside such a part does not replace it (see `base_disagrees`).
    """

    volume: ModelVolume
    height: float
    base_mm: float | tuple[float, float]
    own_base: bool
    part_base_mm: float | tuple[float, float] | None = None

    @property
    def base_disagrees(self) -> bool:
        """Whether the mesh's own base part is not the size base_mm says (the rules measure
        base_mm; the picture and the sight volume keep the part)."""
        return self.part_base_mm is not None and not _matches(self.part_base_mm, self.base_mm)


def _base_size(plan: np.ndarray) -> float | tuple[float, float]:
    """A base size in mm from the plan points (k, 2) of a base (model frame, facing +y): one
    diameter when along and across differ by at most BASE_ROUND_SHARE, else (along, across)."""
    across, along = (np.ptp(plan, axis=0) * MM_PER_INCH).tolist()
    if abs(along - across) <= BASE_ROUND_SHARE * max(along, across):
        return round(0.5 * (along + across), 1)
    return round(along, 1), round(across, 1)


def _matches(found: float | tuple[float, float], given: float | Sequence[float]) -> bool:
    """Whether a measured base is the given one, within BASE_MATCH_SHARE on both axes."""
    f = np.broadcast_to(np.asarray(found, dtype=float), (2,))
    g = np.broadcast_to(np.asarray(given, dtype=float), (2,))
    return bool(np.all(np.abs(f - g) <= BASE_MATCH_SHARE * g))


def mesh_model(
    path: str | os.PathLike,
    base: float | Sequence[float] | None = None,
    height: float | None = None,
    eye: float | None = None,
    *,
    front: str = "-y",
    y_up: bool | None = None,
    scale: float = 1.0,
    parts: Mapping[str, str] | None = None,
) -> MeshModel:
    """A model volume from a mesh file, at the file's own size (see geometry.meshfile for the
    up axis; scale: inches per file unit, from the scene's ``units`` and ``scale``).

    - front: where the model looks in the file once z-up: '-y' (default: a glTF asset facing
      +Z, or a z-up model seen from Blender's front view), '+y', '+x' or '-x'; it is turned to
      face +y.
    - parts: labelled by geometry.partnames.part_label(node name, parts); faces keep their file
      order.
    - its base: the part labelled 'base' when there is one; else its lowest slab (the faces
      wholly within BASE_THICKNESS of its bottom, measured on the bottom BASE_SLAB), unless
      `base` is given and that slab is not that size (BASE_MATCH_SHARE): then the mesh has no
      base of its own and a disc of `base` (BASE_THICKNESS) is added under it. base_mm is
      `base`, else the plan size of the base (along the facing, across; round when within
      BASE_ROUND_SHARE).
    - placed with its lowest point at z = 0, centred in plan on its base.
    - height: the file's own (times scale); when given, a uniform scale so that the top of the
      parts other than NOT_HEIGHT (banner, antenna) is at height.
    - eye at `eye` (default: the head's centre height, or 0.9 * height without a head), inside
      the head 0.6 of the way from its centre to its front when there is a 'head' part, else on
      the axis.
    """
    if front not in FRONTS:
        raise ValueError(f"front must be one of {sorted(FRONTS)}, got {front!r}")
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"mesh scale must be a positive number, got {scale!r}")
    if height is not None:
        _check_height(height, eye)
    if base is not None:
        base_radii(base)  # refuses a bad base before any work
    mesh, face_part, names = load_mesh_file(path, y_up=y_up)
    labels = [part_label(n, parts) for n in names]
    canon = tuple(dict.fromkeys(labels))
    face_part = np.array([canon.index(label) for label in labels], dtype=np.int64)[face_part]
    mesh = transform(mesh, np.diag([scale, scale, scale, 1.0]) @ z_rotation(FRONTS[front]))
    verts, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    z0 = float(verts[:, 2].min())
    own_base = named_base = "base" in canon
    if own_base:
        base_plan = verts[np.unique(faces[face_part == canon.index("base")])][:, :2]
    else:
        base_plan = verts[verts[:, 2] <= z0 + BASE_SLAB][:, :2]
        slab = verts[faces][:, :, 2].max(axis=1) <= z0 + BASE_THICKNESS
        own_base = base is None or _matches(_base_size(base_plan), base)
        if own_base and slab.any():
            face_part = np.where(slab, len(canon), face_part)
            canon = (*canon, "base")
    centre = 0.5 * (base_plan.min(axis=0) + base_plan.max(axis=0))
    measured = [i for i, n in enumerate(canon) if n not in NOT_HEIGHT]
    top = float(verts[np.unique(faces[np.isin(face_part, measured)])][:, 2].max()) - z0
    lift = 0.0 if own_base else BASE_THICKNESS
    k = 1.0
    if height is not None:
        k = (float(height) - lift) / top
        if k <= 0:
            raise ValueError(f"model height {height} leaves no room above the base")
    base_mm = _base_size(k * base_plan) if base is None else base
    m = np.diag([k, k, k, 1.0])
    m[:3, 3] = [-k * centre[0], -k * centre[1], lift - k * z0]
    mesh = transform(mesh, m)
    if not own_base:
        ry, rx = base_radii(base)  # type: ignore[arg-type] - own_base is True when base is None
        disc = oval_cylinder(rx, ry, 0.0, BASE_THICKNESS, (0, 0), BASE_SEGMENTS)
        mesh, extra, _ = concatenate_labeled([("figure", mesh), ("base", disc)])
        face_part = np.concatenate([face_part, np.full(np.sum(extra == 1), len(canon))])
        canon = (*canon, "base")
    verts, faces = np.asarray(mesh.vertices), np.asarray(mesh.faces)
    total = lift + k * top
    head = verts[np.unique(faces[face_part == canon.index("head")])] if "head" in canon else ()
    if len(head):
        lo, hi = head.min(axis=0), head.max(axis=0)
        c = 0.5 * (lo + hi)
        eye_z = c[2] if eye is None else float(eye)
        eye_pt = np.array([c[0], c[1] + 0.6 * (hi[1] - c[1]), eye_z])
    else:
        eye_pt = np.array([0.0, 0.0, 0.9 * total if eye is None else float(eye)])
    volume = ModelVolume(mesh, face_part, canon, eye_pt)
    return MeshModel(volume, total, base_mm, own_base,
                     _base_size(k * base_plan) if named_base else None)


def mesh_volume(
    path: str | os.PathLike,
    base: float | Sequence[float] | None = None,
    height: float | None = None,
    eye: float | None = None,
    **options,
) -> ModelVolume:
    """The volume of `mesh_model` (same arguments)."""
    return mesh_model(path, base, height, eye, **options).volume
