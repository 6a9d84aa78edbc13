"""Judging a run directory: `lexsym judge RUN_DIR --judge M [--judge M2 ...]`.

The answers come from the run's samples.jsonl and the questions, reference answers and rubrics from its
task file (checked against the hash in run.json, so a judge never grades answers against the wrong
questions). Every (sample, judge) pair is one line of `judgements.jsonl`, appended and fsynced as it
finishes, so judging resumes like a run: pairs already judged are skipped, a torn last line is set aside
in `judgements.dropped`. A line is keyed by the sample, the judge model, its generation parameters and the
template id and digest: changing any of them judges again instead of mixing grades from two set-ups.

Judge calls go through the runner's response cache, requests-per-minute limiter and backoff, and their
cost is counted in `judge.json`, apart from the answering model's cost in run.json.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lexsym._version import __version__
from lexsym.atomic import write_atomic
from lexsym.errors import InputError
from lexsym.judges.prompts import REFERENCE_JUDGE, RUBRIC_JUDGE, JudgeTemplate
from lexsym.judges.reference import judge_reference
from lexsym.judges.rubric import judge_rubric, rubric_items
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Message,
    Model,
    PermanentModelError,
    TransientModelError,
    close_model,
)
from lexsym.runner.cache import CacheError, ResponseCache, cache_key, cache_path, is_cacheable
from lexsym.runner.calls import call_model
from lexsym.runner.limits import RateLimiter, RetryPolicy, StopSignal
from lexsym.runner.rundir import (
    HEADER,
    SAMPLES,
    RunDir,
    SampleWriter,
    lock_file,
    read_samples,
    set_aside_lines,
    unlock_file,
)
from lexsym.runner.tasksets import load_task_set

log = logging.getLogger("lexsym.judges")

JUDGEMENTS = "judgements.jsonl"
JUDGEMENTS_DROPPED = "judgements.dropped"
JUDGE_HEADER = "judge.json"
JUDGE_LOCK = "judge.lock"
KINDS = {"reference": REFERENCE_JUDGE, "rubric": RUBRIC_JUDGE}


@dataclass(frozen=True)
class JudgeSpec:
    """One judge, pinned: the model and the settings that change its grades."""

    model: str
    temperature: float = 0.0
    seed: int | None = 0
    max_tokens: int | None = None

    @property
    def params(self) -> GenerationParams:
        return GenerationParams(temperature=self.temperature, max_tokens=self.max_tokens, seed=self.seed)

    def describe(self) -> dict[str, Any]:
        return {"model": self.model, "params": self.params.key_fields()}

    @property
    def fingerprint(self) -> str:
        text = json.dumps(self.describe(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class JudgeOptions:
    judges: tuple[JudgeSpec, ...]
    ensemble: str = "min"
    partial: bool = False
    retries: int = 2  # re-asks after an unparseable reply
    concurrency: int = 8
    rpm: float = 0.0  # per judge model
    cache: bool = True
    cache_dir: Path | None = None
    cost_budget: float | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    retry_errors: bool = False
    seed: int | None = None  # backoff jitter (tests)

    def check(self) -> None:
        from lexsym.judges.ensemble import METHODS

        if not self.judges:
            raise InputError("give at least one --judge MODEL")
        models = [spec.model for spec in self.judges]
        if len(set(models)) != len(models):
            raise InputError("the same --judge model is given twice")
        if self.ensemble not in METHODS:
            raise InputError(f"--ensemble must be one of {', '.join(METHODS)}, not {self.ensemble!r}")
        if self.concurrency < 1:
            raise InputError(f"--concurrency must be at least 1, not {self.concurrency}")
        if self.retries < 0:
            raise InputError(f"--retries must be 0 or more, not {self.retries}")
        if self.rpm < 0:
            raise InputError(f"--rpm must be 0 (no limit) or more, not {self.rpm:g}")
        if self.cost_budget is not None and not self.cost_budget > 0:
            raise InputError(f"--cost-budget must be more than 0, not {self.cost_budget:g}")


def judge_kind(record: dict[str, Any]) -> str | None:
    """Which judge grades a task: `reference` (an answer to compare with), `rubric`, or None (not judged:
    MCQ and the generated tasks are scored exactly)."""
    gold = record.get("gold")
    if record.get("task") != "OPEN" or not isinstance(gold, dict):
        return None
    if isinstance(gold.get("rubrics"), list):
        return "rubric"
    if isinstance(gold.get("reference"), str):
        return "reference"
    return None


def judgement_key(sample_id: str, spec: JudgeSpec, template: JudgeTemplate) -> str:
    return f"{sample_id}|{spec.model}|{spec.fingerprint}|{template.id}@{template.digest}"


@dataclass
class _Pending:
    sample: dict[str, Any]
    record: dict[str, Any]
    kind: str
    spec: JudgeSpec
    key: str


@dataclass
class JudgeTotals:
    judged: int = 0
    calls: int = 0
    cached: int = 0
    failures: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def prepare_judgements(path: Path, *, retry_errors: bool) -> dict[str, dict[str, Any]]:
    """The judgements already on disk, by key, after setting aside lines that cannot stand.

    Set aside (moved to judgements.dropped, the file rewritten atomically): torn or unreadable lines,
    duplicates, and judgements cut short by a failed call that is worth trying again (transient errors
    whose retries ran out; with `retry_errors`, any call error). Parse failures stay: at the pinned
    settings the judge would give the same reply again.
    """
    done: dict[str, dict[str, Any]] = {}

    def verdict(line: Any, torn: bool) -> str | None:
        if not isinstance(line, dict) or not isinstance(line.get("key"), str):
            return "torn last line" if torn else "unreadable line"
        if line["key"] in done:
            return "duplicate judgement"
        if line.get("error_kind") == "transient" or (retry_errors and line.get("error_kind")):
            return "failed call to retry"
        done[line["key"]] = line
        return None

    dropped, _ = set_aside_lines(path, path.parent / JUDGEMENTS_DROPPED, verdict)
    if dropped:
        summary = ", ".join(f"{count} {reason}" for reason, count in dropped.items())
        log.warning("%s: set aside %s in %s; they will be judged again", path, summary, JUDGEMENTS_DROPPED)
    return done


class _Caller:
    """One judge model's calls: cache, rate limit, transient-error retries with backoff, cost."""

    def __init__(
        self,
        model: Model,
        spec: JudgeSpec,
        cache: ResponseCache | None,
        options: JudgeOptions,
        stop: StopSignal,
        totals: JudgeTotals,
        rng: random.Random,
    ):
        self.model = model
        self.spec = spec
        self.cache = cache if is_cacheable(model) else None
        self.limiter = RateLimiter(options.rpm)
        self.retry = options.retry
        self.stop = stop
        self.totals = totals
        self.rng = rng

    async def __call__(self, messages: list[Message], params: GenerationParams) -> Completion:
        key = cache_key(self.spec.model, messages, params) if self.cache is not None else None
        if key is not None:
            try:
                hit = self.cache.get(key)  # type: ignore[union-attr]
            except CacheError as error:
                log.warning("%s; judging on without the cache", error)
                self.cache, hit = None, None
            if hit is not None:
                hit.extra = {**hit.extra, "cached": True}
                hit.cost = 0.0
                self.totals.cached += 1
                return hit
        call = await call_model(
            self.model, messages, params, limiter=self.limiter, retry=self.retry, rng=self.rng, stop=self.stop
        )
        self.totals.calls += call.attempts
        if call.stopped:
            raise TransientModelError(f"not asked: {self.stop.reason}")
        completion = call.completion
        if completion is None:
            failed = TransientModelError if call.error_kind == "transient" else PermanentModelError
            raise failed(call.error or "no completion")
        self.totals.tokens_in += int(completion.tokens_in or 0)
        self.totals.tokens_out += int(completion.tokens_out or 0)
        self.totals.cost += float(completion.cost or 0.0)
        if self.cache is not None and key is not None:
            try:
                self.cache.put(key, self.spec.model, completion)
            except CacheError as error:
                log.warning("%s; this judge reply is not cached", error)
        return completion


