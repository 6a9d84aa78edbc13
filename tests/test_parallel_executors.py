"""`lexsym._util.parallel`: results in job order on every executor, a dead local worker is a prompt clear
error (never a hang), and Ray gives the same bytes as the local pool, even when a worker is killed."""

from __future__ import annotations

import copy
import faulthandler
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lexsym._util import parallel
from lexsym._util.errors import SolveError
from lexsym._util.parallel import ExecutorUnavailable, WorkerDied, map_in_order
from lexsym.cli import app
from tests.openexempt_fixtures import case as native_case

REPO = Path(__file__).resolve().parents[1]
runner = CliRunner()

# --- job functions: top level, so worker processes can unpickle them ------------------------------------


def _square(number: int) -> int:
    return number * number


def _quiet_worker() -> None:
    """A broken pool ends its other workers with SIGTERM, which a process that has solved a case (or was
    forked from one: clingo's application leaves its signal handler behind) takes as a SIGSEGV. Harmless,
    the worker is going anyway, but pytest's fault handler, inherited by the fork, would print it."""
    faulthandler.disable()


def _die_at(job: tuple[int, int]) -> int:
    """Job `number` == `fatal` kills its own process, as the OOM killer would. Jobs take a little time, so
    every worker has run (and quieted itself) before a later chunk's fatal job."""
    _quiet_worker()
    time.sleep(0.01)
    number, fatal = job
    if number == fatal:
        os.kill(os.getpid(), signal.SIGKILL)
    return number * number


def _die_once(job: tuple[int, str]) -> int:
    """Job 5 kills its process the first time it runs (the marker, made before dying, says it has)."""
    number, marker = job
    if number == 5 and not os.path.exists(marker):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    return number * number


def _refuse(number: int) -> int:
    if number == 3:
        raise SolveError("case 3 does not solve")
    return number


def _within(seconds: float, call: Callable[[], Any]) -> Any:
    """`call()`'s result or exception, or a failed test when it has not ended within `seconds` (a hang)."""
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s: a dead worker hangs the pool"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


# --- in this process and the local pool -----------------------------------------------------------------


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_results_come_in_job_order_with_progress(workers: int) -> None:
    seen: list[tuple[int, int | None]] = []
    got = map_in_order(_square, list(range(23)), workers=workers, progress=lambda d, t: seen.append((d, t)))
    assert list(got) == [n * n for n in range(23)]
    assert seen == [(done, 23) for done in range(1, 24)]
    streamed = map_in_order(_square, (n for n in range(9)), workers=workers, chunk_size=2)
    assert list(streamed) == [n * n for n in range(9)]


def test_a_job_s_own_error_reaches_the_caller_as_itself() -> None:
    with pytest.raises(SolveError, match="case 3 does not solve"):
        list(map_in_order(_refuse, range(8), workers=2))


def test_a_killed_local_worker_is_a_prompt_one_line_error() -> None:
    jobs = [(number, 13) for number in range(40)]
    with pytest.raises(WorkerDied) as caught:
        _within(60, lambda: list(map_in_order(_die_at, jobs, workers=2)))
    message = str(caught.value)
    assert "worker process died" in message and "_die_at" in message and "\n" not in message
    assert caught.value.exit_code == 3


def test_solve_many_with_a_killed_worker_raises_instead_of_hanging(monkeypatch) -> None:
    import lexsym
    import lexsym.law.solver
    from lexsym.interop.openexempt_native import case_from_native

    real = lexsym.law.solver.solve_cases

    def deadly(cases, **options):  # forked workers inherit the patch
        _quiet_worker()
        if any(case.id == "fatal" for case in cases):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(cases, **options)

    monkeypatch.setattr(lexsym.law.solver, "solve_cases", deadly)
    good = case_from_native(native_case(state="WISCONSIN"), case_id="good", source="s", readings={})
    cases = [good] * 20 + [good.model_copy(update={"id": "fatal"})] + [good] * 20
    with pytest.raises(WorkerDied):
        _within(120, lambda: list(lexsym.solve_many(cases, workers=2)))


def test_an_unknown_executor_is_refused_before_any_work() -> None:
    with pytest.raises(ExecutorUnavailable, match="choose local or ray"):
        map_in_order(_square, range(3), executor="spark")


