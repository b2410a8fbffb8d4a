"""Many targets' view windows in one batch (`_group_windows`: one row per member, group after
group) are exactly those of each target alone (`view_windows`), also when the targets' vertex
sets differ in size (padded) and when the rows come from several batches."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
from battlesight.geometry.sampling import view_windows
from battlesight.geometry.visibility import _group_windows

import battlesight
from tests.helpers import EXAMPLES


def test_batched_windows_equal_each_target_alone(monkeypatch):
    from battlesight.geometry import visibility

    world = battlesight.load(EXAMPLES / "demo.yaml").world
    ids = list(world.models)
    bodies = [frozenset(n for n in world.models[t].volume.part_names if n != "base") or None
              for t in ids]
    groups: dict[tuple, list[int]] = defaultdict(list)
    eyes = []
    for k, (target, body) in enumerate(zip(ids, bodies, strict=True)):
        for parts in (None, body):
            for observer in ids[k + 1:k + 4]:
                groups[(target, parts)].append(len(eyes))
                eyes.append(world.models[observer].eye)
    eyes = np.array(eyes)
    sizes = {len(world.models[t].part_vertices(p)) for t, p in groups}
    assert len(sizes) > 1  # sets of several sizes share a batch
    for batch in (10**9, 50):  # one batch; many small ones
        monkeypatch.setattr(visibility, "_WINDOW_BATCH", batch)
        batched, at = _group_windows(world, groups, eyes), 0  # group after group
        assert len(batched.eyes) == len(eyes)
        for (target, parts), rows in groups.items():
            got = batched.take(np.arange(at, at + len(rows)))
            at += len(rows)
            alone = view_windows(eyes[rows], world.models[target].part_vertices(parts))
            for name in ("eyes", "frame", "lo", "hi", "wide"):
                assert np.array_equal(getattr(got, name), getattr(alone, name)), name