@dataclass
class JudgeResult:
    run_dir: Path
    header: dict[str, Any]
    judged: int
    report: Any  # lexsym.judges.scores.JudgedReport


def _load_run(run_dir: Path) -> tuple[Any, list[dict[str, Any]], dict[str, dict[str, Any]]]:
    header = RunDir(run_dir).read_header()
    if header is None:
        raise InputError(f"{run_dir}: not a run directory (no {HEADER}); run `lexsym run` first")
    task_set = load_task_set(header.tasks.path)
    if task_set.sha256 != header.tasks.tasks_sha256:
        raise InputError(
            f"{task_set.path}: changed since the run was made (its sha256 differs from {HEADER}); "
            "judging would grade the answers against other questions"
        )
    samples = list(read_samples(run_dir / SAMPLES))
    records = {record["id"]: record for record in task_set.records}
    return header, samples, records


def judge_header(options: JudgeOptions, run_header: Any, previous: dict[str, Any] | None) -> dict[str, Any]:
    return {
        "judge_format": 1,
        "lexsym_version": __version__,
        "run_model": run_header.model,
        "tasks_sha256": run_header.tasks.tasks_sha256,
        "judges": [spec.describe() for spec in options.judges],
        "templates": {kind: {"id": t.id, "digest": t.digest} for kind, t in KINDS.items()},
        "ensemble": options.ensemble,
        "partial": options.partial,
        "retries": options.retries,
        "concurrency": options.concurrency,
        "rpm": options.rpm,
        "cost_budget": options.cost_budget,
        "sessions": (previous or {}).get("sessions", []),
    }


