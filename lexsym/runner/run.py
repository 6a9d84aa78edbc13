"""Running a model over a task set into a run directory: `run_tasks` (and `run_tasks_async`).

One session, in order:

1. Read the task file and apply the filters; take the run directory's lock; refuse a directory holding
   another model's, other parameters' or another task set's run; set aside torn lines and samples to retry
   (`RunDir.prepare_samples`); write the header (status "running").
2. Plan the samples not yet recorded, repeat by repeat (so a run stopped early has whole repeats first,
   repeat 0, the headline, above all), and run them with `concurrency` worker coroutines. A fixed pool of
   workers pulling from one queue is the semaphore: at most `concurrency` samples are in flight, and
   stopping is simply workers not taking another sample.
3. Per sample: the response cache (a hit makes no call and is marked cached); else a slot from the
   requests-per-minute limiter and the call, transient errors retried with full-jitter backoff, a permanent
   error (or an unexpected exception from the backend) recorded on the sample; then the answer parsed and
   scored cheaply, and the line handed to the single writer.
4. A time budget, a cost budget or Ctrl-C (SIGINT/SIGTERM) stops new requests; requests in flight finish and
   are recorded. A second Ctrl-C abandons them (a resume redoes them).
5. The header is rewritten with totals and the stop reason, predictions files are written and scored
   (`lexsym.runner.scores`), and the header gets the score summary.

Model ids: whatever `lexsym.models.load_model` takes, plus the hidden test aid `lexsym:slow-oracle[:S]`
(`lexsym.runner.fakes`). Tests and library users can pass a ready model object instead of an id.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import platform
import random
import re
import signal
import subprocess
import time
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lexsym._version import __version__
from lexsym.answers import parse_answer
from lexsym.errors import InputError
from lexsym.models import load_model
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Message,
    Model,
    close_model,
    split_reasoning,
)
from lexsym.runner.cache import CacheError, ResponseCache, cache_key_from_digest, cache_path, is_cacheable
from lexsym.runner.calls import call_model, one_line
from lexsym.runner.limits import Budget, RateLimiter, RetryPolicy, StopSignal
from lexsym.runner.progress import RunProgress
from lexsym.runner.quick_score import QuickScorer
from lexsym.runner.rundir import (
    CacheRef,
    PromptRef,
    RunDir,
    RunHeader,
    SampleRecord,
    SampleWriter,
    Session,
    TaskSetRef,
    json_normal,
)
from lexsym.runner.scores import (
    answer_text,
    score_repeats,
    scores_summary,
    summarize_samples,
    write_predictions,
)
from lexsym.runner.tasksets import TASKS, TaskSet, load_task_set, messages_for, prompt_sha256, select

log = logging.getLogger("lexsym.runner")

_SLOW_ORACLE = re.compile(r"lexsym:slow-oracle(?::(\d+(?:\.\d+)?))?")


@dataclass(frozen=True)
class RunOptions:
    """How to run, apart from the model, its generation parameters and the task set.

    `time_budget` counts seconds from the start of this session's sampling; `cost_budget` is dollars spent
    in this session, as the backend reports them. `cache_dir` None is the default cache directory.
    `retry_errors` retries recorded permanent failures too (transient ones always are). `progress` None shows
    the bar when stderr is a terminal. `score_workers` is passed to `lexsym.scoring.score`. `seed` seeds the
    backoff jitter (tests).
    """

    concurrency: int = 8
    rpm: float = 0.0
    repeats: int = 1
    filters: tuple[str, ...] = ()
    time_budget: float | None = None
    cost_budget: float | None = None
    cache: bool = True
    cache_dir: Path | None = None
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    retry_errors: bool = False
    score: bool = True
    score_workers: int = 0
    progress: bool | None = None
    seed: int | None = None

    def check(self) -> None:
        """InputError (exit 2) for a value that makes no sense."""
        if self.concurrency < 1:
            raise InputError(f"--concurrency must be at least 1, not {self.concurrency}")
        if self.repeats < 1:
            raise InputError(f"--repeats must be at least 1, not {self.repeats}")
        if self.rpm < 0:
            raise InputError(f"--rpm must be 0 (no limit) or more, not {self.rpm:g}")
        for name, value in (("--time-budget", self.time_budget), ("--cost-budget", self.cost_budget)):
            if value is not None and not value > 0:
                raise InputError(f"{name} must be more than 0, not {value:g}")


@dataclass
class RunResult:
    """What a session did: the header as written, the score reports by repeat (none when not scored), the
    samples this session recorded, and the runner's own time per sample (seconds, model calls and waits
    excluded), which the overhead benchmark reads."""

    run_dir: Path
    header: RunHeader
    reports: dict[int, Any]
    recorded: int
    overheads: list[float]

    @property
    def report(self) -> Any:
        """The headline score report (repeat 0), or None."""
        return self.reports.get(self.header.scores["headline_repeat"]) if self.header.scores else None

    @property
    def stop_reason(self) -> str | None:
        return self.header.stop_reason


def resolve_model(spec: str, **options: Any) -> Model:
    """The model for an id: the runner's test aid `lexsym:slow-oracle[:SECONDS]`, else `load_model`."""
    match = _SLOW_ORACLE.fullmatch(spec)
    if match:
        from lexsym.runner.fakes import SlowOracle

        return SlowOracle(float(match.group(1) or 0.1))
    return load_model(spec, **{k: v for k, v in options.items() if v is not None})


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _git() -> tuple[str | None, bool | None]:
    """The revision of the checkout lexsym runs from, and whether it has changes; None outside one (an
    installed wheel must not report the revision of whatever repository happens to contain it)."""
    root = Path(__file__).resolve().parents[2]
    try:
        top = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.split()
        if len(top) != 2 or Path(top[0]).resolve() != root:
            return None, None
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        return top[1], bool(dirty)
    except (OSError, subprocess.SubprocessError):
        return None, None


