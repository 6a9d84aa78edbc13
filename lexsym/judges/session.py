"""Judging a run directory: `lexsym judge RUN_DIR --judge M [--judge M2 ...]`.

The answers come from the run's samples.jsonl and the questions, reference answers and rubrics from its
task file (checked against the hash in run.json, so a judge never grades answers against the wrong
questions). Every (sample, judge) pair is one line of `judgements.jsonl`, appended and fsynced as it
finishes, so judging resumes like a run: pairs already judged are skipped, a torn last line is set aside
in `judgements.dropped`. A line is keyed by the sample, the judge model, its generation parameters and the
template id and digest: changing any of them judges again instead of mixing grades from two set-ups.

Judge calls go through the runner's response cache, requests-per-minute limiter and backoff, and their
cost is counted in `judge.json`, apart from the answering model's cost in run.json. Each judge's backend
starts up before the first judgement (`prepare`), and judge.json records, per judge, the generation
settings actually sent (`params_sent`) and those its provider does not take (`params_dropped`: the pinned
seed, on Anthropic). A session in which every judgement failed, or more than `max_failure_rate` of them,
or that `fail_fast` stopped, is marked `failed` with its most frequent reasons (`lexsym.runner.failures`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lexsym._util.append_log import lock_file, set_aside_lines, unlock_file
from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym.judges.caller import JudgeCaller, JudgeTotals
from lexsym.judges.reference import judge_reference
from lexsym.judges.rubric import judge_rubric, rubric_items
from lexsym.judges.scores import score_judgements, write_judged
from lexsym.judges.settings import (
    JUDGE_HEADER,
    JUDGE_LOCK,
    JUDGEMENTS,
    JUDGEMENTS_DROPPED,
    KINDS,
    JudgeOptions,
    JudgeSpec,
    judge_header,
    judge_kind,
    judgement_key,
    load_run,
)
from lexsym.models.base import Model, close_model, prepare_model, sent_params
from lexsym.runner.cache import ResponseCache, cache_path
from lexsym.runner.failures import fail_fast_reason, top_reasons, verdict
from lexsym.runner.limits import StopSignal
from lexsym.runner.rundir import SAMPLES
from lexsym.runner.samples_log import SampleWriter

log = logging.getLogger("lexsym.judges")


@dataclass
class _Pending:
    sample: dict[str, Any]
    record: dict[str, Any]
    kind: str
    spec: JudgeSpec
    key: str


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


@dataclass
class JudgeResult:
    run_dir: Path
    header: dict[str, Any]
    judged: int
    report: Any  # lexsym.judges.scores.JudgedReport


def _rubric(record: dict[str, Any]) -> list[Any]:
    gold = record["gold"]
    return rubric_items(gold["rubrics"], gold.get("total_points"), gold.get("points"))


async def _judge_one(item: _Pending, caller: JudgeCaller, retries: int) -> dict[str, Any]:
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
    from lexsym.models import load_model

    options.check()
    run_dir = Path(run_dir)
    run_header, samples, records = load_run(run_dir)
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
        callers: dict[str, JudgeCaller] = {}
        for index, spec in enumerate(options.judges):
            model = (models or {}).get(spec.model) or load_model(
                spec.model, **{**(model_options or {}), **spec.model_options}
            )
            await prepare_model(model)
            sent, dropped = sent_params(model, spec.params)
            header["judges"][index].update(params_sent=sent, params_dropped=dropped)
            for name, why in dropped.items():
                log.warning("judge %s: %s is not sent (%s); judge.json records it", spec.model, name, why)
            callers[spec.model] = JudgeCaller(model, spec, cache, options, stop, totals, rng)
        write_atomic(header_path, json.dumps(header, indent=2) + "\n")
        problems: list[str] = []

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
                totals.no_answer += line["status"] == "no_answer"
                if line["status"] in ("parse_failure", "error", "incomplete"):
                    totals.failures += 1
                    problems.append(str(line.get("problem") or line["status"]))
                writer.append(json.dumps(line, ensure_ascii=False) + "\n")
                if options.cost_budget is not None and totals.cost >= options.cost_budget:
                    stop.set("cost budget")
                if (
                    line["status"] != "no_answer"
                    and options.fail_fast
                    and totals.failures >= options.fail_fast
                ):
                    stop.set(fail_fast_reason(totals.failures))

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
        header["failed"] = verdict(
            totals.failures,
            totals.judged - totals.no_answer,
            max_failure_rate=options.max_failure_rate,
            stop_reason=stop.reason,
            unit="judgement",
        )
        header["failure_reasons"] = top_reasons(problems)
        header["totals"] = report.cost_totals
        write_atomic(header_path, json.dumps(header, indent=2) + "\n")
        write_judged(run_dir, report)
    finally:
        unlock_file(lock)
    return JudgeResult(run_dir, header, totals.judged, report)