def _rubric(record: dict[str, Any]) -> list[Any]:
    gold = record["gold"]
    return rubric_items(gold["rubrics"], gold.get("total_points"), gold.get("points"))


async def _judge_one(item: _Pending, caller: _Caller, retries: int) -> dict[str, Any]:
    """One judgement line. A sample the model never answered (its call failed) goes through the judge's
    empty-answer path: the model's failure, scored 0, no judge call, marked `no_answer`."""
    record, sample = item.record, item.sample
    reference = record.get("reference") or {}
    question = reference.get("question") or record["prompt"]["user"]
    answer = sample.get("completion")
    params = item.spec.params
    if item.kind == "reference":
        result = await judge_reference(
            caller,
            question=question,
            reference=record["gold"]["reference"],
            answer=answer,
            params=params,
            retries=retries,
        )
    else:
        result = await judge_rubric(
            caller, question=question, answer=answer, items=_rubric(record), params=params, retries=retries
        )
    body = result.to_json()
    if answer is None and sample.get("error"):
        body.update(status="no_answer", problem=f"the model gave no answer: {sample['error']}")
    return {
        "key": item.key,
        "sample_id": sample["id"],
        "task_id": sample["task_id"],
        "repeat": sample["repeat"],
        "variant": record.get("variant"),
        "kind": item.kind,
        "judge": item.spec.model,
        "judge_fingerprint": item.spec.fingerprint,
        "params": params.key_fields(),
        "template": KINDS[item.kind].id,
        "template_digest": KINDS[item.kind].digest,
        **body,
        "finished_at": time.time(),
    }


def judge_run(
    run_dir: str | Path,
    options: JudgeOptions,
    *,
    models: dict[str, Model] | None = None,
    model_options: dict[str, Any] | None = None,
) -> JudgeResult:
    """Judge every open-question sample of a run with every judge, then write judged.json."""
    return asyncio.run(judge_run_async(run_dir, options, models=models, model_options=model_options))


