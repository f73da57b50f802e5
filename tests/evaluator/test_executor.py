"""Executors without a Ray cluster: the registry, option checks, the ambient choice, the
command lines' usage errors, Ray missing, and the driver's checks of a returned record."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import Any

import pytest

from evaluator.cli import main as eval_main
from evaluator.executors import (
    EpisodeHooks,
    EpisodePlan,
    Played,
    current_executor,
    executor_names,
    make_executor,
    use_executor,
)
from evaluator.executors.local import LocalExecutor
from evaluator.runner import EpisodeJob
from generator.cli import main as gen_main
from oracle_bench.errors import ExecutorError, UnknownNameError, UsageError


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory, suite_builder: Any) -> Path:
    return suite_builder(tmp_path_factory.mktemp("suites"), n=1, seed=2)


def test_registry_names_and_option_checks() -> None:
    assert executor_names() == ["local", "ray"]
    assert isinstance(make_executor("local"), LocalExecutor)
    with pytest.raises(UnknownNameError, match="unknown executor 'dask'; available: local, ray"):
        make_executor("dask")
    with pytest.raises(UsageError, match="the local executor takes no option address"):
        make_executor("local", {"address": "auto"})
    with pytest.raises(UsageError, match=r"takes no option cpus \(options: address, num_cpus\)"):
        make_executor("ray", {"cpus": 2})
    with pytest.raises(UsageError, match="invalid Ray num_cpus -1"):
        make_executor("ray", {"num_cpus": -1})


def test_use_executor_is_the_default_of_calls_that_name_none() -> None:
    assert current_executor().name == "local"
    with use_executor("ray", address="auto") as choice:
        assert current_executor() is choice
        assert (choice.name, dict(choice.options)) == ("ray", {"address": "auto"})
    assert current_executor().name == "local"


def _without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    real = builtins.__import__

    def refuse(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "ray" or name.startswith("ray."):
            raise ImportError("No module named 'ray'")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)


def test_ray_missing_is_one_line_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
    suite_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _without_ray(monkeypatch)
    with pytest.raises(ExecutorError, match=r"pip install 'oracle-bench\[ray\]'"):
        make_executor("ray")
    argv = ["1@1", "--suite", str(suite_dir), "--out", str(tmp_path / "o"), "--executor", "ray"]
    assert eval_main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "oracle-eval: error: the ray executor needs Ray, which is not installed: "
        "pip install 'oracle-bench[ray]'"
    ]
    assert not (tmp_path / "o").exists()  # refused before any work
    argv = ["--category", "ERI", "--level", "easy", "-n", "1", "--seed", "0"]
    assert gen_main([*argv, "--out", str(tmp_path / "g"), "--executor", "ray"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'oracle-bench[ray]'" in err[0], err
    assert not (tmp_path / "g").exists()


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--executor", "dask"], "unknown executor 'dask'; available: local, ray"),
        (["--ray-address", "auto"], "--ray-address applies to --executor ray only"),
    ],
)
def test_cli_executor_usage_errors_are_one_line_exit_2(
    extra: list[str],
    needle: str,
    suite_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert eval_main(["1@1", "--suite", str(suite_dir), "--out", str(tmp_path / "o"), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0], err
    assert not (tmp_path / "o").exists()
    argv = ["--category", "ERI", "--level", "easy", "-n", "1", "--seed", "0"]
    assert gen_main([*argv, "--out", str(tmp_path / "g"), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and "Traceback" not in err[0], err
    assert not (tmp_path / "g").exists()


def test_ray_generation_refuses_the_llm_backend(tmp_path: Path) -> None:
    from generator.suite import GenerateConfig, LlmModels, generate_suite

    llm = LlmModels(coder="scripted/x.jsonl", refiner="scripted/x.jsonl")
    config = GenerateConfig(
        category="ERI", level="easy", n=1, seed=0, out=tmp_path / "g", backend="llm", llm=llm
    )
    with pytest.raises(UsageError, match="--executor ray generates with the procedural backend"):
        generate_suite(config, executor="ray")
    assert not (tmp_path / "g").exists()


def _plan_and_hooks(suite_dir: Path, tmp_path: Path) -> tuple[EpisodePlan, EpisodeHooks, Any]:
    """A turn@shot run's plan, as the runner makes it, for one random-agent job."""
    from blackboxes.store import load_box, load_suite
    from evaluator.kinds import kind_for_suite
    from evaluator.runner import trajectory_path

    suite = load_suite(suite_dir)
    box = load_box(suite_dir, suite.boxes[0])
    kind = kind_for_suite(suite)
    settings = kind.configure(suite, {"spec": "1@1", "feedback": "instant"}, "eval")

    class Context:
        def __init__(self) -> None:
            self.suite, self.boxes, self.seed, self.repeats = suite, [box], 0, 1
            self.limits, self.llm_names = None, frozenset[str]()

        def llm_settings(self) -> Any:
            raise AssertionError("no LLM agent here")

    kind_run = kind.start(Context(), settings)
    job = EpisodeJob(box.info.id, "random", 0)
    plan = EpisodePlan(
        kind=kind,
        kind_settings=settings,
        kind_run=kind_run,
        context=Context(),
        boxes={box.info.id: box},
        jobs=[job],
        concurrency=1,
        workers=1,
        limits=None,
        llm=None,
    )

    def unused(*args: Any) -> Any:
        raise AssertionError("not called")

    hooks = EpisodeHooks(
        finish=unused,
        on_done=unused,
        may_start=lambda: True,
        on_interrupt=unused,
        path=lambda j: trajectory_path(tmp_path, j),
    )
    return plan, hooks, job


