"""The ray rows of `battlesight bench` on a generated 72x48 table (40 pieces, 100 models): raw
embreex segment throughput beside the project's own (`World.blocked`) on the same rays, world
build time, one model-to-model query at default sampling, and all ordered pairs in one batch."""

from __future__ import annotations

import time

import numpy as np

from battlesight.geometry import ray
from battlesight.geometry.visibility import DEFAULT_SAMPLES, SightQuery, visibility, visibility_many
from battlesight.geometry.world import World
from battlesight.scenes.build import build_world
from battlesight.scenes.generate import generate_table

from .timing import best_of


def bench(seed: int = 1, rays: int = 1_000_000, models: int = 100, pieces: int = 40) -> dict:
    """All figures as a dict (seconds, rays per second, ratios)."""
    scene = generate_table(seed, pieces=pieces, models=models)

    def build() -> World:
        world = build_world(scene)
        world.solid_scene  # noqa: B018 - force the BVH builds into the timing
        world.models_scene  # noqa: B018
        return world

    build_s = best_of(build)
    world = build()
    workloads = {
        "los": los_segments(world, rays, np.random.default_rng(seed)),
        "heatmap": heatmap_segments(world, scene),
    }
    throughput = {name: segment_throughput(world, *segs) for name, segs in workloads.items()}
    ids = list(world.models)
    rng = np.random.default_rng(seed + 1)
    single = []
    for _ in range(200):
        a, b = rng.choice(len(ids), size=2, replace=False)
        start = time.perf_counter()
        visibility(world, ids[a], ids[b])
        single.append(time.perf_counter() - start)
    pairs = [SightQuery(a, b) for a in ids for b in ids if a != b]
    start = time.perf_counter()
    results = visibility_many(world, pairs)
    all_pairs_s = time.perf_counter() - start
    return {
        "engine": ray.ENGINE,
        "table": list(scene.table),
        "terrain_pieces": len(scene.terrain),
        "models": len(scene.models),
        "triangles": world.solid_scene.triangles + world.models_scene.triangles,
        "build_world_s": round(build_s, 4),
        "throughput": throughput,
        "default_samples": DEFAULT_SAMPLES,
        "single_query_median_ms": round(1000 * float(np.median(single)), 3),
        "all_pairs": len(pairs),
        "all_pairs_s": round(all_pairs_s, 3),
        "all_pairs_rays": int(sum(r.rays for r in results)),
        "all_pairs_rays_per_s": round(sum(r.rays for r in results) / all_pairs_s),
    }


def segment_throughput(world: World, starts: np.ndarray, ends: np.ndarray) -> dict:
    """Raw embreex (one scene of every solid triangle, float32 rays prepared in advance)
    against `World.blocked` (end points in, directions computed inside) on the same segments."""
    directions, lengths = ray.segments(starts, ends)
    raw_scene, origins32, dirs32, dists32 = raw_embree_inputs(world, starts, directions, lengths)
    out = {}

    def raw():
        out["raw"] = raw_scene.run(origins32, dirs32, dists=dists32, query="OCCLUDED")

    def project():
        out["project"] = world.blocked(starts, ends)

    raw_s, project_s = best_of(raw), best_of(project)
    n = len(starts)
    raw_blocked = np.asarray(out["raw"]) != -1
    return {
        "segments": n,
        "blocked_share": round(float(np.mean(out["project"])), 4),
        "raw_embreex_rays_per_s": round(n / raw_s),
        "project_rays_per_s": round(n / project_s),
        "project_vs_raw": round(raw_s / project_s, 3),
        "agreement": round(float(np.mean(raw_blocked == out["project"])), 6),
        "engines": engine_rows(world, directions, lengths, starts, raw_s, raw_blocked),
    }


def engine_rows(world: World, directions: np.ndarray, lengths: np.ndarray, starts: np.ndarray,
                raw_s: float, raw_blocked: np.ndarray) -> dict:
    """Each installed ray back-end (`ray.available_engines`) on the same segments through
    `RayScene.occluded`: rays per second, the ratio to raw embreex, agreement with it."""
    meshes = blocking_meshes(world)
    rows = {}
    for name in ray.available_engines():
        if name == "trimesh":  # ~10,000x slower: a million rays would take hours
            continue
        scene = ray.RayScene(meshes, name)
        out = {}

        def cast(scene=scene, out=out):
            out["blocked"] = scene.occluded(starts, directions, lengths)

        seconds = best_of(cast)
        rows[name] = {"rays_per_s": round(len(starts) / seconds),
                      "vs_raw": round(raw_s / seconds, 3),
                      "agreement": round(float(np.mean(out["blocked"] == raw_blocked)), 6)}
    return rows


