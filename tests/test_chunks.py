"""Who sees whom in chunks: a budget sets how many pairs a chunk of the judgement holds, and
judging in chunks (in this process, in two, or on Dask) gives the same entries, byte for byte,
as one batch; a chunk stays within the memory its system declares per pair."""

from __future__ import annotations

import gc
import os
import tracemalloc

import numpy as np
import pytest
from battlesight.rulesets.core.chunks import SIGHT_BUDGET, chunked, pairs_per_chunk
from battlesight.scenes.footprints import MAX_SHARE_POINTS, area_shares

import battlesight
from battlesight.reports import two_processes
from battlesight.reports.los import json_lines
from battlesight.reports.two_processes import lines_in_two_processes
from tests.helpers import EXAMPLES

ONE_BATCH = 10**15  # a budget no table reaches: every pair in one chunk


def _pairs(field, every: int = 1) -> list[tuple[str, str]]:
    ids = field.models
    return [(a, b) for a in ids for b in ids if a != b][::every]


def test_a_chunk_holds_the_budget_over_the_pair_bytes():
    ruleset = battlesight.load(EXAMPLES / "demo.yaml").ruleset
    assert pairs_per_chunk(ruleset) == SIGHT_BUDGET // ruleset.pair_bytes
    assert pairs_per_chunk(ruleset, 10 * ruleset.pair_bytes + 1) == 10
    assert pairs_per_chunk(ruleset, 1) == 1  # never an empty chunk
    with pytest.raises(ValueError, match="positive"):
        pairs_per_chunk(ruleset, 0)
    assert list(chunked(list(range(7)), 3)) == [[0, 1, 2], [3, 4, 5], [6]]


@pytest.mark.parametrize(("name", "every"), [("demo", 1), ("wmh2_hills_forest", 23),
                                             ("whfb6_village", 80)])
def test_chunks_give_the_same_json_as_one_batch(name, every):
    field = battlesight.load(EXAMPLES / f"{name}.yaml")
    pairs = _pairs(field, every)
    whole = list(json_lines(field, pairs, budget=ONE_BATCH))
    # fresh boards: nothing judged in one run is reused by the other
    field = battlesight.load(EXAMPLES / f"{name}.yaml")
    small = 7 * field.ruleset.pair_bytes  # chunks of 7 pairs, the last one shorter
    assert len(pairs) > 14 and len(pairs) % 7
    chunked_lines = list(json_lines(field, pairs, budget=small))
    assert "\n".join(chunked_lines).encode() == "\n".join(whole).encode()


def test_who_sees_whom_keeps_summaries_of_the_same_verdicts():
    field = battlesight.load(EXAMPLES / "demo.yaml")
    table = field.who_sees_whom(budget=5 * field.ruleset.pair_bytes)
    full = battlesight.load(EXAMPLES / "demo.yaml").judge_many(_pairs(field))
    assert [v.to_dict() for v in table.verdicts] == [v.to_dict() for v in full]
    assert [v.visibility.to_dict() for v in table.verdicts] == \
        [v.visibility.to_dict() for v in full]
    assert all(len(v.visibility.points) == 0 for v in table.verdicts)
    assert sum(v.visibility.samples for v in table.verdicts) > 100 * len(full)


def test_lines_in_two_processes_keep_the_order(monkeypatch):
    monkeypatch.setattr(two_processes, "processes_for", lambda n: 2)
    pids: set[int] = set()

    def work(part):
        for x in part:
            yield f"{x} {os.getpid()}"

    lines = list(lines_in_two_processes(work, range(11)))
    assert [int(line.split()[0]) for line in lines] == list(range(11))
    pids = {line.split()[1] for line in lines}
    assert len(pids) == 2 and str(os.getpid()) in pids


def test_a_failing_child_of_the_lines_is_done_again_here(monkeypatch):
    monkeypatch.setattr(two_processes, "processes_for", lambda n: 2)
    parent = os.getpid()

    def work(part):
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        yield from (str(x) for x in part)

    assert list(lines_in_two_processes(work, range(6))) == [str(x) for x in range(6)]


