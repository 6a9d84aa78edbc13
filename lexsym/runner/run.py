"""Running a model over a task set into a run directory: `run_tasks` (and `run_tasks_async`).

One session, in order:

1. Read the task file and choose the tasks (`lexsym.runner.selection`); take the run directory's lock;
   refuse a directory holding another model's, other parameters' or another task set's run; set aside
   torn lines and samples to retry (`RunDir.prepare_samples`); write the header (status "running").
2. Let the backend start up (`prepare`: litellm's import, vLLM's weights) before any clock starts, and
   record which generation settings it actually sends. Plan the samples not yet recorded, repeat by
   repeat (so a run stopped early has whole repeats first, repeat 0, the headline, above all), and run
   them with `concurrency` worker coroutines. A fixed pool of workers pulling from one queue is the
   semaphore: at most `concurrency` samples are in flight, and stopping is simply workers not taking
   another sample.
3. Per sample: the response cache (a hit makes no call and is marked cached); else a slot from the
   requests-per-minute limiter and the call, transient errors retried with full-jitter backoff, a permanent
   error (or an unexpected exception from the backend) recorded on the sample; then the answer parsed and
   scored cheaply, and the line handed to the single writer.
4. A time budget, a cost budget or Ctrl-C (SIGINT/SIGTERM) stops new requests; requests in flight finish and
   are recorded. A second Ctrl-C abandons them (a resume redoes them).
5. The header is rewritten with totals, the stop reason and, for a run that failed as a whole
   (`lexsym.runner.failures`), why and the most frequent errors; predictions files are written and
   scored (`lexsym.runner.scores`), and the header gets the score summary.

Model ids: whatever `lexsym.models.load_model` takes, plus the hidden test aid `lexsym:slow-oracle[:S]`
(`lexsym.runner.fakes`). Tests and library users can pass a ready model object instead of an id.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym.models import load_model
from lexsym.models.base import (
    GenerationParams,
    Model,
    cache_identity,
    close_model,
    model_settings,
    prepare_model,
    sent_params,
)
from lexsym.models.redaction import redact_options
from lexsym.runner.cache import ResponseCache, cache_path, is_cacheable
from lexsym.runner.calls import one_line
from lexsym.runner.failures import reasons_in, verdict
from lexsym.runner.progress import RunProgress
from lexsym.runner.repeats import REPEATS, repeats_summary
from lexsym.runner.run_header import session_header
from lexsym.runner.run_options import RunOptions, RunResult
from lexsym.runner.run_records import CacheRef, Session
from lexsym.runner.rundir import RunDir, json_normal
from lexsym.runner.samples_log import SampleWriter, read_samples
from lexsym.runner.sampling_engine import SamplingEngine, plan_samples, utc_now
from lexsym.runner.scores import (
    score_repeats,
    scores_summary,
    summarize_samples,
    write_predictions,
)
from lexsym.runner.selection import choose
from lexsym.runner.tasksets import load_task_set

log = logging.getLogger("lexsym.runner")


_SLOW_ORACLE = re.compile(r"lexsym:slow-oracle(?::(\d+(?:\.\d+)?))?")


def resolve_model(spec: str, **options: Any) -> Model:
    """The model for an id: the runner's test aid `lexsym:slow-oracle[:SECONDS]`, else `load_model`."""
    match = _SLOW_ORACLE.fullmatch(spec)
    if match:
        from lexsym.runner.fakes import SlowOracle

        return SlowOracle(float(match.group(1) or 0.1))
    return load_model(spec, **{k: v for k, v in options.items() if v is not None})


def _open_cache(model: Model, options: RunOptions) -> tuple[ResponseCache | None, CacheRef]:
    if not options.cache:
        return None, CacheRef(enabled=False, note="--no-cache")
    if not is_cacheable(model):
        return None, CacheRef(enabled=False, note="local model: deterministic and free, not cached")
    path = cache_path(options.cache_dir)
    return ResponseCache(path), CacheRef(enabled=True, path=str(path))


