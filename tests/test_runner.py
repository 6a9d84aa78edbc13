"""`lexsym run` and `lexsym.runner`: scores, the run directory, errors and retries, budgets, filters,
repeats, the cache in a run, and resuming after a SIGKILL.

No network: the local models, plus `Scripted`, a fake model passed to `run_tasks` as an object, which
answers like the oracle unless a script tells it to be slow, fail (transiently or for good), think aloud or
cost money for a task.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lexsym._util.errors import InputError
from lexsym.models.base import Completion, GenerationParams, PermanentModelError, TransientModelError
from lexsym.models.local import OracleModel
from lexsym.runner import RetryPolicy, RunOptions, read_samples, run_tasks
from lexsym.runner.limits import RateLimiter
from lexsym.runner.rundir import RunDir
from lexsym.runner.selection import select
from lexsym.runner.tasksets import load_task_set, prompt_sha256
from tests.task_sets import generate_task_set

REPO = Path(__file__).resolve().parents[1]
FAST_RETRY = RetryPolicy(base=0.001, cap=0.005, max_attempts=4)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test (and every subprocess it starts) gets its own cache directory, never ~/.cache."""
    monkeypatch.setenv("LEXSYM_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory) -> Path:
    """Four cases (two or three assets, some married, WI and IL), each task on every case: 20 tasks."""
    return generate_task_set(tmp_path_factory.mktemp("tiny"), {"task": ["AE", "EC", "EV", "NA", "OE"]})


@pytest.fixture(scope="module")
def records(task_dir) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (task_dir / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]


def options(**overrides: Any) -> RunOptions:
    base: dict[str, Any] = {"progress": False, "score_workers": 1, "retry": FAST_RETRY, "seed": 0}
    return RunOptions(**{**base, **overrides})


def samples(run_dir: Path) -> list[dict[str, Any]]:
    return list(read_samples(run_dir / "samples.jsonl"))


def header(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "run.json").read_text(encoding="utf-8"))


def lexsym(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
        cwd=REPO,
    )


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lexsym: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


Action = str | Callable[[dict[str, Any]], str]


class Scripted:
    """A fake model: the oracle's answer after `delay` seconds, with `tokens` and `cost`, unless `script`
    gives the task id a list of actions, one per call (the last repeats): "ok", "transient", "permanent",
    "crash" (a plain exception), or a function of the task record returning the completion text."""

    def __init__(
        self,
        script: dict[str, list[Action]] | None = None,
        *,
        model_id: str = "test:scripted",
        delay: float = 0.0,
        cost: float = 0.0,
        cacheable: bool = False,
    ):
        self.id = model_id
        self.script = script or {}
        self.delay = delay
        self.cost = cost
        self.cacheable = cacheable
        self.calls: Counter[str] = Counter()
        self.in_flight = self.peak = 0
        self._oracle = OracleModel()

    async def generate(self, messages, params, *, task=None) -> Completion:
        identifier = task["id"]
        self.calls[identifier] += 1
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            actions = self.script.get(identifier, ["ok"])
            action = actions[min(self.calls[identifier], len(actions)) - 1]
            if action == "transient":
                raise TransientModelError("rate limited", status=429)
            if action == "permanent":
                raise PermanentModelError("the prompt is longer than the context window", status=400)
            if action == "crash":
                raise ValueError("backend bug")
            if callable(action):
                return Completion(text=action(task), finish_reason="stop", model=self.id)
            answer = await self._oracle.generate(messages, params, task=task)
            answer.tokens_in, answer.tokens_out, answer.cost, answer.model = 1000, 50, self.cost, self.id
            return answer
        finally:
            self.in_flight -= 1


def gold_text(task: dict[str, Any]) -> str:
    gold = task["gold"]
    if task["task"] == "OE":
        gold = {"jurisdiction": gold["jurisdiction"], "schedule": gold["schedule"]}
    return "FINAL ANSWER: " + json.dumps(gold)


# --- scores ------------------------------------------------------------------------------------------------


def metric(report: dict[str, Any], key: str, task: str, name: str) -> float:
    group = next(g for g in report[key] if g["task"] == task)
    return group["metrics"][name]["mean"]