@dataclass
class _Item:
    record: dict[str, Any]
    repeat: int
    sample_id: str
    messages: list[Message]
    prompt: PromptRef
    key: str | None


class _Session:
    """The concurrent part of a session: workers, limiter, cache, writer, counters."""

    def __init__(
        self,
        model: Model,
        model_id: str,
        params: GenerationParams,
        options: RunOptions,
        cache: ResponseCache | None,
        writer: SampleWriter,
        progress: RunProgress,
    ):
        self.model = model
        self.model_id = model_id
        self.params = params
        self.options = options
        self.cache = cache
        self.writer = writer
        self.progress = progress
        self.limiter = RateLimiter(options.rpm)
        self.retry = options.retry
        self.budget = Budget(options.time_budget, options.cost_budget)
        self.stop = StopSignal()
        self.rng = random.Random(options.seed)
        self.scorer = QuickScorer()
        self.queue: deque[_Item] = deque()
        self.overheads: list[float] = []
        self.failure: BaseException | None = None
        self.done = self.failed = self.cached = self.tokens_in = self.tokens_out = 0
        self.cost = 0.0
        self._workers: list[asyncio.Task[None]] = []
        self._interrupts = 0
        self._put_warned = False

    # -- control ------------------------------------------------------------------------------------------

    def _fail(self, error: BaseException) -> None:
        if self.failure is None:
            self.failure = error
        self.stop.set(f"error: {one_line(error)}")

    def _on_signal(self) -> None:
        self._interrupts += 1
        if self._interrupts == 1:
            self.stop.set("interrupted")
            in_flight = sum(not w.done() for w in self._workers)
            self.progress.note(
                f"lexsym run: interrupted: finishing up to {in_flight} sample(s) in flight "
                "(press Ctrl-C again to abandon them; a resume redoes them)"
            )
        else:
            for worker in self._workers:
                worker.cancel()

    async def run(self, items: list[_Item]) -> None:
        self.queue.extend(items)
        loop = asyncio.get_running_loop()
        installed = []
        for number in (signal.SIGINT, signal.SIGTERM):
            try:
                loop.add_signal_handler(number, self._on_signal)
                installed.append(number)
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or not Unix
                pass
        timer = (
            loop.call_later(self.options.time_budget, self.stop.set, "time budget")
            if self.options.time_budget
            else None
        )
        self.writer.start(on_error=self._fail)
        try:
            count = min(self.options.concurrency, len(items))
            self._workers = [loop.create_task(self._worker()) for _ in range(count)]
            await asyncio.gather(*self._workers, return_exceptions=True)
        finally:
            if timer is not None:
                timer.cancel()
            for number in installed:
                loop.remove_signal_handler(number)
            try:
                await self.writer.close()
            except Exception as error:
                self._fail(error)
        if self.failure is not None:
            raise self.failure

    async def _worker(self) -> None:
        while self.queue and not self.stop.is_set():
            item = self.queue.popleft()
            try:
                await self._sample(item)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # a defect of the runner itself: stop rather than fail every sample
                self._fail(error)
                return

    # -- one sample ---------------------------------------------------------------------------------------

    async def _sample(self, item: _Item) -> None:
        started = time.perf_counter()
        outside = 0.0  # time spent waiting (limiter, backoff) or in the model: not the runner's overhead
        completion: Completion | None = None
        error: str | None = None
        kind: str | None = None
        attempts = 0
        latency = 0.0
        cached = False
        if self.cache is not None and item.key is not None:
            completion = self._cache_get(item.key)
            cached = completion is not None
            if cached:
                latency = time.perf_counter() - started
        if completion is None:
            call = await call_model(
                self.model,
                item.messages,
                self.params,
                limiter=self.limiter,
                retry=self.retry,
                rng=self.rng,
                stop=self.stop,
                task=item.record,
            )
            if call.stopped:
                return  # not finished: left unrecorded, so a resume does it
            outside = call.waited
            completion, error, kind = call.completion, call.error, call.error_kind
            attempts, latency = call.attempts, call.latency
            if completion is not None and self.cache is not None and item.key is not None:
                self._cache_put(item.key, completion)
        record = self._record(item, completion, error, kind, attempts, latency, cached)
        self.writer.append(record.model_dump_json() + "\n")
        self._count(record)
        self.overheads.append(time.perf_counter() - started - outside)

    def _record(
        self,
        item: _Item,
        completion: Completion | None,
        error: str | None,
        kind: str | None,
        attempts: int,
        latency: float,
        cached: bool,
    ) -> SampleRecord:
        record = SampleRecord(
            id=item.sample_id,
            task_id=item.record["id"],
            repeat=item.repeat,
            task=item.record["task"],
            variant=item.record.get("variant"),
            prompt=item.prompt,
            attempts=attempts,
            cached=cached,
            latency=latency,
            error=error,
            error_kind=kind,  # type: ignore[arg-type]
            finished_at=time.time(),
        )
        if completion is None:
            if item.record["task"] in TASKS:
                record.scores = self.scorer(item.record, None)
            return record
        text = completion.text if isinstance(completion.text, str) else ""
        reasoning = completion.reasoning
        if reasoning is None and "<think>" in text.lower():
            reasoning = split_reasoning(text)[1]
        record.completion = text
        record.reasoning = reasoning
        if item.record["task"] in TASKS:
            parsed = parse_answer(item.record["task"], answer_text(text) or "")
            record.answer = parsed.span
            record.parsed = parsed.ok
            record.parse_error = parsed.error
            record.scores = self.scorer(item.record, parsed)
        else:  # an exam task: read and scored by lexsym.scoring at the end
            record.parsed = None
        record.tokens_in = int(completion.tokens_in or 0)
        record.tokens_out = int(completion.tokens_out or 0)
        record.cost = 0.0 if cached else float(completion.cost or 0.0)
        record.finish_reason = completion.finish_reason
        record.model = completion.model
        return record

    def _count(self, record: SampleRecord) -> None:
        self.done += 1
        self.failed += record.error is not None
        self.cached += record.cached
        self.tokens_in += record.tokens_in
        self.tokens_out += record.tokens_out
        self.cost += record.cost
        reason = self.budget.add(record.cost)
        if reason:
            self.stop.set(reason)
        self.progress.update(
            done=self.done,
            failed=self.failed,
            cached=self.cached,
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            cost=self.cost,
        )

    def _cache_get(self, key: str) -> Completion | None:
        assert self.cache is not None
        try:
            return self.cache.get(key)
        except CacheError as error:
            log.warning("%s; running on without the cache", error)
            self.cache = None
            return None

    def _cache_put(self, key: str, completion: Completion) -> None:
        assert self.cache is not None
        try:
            self.cache.put(key, self.model_id, completion)
        except CacheError as error:
            if not self._put_warned:
                log.warning("%s; this answer (and any other that fails so) is not cached", error)
                self._put_warned = True


