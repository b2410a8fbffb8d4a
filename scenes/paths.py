"""Where mesh files named by a scene are found: the scene's folder first, then ``assets/``."""

from __future__ import annotations

from pathlib import Path, PurePath

from .limits import shown
from .textfiles import special_kind

REPO_ROOT = Path(__file__).resolve().parent.parent
ASSETS_DIR = REPO_ROOT / "assets"


def _inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def resolve_mesh_file(file: str, scene_dir: Path | None) -> Path:
    """The real path of a mesh file named in a scene.

    Tried in order: ``scene_dir/file``, ``ASSETS_DIR/file`` and, when ``file`` starts with
    ``assets/``, ``ASSETS_DIR`` joined with the rest (so ``assets/terrain/x.glb`` and
    ``terrain/x.glb`` both work). The first existing file whose real path (symlinks followed)
    lies inside the scene folder or ``ASSETS_DIR`` wins. Raises ValueError when no such file
    exists or when the name leads outside both folders.
    """
    if not isinstance(file, str) or not file.strip():
        raise ValueError("mesh file name must be a non-empty string")
    roots: list[Path] = []
    bases: list[Path] = []
    if scene_dir is not None:
        roots.append(Path(scene_dir).resolve())
        bases.append(Path(scene_dir))
    roots.append(ASSETS_DIR.resolve())
    bases.append(ASSETS_DIR)
    rel = PurePath(file.replace("\\", "/"))
    candidates = [base / rel for base in bases]
    if rel.parts[:1] == ("assets",) and len(rel.parts) > 1:
        candidates.append(ASSETS_DIR / PurePath(*rel.parts[1:]))
    outside: Path | None = None
    all_outside = True
    for cand in candidates:
        try:
            real = cand.resolve()
            is_file = real.is_file()
        except OSError as error:  # a name too long, a loop of links: it names no file
            raise ValueError(f"mesh file {shown(file)} cannot be opened: "
                             f"{error.strerror or error}") from None
        inside = _inside(real, roots)
        all_outside = all_outside and not inside
        if inside and not is_file and real.exists():
            kind = special_kind(real.stat().st_mode) or "not a regular file"
            raise ValueError(f"mesh file {shown(file)} is {kind}, not a mesh file (only "
                             "regular files are read)")
        if is_file:
            if inside:
                return real
            outside = outside or real
    where = " or ".join(str(r) for r in roots)
    if outside is not None or all_outside:
        raise ValueError(
            f"mesh file {file!r} resolves outside the scene folder and assets ({where})")
    raise ValueError(f"mesh file {file!r} not found in {where}")