async def run_tasks_async(
    model: str | Model,
    tasks: str | Path,
    out: str | Path,
    *,
    params: GenerationParams | None = None,
    options: RunOptions | None = None,
    model_options: dict[str, Any] | None = None,
) -> RunResult:
    """Run `model` (an id, or a ready model object) over the task set `tasks` into the run directory `out`,
    resuming what is there. See the module docstring for the steps; InputError (exit 2) for bad input or a
    directory that holds another run."""
    params = params or GenerationParams()
    options = options or RunOptions()
    options.check()
    model_options = {k: v for k, v in (model_options or {}).items() if v is not None}
    chosen = resolve_model(model, **model_options) if isinstance(model, str) else model
    model_id = str(getattr(chosen, "id", model))
    task_set = load_task_set(tasks)
    for warning in task_set.warnings:
        log.warning("%s", warning)
    selected = choose(
        task_set.records,
        filters=options.filters,
        conditions=options.where,
        sample_ids=options.sample_ids,
        count=options.limit,
    )
    if not selected:
        asked = " ".join(
            [*(f"--filter {f}" for f in options.filters), *(f"--where {w}" for w in options.where)]
        )
        raise InputError(f"no task in {task_set.path} matches {asked}")
    param_fields = json_normal(params.key_fields())
    run_dir = RunDir(out)
    run_dir.lock()
    try:
        previous = run_dir.read_header()
        if previous is not None:
            run_dir.check_resumable(previous, model_id, param_fields, task_set.sha256)
        cache, cache_ref = _open_cache(chosen, options)
        try:
            scan = run_dir.prepare_samples(retry_errors=options.retry_errors)
            session = Session(started_at=utc_now(), pid=os.getpid())
            await prepare_model(chosen)
            sent, dropped = sent_params(chosen, params)
            for name, why in dropped.items():
                log.warning(
                    "%s: %s is not sent (%s); run.json records it under params_dropped", model_id, name, why
                )
            items = plan_samples(
                selected,
                scan.done,
                model_id,
                params,
                options.repeats,
                cache is not None,
                cache_identity(chosen),
            )
            header = session_header(
                previous,
                model_id=model_id,
                model_options=json_normal(redact_options(model_options)),
                model_settings=json_normal(model_settings(chosen)),
                params=param_fields,
                params_sent=json_normal(sent),
                params_dropped=dropped,
                concurrency=options.workers(chosen, len(items)),
                task_set=task_set,
                selected=len(selected),
                options=options,
                cache=cache_ref,
                session=session,
            )
            run_dir.write_header(header)
            writer = SampleWriter(run_dir.samples_path)
            started = time.monotonic()
            with RunProgress(len(items), label=model_id, enabled=options.progress) as progress:
                engine = SamplingEngine(chosen, model_id, params, options, cache, writer, progress)
                failure: BaseException | None = None
                try:
                    await engine.run(items)
                except BaseException as error:  # still write an honest header, then re-raise
                    failure = error
                    engine.stop.set(
                        "interrupted"
                        if isinstance(error, (KeyboardInterrupt, asyncio.CancelledError))
                        else f"error: {one_line(error)}"
                    )
                finally:
                    await close_model(chosen)
        finally:
            if cache is not None:
                cache.close()
        session.ended_at = utc_now()
        session.wall_seconds = round(time.monotonic() - started, 3)
        session.recorded = writer.written
        session.stop_reason = engine.stop.reason
        selected_ids = {r["id"] for r in selected}
        summary = summarize_samples(run_dir.samples_path, selected_ids)
        outputs = {k: v for k, v in summary.outputs.items() if k < options.repeats}
        totals = summary.totals
        totals.planned = len(selected) * options.repeats
        totals.remaining = totals.planned - sum(len(v) for v in outputs.values())
        totals.wall_seconds = round(sum(s.wall_seconds or 0.0 for s in header.sessions), 3)
        header.totals = totals
        header.ended_at = session.ended_at
        header.status = "complete" if totals.remaining == 0 else "stopped"
        header.stop_reason = None if totals.remaining == 0 else (engine.stop.reason or "incomplete")
        if failure is not None:
            header.status, header.stop_reason = "stopped", engine.stop.reason
        header.failed = verdict(
            totals.failed,
            totals.recorded,
            max_failure_rate=options.max_failure_rate,
            stop_reason=header.stop_reason,
        )
        header.failure_reasons = reasons_in(read_samples(run_dir.samples_path)) if totals.failed else {}
        run_dir.write_header(header)
        if failure is not None:
            raise failure
        reports: dict[int, Any] = {}
        write_predictions(run_dir.path, task_set, outputs)
        if options.score and engine.stop.reason != "interrupted":
            reports = score_repeats(run_dir.path, task_set, outputs, workers=options.score_workers)
            header.scores = scores_summary(reports)
            over_repeats = repeats_summary(reports, task_set, outputs)
            if header.scores is not None and over_repeats is not None:
                write_atomic(run_dir.path / REPEATS, json.dumps(over_repeats, indent=2) + "\n")
                header.scores["over_repeats"] = {
                    "file": REPEATS,
                    **{k: v for k, v in over_repeats.items() if k != "samples"},
                }
            run_dir.write_header(header)
        return RunResult(run_dir.path, header, reports, writer.written, engine.overheads)
    finally:
        run_dir.unlock()


def run_tasks(
    model: str | Model,
    tasks: str | Path,
    out: str | Path,
    *,
    params: GenerationParams | None = None,
    options: RunOptions | None = None,
    model_options: dict[str, Any] | None = None,
) -> RunResult:
    """`run_tasks_async` in a fresh event loop: the entry point for the CLI and scripts."""
    return asyncio.run(
        run_tasks_async(model, tasks, out, params=params, options=options, model_options=model_options)
    )
