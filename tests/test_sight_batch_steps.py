"""The batched steps of a sight query give what the plain per-row computation gives: window
directions worked out ray by ray (`ragged_directions`) are each row's own sequence, the R2
points kept in a table are the sequence's, a two-pass join places every ray as a stable sort
by query would, and where rays leave their observers (one engine call per volume and turn)
is where each model's own scene says, whatever its facing."""

from __future__ import annotations

import numpy as np
from battlesight.geometry import sampling
from battlesight.geometry.sampling import _r2_at, r2_points, view_windows
from battlesight.geometry.sight_trace import TracedRays, leave_observers
from battlesight.geometry.visibility import SightQuery

import battlesight
from tests.helpers import minimal_with, write_scene


def _windows(count: int = 7) -> sampling.ViewWindows:
    rng = np.random.default_rng(3)
    box = np.array([[x, y, z] for x in (0.0, 1.0) for y in (0.0, 0.5) for z in (0.0, 2.0)])
    eyes = rng.uniform(-8, 8, (count, 3)) + [0.0, 0.0, 1.0]
    eyes[0] = [0.3, 0.2, 0.7]  # inside the box: the whole-sphere fallback
    return view_windows(eyes, box)


def test_ragged_rows_are_each_rows_own_sequence():
    windows = _windows()
    assert windows.wide[0] and not windows.wide[1:].all()
    counts = np.array([5, 0, 1, 40, 3, 17, 2])
    starts = np.array([0, 9, 96, 3, 70_000, 11, 1])  # one start past the kept table
    flat = windows.ragged_directions(starts, counts)
    assert flat.shape == (counts.sum(), 3) and flat.dtype == np.float32
    at = np.concatenate([[0], np.cumsum(counts)])
    for i, (start, count) in enumerate(zip(starts, counts, strict=True)):
        alone = windows.take(np.array([i])).ragged_directions(int(start), np.array([count]))
        assert np.array_equal(flat[at[i]:at[i + 1]], alone)
    assert np.allclose(np.linalg.norm(flat, axis=1), 1.0, atol=1e-6)
    same = windows.directions(4, 6)  # the padded form is the ragged one, row by row
    assert np.array_equal(same.reshape(-1, 3),
                          windows.ragged_directions(4, np.full(len(counts), 6)))


def test_kept_r2_points_are_the_sequence():
    """Also while the kept table grows (4,096 points first, doubled as longer sequences are
    read) and after it has: the same points."""
    for start in (0, 1, 5_000, 65_530, 80_000, 0):
        index = start + np.arange(12)
        assert np.array_equal(_r2_at(index), r2_points(start, 12).astype(np.float32))


def test_join_places_rays_as_a_stable_sort_by_query():
    rng = np.random.default_rng(5)
    first_q = np.sort(rng.integers(0, 9, 40))
    rows = np.array([1, 4, 5, 8])
    second_q = np.sort(rng.integers(0, len(rows), 25))

    def rays(query_of, offset):
        n = len(query_of)
        return TracedRays(query_of, np.arange(n) + offset, ["a"], -np.arange(n) - offset, ["f"],
                     rng.normal(size=(n, 3)))

    a, b = rays(first_q, 0), rays(second_q, 1000)
    got = a.join(b, rows)
    query_of = np.concatenate([a.query_of, rows[b.query_of]])
    order = np.argsort(query_of, kind="stable")
    assert np.array_equal(got.query_of, query_of[order])
    assert np.array_equal(got.blocker, np.concatenate([a.blocker, b.blocker])[order])
    assert np.array_equal(got.area, np.concatenate([a.area, b.area])[order])
    assert np.array_equal(got.points, np.concatenate([a.points, b.points])[order])


def test_rays_leave_each_observer_where_its_own_scene_says(tmp_path):
    models = "\n".join(
        f"- {{id: m{k}, player: {1 + k % 2}, at: [{6 + 5 * k}, {8 + 3 * (k % 3)}], "
        f"facing: {facing}, base: {base}, height: 1.7, shape: {shape}}}"
        for k, (facing, base, shape) in enumerate([
            (0, 32, "humanoid"), (30, 32, "humanoid"), (90, 40, "cylinder"),
            (200, 32, "humanoid"), (30, 40, "cylinder"), (0, 32, "humanoid")]))
    world = battlesight.load(write_scene(tmp_path, minimal_with(models=models))).world
    ids = [m for m in world.models if m.startswith("m")]
    queries = [SightQuery(o, t) for o in ids for t in ids if o != t]
    queries.append(SightQuery(ids[0], ids[1], eye=world.models[ids[0]].eye + [0, 0, 9.0]))
    queries.append(SightQuery(None, ids[2], eye=np.array([1.0, 1.0, 1.0])))
    eyes = np.array([world.models[q.observer].eye if q.eye is None else q.eye
                     for q in queries])
    rng = np.random.default_rng(7)
    per_query = 6
    query_of = np.repeat(np.arange(len(queries)), per_query)
    directions = rng.normal(size=(len(query_of), 3))
    directions[:, 2] = np.abs(directions[:, 2]) * 0.3
    directions = (directions / np.linalg.norm(directions, axis=1)[:, None]).astype(np.float32)
    leave = leave_observers(world, queries, eyes, directions, query_of)
    assert (leave[:-2 * per_query] > 0).all()  # every eye inside its own volume
    assert (leave[-2 * per_query:] == 0).all()  # an eye above the model, and no observer
    for i, q in enumerate(queries[:-2]):
        rays = slice(i * per_query, (i + 1) * per_query)
        scene = world.models[q.observer].ray_scene
        dist, geom = scene.first_hit(np.repeat(eyes[i][None], per_query, 0), directions[rays])
        assert (geom >= 0).all()
        assert np.allclose(leave[rays], dist, atol=1e-5)


def test_a_forest_added_to_a_judged_board_gives_cover():
    """The table's forests, kept between verdicts (`cover._forests`), are read again once a
    piece is added: the second judgement sees the new wood."""
    from tests.rules_helpers import Table

    table = Table()
    table.model("ork", "boyz", 2, (30, 24), "ork-boy")
    table.model("shooter", "tac", 1, (10, 24), "tactical-marine")
    board = table.board()
    before = board.ruleset.judge(board, [("shooter", "ork")])[0]
    assert before.visible and not before.in_cover
    table.forest("wood", [[18, 20], [22, 20], [22, 28], [18, 28]], height=4)
    after = board.ruleset.judge(board, [("shooter", "ork")])[0]
    assert (after.cover.value, after.cover.kind, after.cover.source) == (5, "forest", "wood")