async def judge_run_async(
    run_dir: str | Path,
    options: JudgeOptions,
    *,
    models: dict[str, Model] | None = None,
    model_options: dict[str, Any] | None = None,
) -> JudgeResult:
    from lexsym.judges.scores import score_judgements, write_judged
    from lexsym.models import load_model

    options.check()
    run_dir = Path(run_dir)
    run_header, samples, records = _load_run(run_dir)
    pending_samples = []
    for sample in samples:
        record = records.get(sample["task_id"])
        if record is None:
            raise InputError(
                f"{run_dir / SAMPLES}: sample {sample['id']!r} has no task in {run_header.tasks.path}"
            )
        kind = judge_kind(record)
        if kind is not None:
            pending_samples.append((sample, record, kind))
    if not pending_samples:
        raise InputError(
            f"{run_dir}: no open-question samples to judge (MCQ and generated tasks are scored exactly)"
        )
    for _, record, kind in pending_samples:
        if kind == "rubric":
            try:
                _rubric(record)
            except ValueError as error:
                raise InputError(f"{run_header.tasks.path}: task {record['id']!r}: {error}") from None

    lock = lock_file(run_dir / JUDGE_LOCK, f"{run_dir}: another `lexsym judge` is judging this run")
    try:
        path = run_dir / JUDGEMENTS
        done = prepare_judgements(path, retry_errors=options.retry_errors)
        header_path = run_dir / JUDGE_HEADER
        previous = json.loads(header_path.read_text()) if header_path.exists() else None
        header = judge_header(options, run_header, previous)
        session = {
            "started_at": _now(),
            "pid": os.getpid(),
            "ended_at": None,
            "judged": 0,
            "stop_reason": None,
        }
        header["sessions"] = [*header["sessions"], session]
        write_atomic(header_path, json.dumps(header, indent=2) + "\n")

        todo: list[_Pending] = []
        for sample, record, kind in pending_samples:
            for spec in options.judges:
                key = judgement_key(sample["id"], spec, KINDS[kind])
                if key not in done:
                    todo.append(_Pending(sample, record, kind, spec, key))

        totals = JudgeTotals()
        stop = StopSignal()
        rng = random.Random(options.seed)
        cache = ResponseCache(cache_path(options.cache_dir)) if options.cache and todo else None
        callers: dict[str, _Caller] = {}
        for spec in options.judges:
            model = (models or {}).get(spec.model) or load_model(spec.model, **(model_options or {}))
            callers[spec.model] = _Caller(model, spec, cache, options, stop, totals, rng)

        writer = SampleWriter(path)
        queue = list(reversed(todo))
        failure: list[BaseException] = []

        async def worker() -> None:
            while queue and not stop.is_set():
                item = queue.pop()
                line = await _judge_one(item, callers[item.spec.model], options.retries)
                if line.get("error_kind") == "transient" and stop.is_set():
                    continue  # not asked because the run stopped: judged on resume
                totals.judged += 1
                totals.failures += line["status"] in ("parse_failure", "error", "incomplete")
                writer.append(json.dumps(line, ensure_ascii=False) + "\n")
                if options.cost_budget is not None and totals.cost >= options.cost_budget:
                    stop.set("cost budget")

        writer.start(on_error=lambda error: (failure.append(error), stop.set("write error")))
        try:
            await asyncio.gather(*(worker() for _ in range(min(options.concurrency, max(1, len(todo))))))
        finally:
            await writer.close()
            if cache is not None:
                cache.close()
            for caller in callers.values():
                await close_model(caller.model)
        if failure:
            raise failure[0]

        session.update(
            ended_at=_now(),
            judged=totals.judged,
            stop_reason=stop.reason,
            calls=totals.calls,
            cached=totals.cached,
            cost=totals.cost,
            tokens_in=totals.tokens_in,
            tokens_out=totals.tokens_out,
        )
        report = score_judgements(run_dir, options, records, samples)
        header["status"] = "stopped" if stop.reason else "complete"
        header["stop_reason"] = stop.reason
        header["totals"] = report.cost_totals
        write_atomic(header_path, json.dumps(header, indent=2) + "\n")
        write_judged(run_dir, report)
    finally:
        unlock_file(lock)
    return JudgeResult(run_dir, header, totals.judged, report)
