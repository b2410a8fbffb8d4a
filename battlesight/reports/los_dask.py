"""`los --all` entries judged on Dask: one chunk of pairs a task, for a table (or a night of
tables) that outgrows one machine. Each worker builds the scene's world once and judges its
chunks with the same code as the local run (`los.los_json_lines`), so the lines are the same
(tests/test_chunks.py); they come back in pair order. Dask is imported only when used, through
the client the layout batches use (`analysis.batch.dask_client`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping

from battlesight.api import Battlefield
from battlesight.rulesets.core.chunks import chunked, pairs_per_chunk
from battlesight.rulesets.core.ruleset import get_ruleset
from battlesight.scenes.model import Scene

#: per worker process: the battlefields of the scenes it has judged chunks of, by token
_FIELDS: dict[str, Battlefield] = {}
#: a worker keeps the battlefields of this many scenes (a league night's tables in turn)
_KEEP = 4


def los_json_on_dask(scene: Scene, pairs: list[tuple[str, str]],
                     readings: Mapping[str, str] | None = None, every: bool = False,
                     budget: int | None = None, workers: int | None = None,
                     scheduler: str | None = None) -> Iterator[str]:
    """The lines of `los.los_json_lines` for these pairs, one chunk of pairs
    (`pairs_per_chunk` of the budget) a Dask task: on a local cluster of `workers` processes,
    or on the scheduler at `scheduler` (tcp://host:8786). Lines come in pair order, a chunk's
    as soon as it and every chunk before it are done."""
    from battlesight.analysis.batch import dask_client

    chunks = list(chunked(list(pairs), pairs_per_chunk(get_ruleset(scene.ruleset), budget)))
    chosen = dict(readings or {})
    token = uuid.uuid4().hex
    with dask_client(workers, scheduler) as client:
        shared = client.scatter(scene, broadcast=True)
        futures = [client.submit(judge_chunk_lines, token, shared, chunk, chosen, every,
                                 pure=False) for chunk in chunks]
        for future in futures:
            yield from future.result()
            future.release()


def judge_chunk_lines(token: str, scene: Scene, pairs: list[tuple[str, str]],
                      readings: Mapping[str, str], every: bool) -> list[str]:
    """What one task runs: the JSON lines of these pairs, judged in one chunk on the
    worker's battlefield of the scene (built on its first chunk)."""
    from .los import json_lines

    field = _FIELDS.get(token)
    if field is None:
        while len(_FIELDS) >= _KEEP:
            _FIELDS.pop(next(iter(_FIELDS)))
        field = _FIELDS[token] = Battlefield(scene)
    return list(json_lines(field, pairs, readings, every,
                           budget=len(pairs) * field.ruleset.pair_bytes))