def _plan(
    selected: list[dict[str, Any]],
    done: set[tuple[str, int]],
    model_id: str,
    params: GenerationParams,
    repeats: int,
    cached: bool,
) -> list[_Item]:
    """The samples still to do, repeat-major. Messages, prompt hash and (at temperature 0) the cache key
    are worked out once per task and shared by its repeats."""
    per_task = []
    for record in selected:
        messages = messages_for(record)
        digest = prompt_sha256(messages)
        per_task.append((record, messages, PromptRef(task_id=record["id"], sha256=digest), digest))
    sampling = bool(params.temperature and params.temperature > 0)
    items = []
    for repeat in range(repeats):
        for record, messages, prompt, digest in per_task:
            if (record["id"], repeat) in done:
                continue
            key = None
            if cached:
                key = cache_key_from_digest(model_id, digest, params, repeat if sampling else 0)
            sample_id = f"{record['id']}#r{repeat}" if repeats > 1 else record["id"]
            items.append(_Item(record, repeat, sample_id, messages, prompt, key))
    return items


def _open_cache(model: Model, options: RunOptions) -> tuple[ResponseCache | None, CacheRef]:
    if not options.cache:
        return None, CacheRef(enabled=False, note="--no-cache")
    if not is_cacheable(model):
        return None, CacheRef(enabled=False, note="local model: deterministic and free, not cached")
    path = cache_path(options.cache_dir)
    return ResponseCache(path), CacheRef(enabled=True, path=str(path))


