"""Batches of layout analyses: Dask (local worker processes) gives the serial run's figures."""

from battlesight.analysis.batch import (
    Job,
    analyze_batch,
    comparable,
    generated_jobs,
    run_job,
)

GRID = 6.0  # coarse: the test checks equality, not detail


def test_dask_batch_equals_serial_on_20_generated_layouts():
    jobs = list(generated_jobs("wh40k6", range(20)))
    serial = analyze_batch(jobs, GRID)
    dask = analyze_batch(jobs, GRID, workers=2, progress=True)
    assert [comparable(f) for f in dask] == [comparable(f) for f in serial]
    assert [f["seed"] for f in dask] == list(range(20))
    assert len({f["fairness"] for f in serial}) > 5  # the layouts differ


def test_batch_on_an_existing_scheduler():
    import logging

    from distributed import LocalCluster

    jobs = list(generated_jobs("aos2", range(3)))
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                      dashboard_address=None, silence_logs=logging.ERROR) as cluster:
        remote = analyze_batch(jobs, GRID, scheduler=cluster.scheduler_address)
    assert [comparable(f) for f in remote] == [comparable(f) for f in analyze_batch(jobs, GRID)]


def test_jobs_from_scenes_and_overrides(capsys):
    job = Job(ruleset="aos2", seed=3)
    scene = job.load()
    assert Job(scene=scene).label == scene.name and job.label == "aos2 seed 3"
    a = run_job(Job(scene=scene), GRID)
    b = run_job(job, GRID, overrides={"height": 3.0}, deployment="first blood")
    assert "seed" not in a and b["seed"] == 3
    assert b["standard_model"]["height"] == 3.0
    assert comparable(a) != comparable(b)
    assert capsys.readouterr().err == ""  # quick batches show no progress bar


def test_progress_bar_appears_only_after_a_second(capsys):
    import time

    from battlesight.analysis.batch import _bar

    with _bar(2, progress=True) as bar:
        bar.update(1)
    assert capsys.readouterr().err == ""  # a quick batch: no bar
    with _bar(2, progress=True) as bar:
        time.sleep(1.05)
        bar.update(1)
        bar.update(1)
    assert "2/2" in capsys.readouterr().err
