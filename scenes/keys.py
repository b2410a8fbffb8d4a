"""Known keys: the scene format declares the keys it reads, each ruleset adds its own, and a key
nobody reads is reported with the closest known names (a misspelt ``hieght`` would otherwise
be kept silently as rules data).

A key is the user's own, and never reported, when it sits under ``extra:`` or starts with
``x-``. Unknown keys are warnings (``SceneWarning``): printed, the exit code unaffected, except
under ``validate --strict``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .build import GEOMETRY_KEYS
from .errors import SceneProblem
from .model import Scene
from .validate import MODEL_KEYS, TOP_KEYS

#: The key under which a user keeps data of their own (at any level), and the prefix that marks
#: a key as the user's own.
USER_KEY = "extra"
USER_PREFIX = "x-"


@dataclass(frozen=True)
class SceneWarning(SceneProblem):
    """A problem that does not stop a command: printed on stderr, an error only when strict.
    Its line reads ``FILE:LINE: KEY: warning: message`` so it is not taken for an error."""

    level: ClassVar[str] = "warning"

    def __str__(self) -> str:
        return str(SceneProblem(self.file, self.line, self.key, f"warning: {self.message}"))


def _keys(names: Iterable[str]) -> frozenset[str]:
    return frozenset(names)


@dataclass(frozen=True)
class SceneKeys:
    """The keys read at each place of a scene: the top level, any terrain piece, a piece of one
    type, a model, a unit entry. ``|`` joins two declarations."""

    top: frozenset[str] = frozenset()
    terrain: frozenset[str] = frozenset()
    terrain_types: Mapping[str, frozenset[str]] = field(default_factory=dict)
    model: frozenset[str] = frozenset()
    unit: frozenset[str] = frozenset()

    def __or__(self, other: SceneKeys) -> SceneKeys:
        types = {t: self.terrain_types.get(t, frozenset()) | other.terrain_types.get(t, frozenset())
                 for t in {*self.terrain_types, *other.terrain_types}}
        return SceneKeys(self.top | other.top, self.terrain | other.terrain, types,
                         self.model | other.model, self.unit | other.unit)

    def piece(self, kind: str) -> frozenset[str]:
        """Every key a piece of this type may have."""
        return self.terrain | self.terrain_types.get(kind, frozenset())


def declare(top: Iterable[str] = (), terrain: Iterable[str] = (),
            terrain_types: Mapping[str, Iterable[str]] | None = None,
            model: Iterable[str] = (), unit: Iterable[str] = ()) -> SceneKeys:
    """A SceneKeys from plain lists of names."""
    types = {t: _keys(v) for t, v in (terrain_types or {}).items()}
    return SceneKeys(_keys(top), _keys(terrain), types, _keys(model), _keys(unit))


def is_users(key: Any) -> bool:
    """Whether a key is marked as the user's own (``extra`` or ``x-...``)."""
    return key == USER_KEY or (isinstance(key, str) and key.startswith(USER_PREFIX))


def suggestion(key: Any, known: Iterable[str]) -> str:
    """'unknown key; did you mean 'height'?' (or the ways to keep a key of one's own)."""
    import difflib  # here: only a misspelt name needs it

    close = difflib.get_close_matches(str(key), sorted(known), n=3, cutoff=0.6)
    if close:
        return "unknown key; did you mean " + " or ".join(repr(c) for c in close) + "?"
    return (f"unknown key (nothing reads it; keep your own data under '{USER_KEY}:' or name it "
            f"'{USER_PREFIX}...')")


def unknown_keys(scene: Scene, known: SceneKeys) -> list[SceneWarning]:
    """A warning per key of the scene that neither the format nor its ruleset reads."""
    out: list[SceneWarning] = []

    def check(keys: Iterable[Any], allowed: frozenset[str], path: str) -> None:
        for key in keys:
            if is_users(key) or key in allowed:
                continue
            where = f"{path}.{key}" if path else str(key)
            out.append(SceneWarning(scene.file, scene.line_of(where), where,
                                    suggestion(key, allowed)))

    check(scene.extra, known.top, "")
    for piece in scene.terrain:
        check(piece.data, known.piece(piece.type) - {"id", "type"}, f"terrain[{piece.id}]")
    for spec in scene.models:
        check(spec.extra, known.model, f"models[{spec.id}]")
    for i, unit in enumerate(scene.units):
        ident = unit.get("id")
        path = f"units[{ident}]" if isinstance(ident, str) and ident.strip() else f"units[{i}]"
        check(unit, known.unit, path)
    return out


def _format_keys() -> SceneKeys:
    types = {kind: set(keys) for kind, keys in GEOMETRY_KEYS.items()}
    types["mesh"].add("size")  # plan size for the set-up checks
    # `generated` is the provenance `battlesight generate` writes (seed, set-up rule)
    return declare(top=(*TOP_KEYS, "generated"), terrain=("id", "type", "rotation", "group"),
                   terrain_types=types,
                   model=MODEL_KEYS, unit=("id", "name", "player", "profile"))


#: The keys the scene format itself reads (rulesets add theirs).
FORMAT_KEYS = _format_keys()