def test_ray_missing_is_a_one_line_error_naming_the_extra(tmp_path: Path) -> None:
    hidden = tmp_path / "no_ray" / "ray"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('ray is hidden by the test')\n")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps(native_case(state="WISCONSIN")) + "\n")
    out = tmp_path / "solutions.jsonl"
    command = ["solve", "--batch", str(cases), "--out", str(out), "--executor", "ray"]
    done = subprocess.run(
        [sys.executable, "-m", "lexsym", *command],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": f"{hidden.parent}{os.pathsep}{REPO}"},
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "lexsym: error: the ray executor needs Ray, which is not installed: pip install 'lexsym[ray]'"
    ]
    assert not out.exists()


def test_a_ray_cluster_that_cannot_be_joined_is_a_one_line_error(monkeypatch) -> None:
    class Unreachable:  # stands in for the ray module: no cluster answers at the address
        @staticmethod
        def is_initialized() -> bool:
            return False

        @staticmethod
        def init(**options: Any) -> None:
            raise ConnectionError(f"could not connect to {options['address']}\nlong details")

    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.9:6379")
    with pytest.raises(ExecutorUnavailable) as caught:
        parallel._ray_connect(Unreachable)
    where = "the Ray cluster at RAY_ADDRESS=10.0.0.9:6379"
    assert str(caught.value) == f"cannot start or join {where}: could not connect to 10.0.0.9:6379"


# --- Ray: one local cluster of two CPUs for the module ---------------------------------------------------


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'lexsym[ray]')")
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("RAY_ADDRESS", raising=False)  # the test's own cluster, never a shared one
        patch.setenv("RAY_USAGE_STATS_ENABLED", "0")  # tests never touch the network
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
        try:
            yield ray
        finally:
            ray.shutdown()


