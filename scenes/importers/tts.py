"""`tts`: a Tabletop Simulator save (JSON: `ObjectStates[]`, each with `Name`, `Nickname`,
`Tags`, `Transform` {posX, posY, posZ, rotX, rotY, rotZ, scaleX, scaleY, scaleZ} and, for a
`Custom_Model`, `CustomMesh.MeshURL`).

Axes: Unity's are left-handed and y-up, the table's centre the origin, one unit an inch (the
scale wargame tables in TTS are built to). A point (x, y, z) of the save is (x + W/2, z + D/2)
on a W x D table at height y; a turn `rotY` (clockwise seen from above) is -rotY here. An OBJ
as TTS loads it is mirrored in x into Unity's frame, so a mesh vertex (x, y, z) stands at
(-x, z, y) in the table's z-up frame, times the object's scale. Tilts (`rotX`, `rotZ`) are
left out: terrain and models stand upright.

Meshes: TTS caches each downloaded file under its URL with every character that is not a
letter or a digit removed (`http://x.com/a.obj` -> `httpxcomaobj`, plus `.obj`), in
`Mods/Models`; `--mods DIR` names that folder (or the `Mods` folder above it). Each mesh used
is written, turned z-up and scaled to inches, beside the scene (`<scene>-meshes/`), so the
scene needs no `up:` or `scale:`.

Terrain or model: an object whose `Tags` or `Nickname` hold one of the model tags (default
`model`, `mini`, `miniature`) is a model; one with a terrain tag (default `terrain`) is
terrain. An untagged `Custom_Model` is a figure when its mesh is figure-sized (at most
`FIGURE_SIZE` wide and tall) and either stands on a round base (its plan as wide as deep, at
most `BASE_SIZE`) or is one of several copies of one mesh (a squad); else terrain. Each such
guess is said in a warning (one per mesh), with the tag that overrides it; `--model-tag`
turns the guessing off (the tags then decide alone). Other objects (cards, dice, bags, the
table) are left out. The save is read as leniently as TTS reads it: a raw newline or tab in a
string (a pasted MeshURL) is kept, and the URL's spaces and control characters dropped.
A model's player is its tag `player N` (or `playerN`, `p N`), else --player; its base its
tag `base NN` (mm), else the narrower side of its mesh's plan.
"""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
from battlesight.scenes.limits import MAX_MODELS, MAX_TERRAIN_PIECES

from .common import Ids, Imported, ImportOptions, Reader, r, read_json, refuse, source_name

NAME = "tts"
DEFAULT_RULESET = "wh40k6"
DEFAULT_TABLE = (72.0, 48.0)
MESH_KINDS = ("Custom_Model",)  # the objects TTS builds from an OBJ (MeshURL)
PLAYER_TAG = re.compile(r"^\s*(?:player|p)\s*[-_:]?\s*(\d{1,2})\s*$", re.I)
BASE_TAG = re.compile(r"^\s*base\s*[-_:]?\s*(\d{1,3}(?:\.\d+)?)\s*(?:mm)?\s*$", re.I)
MM_PER_INCH = 25.4
#: an untagged mesh at most this wide and tall (inches) may be a figure
FIGURE_SIZE = 4.0
#: ... and is one when its plan is round-ish and at most this wide (a base), or it has copies
BASE_SIZE = 2.6
#: the longest mesh name a message shows whole (a cache name is the whole URL)
SHOWN_NAME = 120


def shown_name(name: str) -> str:
    """A long cache name with its middle left out, so a message stays one readable line."""
    if len(name) <= SHOWN_NAME:
        return name
    half = (SHOWN_NAME - 3) // 2
    return f"{name[:half]}...{name[-half:]}"


def cache_name(url: str) -> str:
    """The file name TTS gives a downloaded mesh: the URL without any character that is not a
    letter or a digit, then `.obj`."""
    return re.sub(r"[^A-Za-z0-9]", "", url) + ".obj"


def _mesh_folders(mods: Path) -> list[Path]:
    return [mods / "Models", mods, mods / "Mods" / "Models"]


def find_mesh(url: str, mods: Path | None) -> Path | None:
    """The cached OBJ of a MeshURL in the mods folder (None when it is not there)."""
    if mods is None:
        return None
    for folder in _mesh_folders(mods):
        path = folder / cache_name(url)
        try:
            if path.is_file():
                return path
        except OSError:  # a name longer than the file system allows: TTS could not cache it
            continue
    return None


