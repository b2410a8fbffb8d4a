"""Scene -> world: one mesh per terrain piece and per model volume, each owned by its id.

A builder that refuses its input (``geometry.primitives.BuildInputError``, a missing mesh file,
a model with nowhere to stand) becomes a ``SceneBuildError`` naming the piece or model, its
line and key: validation builds the world this way, so what it accepts, every command builds.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from battlesight.geometry import meshfile, polygon_ruins, ruins, terrain, volumes
from battlesight.geometry.primitives import BuildInputError, prism
from battlesight.geometry.types import ModelVolume, TerrainGeometry
from battlesight.geometry.world import World

from .errors import SceneBuildError, SceneProblem
from .footprints import piece_footprint
from .limits import MAX_COORDINATE, MAX_TRUNKS, shorten
from .mesh_keys import mesh_reading
from .model import DEFAULT_AREA_HEIGHT, ModelSpec, Scene, TerrainPiece
from .paths import resolve_mesh_file

#: What a builder raises on input it cannot use; anything else is a bug and stays a bug.
BUILD_ERRORS = (BuildInputError, ValueError, FileNotFoundError, OverflowError)

#: Keys of a piece that shape its mesh; everything else in `data` is rules data.
GEOMETRY_KEYS = {
    "wall": ("from", "to", "height", "thickness"),
    "box": ("at", "size", "rotation"),
    "ruin": ("at", "size", "rotation", "polygon", "floors", "height", "walls", "windows",
             "broken"),
    "hill": ("at", "size", "height", "rotation", "top"),
    "forest": ("polygon", "height", "trunks"),
    "crater": ("at", "size", "radius", "depth", "rim"),
    "mesh": ("file", "at", "rotation", "scale", "units", "up"),
    "area": ("polygon", "at", "size", "rotation", "height"),
}


def build_world(scene: Scene) -> World:
    """The world of a validated scene: terrain first, then models standing on it.

    Raises SceneBuildError listing every piece and model that could not be built or placed.
    """
    world, problems = world_problems(scene)
    if problems:
        raise SceneBuildError(problems)
    return world


def world_problems(scene: Scene, file: str | None = None,
                   scene_dir: Path | None = None) -> tuple[World, list[SceneProblem]]:
    """Build the world, collecting a problem per piece or model the builders refuse (those are
    left out of the returned world). file and scene_dir: for a scene whose path is not set yet
    (default: the scene's own)."""
    world = World(scene.table)
    file = file or scene.file
    scene_dir = scene_dir if scene_dir is not None else scene.scene_dir
    problems: list[SceneProblem] = []
    for piece in scene.terrain:
        try:
            world.add_terrain(piece.id, piece.type, terrain_geometry(piece, scene_dir),
                              rules_data(piece))
        except BUILD_ERRORS as exc:
            problems.append(_problem(scene, file, f"terrain[{piece.id}]", exc, piece.line))
    if problems:  # models stand on the terrain: placing them on a partial one would mislead
        return world, problems
    for spec in scene.models:
        key = f"models[{spec.id}]"
        try:
            volume = model_volume(spec, scene_dir)
        except BUILD_ERRORS as exc:
            param = getattr(exc, "param", None)
            exc = BuildInputError("shape" if param in (None, "file") else param, str(exc))
            problems.append(_problem(scene, file, key, exc, spec.line))
            continue
        try:
            place_model(world, spec, scene, volume)
        except BUILD_ERRORS as exc:  # nowhere to stand: no ruin floor beneath, a roof, ...
            at_key = "floor" if spec.floor else "z" if spec.z is not None else "at"
            exc = BuildInputError(at_key, f"cannot stand here: {exc}")
            problems.append(_problem(scene, file, key, exc, spec.line))
    return world, problems


def _problem(scene: Scene, file: str, path: str, exc: Exception,
             line: int | None) -> SceneProblem:
    param = getattr(exc, "param", None)
    key = f"{path}.{param}" if param else path
    if isinstance(exc, FileNotFoundError):
        key, why = f"{path}.file", "mesh file not found"
    else:
        why = shorten(str(exc) or type(exc).__name__, 240)
    return SceneProblem(file, scene.line_of(key) or line, key, why)


def place_model(world: World, spec: ModelSpec, scene: Scene,
                volume: ModelVolume | None = None) -> None:
    """Add one model of the scene to the world, on the surface or ruin floor beneath it."""
    world.add_model(
        spec.id, volume or model_volume(spec, scene.scene_dir), spec.at, spec.facing,
        floor=spec.floor, near=spec.z, player=spec.player, unit=spec.unit,
        data=model_data(spec),
    )


def rules_data(piece: TerrainPiece) -> dict:
    """The keys of a piece that are not geometry (cover, difficult, area, obstacle, ...)."""
    shape_keys = GEOMETRY_KEYS.get(piece.type, ())
    return {k: v for k, v in piece.data.items() if k not in shape_keys}


def model_data(spec: ModelSpec) -> dict:
    """What the rulesets read from a model: its profile and inline stats/weapons/keywords."""
    return {"profile": spec.profile, "base": spec.base, "height": spec.height, **spec.extra}


def terrain_geometry(piece: TerrainPiece, scene_dir: Path | None) -> TerrainGeometry:
    """Build the mesh of one terrain piece from its scene data."""
    d = piece.data
    kind = piece.type
    if kind == "wall":
        return terrain.wall(d["from"], d["to"], d["height"], d.get("thickness", 0.5))
    if kind == "box":
        return terrain.box(d["at"], d["size"], d.get("rotation", 0.0))
    if kind == "ruin" and "polygon" in d:
        return polygon_ruins.polygon_ruin(
            d["polygon"], d["height"], floors=tuple(d.get("floors", ())), walls=d.get("walls"),
            windows=bool(d.get("windows", True)), broken=bool(d.get("broken", False)))
    if kind == "area":
        outline = piece_footprint(piece)
        height = float(d.get("height", DEFAULT_AREA_HEIGHT))
        return TerrainGeometry(solid=None, area=prism(outline, 0.0, height), footprint=outline)
    if kind == "ruin":
        walls = d.get("walls", ruins.SIDES)
        return ruins.ruin(
            d["at"], d["size"], d["height"], floors=tuple(d.get("floors", ())),
            walls=walls, windows=bool(d.get("windows", True)), rotation=d.get("rotation", 0.0),
            broken=bool(d.get("broken", False)),
        )
    if kind == "hill":
        return terrain.hill(d["at"], d["size"], d["height"], d.get("rotation", 0.0),
                            d.get("top", 0.6))
    if kind == "forest":
        return terrain.forest(d["polygon"], d["height"], d.get("trunks"),
                              max_trunks=MAX_TRUNKS)
    if kind == "crater":
        radius = d["radius"] if "radius" in d else max(_pair(d["size"])) / 2.0
        return terrain.crater(d["at"], radius, d.get("depth", 0.5), d.get("rim", 1.0))
    if kind == "mesh":
        path = resolve_mesh_file(d["file"], scene_dir)
        factor, y_up = mesh_reading(d)
        check_mesh_size(path, factor, y_up)
        return meshfile.mesh_terrain(path, d["at"], d.get("rotation", 0.0), factor, y_up=y_up)
    raise ValueError(f"unknown terrain type {kind!r}")


def check_mesh_size(path: str | Path, factor: float, y_up: bool | None) -> None:
    """BuildInputError (key `file`) for a mesh file that, in inches, is larger than any point
    of a scene may lie from the table (``limits.MAX_COORDINATE``): a number that size would
    overflow the sight and drawing arithmetic, so it is refused at the gate as such numbers
    are in scene files."""
    size = float(max(meshfile.mesh_extents(path, y_up=y_up))) * factor
    if not size <= MAX_COORDINATE:  # NaN too
        raise BuildInputError("file", f"{Path(path).name}: is {size:,.4g}\" across at this "
                                      f"scale, beyond the {MAX_COORDINATE:,g}\" limit of any "
                                      "scene's coordinates (check its units: and scale:)")


def mesh_names(scene: Scene) -> list[str]:
    """The mesh file names a scene gives: its mesh pieces' `file` and mesh models' `shape`."""
    return [p.data["file"] for p in scene.terrain if p.type == "mesh"] + [
        m.shape for m in scene.models if m.is_mesh]


def input_files(scene: Scene) -> list[Path]:
    """Every file the scene's world is built from: the scene file and its mesh files."""
    files = [Path(scene.path)] if scene.path is not None else []
    return files + [resolve_mesh_file(name, scene.scene_dir) for name in mesh_names(scene)]


def unreachable_from(scene: Scene, folder: Path) -> list[str]:
    """The scene's mesh file names that a copy of it saved in `folder` would not find as the
    scene finds them (names resolve against the scene file's folder, then assets/): saved
    there, the copy is a scene `validate` refuses. Names the scene itself cannot resolve are
    left to its own checks."""
    lost = []
    for name in dict.fromkeys(mesh_names(scene)):
        try:
            here = resolve_mesh_file(name, scene.scene_dir)
        except ValueError:
            continue
        try:
            there = resolve_mesh_file(name, folder)
        except ValueError:
            there = None
        if there != here:
            lost.append(name)
    return lost


def model_volume(spec: ModelSpec, scene_dir: Path | None) -> ModelVolume:
    """The volume of a model (shared between models of the same shape and size)."""
    if spec.is_mesh:
        return mesh_model_of(spec, scene_dir).volume
    base = spec.base if not isinstance(spec.base, list) else tuple(spec.base)
    return _volume(spec.shape, base, float(spec.height), spec.eye_height)


def mesh_model_of(spec: ModelSpec, scene_dir: Path | None) -> volumes.MeshModel:
    """The mesh model of a model whose shape is a mesh file, read with its units, up axis,
    scale and parts; its height and base are the mesh's own where `spec.measured` says so."""
    base = None if "base" in spec.measured else spec.base
    base = tuple(base) if isinstance(base, list) else base
    height = None if "height" in spec.measured else float(spec.height)
    factor, y_up = mesh_reading(spec)
    parts = tuple(sorted(spec.parts.items())) if spec.parts else None
    path = str(resolve_mesh_file(spec.shape, scene_dir))
    check_mesh_size(path, factor, y_up)
    return _mesh_model(path, base, height, spec.eye_height if height else spec.eye,
                       factor, y_up, parts)


@lru_cache(maxsize=256)
def _volume(shape: str, base, height: float, eye: float) -> ModelVolume:
    if shape == "cylinder":
        return volumes.cylinder_volume(base, height, eye)
    return volumes.humanoid_volume(base, height, eye)


@lru_cache(maxsize=256)
def _mesh_model(path: str, base, height: float | None, eye: float | None, factor: float,
                y_up: bool | None, parts: tuple | None) -> volumes.MeshModel:
    return volumes.mesh_model(path, base, height, eye, y_up=y_up, scale=factor,
                              parts=dict(parts) if parts else None)


def _pair(value) -> tuple[float, float]:
    if isinstance(value, (int, float)):
        return float(value), float(value)
    return float(value[0]), float(value[1])
