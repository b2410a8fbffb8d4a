"""`los --all` in two processes: the same reports, in the same order, as in one; a child that
fails has its half done again here (the error, if any, raised by the caller's process)."""

from __future__ import annotations

import json
import os

import pytest

from battlesight.cli.main import main
from battlesight.reports import two_processes
from battlesight.reports.two_processes import in_two_processes, processes_for
from tests.helpers import EXAMPLES


def test_processes_for(monkeypatch):
    monkeypatch.setattr(two_processes, "MIN_ITEMS", 10)
    assert processes_for(9) == 1
    assert processes_for(10) == (2 if (os.cpu_count() or 1) > 1 else 1)


@pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2,
                    reason="needs fork and two cores")
def test_work_in_two_processes_keeps_the_order(monkeypatch):
    monkeypatch.setattr(two_processes, "MIN_ITEMS", 2)
    pids = in_two_processes(lambda part: [(x * x, os.getpid()) for x in part], range(10))
    assert [v for v, _ in pids] == [x * x for x in range(10)]
    assert len({p for _, p in pids}) == 2  # the second half came from the child
    assert {p for _, p in pids[:5]} == {os.getpid()}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_failing_child_is_done_again_here(monkeypatch):
    monkeypatch.setattr(two_processes, "MIN_ITEMS", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    me = os.getpid()

    def work(part):
        if os.getpid() != me:
            raise RuntimeError("child fails")
        return [x + 1 for x in part]

    assert in_two_processes(work, range(6)) == [1, 2, 3, 4, 5, 6]


def test_los_all_is_the_same_in_two_processes(capsys, monkeypatch):
    path = str(EXAMPLES / "demo.yaml")
    monkeypatch.setattr(two_processes, "MIN_ITEMS", 10**9)
    assert main(["los", path, "--all", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(two_processes, "MIN_ITEMS", 2)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert main(["los", path, "--all", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == one