def test_oracle_scores_perfectly_on_every_task_and_variant(tmp_path, task_dir, records):
    result = run_tasks("lexsym:oracle", task_dir, tmp_path / "run", options=options(concurrency=4))
    report = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert report["tasks"] == len(records) and report["scored"] == len(records) and not report["missing"]
    for key in ("by_task", "by_variant"):
        assert {g["task"] for g in report[key]} == {"AE", "EC", "EV", "NA", "OE"}
        for group in report[key]:
            for name in ("format", "precision", "recall", "f1"):
                assert group["metrics"][name]["mean"] == 1.0, (key, group["task"], name)
            if group["task"] == "OE":
                assert group["metrics"]["valid"]["mean"] == 1.0
                assert group["metrics"]["optimal"]["mean"] == 1.0
    lines = samples(tmp_path / "run")
    assert all(s["parsed"] for s in lines)
    assert all(s["scores"]["correct"] is True for s in lines if s["task"] != "OE")
    assert all(s["scores"]["correct"] is None for s in lines if s["task"] == "OE")  # judged at the end
    assert result.report.by_task[0].metrics["f1"].mean == 1.0
    assert result.header.scores["by_task"]["OE"]["optimal"] == 1.0


def test_baseline_is_strictly_worse_on_na_and_oe(tmp_path, task_dir):
    run_tasks("lexsym:baseline", task_dir, tmp_path / "run", options=options(filters=("task=NA,OE",)))
    report = json.loads((tmp_path / "run" / "scores.json").read_text())
    assert {g["task"] for g in report["by_task"]} == {"NA", "OE"}
    assert metric(report, "by_task", "NA", "format") == 1.0  # it answers in the format, just wrongly
    assert metric(report, "by_task", "NA", "f1") < 1.0
    assert metric(report, "by_task", "OE", "optimal") < 1.0


# --- the run directory ------------------------------------------------------------------------------------


def test_run_dir_layout_and_header(tmp_path, task_dir, records):
    out = tmp_path / "run"
    params = GenerationParams(temperature=0.0, max_tokens=512, seed=7)
    run_tasks("lexsym:oracle", task_dir / "tasks.jsonl", out, params=params, options=options())
    assert {p.name for p in out.iterdir()} == {
        "run.json",
        "run.lock",
        "samples.jsonl",
        "predictions.jsonl",
        "scores.json",
    }
    head = header(out)
    manifest = json.loads((task_dir / "manifest.json").read_text())
    assert head["lexsym_version"] and head["python"]
    assert head["git_revision"] is None or len(head["git_revision"]) == 40
    assert head["model"] == "lexsym:oracle"
    assert head["params"] == {"temperature": 0.0, "max_tokens": 512, "seed": 7}
    assert head["tasks"]["tasks_sha256"] == manifest["tasks_sha256"]
    assert head["tasks"]["manifest_tasks_sha256"] == manifest["tasks_sha256"]
    assert head["tasks"]["tasks"] == head["tasks"]["selected"] == len(records)
    assert head["inputs"].keys() == {"statutes_encodings", "templates", "catalogue"}
    assert head["started_at"] <= head["ended_at"]
    assert head["status"] == "complete" and head["stop_reason"] is None
    totals = head["totals"]
    assert totals["planned"] == totals["recorded"] == totals["ok"] == len(records)
    assert totals["remaining"] == totals["failed"] == totals["cached"] == 0
    assert totals["wall_seconds"] > 0
    assert len(head["sessions"]) == 1 and head["sessions"][0]["recorded"] == len(records)
    assert head["cache"]["enabled"] is False  # local models bypass the cache
    assert not (tmp_path / "cache").exists()
    predictions = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert [p["id"] for p in predictions] == [r["id"] for r in records]


def test_samples_reference_prompts_by_hash_not_text(tmp_path, task_dir, records):
    run_tasks("lexsym:oracle", task_dir, tmp_path / "run", options=options(score=False))
    text = (tmp_path / "run" / "samples.jsonl").read_text()
    by_id = {r["id"]: r for r in records}
    assert records[0]["prompt"]["user"][:200] not in text
    for line in samples(tmp_path / "run"):
        record = by_id[line["task_id"]]
        messages = [
            {"role": "system", "content": record["prompt"]["system"]},
            {"role": "user", "content": record["prompt"]["user"]},
        ]
        assert line["prompt"] == {"task_id": record["id"], "sha256": prompt_sha256(messages)}
        assert line["id"] == line["task_id"] and line["repeat"] == 0
        for name in ("completion", "answer", "parsed", "tokens_in", "cost", "latency", "attempts", "cached"):
            assert name in line
        assert line["attempts"] == 1 and line["cached"] is False and line["finish_reason"] == "stop"