def test_the_driver_validates_what_a_task_returns(suite_dir: Path, tmp_path: Path) -> None:
    from evaluator._pool import BoxWorkerPool, start_sandbox_worker
    from evaluator._starts import BoxStarts
    from evaluator.executors._episode import play_job
    from evaluator.executors.ray_executor import _RayRun

    plan, hooks, job = _plan_and_hooks(suite_dir, tmp_path)
    box = plan.boxes[job.box_id]
    pool = BoxWorkerPool(1, start_sandbox_worker(None))
    starts = BoxStarts(pool, 1)
    try:
        played = play_job(plan.kind_run, pool, starts, box, job, job.scope)
    finally:
        pool.close()
        starts.close()
    good = played.record.model_dump(mode="json")
    run = _RayRun(None, plan, hooks, 1.0)  # type: ignore[arg-type]
    # a valid record of the job comes back as it was
    assert run._validated(job, good).record == played.record
    # anything else is this job's failed episode (infrastructure: replayed on resume)
    hostile = [
        "not a record",
        {**good, "accuracy": "lots"},
        {**good, "repetition": 7},
        {**good, "box_digest": "0" * 64},
        {**good, "agent": "fixed"},
    ]
    for raw in hostile:
        failed = run._validated(job, raw).record
        assert (failed.status, failed.failure) == ("failed", "infrastructure"), raw
        assert failed.error.startswith("invalid record from a Ray task"), failed.error
        assert (failed.box_id, failed.agent, failed.repetition) == (job.box_id, "random", 0)


def test_a_lost_task_is_an_infrastructure_failure_and_a_bug_is_raised(
    suite_dir: Path, tmp_path: Path
) -> None:
    ray = pytest.importorskip("ray")
    from evaluator.executors.ray_executor import _RayRun

    plan, hooks, job = _plan_and_hooks(suite_dir, tmp_path)

    class Driver:
        exceptions = ray.exceptions

        def __init__(self, error: BaseException) -> None:
            self.error = error

        def get(self, ref: Any) -> Any:
            raise self.error

    crashed = _RayRun(Driver(ray.exceptions.WorkerCrashedError()), plan, hooks, 1.0)  # type: ignore[arg-type]
    record = crashed._played("ref", job).record  # type: ignore[union-attr]
    assert (record.status, record.failure) == ("failed", "infrastructure")
    assert record.error.startswith("Ray task lost: WorkerCrashedError")
    cancelled = _RayRun(Driver(ray.exceptions.TaskCancelledError()), plan, hooks, 1.0)  # type: ignore[arg-type]
    assert cancelled._played("ref", job) == Played(None, "interrupted")
    bug = ray.exceptions.RayTaskError("play_task", "Traceback ...", ZeroDivisionError("oops"))
    buggy = _RayRun(Driver(bug), plan, hooks, 1.0)  # type: ignore[arg-type]
    assert buggy._played("ref", job) is None
    assert [type(e) for e in buggy.errors] == [ZeroDivisionError]