def _tags(obj: dict) -> list[str]:
    tags = obj.get("Tags") if isinstance(obj.get("Tags"), list) else []
    return [str(t) for t in tags]


def _words(obj: dict) -> set[str]:
    words = {t.strip().lower() for t in _tags(obj)}
    words |= {w.lower() for w in re.split(r"[\s_\-.,;:]+", str(obj.get("Nickname") or "")) if w}
    return words


def _url(obj: dict) -> str | None:
    """An object's MeshURL as TTS fetches it: without the spaces and control characters a
    pasted URL brings (None where it has none)."""
    custom = obj.get("CustomMesh")
    url = custom.get("MeshURL") if isinstance(custom, dict) else None
    if not isinstance(url, str):
        return None
    url = re.sub(r"[\x00-\x20\x7f]", "", url)
    return url or None


def figure_guess(mesh, copies: int) -> str | None:
    """Why an untagged mesh reads as a figure (None: terrain): figure-sized, and on a round
    base or one of several copies."""
    lo, hi = mesh.bounds
    width, depth, height = hi - lo
    if max(width, depth, height) > FIGURE_SIZE:
        return None
    size = f'{width:.1f}" x {depth:.1f}" x {height:.1f}"'
    if max(width, depth) <= BASE_SIZE and min(width, depth) >= 0.85 * max(width, depth):
        return f"untagged, a {size} mesh on a round base"
    if copies >= 2:
        return f"untagged, a {size} mesh used by {copies} objects"
    return None


def read(path: Path, options: ImportOptions) -> Imported:
    """The scene of one save file, and the warnings of how untagged objects were read."""
    data = read_json(path, NAME, lenient=True)
    rd = Reader(path)
    if not isinstance(data, dict) or not isinstance(data.get("ObjectStates"), list):
        raise rd.fail("ObjectStates", "missing: this is not a Tabletop Simulator save")
    table = options.table or DEFAULT_TABLE
    ids = Ids()
    files: dict[str, bytes] = {}
    meshes: dict[str, str] = {}
    folder = options.mesh_folder
    terrain, models, warnings = [], [], []
    guessed: dict[str, list] = {}  # mesh name -> [kind, why, count]
    model_tags = {t.lower() for t in options.model_tags}
    terrain_tags = {t.lower() for t in options.terrain_tags}
    objects = data["ObjectStates"]
    copies: dict[str, int] = {}
    for obj in objects:
        if isinstance(obj, dict) and (url := _url(obj)):
            copies[url] = copies.get(url, 0) + 1
    for i, obj in enumerate(objects):
        opath = f"ObjectStates[{i}]"
        if not isinstance(obj, dict):
            raise rd.fail(opath, "must be an object")
        words = _words(obj)
        is_model = bool(words & model_tags)
        tagged = is_model or bool(words & terrain_tags)
        is_terrain = bool(words & terrain_tags) or (obj.get("Name") in MESH_KINDS
                                                   and not is_model)
        if not (is_model or is_terrain):
            continue
        url = _url(obj)
        if url is None:
            raise rd.fail(f"{opath}.CustomMesh.MeshURL",
                          "missing: only Custom_Model objects (with a mesh) can be imported")
        mesh_file = find_mesh(url, options.mods)
        if mesh_file is None:
            where = f" in {options.mods}" if options.mods else " (give --mods DIR)"
            raise rd.fail(f"{opath}.CustomMesh.MeshURL",
                          f"mesh {shown_name(cache_name(url))} not found{where}")
        tf = rd.get(obj, "Transform", opath, kind=dict)
        tpath = f"{opath}.Transform"
        pos = [rd.number(tf, k, tpath, 0.0) for k in ("posX", "posY", "posZ")]
        turn = -rd.number(tf, "rotY", tpath, 0.0)
        scale = [rd.number(tf, k, tpath, 1.0) for k in ("scaleX", "scaleY", "scaleZ")]
        if min(abs(k) for k in scale) == 0:
            raise rd.fail(f"{tpath}.scaleX", f"scales must not be 0, got {scale}")
        mesh = _load(mesh_file, scale, path, f"{opath}.CustomMesh.MeshURL")
        if not tagged and not options.model_tags_given:
            why = figure_guess(mesh, copies.get(url, 1))
            is_model, is_terrain = why is not None, why is None
            note = guessed.setdefault(mesh_file.name, ["model" if is_model else "terrain",
                                                       why, 0])
            note[2] += 1
        key = f"{mesh_file.name}|{scale}"
        if key not in meshes:
            name = f"{folder}/{ids.new(mesh_file.stem[-40:], 'mesh')}.obj"
            meshes[key] = name
            files[name] = _obj_bytes(mesh)
        lo, hi = mesh.bounds
        centre = 0.5 * (lo[:2] + hi[:2])
        a = math.radians(turn)
        c, s = math.cos(a), math.sin(a)
        at = np.array([pos[0] + table[0] / 2, pos[2] + table[1] / 2])
        at += np.array([c * centre[0] - s * centre[1], s * centre[0] + c * centre[1]])
        ident = ids.new(obj.get("Nickname") or obj.get("GUID") or obj.get("Name"), "object")
        if is_model:
            models.append(_model(ident, obj, meshes[key], at, turn, lo, hi, options))
        else:
            terrain.append({"id": ident, "type": "mesh", "file": meshes[key],
                            "at": [r(at[0]), r(at[1])], "rotation": r(turn)})
    for name, (kind, why, count) in guessed.items():
        if kind == "model":
            warnings.append(f"{path}: ObjectStates: {count} untagged object(s) of mesh "
                            f"{shown_name(name)} read as models ({why}); tag them 'terrain' "
                            "to read them as terrain")
    if len(terrain) > MAX_TERRAIN_PIECES or len(models) > MAX_MODELS:
        raise refuse(path, "ObjectStates", f"has {len(terrain)} terrain pieces and "
                                           f"{len(models)} models (at most {MAX_TERRAIN_PIECES} "
                                           f"and {MAX_MODELS})")
    scene: dict[str, Any] = {"format": 1, "name": str(data.get("SaveName") or path.stem),
                             "ruleset": options.ruleset or DEFAULT_RULESET,
                             "table": [r(table[0]), r(table[1])], "terrain": terrain,
                             "models": models,
                             "x-source": {"format": NAME, "file": source_name(path)}}
    return Imported(scene, files, warnings)