# --- errors and retries -----------------------------------------------------------------------------------


def test_permanent_errors_are_recorded_and_the_run_goes_on(tmp_path, task_dir, records):
    broken = {records[0]["id"]: ["permanent"], records[5]["id"]: ["crash"]}
    model = Scripted(broken)
    result = run_tasks(model, task_dir, tmp_path / "run", options=options(concurrency=3))
    lines = {s["task_id"]: s for s in samples(tmp_path / "run")}
    assert len(lines) == len(records)
    for identifier in broken:
        assert lines[identifier]["error_kind"] == "permanent" and lines[identifier]["attempts"] == 1
        assert lines[identifier]["completion"] is None and lines[identifier]["scores"]["correct"] is False
        assert model.calls[identifier] == 1  # never retried
    assert "PermanentModelError (400): the prompt is longer" in lines[records[0]["id"]]["error"]
    assert "ValueError: backend bug" in lines[records[5]["id"]]["error"]
    assert result.header.totals.failed == 2 and result.header.status == "complete"
    report = result.report
    assert report.scored == len(records)
    failed = {row.id: row for row in report.samples if row.id in broken}
    assert all(row.predicted and not row.parsed for row in failed.values())  # format failures


def test_transient_errors_are_retried_and_attempts_counted(tmp_path, task_dir, records):
    flaky = records[2]["id"]
    model = Scripted({flaky: ["transient", "transient", "ok"]})
    run_tasks(model, task_dir, tmp_path / "run", options=options(score=False))
    line = next(s for s in samples(tmp_path / "run") if s["task_id"] == flaky)
    assert line["attempts"] == 3 and line["error"] is None and line["parsed"]
    assert model.calls[flaky] == 3


def test_transient_errors_that_run_out_are_recorded_then_retried_on_resume(tmp_path, task_dir, records):
    down = records[3]["id"]
    model = Scripted({down: ["transient"]})
    out = tmp_path / "run"
    first = run_tasks(model, task_dir, out, options=options(score=False))
    line = next(s for s in samples(out) if s["task_id"] == down)
    assert line["error_kind"] == "transient" and line["attempts"] == FAST_RETRY.max_attempts
    assert first.header.totals.failed == 1
    model.script = {}  # the outage is over
    second = run_tasks(model, task_dir, out, options=options(score=False))
    assert second.recorded == 1 and model.calls[down] == FAST_RETRY.max_attempts + 1
    lines = samples(out)
    assert len(lines) == len(records) and not any(s["error"] for s in lines)
    kept_aside = [json.loads(line) for line in (out / "samples.dropped").read_text().splitlines()]
    assert [(s["task_id"], s["error_kind"]) for s in kept_aside] == [(down, "transient")]


def test_permanent_failures_are_kept_unless_retry_errors(tmp_path, task_dir, records):
    bad = records[1]["id"]
    model = Scripted({bad: ["permanent", "ok"]})
    out = tmp_path / "run"
    run_tasks(model, task_dir, out, options=options(score=False))
    assert run_tasks(model, task_dir, out, options=options(score=False)).recorded == 0
    assert model.calls[bad] == 1
    again = run_tasks(model, task_dir, out, options=options(score=False, retry_errors=True))
    assert again.recorded == 1 and model.calls[bad] == 2
    assert [s["error"] for s in samples(out) if s["task_id"] == bad] == [None]


def test_think_blocks_are_reasoning_not_the_answer(tmp_path, task_dir, records):
    ae = [r for r in records if r["task"] == "AE"]
    closed, unclosed = ae[0]["id"], ae[1]["id"]

    def thinking(task: dict[str, Any]) -> str:
        return '<think>Maybe FINAL ANSWER: ["Oregon"]? No.</think>\n' + gold_text(task)

    def cut_off(task: dict[str, Any]) -> str:
        return "<think>The answer is " + gold_text(task)  # never closed: no answer was given

    model = Scripted({closed: [thinking], unclosed: [cut_off]})
    run_tasks(model, task_dir, tmp_path / "run", options=options(filters=("task=AE",)))
    lines = {s["task_id"]: s for s in samples(tmp_path / "run")}
    assert lines[closed]["completion"].startswith("<think>")  # raw text kept as returned
    assert lines[closed]["reasoning"] == 'Maybe FINAL ANSWER: ["Oregon"]? No.'
    assert "Oregon" not in lines[closed]["answer"] and lines[closed]["scores"]["correct"] is True
    assert lines[unclosed]["parsed"] is False and lines[unclosed]["reasoning"].startswith("The answer is")
    report = json.loads((tmp_path / "run" / "scores.json").read_text())
    rows = {row["id"]: row for row in report["samples"]}
    assert rows[closed]["scores"]["f1"] == 1.0 and rows[unclosed]["parsed"] is False


