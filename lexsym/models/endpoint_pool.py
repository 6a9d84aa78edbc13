"""A pool of OpenAI-compatible endpoints serving one model (several `vllm serve` processes, one per GPU or
per node) behind one model id, so that one `lexsym run` keeps them all busy.

Why each choice:

* **Least in flight, ties in turn.** Each request goes to the endpoint with the fewest of this process's
  requests still open; among equals, the next one after the last chosen. The run is these servers' only
  client, so what it has in flight is each server's queue, and a slow server (a longer prompt, a smaller
  GPU) gets fewer new requests without any telemetry from it. Plain round-robin would queue behind it.
* **A connection failure moves the request, not the run.** An endpoint that gives no HTTP answer at all
  (refused, reset: `EndpointUnreachableError`) sits out a cool-off (`COOL_OFF_SECONDS`) while the same
  request is sent to the next endpoint, so one dead server costs no sample and no backoff. Only when
  every endpoint has failed to connect does the request fail, as a transient error the runner retries
  with its own backoff. Any other error (a 400, a 429, a 5xx) is the server's answer and is raised as it
  is: another copy of the same model would give the same answer, or the runner's backoff is the cure.
  While every endpoint is cooling off, requests still try them: refusing without asking would turn a
  restarting server into failed samples.
* **The endpoints are not part of the model's identity.** They serve the same weights under the same
  name, so an answer does not depend on which one gave it: the response cache's key and a run's identity
  stay the same whichever endpoint served a request and however many there are. Which one did is kept
  beside the answer (`Completion.extra["served_by"]`), and the count per endpoint is in `summary()`.
* **One lock** guards the counters, so one pool may be shared by the coroutines of an event loop (the
  runner's workers) and by threads (inspect_ai's) alike; no lock is held across a request.
* An endpoint's going down is logged once per outage, not once per request that found it down.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Awaitable, Callable, Collection, Iterable
from dataclasses import dataclass
from typing import TypeVar

from lexsym._util.errors import InputError
from lexsym.models.base import EndpointUnreachableError

log = logging.getLogger("lexsym.models")

#: Seconds an endpoint that refused a connection is passed over before a request tries it again.
COOL_OFF_SECONDS = 15.0

T = TypeVar("T")


def endpoint_urls(value: str | Iterable[str] | None) -> list[str]:
    """The base URLs of `--api-base` given once or repeated, each possibly a comma-separated list
    (`-M api_base=http://a:8000/v1,http://b:8001/v1`). An endpoint named twice is an error: it would get
    twice the share of requests without anyone having asked for that."""
    if value is None:
        return []
    parts = [value] if isinstance(value, str) else list(value)
    urls = [url.strip() for part in parts for url in str(part).split(",") if url.strip()]
    twice = sorted({url for url in urls if urls.count(url) > 1})
    if twice:
        raise InputError(f"--api-base: {', '.join(twice)} is given twice")
    return urls


@dataclass
class Endpoint:
    """One server of the pool and what this process knows of it."""

    url: str
    in_flight: int = 0
    served: int = 0  # requests it answered (any HTTP answer, an error status included)
    unreachable: int = 0  # requests that found no server there
    down_until: float = 0.0  # monotonic time before which it is passed over
    down_logged: bool = False  # whether the current outage has been logged


class EndpointPool:
    """Endpoints of one model; `await pool.send(request)` runs `request(url)` on the chosen one.

    `label` (the model id) starts log lines; `cool_off` is seconds out after a connection failure;
    `clock` is for tests.
    """

    def __init__(
        self,
        urls: Iterable[str],
        *,
        label: str = "",
        cool_off: float = COOL_OFF_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.endpoints = [Endpoint(url) for url in urls]
        if len(self.endpoints) < 1:
            raise InputError(f"{label or 'endpoint pool'}: needs at least one endpoint")
        self.label = label
        self.cool_off = float(cool_off)
        self._clock = clock
        self._lock = threading.Lock()
        self._next = 0  # where the turn starts among endpoints with equally few requests in flight

    @property
    def urls(self) -> list[str]:
        return [endpoint.url for endpoint in self.endpoints]

    def acquire(self, tried: Collection[str] = ()) -> Endpoint | None:
        """The endpoint for a request that has already failed to connect to `tried`, counted in flight
        (hand it back with `release`); None when every endpoint has been tried."""
        with self._lock:
            now = self._clock()
            count = len(self.endpoints)
            order = [self.endpoints[(self._next + step) % count] for step in range(count)]
            left = [endpoint for endpoint in order if endpoint.url not in tried]
            up = [endpoint for endpoint in left if endpoint.down_until <= now]
            candidates = up or left  # all of them cooling off: try them anyway (see the module docstring)
            if not candidates:
                return None
            chosen = min(candidates, key=lambda endpoint: endpoint.in_flight)  # the first of the fewest
            chosen.in_flight += 1
            self._next = (self.endpoints.index(chosen) + 1) % count
            return chosen

    def release(self, endpoint: Endpoint, *, reached: bool | None, reason: str = "") -> None:
        """The request on `endpoint` is over: it got an HTTP answer (`reached`), found no server there
        (which takes the endpoint out for the cool-off), or was abandoned (None: cancelled, so nothing is
        learnt of the endpoint)."""
        with self._lock:
            endpoint.in_flight -= 1
            if reached is None:
                return
            if reached:
                endpoint.served += 1
                back = endpoint.down_logged
                endpoint.down_until, endpoint.down_logged = 0.0, False
            else:
                endpoint.unreachable += 1
                endpoint.down_until = self._clock() + self.cool_off
                first, endpoint.down_logged = not endpoint.down_logged, True
        if reached and back:
            log.info("%s: endpoint %s answers again", self.label, endpoint.url)
        elif not reached and first:
            log.warning(
                "%s: endpoint %s is unreachable (%s); its requests go to the other endpoints, and it is "
                "tried again after %g s",
                self.label,
                endpoint.url,
                reason,
                self.cool_off,
            )

    async def send(self, request: Callable[[str], Awaitable[T]]) -> T:
        """`request(url)` on the chosen endpoint; on `EndpointUnreachableError`, the same request on the
        next endpoint, until one answers or every endpoint has been tried (then the last error, reworded
        to say so). Any other error is raised as it is."""
        tried: list[str] = []
        last: EndpointUnreachableError | None = None
        while (endpoint := self.acquire(tried)) is not None:
            tried.append(endpoint.url)
            try:
                result = await request(endpoint.url)
            except EndpointUnreachableError as error:
                self.release(endpoint, reached=False, reason=str(error))
                last = error
                continue
            except Exception:  # the server's answer, an error status: another copy would answer the same
                self.release(endpoint, reached=True)
                raise
            except BaseException:  # the caller gave up (cancelled)
                self.release(endpoint, reached=None)
                raise
            self.release(endpoint, reached=True)
            return result
        assert last is not None
        raise EndpointUnreachableError(
            f"{self.label}: no endpoint of the pool could be reached ({len(tried)} tried); last: {last}"
        )

    def summary(self) -> dict[str, dict[str, int]]:
        """Requests answered and connection failures per endpoint, for logs and tests."""
        with self._lock:
            return {e.url: {"served": e.served, "unreachable": e.unreachable} for e in self.endpoints}

    def describe(self) -> str:
        """`summary()` as one log line: `http://a/v1 5, http://b/v1 0 (2 unreachable)`."""
        return ", ".join(
            f"{url} {done['served']}"
            + (f" ({done['unreachable']} unreachable)" if done["unreachable"] else "")
            for url, done in self.summary().items()
        )
