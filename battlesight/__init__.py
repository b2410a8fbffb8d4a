"""battlesight: line of sight for tabletop wargames, computed with rays, judged by the rules.

The front door::

    import battlesight
    bf = battlesight.load("scene.yaml")        # a path, a YAML string's dict, or a Scene
    bf.sight("a", "b").visible_fraction        # geometry only
    bf.judge("a", "b").reason                  # the ruleset's verdict, with its rule
    bf.who_sees_whom()                         # every ordered pair, in chunks

Subpackages: `battlesight.geometry` (meshes, rays, visibility), `battlesight.scenes` (the scene
format), `battlesight.rulesets` (the rules core and one package per system),
`battlesight.analysis` (layout analysis), `battlesight.viewer` (drawing),
`battlesight.cli` (the command line) and `battlesight.reports` (its JSON reports).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._source import source_root
from ._version import __version__

_root = source_root(Path(__file__).resolve().parent)
if _root is not None:  # a source checkout: the subpackages are the repository's top folders
    __path__.append(str(_root))  # noqa: F821 - the package's own __path__

if TYPE_CHECKING:
    from .api import Battlefield, example, load

__all__ = ["Battlefield", "__version__", "example", "load"]


def __getattr__(name: str) -> Any:
    """The API is imported on first use, so `import battlesight` stays light."""
    if name in ("Battlefield", "example", "load"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'battlesight' has no attribute {name!r}")