def _model(ident: str, obj: dict, file: str, at: np.ndarray, turn: float, lo: np.ndarray,
           hi: np.ndarray, options: ImportOptions) -> dict[str, Any]:
    player, base = options.player, None
    for tag in _tags(obj):
        if m := PLAYER_TAG.match(tag):
            player = int(m.group(1))
        elif m := BASE_TAG.match(tag):
            base = float(m.group(1))
    if base is None:
        base = float(min(hi[:2] - lo[:2])) * MM_PER_INCH
    # facing 0 looks along +y: a model's front is Unity's forward (+z), the table's +y
    return {"id": ident, "player": player, "at": [r(at[0]), r(at[1])], "facing": r(turn),
            "base": r(base), "height": r(float(hi[2] - lo[2])), "shape": file}


def _load(mesh_file: Path, scale: list[float], save: Path, key: str):
    """The OBJ as the table sees it: z-up, mirrored out of Unity's frame, scaled, inches."""
    import trimesh
    from battlesight.geometry.meshfile import unreadable_why

    try:
        mesh = trimesh.load(mesh_file, file_type="obj", force="mesh", process=False)
    except Exception as exc:  # trimesh raises many kinds on a broken file  # noqa: BLE001
        raise refuse(save, key, f"{shown_name(mesh_file.name)}: cannot read the OBJ: "
                                f"{unreadable_why(exc, '.obj')}") from None
    if not isinstance(mesh, trimesh.Trimesh) or not len(mesh.faces):
        raise refuse(save, key, f"{shown_name(mesh_file.name)}: the OBJ has no faces")
    v = np.asarray(mesh.vertices, dtype=np.float64)
    if not np.isfinite(v).all():
        raise refuse(save, key, f"{mesh_file.name}: the OBJ has vertices that are not finite "
                                "numbers")
    placed = np.column_stack([-v[:, 0] * scale[0], v[:, 2] * scale[2], v[:, 1] * scale[1]])
    faces = np.asarray(mesh.faces)
    if np.prod(np.sign(scale)) < 0:  # a mirrored object (a negative scale): keep faces outward
        faces = faces[:, ::-1]
    return trimesh.Trimesh(placed, faces, process=False)


def _obj_bytes(mesh) -> bytes:
    """The mesh as OBJ text (vertices and faces only)."""
    out = io.StringIO()
    out.write("# converted by battlesight import --format tts: z up, inches\n")
    for x, y, z in mesh.vertices:
        out.write(f"v {x:.6g} {y:.6g} {z:.6g}\n")
    for a, b, c in np.asarray(mesh.faces) + 1:
        out.write(f"f {a} {b} {c}\n")
    return out.getvalue().encode("ascii")
