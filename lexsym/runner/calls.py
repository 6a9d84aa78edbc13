"""One model request with the runner's manners: a rate-limit slot first, transient errors retried with
full-jitter backoff (Retry-After as a floor), a permanent error (or any exception a backend raises)
returned rather than raised, and nothing started once the stop signal is set.

The runner and the judges both call models this way; keeping the loop in one place keeps their retry and
stop behaviour the same.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

from lexsym.models.base import Completion, GenerationParams, Message, Model, ModelError, TransientModelError
from lexsym.runner.limits import RateLimiter, RetryPolicy, StopSignal, sleep_unless_stopped

log = logging.getLogger("lexsym.runner")
_ERROR_LIMIT = 500


def one_line(error: BaseException) -> str:
    """An exception as one line of at most 500 characters: class, status, message."""
    text = " ".join(str(error).split())
    status = getattr(error, "status", None)
    message = (
        f"{error.__class__.__name__}{f' ({status})' if status else ''}: {text}"
        if text
        else error.__class__.__name__
    )
    return message if len(message) <= _ERROR_LIMIT else message[: _ERROR_LIMIT - 1] + "…"


@dataclass
class CallResult:
    """What came of one request: a completion, or an error (`error_kind` transient when retries ran out),
    or neither when the stop signal came first (`stopped`: the request is left for a resume)."""

    completion: Completion | None = None
    error: str | None = None
    error_kind: str | None = None
    attempts: int = 0
    latency: float = 0.0  # seconds of the successful call
    waited: float = 0.0  # seconds in the limiter, in backoff and in the model: not the caller's overhead
    stopped: bool = False


async def call_model(
    model: Model,
    messages: list[Message],
    params: GenerationParams,
    *,
    limiter: RateLimiter,
    retry: RetryPolicy,
    rng: random.Random,
    stop: StopSignal,
    task: dict[str, Any] | None = None,
) -> CallResult:
    result = CallResult()
    while True:
        if stop.is_set():
            result.stopped = True
            return result
        asked = time.perf_counter()
        if not await limiter.acquire(stop):
            result.stopped = True
            return result
        call = time.perf_counter()
        result.waited += call - asked
        result.attempts += 1
        try:
            if retry.timeout is None:
                completion = await model.generate(messages, params, task=task)
            else:
                completion = await asyncio.wait_for(
                    model.generate(messages, params, task=task), retry.timeout
                )
        except asyncio.CancelledError:
            raise
        except Exception as raised:
            exc = raised
            if isinstance(
                raised, TimeoutError
            ):  # the caller's own timeout: a slow server may answer next time
                exc = TransientModelError(f"no answer within {retry.timeout:g} s (--timeout)", status=408)
            result.waited += time.perf_counter() - call
            transient = isinstance(exc, ModelError) and exc.transient
            if transient and result.attempts < retry.max_attempts:
                delay = retry.delay(result.attempts - 1, rng, getattr(exc, "retry_after", None))
                paused = time.perf_counter()
                if not await sleep_unless_stopped(delay, stop):
                    result.stopped = True
                    return result
                result.waited += time.perf_counter() - paused
                continue
            if not isinstance(exc, ModelError):
                log.debug("model %s raised", getattr(model, "id", model), exc_info=True)
            result.error, result.error_kind = one_line(exc), ("transient" if transient else "permanent")
            return result
        result.latency = time.perf_counter() - call
        result.waited += result.latency
        result.completion = completion
        return result
