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

import typing as _typing
from pathlib import Path as _Path

from ._source import source_root as _source_root
from ._version import __version__

_root = _source_root(_Path(__file__).resolve().parent)
if _root is not None:  # a source checkout: the subpackages are the repository's top folders
    __path__.append(str(_root))  # noqa: F821 - the package's own __path__

if _typing.TYPE_CHECKING:
    from .api import Battlefield, example, load

__all__ = ["Battlefield", "__version__", "example", "load"]
#: the subpackages a user may import (`battlesight.geometry`, ...), listed by dir()
_SUBPACKAGES = ("analysis", "api", "cli", "geometry", "reports", "rulesets", "scenes", "viewer")


def __dir__() -> list[str]:
    """What `dir(battlesight)` shows: the API and the subpackages, not this module's own
    imports."""
    return sorted({*__all__, *_SUBPACKAGES})


def __getattr__(name: str) -> _typing.Any:
    """The API is imported on first use, so `import battlesight` stays light."""
    if name in ("Battlefield", "example", "load"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'battlesight' has no attribute {name!r}")