# --- budgets, interruption --------------------------------------------------------------------------------


def test_time_budget_stops_cleanly_and_a_resume_finishes(tmp_path, task_dir, records):
    out = tmp_path / "run"
    model = Scripted(delay=0.1)
    started = time.monotonic()
    first = run_tasks(model, task_dir, out, options=options(concurrency=2, time_budget=0.35, score=False))
    assert time.monotonic() - started < 3
    head = header(out)
    assert head["status"] == "stopped" and head["stop_reason"] == "time budget"
    recorded = samples(out)
    assert 2 <= len(recorded) < len(records) and first.recorded == len(recorded)
    assert head["totals"]["remaining"] == len(records) - len(recorded)
    assert all(s["error"] is None and s["parsed"] for s in recorded)  # in-flight samples finished whole
    assert sum(model.calls.values()) == len(recorded)  # nothing asked and then dropped
    run_tasks(model, task_dir, out, options=options(concurrency=4))
    ids = [s["id"] for s in samples(out)]
    assert sorted(ids) == sorted(r["id"] for r in records)
    assert max(model.calls.values()) == 1
    head = header(out)
    assert head["status"] == "complete" and len(head["sessions"]) == 2
    assert head["sessions"][0]["stop_reason"] == "time budget"


def test_cost_budget_stops_after_the_money_is_spent(tmp_path, task_dir):
    model = Scripted(cost=0.01)
    result = run_tasks(model, task_dir, tmp_path / "run", options=options(concurrency=1, cost_budget=0.05))
    assert result.stop_reason == "cost budget" and result.header.status == "stopped"
    assert len(samples(tmp_path / "run")) == 5
    assert result.header.totals.cost == pytest.approx(0.05)
    assert result.report is not None and result.report.tasks == 5  # the partial run is scored as such


def test_concurrency_is_bounded(tmp_path, task_dir):
    model = Scripted(delay=0.02)
    run_tasks(model, task_dir, tmp_path / "run", options=options(concurrency=3, score=False))
    assert model.peak == 3


def test_rpm_limit_paces_requests(tmp_path, task_dir):
    model = Scripted()
    started = time.monotonic()
    run_tasks(model, task_dir, tmp_path / "run", options=options(rpm=1200, filters=("task=AE",), score=False))
    assert time.monotonic() - started >= 3 * 60 / 1200  # four requests: three intervals of 50 ms


def test_rate_limiter_schedule():
    now = [100.0]
    limiter = RateLimiter(60, clock=lambda: now[0])  # one a second
    assert [limiter.reserve() for _ in range(3)] == [0.0, 1.0, 2.0]
    now[0] = 110.0  # idle long enough: no debt, and no burst beyond 1
    assert [limiter.reserve() for _ in range(2)] == [0.0, 1.0]
    burst = RateLimiter(60, burst=3, clock=lambda: now[0])
    assert [burst.reserve() for _ in range(4)] == [0.0, 0.0, 0.0, 1.0]
    assert RateLimiter(0).reserve() == 0.0


def test_backoff_is_full_jitter_under_the_cap():
    policy = RetryPolicy(base=1.0, cap=60.0, max_attempts=6)
    rng = random.Random(1)
    for retry in range(10):
        delays = [policy.delay(retry, rng) for _ in range(200)]
        ceiling = min(60.0, 2.0**retry)
        assert all(0 <= d <= ceiling for d in delays)
        assert max(delays) > 0.8 * ceiling and min(delays) < 0.2 * ceiling  # spread over the whole range
    assert policy.delay(0, rng, retry_after=5.0) >= 5.0
    assert policy.delay(0, rng, retry_after=500.0) == 60.0