def _header(
    previous: RunHeader | None,
    *,
    model_id: str,
    model_options: dict[str, Any],
    params: dict[str, Any],
    task_set: TaskSet,
    selected: int,
    options: RunOptions,
    cache: CacheRef,
    session: Session,
) -> RunHeader:
    from lexsym.generate.pipeline import inputs_digest

    revision, dirty = _git()
    current: dict[str, Any] = {
        "lexsym_version": __version__,
        "git_revision": revision,
        "git_dirty": dirty,
        "python": platform.python_version(),
        "inputs": inputs_digest(),
        "model_options": model_options,
        "tasks": TaskSetRef(
            path=str(task_set.path),
            tasks_sha256=task_set.sha256,
            manifest_tasks_sha256=task_set.manifest_sha256,
            manifest_inputs=task_set.manifest_inputs,
            tasks=len(task_set.records),
            selected=selected,
        ),
        "filters": list(options.filters),
        "repeats": options.repeats,
        "concurrency": options.concurrency,
        "rpm": options.rpm,
        "time_budget": options.time_budget,
        "cost_budget": options.cost_budget,
        "retry": dataclasses.asdict(options.retry),
        "cache": cache,
        "ended_at": None,
        "status": "running",
        "stop_reason": None,
    }
    if previous is None:
        return RunHeader(
            model=model_id, params=params, started_at=session.started_at, sessions=[session], **current
        )
    if previous.inputs != current["inputs"]:
        log.warning(
            "the statutes, encodings or templates changed since this run began (%s -> %s): OE answers are "
            "checked against the current rules",
            previous.inputs,
            current["inputs"],
        )
    header = previous.model_copy(update=current, deep=True)
    if previous.status == "running" and header.sessions and header.sessions[-1].ended_at is None:
        header.sessions[-1].stop_reason = "did not finish (killed?)"
    header.sessions.append(session)
    return header


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
    selected = select(task_set.records, options.filters)
    if not selected:
        raise InputError(f"no task in {task_set.path} matches --filter {' '.join(options.filters)}")
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
            session = Session(started_at=_now(), pid=os.getpid())
            header = _header(
                previous,
                model_id=model_id,
                model_options=model_options,
                params=param_fields,
                task_set=task_set,
                selected=len(selected),
                options=options,
                cache=cache_ref,
                session=session,
            )
            run_dir.write_header(header)
            items = _plan(selected, scan.done, model_id, params, options.repeats, cache is not None)
            writer = SampleWriter(run_dir.samples_path)
            started = time.monotonic()
            with RunProgress(len(items), label=model_id, enabled=options.progress) as progress:
                engine = _Session(chosen, model_id, params, options, cache, writer, progress)
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
        session.ended_at = _now()
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
        run_dir.write_header(header)
        if failure is not None:
            raise failure
        reports: dict[int, Any] = {}
        write_predictions(run_dir.path, task_set, outputs)
        if options.score and engine.stop.reason != "interrupted":
            reports = score_repeats(run_dir.path, task_set, outputs, workers=options.score_workers)
            header.scores = scores_summary(reports)
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
