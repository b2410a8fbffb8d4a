"""Batches of layout analyses: serial in this process, or on Dask (a local cluster of worker
processes, or an existing scheduler). Each layout is analysed whole by one worker with the same
code as the serial run, so the figures are identical (timings aside: see `comparable`).

Dask (dask, distributed) and tqdm are imported only when used; without them the serial run
still works (no progress bar).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from battlesight.scenes.model import Scene

from .analyze import analyze_scene
from .generate import generate_layout
from .standard import standard_model

#: Figures that measure the run, not the layout.
TIMING_KEYS = ("seconds", "cpu_seconds")


@dataclass(frozen=True)
class Job:
    """One layout: a scene, or the layout `generate_layout(ruleset, seed)` makes."""

    scene: Scene | None = None
    ruleset: str | None = None
    seed: int | None = None

    def load(self) -> Scene:
        if self.scene is not None:
            return self.scene
        if self.ruleset is None or self.seed is None:
            raise ValueError("a job needs a scene, or a ruleset and a seed")
        return generate_layout(self.ruleset, self.seed)

    @property
    def label(self) -> str:
        if self.scene is not None:
            return self.scene.path.name if self.scene.path is not None else self.scene.name
        return f"{self.ruleset} seed {self.seed}"


def run_job(job: Job, grid: float = 1.0, overrides: dict | None = None,
            deployment: str | None = None, exact: bool = False, workers: int | None = 1) -> dict:
    """The figures of one job (what a worker runs). overrides: base, height, eye of the
    standard model (see `standard_model`); exact: cast every pair (`analyze_scene`); workers:
    processes of one analysis (one: a batch already keeps every core busy with layouts)."""
    scene = job.load()
    model = standard_model(scene.ruleset, **overrides) if overrides else None
    figures = analyze_scene(scene, grid, model, deployment, exact=exact, workers=workers).figures
    if job.scene is None:
        figures["seed"] = job.seed
    return figures


def comparable(figures: dict) -> dict:
    """The figures without the timing keys (two runs of one layout give equal dicts)."""
    return {k: v for k, v in figures.items() if k not in TIMING_KEYS}


def analyze_batch(jobs: Iterable[Job], grid: float = 1.0, overrides: dict | None = None,
                  deployment: str | None = None, workers: int | None = None,
                  scheduler: str | None = None, progress: bool = False,
                  exact: bool = False) -> list[dict]:
    """Figures of every job, in job order (overrides, deployment, exact: see `run_job`).

    workers: run on a local Dask cluster of that many single-threaded worker processes;
    scheduler: the address of an existing Dask scheduler (tcp://host:8786). Neither: serial.
    progress: a tqdm bar on stderr, shown once the batch has run for more than a second.
    """
    jobs = list(jobs)
    kwargs = {"grid": grid, "overrides": overrides, "deployment": deployment, "exact": exact}
    with _bar(len(jobs), progress) as bar:
        if workers is None and scheduler is None:
            results = []
            for job in jobs:
                results.append(run_job(job, **kwargs))
                bar.update(1)
            return results
        with dask_client(workers, scheduler) as client:
            from distributed import as_completed

            futures = client.map(run_job, jobs, pure=False, **kwargs)
            for _ in as_completed(futures):
                bar.update(1)
            return client.gather(futures)


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc) -> None:
        pass


def _bar(total: int, progress: bool):
    """A tqdm bar on stderr shown after a second (none without tqdm or when not asked)."""
    if not progress:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return _NoBar()
    return tqdm(total=total, delay=1.0, file=sys.stderr, unit="layout", desc="analyse")


class dask_client:  # noqa: N801 - used as a context manager function
    """A Dask client on a new local cluster (workers) or an existing scheduler."""

    def __init__(self, workers: int | None, scheduler: str | None):
        if workers is not None and scheduler is not None:
            raise ValueError("give workers or a scheduler address, not both")
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers, self.scheduler = workers, scheduler
        self.cluster = self.client = None

    def __enter__(self):
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover - dask is optional
            raise ValueError("batches on Dask need dask and distributed: "
                             "pip install dask distributed") from None

        if self.scheduler is not None:
            self.client = Client(self.scheduler, timeout="20s")
        else:
            self.cluster = LocalCluster(
                n_workers=self.workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.ERROR,
            )
            self.client = Client(self.cluster)
        return self.client

    def __exit__(self, *exc) -> None:
        if self.client is not None:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def generated_jobs(ruleset: str, seeds: Iterable[int]) -> Iterator[Job]:
    """One job per seed of the ruleset's generator."""
    for seed in seeds:
        yield Job(ruleset=ruleset, seed=int(seed))