def test_interrupt_finishes_in_flight_samples(tmp_path, task_dir, records):
    out = tmp_path / "run"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "lexsym",
            "run",
            "--model",
            "lexsym:slow-oracle:0.1",
            "--tasks",
            str(task_dir),
            "--out",
            str(out),
            "--concurrency",
            "2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    wait_for_lines(out / "samples.jsonl", 2, process)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    head = header(out)
    assert head["status"] == "stopped" and head["stop_reason"] == "interrupted"
    lines = samples(out)
    assert len(lines) < len(records) and all(s["parsed"] for s in lines)
    assert (out / "samples.jsonl").read_bytes().endswith(b"\n")


# --- filters and repeats ----------------------------------------------------------------------------------


def test_filters_select_tasks(task_dir, records):
    def ids(*filters: str) -> set[str]:
        return {r["id"] for r in select(records, filters)}

    every = {r["id"] for r in records}
    assert ids() == every
    assert ids("task=OE") == {r["id"] for r in records if r["task"] == "OE"}
    assert ids("task=oe,na") == {r["id"] for r in records if r["task"] in ("OE", "NA")}
    assert ids("split=dev") == {r["id"] for r in records if r["split"] == "dev"}
    assert ids("suite=tiny") == every and ids("suite=basic") == set()
    assert ids("variant=AE-*") == {r["id"] for r in records if r["variant"] != "AE"}
    assert ids("test-0001") == {r["id"] for r in records if r["id"].endswith("test-0001")}  # substring
    assert ids("*/dev-*") == {r["id"] for r in records if "/dev-" in r["id"]}  # glob
    # same key: any of them; different keys: all of them
    assert ids("task=AE", "task=EC", "split=dev") == {
        r["id"] for r in records if r["task"] in ("AE", "EC") and r["split"] == "dev"
    }


def test_run_with_filters_and_no_match(tmp_path, task_dir):
    result = run_tasks("lexsym:oracle", task_dir, tmp_path / "run", options=options(filters=("split=dev",)))
    assert {s["task_id"].rsplit("/", 1)[1] for s in samples(tmp_path / "run")} == {"dev-0000"}
    assert result.header.tasks.selected == 5 and result.report.tasks == 5
    with pytest.raises(InputError, match=r"no task .* matches"):
        run_tasks("lexsym:oracle", task_dir, tmp_path / "other", options=options(filters=("task=XX",)))


def test_repeats_have_their_own_ids_and_scores(tmp_path, task_dir, records):
    out = tmp_path / "run"
    result = run_tasks("lexsym:oracle", task_dir, out, options=options(repeats=3, filters=("task=AE,NA",)))
    lines = samples(out)
    chosen = [r["id"] for r in records if r["task"] in ("AE", "NA")]
    assert sorted(s["id"] for s in lines) == sorted(f"{i}#r{k}" for i in chosen for k in range(3))
    assert [s["repeat"] for s in lines] == sorted(s["repeat"] for s in lines)  # repeat-major order
    for name in ("scores.json", "scores.r1.json", "scores.r2.json", "predictions.r2.jsonl"):
        assert (out / name).exists()
    summary = result.header.scores
    assert summary["headline_repeat"] == 0 and set(summary["by_repeat"]) == {"0", "1", "2"}
    assert summary["f1_over_repeats"]["NA"] == {"mean": 1.0, "sd": 0.0, "repeats": 3}
    assert set(result.reports) == {0, 1, 2}


# --- the cache in a run -----------------------------------------------------------------------------------


def test_cache_hits_make_no_calls_and_cost_nothing(tmp_path, task_dir, records):
    model = Scripted(cacheable=True, cost=0.002)
    run_tasks(model, task_dir, tmp_path / "a", options=options(score=False))
    assert sum(model.calls.values()) == len(records)
    again = Scripted(cacheable=True, cost=0.002)
    result = run_tasks(again, task_dir, tmp_path / "b", options=options(score=False))
    assert sum(again.calls.values()) == 0
    lines = samples(tmp_path / "b")
    assert all(s["cached"] and s["attempts"] == 0 and s["cost"] == 0.0 and s["parsed"] for s in lines)
    assert lines[0]["tokens_in"] == 1000  # the completion's own counts are kept
    assert result.header.totals.cached == len(records) and result.header.totals.cost == 0.0
    other = Scripted(cacheable=True, model_id="test:other")
    run_tasks(other, task_dir, tmp_path / "c", options=options(score=False))
    assert sum(other.calls.values()) == len(records)  # another model never sees these entries
    fresh = Scripted(cacheable=True)
    run_tasks(fresh, task_dir, tmp_path / "d", options=options(score=False, cache=False))
    assert sum(fresh.calls.values()) == len(records)  # --no-cache