def heatmap_segments(world: World, scene, sources: int = 40, cell: float = 0.5):
    """Every cell centre of a 0.5" grid over the table at z = 1.5, seen from points 0.75" in
    front of the eyes of the first 40 models of player 1 (the workload of a layout heatmap)."""
    observers = [m for m in world.models.values() if m.player == 1][:sources]
    origins = np.array([m.eye + [0.0, 0.75, 0.0] for m in observers])
    xs = np.arange(cell / 2, scene.table[0], cell)
    ys = np.arange(cell / 2, scene.table[1], cell)
    gx, gy = np.meshgrid(xs, ys)
    cells = np.column_stack([gx.ravel(), gy.ravel(), np.full(gx.size, 1.5)])
    starts = np.repeat(origins, len(cells), axis=0)
    ends = np.tile(cells, (len(origins), 1))
    return starts, ends


def los_segments(world: World, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """n sight segments: from just outside a random model's eye towards a random point on
    another random model (the same work a line-of-sight query does)."""
    models = list(world.models.values())
    a = rng.integers(0, len(models), n)
    b = (a + rng.integers(1, len(models), n)) % len(models)
    eyes = np.array([m.eye for m in models])
    lows = np.array([m.mesh.bounds[0] for m in models])
    highs = np.array([m.mesh.bounds[1] for m in models])
    ends = lows[b] + rng.random((n, 3)) * (highs[b] - lows[b])
    starts = eyes[a]
    step = ends - starts
    step /= np.linalg.norm(step, axis=1, keepdims=True)
    return starts + 0.75 * step, ends


def blocking_meshes(world: World) -> list:
    """Every mesh that blocks a segment in `World.blocked`: the solid terrain, then the models."""
    meshes = [e.geometry.solid for e in world.terrain.values() if e.geometry.solid is not None]
    return meshes + [m.mesh for m in world.models.values()]


def raw_embree_inputs(world: World, starts, directions, lengths):
    """One Embree scene of every solid triangle, and float32 rays: what raw embreex needs."""
    from embreex import mesh_construction, rtcore_scene

    meshes = blocking_meshes(world)
    vertices = np.vstack([m.vertices for m in meshes]).astype(np.float32)
    offsets = np.cumsum([0] + [len(m.vertices) for m in meshes[:-1]])
    faces = np.vstack([m.faces + o for m, o in zip(meshes, offsets, strict=True)])
    scene = rtcore_scene.EmbreeScene()
    mesh_construction.TriangleMesh(scene, vertices, faces.astype(np.int32))
    scene.run(np.zeros((1, 3), np.float32), np.ones((1, 3), np.float32), query="OCCLUDED")
    return (
        scene,
        np.ascontiguousarray(starts, np.float32),
        np.ascontiguousarray(directions, np.float32),
        np.ascontiguousarray(lengths, np.float32),
    )


def format_figures(f: dict) -> str:
    lines = [
        f"battlesight bench: {f['table'][0]:g}x{f['table'][1]:g} table, "
        f"{f['terrain_pieces']} terrain pieces, {f['models']} models, "
        f"{f['triangles']:,} triangles, engine {f['engine']}",
        f"  build world (meshes + BVHs)        {f['build_world_s'] * 1000:8.1f} ms",
    ]
    for name, t in f["throughput"].items():
        lines += [
            f"  {name} segments: {t['segments']:,}, {t['blocked_share']:.0%} blocked",
            f"    raw embreex OCCLUDED             {t['raw_embreex_rays_per_s'] / 1e6:8.2f} M/s",
            f"    battlesight World.blocked        {t['project_rays_per_s'] / 1e6:8.2f} M/s"
            f"   ({t['project_vs_raw']:.2f}x raw, agreement {t['agreement']:.4%})",
        ]
        lines += [f"    ray back-end {name:<8} occluded     {row['rays_per_s'] / 1e6:8.2f} M/s"
                  f"   ({row['vs_raw']:.2f}x raw, agreement {row['agreement']:.4%})"
                  for name, row in t.get("engines", {}).items()]
    lines += [
        f"  one model-to-model query (median)  {f['single_query_median_ms']:8.2f} ms"
        f"   ({f['default_samples']} silhouette samples)",
        f"  all {f['all_pairs']} ordered pairs         {f['all_pairs_s']:8.2f} s"
        f"   ({f['all_pairs_rays_per_s'] / 1e6:.2f} M rays/s end to end)",
    ]
    if f.get("big_mesh"):
        b = f["big_mesh"]
        lines.append(
            f"  world build, {b['faces'] / 1e6:.2g}M-face mesh      {b['world_build_s']:8.2f} s"
            f"   ({b['world_vs_raw']:.2f}x the raw embreex BVH build of its triangles, "
            f"{b['raw_bvh_s']:.2f} s; {b['world_vs_bvh']:.2f}x the ray engine's in-place BVH "
            f"alone, {b['bvh_in_place_s']:.2f} s; target 2 s)")
    return "\n".join(lines)
