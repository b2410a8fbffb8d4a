"""The textures a mesh file brings with it, per part, read without Panda3D: the lit pictures
(`viewer.materials`) and the glTF export (`viewer.gltf_export`) draw a textured GLB or OBJ
with its own images from the same reading.

A mesh file's faces are kept as stored by `geometry.meshfile` (nothing merged or reordered), so
part i's faces are the i-th run of the world mesh's faces; a loader-added base comes after them.
"""

from __future__ import annotations

import numpy as np

#: a part of a mesh file: (its face count, corner texture coordinates (faces, 3, 2) or None,
#: RGB(A) image (h, w, 3|4) uint8 or None)
Part = tuple[int, "np.ndarray | None", "np.ndarray | None"]


def file_textures(path) -> list[Part] | None:
    """Per geometry node of a mesh file, in the order `geometry.meshfile` reads them: (faces,
    corner texture coordinates (faces, 3, 2) or None, RGB(A) image or None). None when the file
    has no textures at all. Kept for later commands (`geometry.meshcache`), as the mesh is."""
    from battlesight.geometry import meshcache
    from battlesight.geometry.meshdeps import file_key

    try:
        key = file_key(path)  # its .mtl and images too: a repainted texture is read again
    except OSError:
        return None
    real = key[0]
    kept = meshcache.read("textures", key)
    if kept is not None and "counts" in kept:
        return _parts_of(kept)
    parts = _read_textures(real)
    meshcache.write("textures", key, _arrays_of(parts))
    return parts


def _arrays_of(parts: list[Part] | None) -> dict[str, np.ndarray]:
    """The arrays an entry keeps of `file_textures` (no parts: an empty `counts`)."""
    arrays = {"counts": np.array([c for c, _, _ in parts or ()], dtype=np.int64)}
    for i, (_, uv, image) in enumerate(parts or ()):
        if uv is not None:
            arrays[f"uv{i}"] = uv
        if image is not None:
            arrays[f"image{i}"] = image
    return arrays


def _parts_of(kept: dict[str, np.ndarray]) -> list[Part] | None:
    """`file_textures` from a kept entry (`_arrays_of`)."""
    if not len(kept["counts"]):
        return None
    return [(int(c), kept.get(f"uv{i}"), kept.get(f"image{i}"))
            for i, c in enumerate(kept["counts"])]


def _read_textures(path: str) -> list[Part] | None:
    """`file_textures` read from the file (trimesh)."""
    import trimesh

    try:
        scene = trimesh.load(str(path), force="scene")
    except Exception:  # noqa: BLE001 - validate already read it; unreadable here means untextured
        return None
    parts, any_texture = [], False
    for node in scene.graph.nodes_geometry:
        _, geom_name = scene.graph[node]
        mesh = scene.geometry.get(geom_name)
        if not isinstance(mesh, trimesh.Trimesh) or len(mesh.faces) == 0:
            continue
        uv, image = None, None
        visual = getattr(mesh, "visual", None)
        if getattr(visual, "kind", None) == "texture" and visual.uv is not None:
            material = visual.material
            img = getattr(material, "baseColorTexture", None) or getattr(material, "image", None)
            if img is not None and len(visual.uv) == len(mesh.vertices):
                uv = np.asarray(visual.uv, dtype=np.float64)[np.asarray(mesh.faces)]
                image = np.asarray(img.convert("RGBA" if "A" in img.mode else "RGB"))
                any_texture = True
        parts.append((len(mesh.faces), uv, image))
    return parts if any_texture else None


def scene_file_textures(scene, file) -> list[Part] | None:
    """The textures of a scene's mesh file (a terrain piece's `file`, a model's shape), found
    as the scene finds it; None for a file without textures or not there."""
    if not isinstance(file, str) or not file.lower().endswith((".glb", ".gltf", ".obj")):
        return None
    from battlesight.scenes.paths import resolve_mesh_file

    try:
        path = resolve_mesh_file(file, getattr(scene, "scene_dir", None))
    except ValueError:
        return None
    return file_textures(path)


def piece_file(scene, piece_id: str) -> str | None:
    """The mesh file of a scene's terrain piece, None when it has none."""
    piece = next((p for p in getattr(scene, "terrain", ()) if p.id == piece_id), None)
    file = piece.data.get("file") if piece is not None else None
    return file if isinstance(file, str) else None