@pytest.mark.parametrize(("temperature", "calls_per_task"), [(0.0, 1), (0.7, 2)])
def test_repeats_share_a_cache_entry_only_at_temperature_zero(
    tmp_path, task_dir, temperature, calls_per_task
):
    model = Scripted(cacheable=True)
    params = GenerationParams(temperature=temperature)
    run_tasks(
        model,
        task_dir,
        tmp_path / "run",
        params=params,
        options=options(repeats=2, concurrency=1, score=False),
    )
    assert set(model.calls.values()) == {calls_per_task}


# --- resuming ---------------------------------------------------------------------------------------------


def test_refuses_to_resume_another_run(tmp_path, task_dir):
    out = tmp_path / "run"
    run_tasks("lexsym:oracle", task_dir, out, options=options(score=False, filters=("task=AE",)))
    with pytest.raises(InputError, match="model 'lexsym:oracle' \\(not 'lexsym:baseline'\\)"):
        run_tasks("lexsym:baseline", task_dir, out, options=options(score=False))
    with pytest.raises(InputError, match="generation parameters"):
        run_tasks("lexsym:oracle", task_dir, out, params=GenerationParams(seed=1), options=options())
    edited = tmp_path / "edited.jsonl"
    edited.write_text((task_dir / "tasks.jsonl").read_text().replace("Wisconsin", "Wisconsin "))
    with pytest.raises(InputError, match="task set"):
        run_tasks("lexsym:oracle", edited, out, options=options())
    result = lexsym("run", "--model", "lexsym:baseline", "--tasks", str(task_dir), "--out", str(out))
    assert_one_line_error(result, str(out), "lexsym:baseline", "another --out")
    assert len(samples(out)) == 4  # nothing was added


