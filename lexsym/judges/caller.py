"""One judge model's calls: the runner's response cache, requests-per-minute limiter and backoff, and the
tokens and cost they use, counted apart from the answering model's."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

from lexsym.judges.settings import JudgeOptions, JudgeSpec
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Message,
    Model,
    PermanentModelError,
    TransientModelError,
    cache_identity,
)
from lexsym.runner.cache import CacheError, ResponseCache, cache_key, is_cacheable
from lexsym.runner.calls import call_model
from lexsym.runner.limits import RateLimiter, StopSignal

log = logging.getLogger("lexsym.judges")


@dataclass
class JudgeTotals:
    judged: int = 0
    calls: int = 0
    cached: int = 0
    failures: int = 0
    no_answer: int = 0  # samples the answering model never answered: its failure, not the judge's
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0


class JudgeCaller:
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
        self.identity = cache_identity(model)
        self.limiter = RateLimiter(options.rpm)
        self.retry = options.retry
        self.stop = stop
        self.totals = totals
        self.rng = rng

    async def __call__(self, messages: list[Message], params: GenerationParams) -> Completion:
        key = (
            cache_key(self.spec.model, messages, params, 0, self.identity) if self.cache is not None else None
        )
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