def _cli(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.fixture(scope="module")
def cases_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Nine lines: cases of both filings, a line that is not JSON and one that is not a case."""
    lines = [json.dumps(native_case(state="WISCONSIN", married=n % 2 == 1)) for n in range(7)]
    lines[2:2] = ["not json", json.dumps({"id": "no-dates"})]
    path = tmp_path_factory.mktemp("cases") / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_ray_solve_batch_gives_the_local_pool_s_bytes(ray_cluster, cases_file: Path, tmp_path: Path) -> None:
    local, on_ray = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    first = _cli(
        "solve", "--batch", str(cases_file), "--out", str(local), "--executor", "local", "--workers", "2"
    )
    second = _cli("solve", "--batch", str(cases_file), "--out", str(on_ray), "--executor", "ray")
    assert first.exit_code == second.exit_code == 1  # the two bad lines
    assert len(local.read_bytes().splitlines()) == 9
    assert local.read_bytes() == on_ray.read_bytes()


def test_a_command_joins_the_cluster_at_ray_address_and_leaves_it_up(
    ray_cluster, cases_file: Path, tmp_path: Path
) -> None:
    local, joined = tmp_path / "local.jsonl", tmp_path / "joined.jsonl"
    _cli("solve", "--batch", str(cases_file), "--out", str(local))
    address = ray_cluster.get_runtime_context().gcs_address
    command = ["solve", "--batch", str(cases_file), "--out", str(joined), "--executor", "ray"]
    done = subprocess.run(
        [sys.executable, "-m", "lexsym", *command],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "RAY_ADDRESS": address},
        timeout=120,
    )
    assert done.returncode == 1, done.stderr  # the two bad lines
    assert "Started a local Ray instance" not in done.stderr
    assert local.read_bytes() == joined.read_bytes()
    assert list(map_in_order(_square, range(3), executor="ray")) == [0, 1, 4]  # the cluster is still up


@pytest.fixture(scope="module")
def generated(ray_cluster, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One small OE config generated on each executor."""
    base = tmp_path_factory.mktemp("generate")
    config = base / "small.yaml"
    config.write_text(
        "name: small\nterminal_task: OE\nasset_count_min: 1\nasset_count_max: 3\nmarried_ratio: 0.5\n"
        "state_jurisdictions: [WI, IL]\nsplit: {dev: 2, test: 7}\n"
    )
    outs = {"local": base / "local", "ray": base / "ray"}
    for name, out in outs.items():
        workers = ["--workers", "2"] if name == "local" else []
        done = _cli("generate", "--config", str(config), "--out", str(out), "--executor", name, *workers)
        assert done.exit_code == 0, done.output
    return outs


def test_ray_generate_gives_the_local_pool_s_bytes(generated: dict[str, Path]) -> None:
    for name in ("tasks.jsonl", "manifest.json"):
        assert (generated["local"] / name).read_bytes() == (generated["ray"] / name).read_bytes(), name
    assert len((generated["local"] / "tasks.jsonl").read_text().splitlines()) == 9


def _predictions(tasks: Path, out: Path) -> Path:
    """Gold answers, an empty schedule, a claim over an asset's value and an unreadable answer."""
    records = [json.loads(line) for line in tasks.read_text().splitlines()]
    lines: list[dict[str, Any]] = [{"id": r["id"], "answer": r["gold"]} for r in records]
    lines[0]["answer"] = {"jurisdiction": records[0]["gold"]["jurisdiction"], "schedule": {}}
    number, over = next((n, r) for n, r in enumerate(records) if n > 0 and r["gold"]["schedule"])
    schedule = copy.deepcopy(over["gold"]["schedule"])
    asset = next(iter(schedule))
    value = next(a["value"] for a in over["case"]["assets"] if a["description"] == asset)
    schedule[asset][0]["claim_value"] = value + 1
    lines[number]["answer"] = {"jurisdiction": over["gold"]["jurisdiction"], "schedule": schedule}
    broken = next(n for n in range(1, len(records)) if n != number)
    lines[broken] = {
        "id": records[broken]["id"],
        "output": 'FINAL ANSWER: {"jurisdiction": "Federal", "schedule": {"',
    }
    out.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return out


def test_ray_score_gives_the_local_pool_s_report(generated: dict[str, Path], tmp_path: Path) -> None:
    tasks = generated["local"] / "tasks.jsonl"
    predictions = _predictions(tasks, tmp_path / "predictions.jsonl")
    reports = {}
    for name in ("local", "ray"):
        workers = ["--workers", "2"] if name == "local" else []
        done = _cli("score", str(tasks), str(predictions), "--json", "--executor", name, *workers)
        assert done.exit_code == 0, done.output
        reports[name] = done.stdout
    assert reports["local"] == reports["ray"]
    oe = next(g for g in json.loads(reports["ray"])["by_task"] if g["task"] == "OE")
    assert oe["n"] == 9 and 0 < oe["metrics"]["valid"]["mean"] < 1


def test_a_killed_ray_worker_loses_only_its_chunk(ray_cluster, tmp_path: Path) -> None:
    marker = str(tmp_path / "died-once")
    jobs = [(number, marker) for number in range(12)]
    assert list(map_in_order(_die_once, jobs, executor="ray", chunk_size=2)) == [n * n for n in range(12)]
    assert os.path.exists(marker)  # the worker did die


def test_a_chunk_ray_gives_up_on_is_submitted_again(ray_cluster, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(parallel, "RAY_TASK_RETRIES", 0)  # Ray's own retry off: ours must do it
    marker = str(tmp_path / "died-once")
    jobs = [(number, marker) for number in range(8)]
    assert list(map_in_order(_die_once, jobs, executor="ray", chunk_size=3)) == [n * n for n in range(8)]
    assert os.path.exists(marker)


def test_a_chunk_that_always_kills_its_worker_ends_in_a_clear_error(ray_cluster, monkeypatch) -> None:
    monkeypatch.setattr(parallel, "RAY_TASK_RETRIES", 0)
    monkeypatch.setattr(parallel, "CHUNK_RETRIES", 1)
    jobs = [(number, 1) for number in range(4)]
    with pytest.raises(WorkerDied, match="after its retries"):
        _within(120, lambda: list(map_in_order(_die_at, jobs, executor="ray", chunk_size=2)))


def test_a_job_s_own_error_on_ray_is_raised_as_itself(ray_cluster) -> None:
    with pytest.raises(SolveError, match="case 3 does not solve"):
        list(map_in_order(_refuse, range(8), executor="ray"))