def test_dask_gives_the_lines_of_the_local_run(capsys):
    from distributed import LocalCluster

    from battlesight.cli.main import main
    from battlesight.reports.los_dask import los_json_on_dask

    field = battlesight.load(EXAMPLES / "demo.yaml")
    pairs = _pairs(field, 3)
    local = list(json_lines(field, pairs))
    assert main(["los", str(EXAMPLES / "demo.yaml"), "--all", "--json"]) == 0
    command = capsys.readouterr().out
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None) as cluster:
        remote = list(los_json_on_dask(field.scene, pairs,
                                       budget=9 * field.ruleset.pair_bytes,
                                       scheduler=cluster.scheduler_address))
        assert main(["los", str(EXAMPLES / "demo.yaml"), "--all", "--json",
                     "--scheduler", cluster.scheduler_address]) == 0
    assert remote == local
    assert capsys.readouterr().out == command


@pytest.mark.parametrize("argv", [["--from", "sgt", "--workers", "2"],
                                  ["--all", "--workers", "2"],
                                  ["--all", "--json", "--workers", "2", "--scheduler", "x"]])
def test_dask_options_go_with_all_and_json(capsys, argv):
    from battlesight.cli.main import main

    assert main(["los", str(EXAMPLES / "demo.yaml"), *argv]) == 2
    assert "--workers" in capsys.readouterr().err


@pytest.mark.parametrize(("name", "every"), [("wh40k6_city_ruins", 11), ("wmh2_hills_forest", 13),
                                             ("aos2_ruins_obstacles", 31)])
def test_a_chunk_stays_within_its_systems_pair_bytes(name, every):
    field = battlesight.load(EXAMPLES / f"{name}.yaml")
    pairs = _pairs(field, every)[:24]
    field.ruleset.judge(field.board, pairs[:2])  # the board's own tables, made once
    gc.collect()
    tracemalloc.start()
    try:
        field.ruleset.judge(field.board, pairs)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= len(pairs) * field.ruleset.pair_bytes


def test_area_shares_of_a_huge_piece_are_bounded():
    huge = np.array([[-1e6, -1e6], [1e6, -1e6], [1e6, 1e6], [-1e6, 1e6]])
    tracemalloc.start()
    try:
        shares = area_shares(huge, [(0.0, 0.0, 36.0, 48.0), (-1e6, -1e6, 0.0, 1e6)])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert shares[1] == pytest.approx(0.5, abs=0.01) and shares[0] < 1e-3
    assert peak < 200 * MAX_SHARE_POINTS  # a few arrays of the bounded grid, not 116 TiB
    table = np.array([[0.0, 0.0], [72.0, 0.0], [72.0, 48.0], [0.0, 48.0]])
    assert list(area_shares(table, [(0, 0, 36, 48), (36, 0, 72, 48)])) == [0.5, 0.5]


def test_the_bench_row_counts_the_rays_the_judgement_casts():
    from battlesight.geometry.ray import RayTally

    from battlesight.bench.whosees import format_who_sees_whom, measured_command

    path = EXAMPLES / "demo.yaml"
    field = battlesight.load(path)
    before = RayTally.rays
    lines = list(json_lines(field, _pairs(field)))
    cast = RayTally.rays - before
    figures = measured_command(["los", str(path), "--all", "--json"], one_process=True)
    assert figures["rays"] >= cast > 100 * len(lines)  # the command also stands the models
    assert figures["rays"] - cast < 0.01 * cast
    assert 50 < figures["main_mib"] <= figures["peak_mib"] < 1024
    assert figures["cpu_s"] > 0
    row = {"models": 12, "pieces": 0, "pairs": len(lines), "command_s": figures["wall_s"],
           "command_cpu_s": figures["cpu_s"], "peak_mib": figures["peak_mib"],
           "one_process_s": figures["wall_s"], "one_process_cpu_s": figures["cpu_s"],
           "one_process_peak_mib": figures["peak_mib"], "rays": figures["rays"],
           "raw_embreex_s": 0.5, "raw_embreex_cpu_s": 0.5}
    assert "12 models (open table)" in format_who_sees_whom([row])
