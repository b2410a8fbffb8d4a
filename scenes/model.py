"""Scene format v1 as plain data: the scene, its terrain pieces and its models.

Units and axes follow docs/scene-format.md: inches, x in [0, width], y in [0, depth], z up;
angles in degrees counter-clockwise seen from above; a model's ``facing`` of 0 looks along +y,
90 along -x. Base sizes are millimetres as printed on the base and are converted by
``base_radii_in``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .groups import group_name

TERRAIN_TYPES = ("wall", "box", "ruin", "hill", "forest", "crater", "mesh", "area")
MODEL_SHAPES = ("cylinder", "humanoid")  # any other shape is a mesh file name
RUIN_SIDES = ("north", "south", "east", "west")
FORMAT_VERSION = 1

MM_PER_INCH = 25.4

# Defaults for keys a model may leave out (docs/scene-format.md).
DEFAULT_FACING = 0.0  # degrees; looks along +y
DEFAULT_BASE_MM = 32.0  # round base diameter
DEFAULT_HEIGHT = 1.6  # inches, bottom of base to top of the volume
DEFAULT_SHAPE = "cylinder"
# Eye height as a fraction of ``height`` when ``eye`` is not given. A cylinder's eye is on its
# axis near the top; a humanoid's is at the front of its head; mesh shapes use the cylinder value.
EYE_FRACTION = {"cylinder": 0.9, "humanoid": 0.92}
DEFAULT_EYE_FRACTION = 0.9

# Defaults for terrain keys that may be left out.
DEFAULT_WALL_THICKNESS = 0.5  # inches
DEFAULT_MESH_FOOTPRINT = 2.0  # side of the square footprint of a mesh piece without ``size``
DEFAULT_AREA_HEIGHT = 0.25  # inches: the volume of an ``area`` piece without ``height``


@dataclass
class TerrainPiece:
    """One terrain piece: ``id``, ``type`` and every other key verbatim in ``data``."""

    id: str
    type: str
    data: dict[str, Any]
    line: int | None = field(default=None, compare=False)
    #: the folder a mesh piece's ``file`` resolves against first (the scene's; None: assets/)
    folder: Path | None = field(default=None, compare=False, repr=False)

    def get(self, key: str, default: Any = None) -> Any:
        """A key of ``data`` (``cover``, ``height``, ...) or ``default``."""
        return self.data.get(key, default)

    @property
    def group(self) -> str:
        """The terrain piece this shape belongs to for the rules and the set-up checks: its
        ``group`` name, else its own id (docs/scene-format.md, "Grouped pieces")."""
        return group_name(self.id, self.data)


@dataclass
class ModelSpec:
    """One model as the scene places it; unknown keys (stats, weapons, ...) are in ``extra``."""

    id: str
    unit: str | None
    player: int
    at: tuple[float, float]
    floor: int | None = None
    facing: float = DEFAULT_FACING
    base: float | tuple[float, float] = DEFAULT_BASE_MM
    height: float = DEFAULT_HEIGHT
    eye: float | None = None
    shape: str = DEFAULT_SHAPE
    profile: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    line: int | None = field(default=None, compare=False)
    #: mesh shapes: the file's units (geometry.meshfile.UNITS), up axis ('z' or 'y'), scale
    #: and node name -> part label map, as written (None when not given)
    units: str | None = None
    up: str | None = None
    scale: float | None = None
    parts: dict[str, str] | None = None
    #: stand on the surface of the mesh piece beneath nearest to this height (inches)
    z: float | None = None
    #: which of height and base were measured on the mesh rather than written
    measured: tuple[str, ...] = field(default=(), compare=False)

    @property
    def base_mm(self) -> tuple[float, float]:
        """Base size in mm as (along facing, across); equal for a round base."""
        if isinstance(self.base, (tuple, list)):
            return float(self.base[0]), float(self.base[1])
        return float(self.base), float(self.base)

    @property
    def base_radii_in(self) -> tuple[float, float]:
        """Base semi-axes in inches: (ry along facing, rx across)."""
        along, across = self.base_mm
        return along / MM_PER_INCH / 2.0, across / MM_PER_INCH / 2.0

    @property
    def is_round(self) -> bool:
        """True for a round base."""
        along, across = self.base_mm
        return along == across

    @property
    def eye_height(self) -> float:
        """Eye above the bottom of the base: ``eye``, or a fraction of ``height`` by shape."""
        if self.eye is not None:
            return float(self.eye)
        return EYE_FRACTION.get(self.shape, DEFAULT_EYE_FRACTION) * float(self.height)

    @property
    def is_mesh(self) -> bool:
        """True when ``shape`` names a mesh file."""
        return self.shape not in MODEL_SHAPES


@dataclass
class Scene:
    """A whole scene file. ``units`` and ``extra`` are kept exactly as written."""

    name: str
    ruleset: str
    table: tuple[float, float]
    terrain: list[TerrainPiece] = field(default_factory=list)
    models: list[ModelSpec] = field(default_factory=list)
    units: list[dict[str, Any]] = field(default_factory=list)
    deployment: dict[int, list[list[float]]] | str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    format: int = FORMAT_VERSION
    path: Path | None = field(default=None, compare=False)
    #: line of each key path read from a file (``models[sgt].stats``, ``terrain[wood-1]``)
    lines: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    @property
    def file(self) -> str:
        """How problems name the scene: its path, or ``<scene>`` for one built in memory."""
        return str(self.path) if self.path is not None else "<scene>"

    def line_of(self, key: str) -> int | None:
        """Line of a key path, else of the nearest enclosing key read from a file (or None)."""
        while key:
            if key in self.lines:
                return self.lines[key]
            cut = max(key.rfind("."), key.rfind("["))
            if cut <= 0:
                break
            key = key[:cut]
        return self.lines.get(key)

    @property
    def scene_dir(self) -> Path | None:
        """The folder mesh files resolve against first (None for a scene not read from disk)."""
        return None if self.path is None else Path(self.path).parent

    def model(self, model_id: str) -> ModelSpec:
        """The model with this id; KeyError if there is none."""
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    def piece(self, piece_id: str) -> TerrainPiece:
        """The terrain piece with this id; KeyError if there is none."""
        for p in self.terrain:
            if p.id == piece_id:
                return p
        raise KeyError(piece_id)

    def models_of(self, player: int) -> list[ModelSpec]:
        """The models of one player, in file order."""
        return [m for m in self.models if m.player == player]

    def unit_models(self, unit_id: str) -> list[ModelSpec]:
        """The models whose ``unit`` is unit_id, in file order."""
        return [m for m in self.models if m.unit == unit_id]

    def unit(self, unit_id: str) -> dict[str, Any] | None:
        """The ``units`` entry with this id, or None."""
        for u in self.units:
            if u.get("id") == unit_id:
                return u
        return None

    @property
    def players(self) -> list[int]:
        """The players that have models, sorted."""
        return sorted({m.player for m in self.models})
