"""The world: every terrain piece and model volume, each triangle owned by one id, in ray scenes.

Three static ray scenes hold the terrain (solid pieces that block sight; area volumes such as a
forest's canopy region, which are reported when crossed; and the surfaces models stand on). One
dynamic ray scene holds the model volumes and is rebuilt lazily when a model is added, moved or
removed: the terrain's BVH is never rebuilt for a model's move.
"""

from __future__ import annotations

import numpy as np

from .floors import walkable
from .placed import EPSILON, PlacedModel, TerrainEntry
from .planar import FootprintIndex
from .ray import RayScene, segments
from .types import ModelVolume, TerrainGeometry

_MAX_SKIP_ROUNDS = 16
#: Crossings followed down one vertical line through a mesh building (two per storey).
_MAX_CROSSINGS = 64
#: Above this share of rays ending on terrain, one closest-hit pass is cheaper than an
#: occlusion pass followed by a closest-hit pass on the blocked rays.
_CLOSEST_HIT_SHARE = 0.4


class World:
    """All geometry of one table, with owner ids, ready for batched segment queries."""

    def __init__(self, table: tuple[float, float] = (72.0, 48.0)):
        self.table = (float(table[0]), float(table[1]))
        self.terrain: dict[str, TerrainEntry] = {}
        self.models: dict[str, PlacedModel] = {}
        self._terrain_ids: list[str] = []
        self._model_ids: list[str] = []
        self._static_dirty = True
        self._models_dirty = True
        self._models_first = False  # query order for blocked_rays, adapted per call
        self._terrain_blocks_most = False  # first_blockers' terrain pass, adapted per call
        self.terrain_builds = 0  # how many times the terrain BVH was built (for tests)
        self._footprints: FootprintIndex | None = None

    # ---- building -------------------------------------------------------------------------

    def add_terrain(
        self, piece_id: str, kind: str, geometry: TerrainGeometry, data: dict | None = None
    ) -> TerrainEntry:
        """Add a terrain piece; the terrain BVH is rebuilt at the next query."""
        self._check_new_id(piece_id)
        entry = TerrainEntry(piece_id, kind, geometry, dict(data or {}))
        self.terrain[piece_id] = entry
        self._static_dirty = True
        self._footprints = None
        return entry

    def add_model(
        self,
        model_id: str,
        volume: ModelVolume,
        at: tuple[float, float],
        facing: float = 0.0,
        *,
        floor: int | None = None,
        z: float | None = None,
        near: float | None = None,
        player: int | None = None,
        unit: str | None = None,
        data: dict | None = None,
    ) -> PlacedModel:
        """Place a model with its base centre at `at`, standing on what is beneath it (or on
        floor `floor` of the ruin or mesh building beneath, or on the surface of a mesh piece
        nearest to height `near`, or at height z when given)."""
        self._check_new_id(model_id)
        height = self.stand_height(at, floor, near) if z is None else float(z)
        model = PlacedModel(
            model_id, volume, np.array([at[0], at[1], height], dtype=np.float64),
            float(facing), player, unit, dict(data or {}),
        )
        self.models[model_id] = model
        self._models_dirty = True
        return model

    def move_model(
        self,
        model_id: str,
        at: tuple[float, float],
        facing: float | None = None,
        *,
        floor: int | None = None,
        z: float | None = None,
    ) -> PlacedModel:
        """Move a model; only the model scene is rebuilt, never the terrain's."""
        old = self.models.pop(model_id)
        self._models_dirty = True
        try:
            return self.add_model(
                model_id, old.volume, at, old.facing if facing is None else facing,
                floor=floor, z=z, player=old.player, unit=old.unit, data=old.data,
            )
        except Exception:
            self.models[model_id] = old
            raise

    def remove_model(self, model_id: str) -> None:
        """Take a model off the table (a casualty)."""
        del self.models[model_id]
        self._models_dirty = True

    def _check_new_id(self, owner_id: str) -> None:
        if owner_id in self.terrain or owner_id in self.models:
            raise ValueError(f"duplicate id {owner_id!r}")

    # ---- ray scenes -----------------------------------------------------------------------

    def _build_static(self) -> None:
        entries = list(self.terrain.values())
        self._terrain_ids = [e.id for e in entries if e.geometry.solid is not None]
        self._solid = RayScene([e.geometry.solid for e in entries if e.geometry.solid is not None])
        self._area_ids = [e.id for e in entries if e.geometry.area is not None]
        self._area = RayScene([e.geometry.area for e in entries if e.geometry.area is not None])
        # a piece whose stand is its solid (a hill, a box, a mesh) is stood on through the
        # solid scene: one BVH for both (a 1M-face mesh is not built twice)
        own = [e for e in entries if e.geometry.stand is not None
               and e.geometry.stand is not e.geometry.solid]
        self._stand_ids = [e.id for e in own]
        self._stand = RayScene([e.geometry.stand for e in own])
        self._stand_on_solid = np.array(
            [self.terrain[i].geometry.stand is self.terrain[i].geometry.solid
             for i in self._terrain_ids], dtype=bool)
        # cast down from just above the highest standing surface: float32 keeps heights exact
        tops = [float(np.asarray(e.geometry.stand.vertices)[:, 2].max()) for e in entries
                if e.geometry.stand is not None]  # not trimesh's bounds, which hash the array
        self._stand_top = max(tops, default=0.0) + 1.0
        self._static_dirty = False
        self.terrain_builds += 1

    def _build_models(self) -> None:
        self._model_ids = list(self.models)
        self._model_index = {mid: i for i, mid in enumerate(self._model_ids)}
        self._models_scene = RayScene([self.models[m].mesh for m in self._model_ids])
        self._models_dirty = False

    @property
    def solid_scene(self) -> RayScene:
        if self._static_dirty:
            self._build_static()
        return self._solid

    @property
    def area_scene(self) -> RayScene:
        if self._static_dirty:
            self._build_static()
        return self._area

    @property
    def models_scene(self) -> RayScene:
        if self._models_dirty:
            self._build_models()
        return self._models_scene

    @property
    def solid_ids(self) -> list[str]:
        """Owner id of each mesh of the solid terrain scene."""
        self.solid_scene  # noqa: B018 - builds on demand
        return self._terrain_ids

    @property
    def area_ids(self) -> list[str]:
        self.area_scene  # noqa: B018
        return self._area_ids

    @property
    def model_ids(self) -> list[str]:
        """Owner id of each mesh of the models scene (the index used by `skip` arrays)."""
        self.models_scene  # noqa: B018
        return self._model_ids

    def model_index(self, model_id: str) -> int:
        self.models_scene  # noqa: B018
        return self._model_index[model_id]

    def kind_of(self, owner_id: str) -> str:
        """Terrain type of a piece, or 'model'."""
        return "model" if owner_id in self.models else self.terrain[owner_id].kind

    # ---- standing -------------------------------------------------------------------------

    def _stand_hit(self, origins: np.ndarray, down: np.ndarray) -> tuple[np.ndarray, list]:
        """Distance down to the first standing surface under each origin (inf where none) and
        the id of its piece (None where none): the stand scene, and the solid scene for pieces
        that stand on their solid."""
        dist, geom = self._stand.first_hit(origins, down)
        ids: list = [self._stand_ids[g] if g >= 0 else None for g in geom]
        if self._stand_on_solid.any():
            standable = self._stand_on_solid

            def skipped(rays: np.ndarray, hit: np.ndarray) -> np.ndarray:
                return ~standable[hit]

            d2, g2 = _first_hit_past(self._solid, origins, down, np.full(len(origins), np.inf),
                                     skipped if not standable.all() else None)
            nearer = d2 < dist
            dist = np.where(nearer, d2, dist)
            ids = [self._terrain_ids[g] if n else i for g, n, i in zip(g2, nearer, ids,
                                                                      strict=True)]
        return dist, ids

    def _crossings(self, piece_id: str, at: tuple[float, float]) -> np.ndarray:
        """z of every crossing of the vertical line through `at` with a piece's solid."""
        index = self._terrain_ids.index(piece_id)
        origin = np.array([[at[0], at[1], self._stand_top]])
        down = np.array([[0.0, 0.0, -1.0]])
        out = []
        for _ in range(_MAX_CROSSINGS):
            dist, geom = _first_hit_past(self._solid, origin, down, np.array([np.inf]),
                                         lambda rays, hit: hit != index)
            if geom[0] < 0:
                break
            out.append(float(origin[0, 2] - dist[0]))
            origin = origin - [[0.0, 0.0, dist[0] + EPSILON]]
        return np.array(out)

    def _mesh_level(self, entry: TerrainEntry, at: tuple[float, float], floor: int | None,
                    near: float | None, top: float) -> float:
        """Where a base centred at `at` stands on a mesh piece: the walkable surface under it
        (geometry.floors.walkable) nearest to storey `floor` (0 = ground, also when floor is None
        on a piece with storeys) or to z = near; on a piece without storeys (a rock, a hill)
        and with neither, the surface first met from above (`top`)."""
        if near is None and (floor is None and not entry.floors):
            return top
        if near is None:
            floor = floor or 0
            if not entry.floors:
                raise ValueError(f"{entry.id} has no floors; cannot stand on floor {floor}")
            if floor >= len(entry.floors):
                raise ValueError(f"{entry.id} has no floor {floor} (it has "
                                 f"{len(entry.floors) - 1} above the ground, numbered from 1)")
            near = entry.floors[floor]
        levels = walkable(self._crossings(entry.id, at)) or [top]
        return float(min(levels, key=lambda z: abs(z - near)))

    def stand_height(self, at: tuple[float, float], floor: int | None = None,
                     near: float | None = None) -> float:
        """z where a base centred at `at` stands: the table, the top of a hill or box beneath,
        floor `floor` (0 = ground) of the ruin beneath, or on a mesh piece the walkable surface
        under it nearest to its storey `floor` or to height `near`."""
        if self._static_dirty:
            self._build_static()
        top = self._stand_top
        origin = np.array([[at[0], at[1], top]])
        dist, ids = self._stand_hit(origin, np.array([[0.0, 0.0, -1.0]]))
        if ids[0] is None:
            if floor:
                raise ValueError(f"no ruin beneath {tuple(at)} to stand on floor {floor}")
            if near is not None:
                raise ValueError(f"no mesh piece beneath {tuple(at)} to stand on near z {near:g}")
            return 0.0
        entry = self.terrain[ids[0]]
        if entry.kind == "mesh" and entry.geometry.stand is entry.geometry.solid:
            return self._mesh_level(entry, at, floor, near, float(top - dist[0]))
        if near is not None:
            raise ValueError(f"{entry.id} is not a mesh piece: z {near:g} picks among the "
                             "surfaces of a mesh building (a ruin takes floor)")
        if entry.floors:
            level = floor or 0
            if level >= len(entry.floors):
                raise ValueError(f"{entry.id} has no floor {level}")
            return float(entry.floors[level])
        if floor:
            raise ValueError(f"{entry.id} has no floors; cannot stand on floor {floor}")
        return float(top - dist[0])

    @property
    def footprints(self) -> FootprintIndex:
        """The STRtree of every terrain piece's footprint (rebuilt after a piece is added)."""
        if self._footprints is None:
            entries = list(self.terrain.values())
            self._footprints = FootprintIndex([e.id for e in entries],
                                              [e.geometry.shape for e in entries])
        return self._footprints

    def pieces_at(self, at: tuple[float, float]) -> list[str]:
        """Ids of the terrain pieces whose footprint contains the plan point `at` (or has it
        on its outline)."""
        return self.footprints.at(at)

    # ---- segment queries ------------------------------------------------------------------

    def blocked(self, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """(n,) bool: whether solid terrain or any model blocks each segment starts -> ends
        ((n, 3) each). Embree occlusion queries with a far distance."""
        starts32 = np.ascontiguousarray(starts, dtype=np.float32)
        delta = np.array(ends, dtype=np.float32)
        delta -= starts32
        lengths = np.sqrt(np.einsum("ij,ij->i", delta, delta))
        np.maximum(lengths, 1e-30, out=lengths)  # a zero-length segment is never blocked
        delta /= lengths[:, None]
        return self.blocked_rays(starts32, delta, lengths)

    def blocked_rays(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray
    ) -> np.ndarray:
        """As `blocked`, for rays (n, 3) with unit directions (n, 3) and lengths (n,).

        The scene that blocked the larger share of rays in the previous call is asked first;
        the other only sees the rays still clear.
        """
        origins = np.ascontiguousarray(origins, dtype=np.float32)
        directions = np.ascontiguousarray(directions, dtype=np.float32)
        lengths = np.ascontiguousarray(lengths, dtype=np.float32)
        scenes = [self.solid_scene]
        if self.models:
            scenes.insert(0 if self._models_first else 1, self.models_scene)
        hit = scenes[0].occluded(origins, directions, lengths)
        first_share = hit.mean() if len(hit) else 0.0
        if len(scenes) > 1:
            clear = np.flatnonzero(~hit)
            if len(clear):
                second = scenes[1].occluded(origins[clear], directions[clear], lengths[clear])
                hit[clear] = second
                second_share = second.sum() / len(hit)
                if second_share > first_share:
                    self._models_first = not self._models_first
        return hit

    def first_blockers(
        self,
        origins: np.ndarray,
        directions: np.ndarray,
        lengths: np.ndarray,
        skip: np.ndarray | None = None,
    ) -> tuple[np.ndarray, list[str]]:
        """Closest blocker of each ray within its length.

        skip: (n, k) int model indices (see `model_index`, -1 = none) that do not block ray i,
        or (table (q, k), row (n,)): ray i skips the models of table[row[i]] (many rays share
        one list).
        Returns (n,) int index into the returned owner list (-1 = clear) and that list
        (solid terrain ids, then model ids).
        """
        n = len(origins)
        owners = self.solid_ids + self.model_ids
        solid = len(self.solid_ids)
        result = np.full(n, -1, dtype=np.int64)
        limit = np.asarray(lengths, dtype=np.float64).copy()
        origins = np.ascontiguousarray(origins, dtype=np.float32)
        directions = np.ascontiguousarray(directions, dtype=np.float32)
        if self._terrain_blocks_most:
            # most rays end on terrain: one closest-hit pass beats occlusion then closest hit
            idx = np.arange(n)
            dist, geom = self.solid_scene.first_hit(origins, directions, limit)
        else:
            idx = np.flatnonzero(self.solid_scene.occluded(origins, directions, limit))
            dist, geom = self.solid_scene.first_hit(origins[idx], directions[idx], limit[idx])
        found = geom >= 0
        result[idx[found]] = geom[found]
        limit[idx[found]] = dist[found]
        if n:
            self._terrain_blocks_most = bool(found.sum() > _CLOSEST_HIT_SHARE * n)
        if self.models:
            # Occlusion first (cheap); only rays some model might block get first-hit rounds.
            maybe = np.flatnonzero(self.models_scene.occluded(origins, directions, limit))
            if len(maybe):
                _, geom = self._models_first_hit(
                    origins[maybe], directions[maybe], limit[maybe],
                    None if skip is None else _skip_rows(skip, maybe),
                )
                nearer = geom >= 0
                result[maybe[nearer]] = solid + geom[nearer]
        return result, owners

    def _models_first_hit(self, origins, directions, lengths, skip):
        """First model hit of each ray, stepping past models listed in skip (see
        `first_blockers`; None: none)."""
        table, row_of = (skip, None) if isinstance(skip, np.ndarray) or skip is None else skip
        if table is None or not table.size:
            return _first_hit_past(self.models_scene, origins, directions, lengths, None)
        # (row, model) pairs as sorted keys: one search per hit instead of a (n, k) compare
        width = len(self.model_ids) + 1
        rows = np.repeat(np.arange(len(table)), table.shape[1])
        flat = table.ravel()
        keys = np.unique(rows[flat >= 0] * width + flat[flat >= 0])
        if not len(keys):
            return _first_hit_past(self.models_scene, origins, directions, lengths, None)

        def skipped(rays: np.ndarray, geom: np.ndarray) -> np.ndarray:
            wanted = (rays if row_of is None else row_of[rays]) * width + geom
            at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
            return keys[at] == wanted

        return _first_hit_past(self.models_scene, origins, directions, lengths, skipped)

    def first_terrain(
        self, starts: np.ndarray, ends: np.ndarray, ignore: set[str] = frozenset()
    ) -> list[str | None]:
        """The first solid terrain piece on each segment starts -> ends ((n, 3) each), stepping
        past the pieces in `ignore` (None where the segment is clear)."""
        directions, lengths = segments(starts, ends)
        ids = self.solid_ids
        ignored = np.array([owner in ignore for owner in ids], dtype=bool)

        def skipped(rays: np.ndarray, geom: np.ndarray) -> np.ndarray:
            return ignored[geom]

        _, geom = _first_hit_past(
            self.solid_scene, np.asarray(starts, dtype=np.float64), directions, lengths,
            skipped if ignored.any() else None,
        )
        return [ids[g] if g >= 0 else None for g in geom]

    def areas_crossed(
        self, origins: np.ndarray, directions: np.ndarray, lengths: np.ndarray
    ) -> tuple[np.ndarray, list[str]]:
        """(n,) index into area_ids of the first area volume each ray enters or starts in
        within its length (-1 = none), and area_ids."""
        dist, geom = self.area_scene.first_hit(origins, directions, lengths)
        return np.where(geom >= 0, geom, -1), self.area_ids


def _skip_rows(skip, rays: np.ndarray):
    """The skip lists of the given rays: an (n, k) table's rows, or (table, row of each ray)."""
    if isinstance(skip, np.ndarray):
        return skip[rays]
    table, row_of = skip
    return table, row_of[rays]


def _first_hit_past(scene: RayScene, origins, directions, lengths, skipped):
    """First hit of each ray (n, 3) within lengths (n,) in scene, stepping past hits for which
    skipped(ray indices (m,), mesh indices (m,)) -> (m,) bool is true (None: skip nothing).

    Returns distance (n,) (inf where clear) and mesh index (n,) (-1 where clear)."""
    n = len(origins)
    out_dist = np.full(n, np.inf)
    out_geom = np.full(n, -1, dtype=np.int64)
    offset = np.zeros(n)
    pending = np.arange(n)
    for round_ in range(_MAX_SKIP_ROUNDS):
        if not len(pending):
            break
        if round_ == 0:  # every ray from its origin: nothing to move or gather yet
            start, remaining, dirs = origins, lengths, directions
        else:
            start = origins[pending] + directions[pending] * offset[pending, None]
            remaining, dirs = lengths[pending] - offset[pending], directions[pending]
        live = remaining > 0
        if not live.all():
            pending, start, remaining, dirs = (pending[live], start[live], remaining[live],
                                               dirs[live])
        dist, geom = scene.first_hit(start, dirs, remaining)
        hit = geom >= 0
        skip = np.zeros(len(pending), dtype=bool)
        if skipped is not None and hit.any():
            skip[hit] = skipped(pending[hit], geom[hit])
        final = hit & ~skip
        out_dist[pending[final]] = offset[pending[final]] + dist[final]
        out_geom[pending[final]] = geom[final]
        offset[pending[skip]] += dist[skip] + EPSILON
        pending = pending[skip]
    return out_dist, out_geom
