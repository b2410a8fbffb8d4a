"""Generate the bundled example meshes (run from the repository root):

    python assets/make_assets.py

- assets/terrain/statue.glb: a 2 x 2 x 0.75" plinth with a 3.25" figure on it (about 2 x 2 x 4"),
  nodes 'plinth' and 'figure'.
- assets/models/marine.glb: a 1.6" trooper on a 32 mm base with a banner, nodes 'base', 'legs',
  'torso', 'head', 'arms', 'weapon', 'banner'.

Both are written as y-up glTF (geometry.meshfile.export_glb) with their front facing glTF +Z,
the convention geometry.volumes.mesh_volume expects by default (front='-y' once z-up).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from battlesight.geometry.meshfile import export_glb, split_parts  # noqa: E402
from battlesight.geometry.primitives import box, transform, z_rotation  # noqa: E402
from battlesight.geometry.volumes import humanoid_volume  # noqa: E402

TURN_TO_FILE_FRONT = z_rotation(180.0)  # our facing +y -> -y (glTF +Z once y-up)


def marine() -> list:
    """Named parts of the marine, z-up, facing -y."""
    vol = humanoid_volume(32, 1.6, banner=True)
    return [
        (name, transform(mesh, TURN_TO_FILE_FRONT))
        for name, mesh in split_parts(vol.mesh, vol.face_part, vol.part_names)
    ]


def statue() -> list:
    """Named parts of the statue, z-up, facing -y."""
    plinth = box((0.0, 0.0, 0.375), (2.0, 2.0, 0.75))
    figure = humanoid_volume(40, 3.25).mesh
    figure = transform(figure, z_rotation(180.0, (0.0, 0.0), 0.75 - 0.01))
    return [("plinth", plinth), ("figure", figure)]


def main() -> None:
    (ROOT / "assets" / "models").mkdir(parents=True, exist_ok=True)
    (ROOT / "assets" / "terrain").mkdir(parents=True, exist_ok=True)
    export_glb(marine(), ROOT / "assets" / "models" / "marine.glb")
    export_glb(statue(), ROOT / "assets" / "terrain" / "statue.glb")


if __name__ == "__main__":
    main()
