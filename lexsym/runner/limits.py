"""Pacing, retrying and stopping model calls: a requests-per-minute limiter, backoff with full jitter, and
the stop signal that budgets and Ctrl-C raise.

Why these shapes:

- **Rate limit as a schedule, not a bucket of tokens refilled by a timer.** `RateLimiter` is the generic cell
  rate algorithm (GCRA), the token bucket written as one "theoretical arrival time": each caller reserves
  the next free slot and sleeps until it. That is O(1), needs no lock or background task, serves callers in
  the order they asked, and with the default burst of 1 spaces requests 60/rpm seconds apart, so no
  60-second window ever holds more than rpm + 1 requests.
- **Full jitter** (a uniform draw in [0, min(cap, base * 2^n)]) rather than plain exponential backoff:
  when many samples hit the same rate limit at once, jitter spreads their retries out instead of sending
  them back together (AWS Architecture Blog, "Exponential Backoff and Jitter"). A server's Retry-After,
  when a backend passes one on the error as `retry_after`, is a floor (capped at `cap`).
- **Stopping is a flag, not cancellation.** A budget or a first Ctrl-C sets `StopSignal`: no new request
  starts (retries and waits for a rate-limit slot included), while requests already sent finish and are
  recorded. Cancelling them would throw away answers already paid for.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass


class StopSignal:
    """Why the run stops starting samples ("time budget", "cost budget", "interrupted", ...); the first
    reason given wins, later ones are ignored, so the header names what actually stopped the run."""

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self.reason: str | None = None

    def set(self, reason: str) -> None:
        if self.reason is None:
            self.reason = reason
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        await self._event.wait()


async def sleep_unless_stopped(delay: float, stop: StopSignal | None) -> bool:
    """Sleep `delay` seconds; True when the time passed, False as soon as `stop` is set (a backoff or a
    rate-limit wait must not hold a stopping run for up to a minute)."""
    if stop is None:
        if delay > 0:
            await asyncio.sleep(delay)
        return True
    if stop.is_set():
        return False
    if delay <= 0:
        return True
    try:
        await asyncio.wait_for(stop.wait(), delay)
    except asyncio.TimeoutError:
        return True
    return False


class RateLimiter:
    """At most `rpm` request starts per minute, paced (GCRA). `rpm` 0 means no limit.

    `burst` lets that many requests start back to back after an idle spell; the default 1 paces strictly.
    """

    def __init__(self, rpm: float, *, burst: int = 1, clock: Callable[[], float] = time.monotonic):
        if rpm < 0 or not math.isfinite(rpm):
            raise ValueError(f"rpm must be a finite number >= 0, not {rpm}")
        if burst < 1:
            raise ValueError(f"burst must be at least 1, not {burst}")
        self.rpm = rpm
        self.interval = 60.0 / rpm if rpm > 0 else 0.0
        self._slack = (burst - 1) * self.interval
        self._clock = clock
        self._tat = -math.inf  # theoretical arrival time of the next request

    def reserve(self) -> float:
        """Reserve the next slot; the seconds to wait for it (0 when it is now)."""
        if not self.interval:
            return 0.0
        now = self._clock()
        tat = max(self._tat, now)
        start = max(now, tat - self._slack)
        self._tat = tat + self.interval
        return start - now

    async def acquire(self, stop: StopSignal | None = None) -> bool:
        """Wait for a slot; False when `stop` was set while waiting (the slot is then wasted, harmlessly)."""
        delay = self.reserve()
        if delay <= 0:
            return not (stop is not None and stop.is_set())
        return await sleep_unless_stopped(delay, stop)


@dataclass(frozen=True)
class RetryPolicy:
    """Retries of transient errors (rate limits, timeouts, 5xx): up to `max_attempts` calls in all, the
    n-th retry after a full-jitter delay in [0, min(cap, base * 2**n)] seconds. `timeout` is the seconds one
    request may take, enforced by the caller whatever the backend does (a server that accepts and never
    answers stalled each attempt for litellm's 600 s); a sample then ends within `deadline()`."""

    base: float = 1.0
    cap: float = 60.0
    max_attempts: int = 6
    timeout: float | None = None

    def __post_init__(self) -> None:
        if not (self.base >= 0 and self.cap >= 0 and math.isfinite(self.base) and math.isfinite(self.cap)):
            raise ValueError("retry base and cap must be finite numbers >= 0")
        if self.max_attempts < 1:
            raise ValueError(f"max attempts must be at least 1, not {self.max_attempts}")
        if self.timeout is not None and not (math.isfinite(self.timeout) and self.timeout > 0):
            raise ValueError(f"timeout must be a positive number of seconds, not {self.timeout!r}")

    def deadline(self) -> float | None:
        """The most seconds one sample's calls can take: every attempt timed out, every pause at its cap."""
        if self.timeout is None:
            return None
        return self.timeout * self.max_attempts + self.cap * (self.max_attempts - 1)

    def delay(self, retry: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number `retry` (0 for the first retry)."""
        ceiling = min(self.cap, self.base * 2.0 ** min(retry, 64))
        delay = rng.uniform(0.0, ceiling)
        if isinstance(retry_after, (int, float)) and math.isfinite(retry_after) and retry_after > 0:
            delay = max(delay, min(float(retry_after), self.cap))
        return delay


@dataclass
class Budget:
    """Limits on a session's wall time (seconds from its start) and spend (dollars, as backends report
    it). The cost budget is checked as samples finish, so samples in flight when it is reached can
    overshoot it by at most `concurrency` samples' cost; a backend that reports no cost never reaches it."""

    seconds: float | None = None
    dollars: float | None = None
    spent: float = 0.0

    def __post_init__(self) -> None:
        for name in ("seconds", "dollars"):
            value = getattr(self, name)
            if value is not None and not (value > 0 and math.isfinite(value)):
                raise ValueError(f"the {'time' if name == 'seconds' else 'cost'} budget must be > 0")

    def add(self, cost: float) -> str | None:
        """Count a finished sample's cost; "cost budget" when that uses the budget up."""
        self.spent += cost
        if self.dollars is not None and self.spent >= self.dollars:
            return "cost budget"
        return None