def test_torn_last_line_is_set_aside_and_redone(tmp_path, task_dir, records):
    out = tmp_path / "run"
    run_tasks("lexsym:oracle", task_dir, out, options=options(score=False, filters=("task=AE",)))
    data = (out / "samples.jsonl").read_bytes()
    lines = data.splitlines(keepends=True)
    torn = lines[-1][: len(lines[-1]) // 2]  # a kill -9 in the middle of the last write
    (out / "samples.jsonl").write_bytes(b"".join(lines[:-1]) + torn)
    assert len(samples(out)) == 3  # readers skip it without crashing
    result = run_tasks("lexsym:oracle", task_dir, out, options=options(filters=("task=AE",)))
    assert result.recorded == 1
    text = (out / "samples.jsonl").read_text()
    assert text.endswith("\n") and all(json.loads(line) for line in text.splitlines())
    assert sorted(s["id"] for s in samples(out)) == sorted(r["id"] for r in records if r["task"] == "AE")
    assert (out / "samples.dropped").read_bytes() == torn + b"\n"
    assert result.report.by_task[0].metrics["f1"].mean == 1.0


def test_complete_last_line_without_newline_is_kept(tmp_path, task_dir):
    out = tmp_path / "run"
    run_tasks("lexsym:oracle", task_dir, out, options=options(score=False, filters=("task=AE",)))
    (out / "samples.jsonl").write_bytes((out / "samples.jsonl").read_bytes().rstrip(b"\n"))
    result = run_tasks("lexsym:oracle", task_dir, out, options=options(score=False, filters=("task=AE,EC",)))
    assert result.recorded == 4 and len(samples(out)) == 8
    assert not (out / "samples.dropped").exists()


def test_a_run_dir_in_use_is_refused(tmp_path, task_dir):
    holder = RunDir(tmp_path / "run")
    holder.lock()
    try:
        with pytest.raises(InputError, match=f"in use by another lexsym run \\(pid {os.getpid()}\\)"):
            run_tasks("lexsym:oracle", task_dir, tmp_path / "run", options=options())
    finally:
        holder.unlock()
    run_tasks("lexsym:oracle", task_dir, tmp_path / "run", options=options(score=False))


def wait_for_lines(path: Path, count: int, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= count:
            return
        if process.poll() is not None:
            raise AssertionError(f"the run ended early: {process.communicate()}")
        time.sleep(0.02)
    process.kill()
    raise AssertionError(f"{path} did not reach {count} lines")


def test_resume_after_sigkill_asks_nothing_twice(tmp_path, task_dir, records):
    out = tmp_path / "run"
    command = ["run", "--model", "lexsym:slow-oracle:0.1", "--tasks", str(task_dir), "--out", str(out)]
    command += ["--concurrency", "2"]
    first_log, second_log = tmp_path / "calls-1.log", tmp_path / "calls-2.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "lexsym", *command, "--no-score"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "LEXSYM_SLOW_ORACLE_LOG": str(first_log)},
        cwd=REPO,
    )
    wait_for_lines(out / "samples.jsonl", 5, process)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    answered = {s["id"] for s in samples(out)}
    assert 5 <= len(answered) < len(records)
    assert header(out)["status"] == "running"  # it never got to say otherwise
    result = lexsym(*command, env={"LEXSYM_SLOW_ORACLE_LOG": str(second_log)})
    assert result.returncode == 0, result.stderr
    ids = [s["id"] for s in samples(out)]
    assert len(ids) == len(set(ids)) == len(records)  # every sample exactly once
    asked_again = second_log.read_text().split()
    assert len(asked_again) == len(set(asked_again))
    assert not set(asked_again) & answered  # nothing already answered was asked again
    assert set(asked_again) == {r["id"] for r in records} - answered
    head = header(out)
    assert head["status"] == "complete" and len(head["sessions"]) == 2
    assert head["sessions"][0]["stop_reason"] == "did not finish (killed?)"
    report = json.loads((out / "scores.json").read_text())
    assert all(g["metrics"]["f1"]["mean"] == 1.0 for g in report["by_task"])


# --- the command line -------------------------------------------------------------------------------------


def test_cli_run_prints_the_table_and_json(tmp_path, task_dir):
    out = tmp_path / "run"
    result = lexsym(
        "run", "--model", "lexsym:oracle", "--tasks", str(task_dir), "--out", str(out), "--by", "variant"
    )
    assert result.returncode == 0, result.stderr
    assert "AE-OE" in result.stdout and "1.000" in result.stdout
    assert "lexsym run: complete; 20 of 20 samples recorded" in result.stderr
    again = lexsym("run", "--model", "lexsym:oracle", "--tasks", str(task_dir), "--out", str(out), "--json")
    assert again.returncode == 0, again.stderr
    head = json.loads(again.stdout)
    assert head["status"] == "complete" and head["sessions"][-1]["recorded"] == 0


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--concurrency", "0"], "--concurrency must be at least 1"),
        (["--repeats", "0"], "--repeats must be at least 1"),
        (["--time-budget", "0"], "--time-budget must be more than 0"),
        (["--max-attempts", "0"], "max attempts must be at least 1"),
        (["--model", "nonsense:x"], "unknown model 'nonsense:x'"),
        (["--filter", "task=ZZ"], "no task in"),
    ],
)
def test_cli_run_bad_input_is_one_line(tmp_path, task_dir, extra, fragment):
    args = [
        "run",
        "--model",
        "lexsym:oracle",
        "--tasks",
        str(task_dir),
        "--out",
        str(tmp_path / "run"),
        *extra,
    ]
    assert_one_line_error(lexsym(*args), fragment)


def test_cli_run_missing_tasks_is_one_line(tmp_path):
    result = lexsym(
        "run", "--model", "lexsym:oracle", "--tasks", str(tmp_path / "nope"), "--out", str(tmp_path)
    )
    assert_one_line_error(result, "no such file")


def test_task_set_hash_and_manifest(task_dir):
    task_set = load_task_set(task_dir)
    assert task_set.sha256 == task_set.manifest_sha256 and not task_set.warnings
    assert load_task_set(task_dir / "tasks.jsonl").sha256 == task_set.sha256


def test_other_task_types_run_and_are_left_to_the_scorer(tmp_path):
    tasks = tmp_path / "tasks.jsonl"
    exam = {"id": "exam/mcq-1", "task": "MCQ", "prompt": {"user": "Which? (A) or (B)"}, "gold": "A"}
    tasks.write_text(json.dumps(exam) + "\n")
    model = Scripted({"exam/mcq-1": [lambda task: "The answer is (A)."]})
    result = run_tasks(model, tasks, tmp_path / "run", options=options(score=False))
    [line] = samples(tmp_path / "run")
    assert line["completion"] == "The answer is (A)." and line["parsed"] is None and line["scores"] == {}
    assert result.header.totals.parse_failures == 0 and result.header.status == "complete"
