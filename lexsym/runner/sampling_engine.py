"""The concurrent part of a run session: a fixed pool of worker coroutines pulling planned samples from one
queue (at most `concurrency` in flight), the response cache, the rate limiter, backoff, budgets and
Ctrl-C, and the single writer of samples.jsonl."""

from __future__ import annotations

import asyncio
import logging
import random
import signal
import time
from collections import deque
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from lexsym.answers import parse_answer
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Message,
    Model,
    has_think_tags,
    split_reasoning,
)
from lexsym.runner.cache import CacheError, ResponseCache, cache_key_from_digest
from lexsym.runner.calls import call_model, one_line
from lexsym.runner.failures import fail_fast_reason
from lexsym.runner.limits import Budget, RateLimiter, StopSignal
from lexsym.runner.progress import RunProgress
from lexsym.runner.quick_score import QuickScorer
from lexsym.runner.run_options import RunOptions
from lexsym.runner.run_records import PromptRef, SampleRecord
from lexsym.runner.samples_log import SampleWriter
from lexsym.runner.scores import (
    answer_text,
)
from lexsym.runner.tasksets import TASKS, messages_for, prompt_sha256

log = logging.getLogger("lexsym.runner")


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class PlannedSample:
    record: dict[str, Any]
    repeat: int
    sample_id: str
    messages: list[Message]
    prompt: PromptRef
    key: str | None


class SamplingEngine:
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
        self.queue: deque[PlannedSample] = deque()
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

    async def run(self, items: list[PlannedSample]) -> None:
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
            count = min(self.options.workers(self.model, len(items)), len(items))
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

    async def _sample(self, item: PlannedSample) -> None:
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
        item: PlannedSample,
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
        if reasoning is None and has_think_tags(text):
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
        if record.error is not None and self.options.fail_fast and self.failed >= self.options.fail_fast:
            self.stop.set(fail_fast_reason(self.failed))
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


def plan_samples(
    selected: list[dict[str, Any]],
    done: set[tuple[str, int]],
    model_id: str,
    params: GenerationParams,
    repeats: int,
    cached: bool,
    identity: dict[str, Any] | None = None,
) -> list[PlannedSample]:
    """The samples still to do, repeat-major. Messages, prompt hash and (at temperature 0) the cache key
    are worked out once per task and shared by its repeats. `identity` is the backend's
    `cache_identity()`, part of every key."""
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
                key = cache_key_from_digest(model_id, digest, params, repeat if sampling else 0, identity)
            sample_id = f"{record['id']}#r{repeat}" if repeats > 1 else record["id"]
            items.append(PlannedSample(record, repeat, sample_id, messages, prompt, key))
    return items
