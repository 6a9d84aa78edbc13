"""litellm's exceptions typed for the runner: transient (worth a retry, with the provider's Retry-After)
or permanent (recorded; the sample moves on).

The checks go from the most specific type to the HTTP status, so litellm's subclasses (a context window
error is a BadRequestError) and its invented statuses (a connection error says 500) do not mislead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from lexsym.models.base import (
    EndpointUnreachableError,
    ModelError,
    PermanentModelError,
    TransientModelError,
)

# HTTP statuses worth a retry besides 5xx: timeout, conflict, too early, rate limit.
_RETRYABLE = {408, 409, 425, 429}
# A 429 that retrying cannot cure: the account is out of credit, not momentarily over a rate.
_QUOTA = re.compile(r"insufficient_quota|exceeded your current quota|billing", re.I)


def _status(exc: BaseException) -> int | None:
    status = getattr(exc, "status_code", None)
    try:
        return int(status) if status is not None else None
    except (TypeError, ValueError):
        return None


def _retry_after(exc: BaseException) -> float | None:
    """Seconds from a Retry-After header (the delta-seconds form; an HTTP date is left to the runner)."""
    headers: Any = getattr(exc, "headers", None)
    if not headers:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    try:
        return max(0.0, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


def _causes(exc: BaseException, depth: int = 12) -> Iterable[BaseException]:
    """The exceptions `exc` was raised from or while handling: litellm wraps the SDK's, which wraps
    httpx's, which wraps the socket's; the innermost say what really happened."""
    seen = {id(exc)}
    current = exc.__cause__ or exc.__context__
    while current is not None and id(current) not in seen and depth > 0:
        yield current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
        depth -= 1


def classify(litellm: ModuleType, exc: Exception) -> tuple[type[ModelError], int | None, float | None]:
    """(error class, HTTP status, retry-after seconds) for an exception raised by litellm.acompletion.

    The checks go from the most specific type to the HTTP status, so litellm's subclasses (a context
    window error is a BadRequestError) and its invented statuses (a connection error says 500) do not
    mislead.
    """
    import openai  # a dependency of litellm, so already imported by now

    status = _status(exc)
    causes = list(_causes(exc))
    if isinstance(exc, litellm.ContextWindowExceededError):
        return PermanentModelError, status or 400, None
    if isinstance(exc, (litellm.Timeout, openai.APITimeoutError)):  # litellm reports a timeout as 408
        return TransientModelError, status or 408, None
    # An answer that is not JSON, or no HTTP answer at all (refused, reset, DNS): litellm calls both an
    # InternalServerError with status 500, but no server said 500, so the status is left unknown. A
    # garbled body is checked first: litellm may wrap it as a connection error, yet the server is there.
    if any(isinstance(cause, json.JSONDecodeError) for cause in causes):
        return TransientModelError, None, None
    unreachable = (litellm.APIConnectionError, openai.APIConnectionError, ConnectionError)
    if isinstance(exc, unreachable) or any(isinstance(cause, unreachable) for cause in causes):
        return EndpointUnreachableError, None, None
    # The SDK refused before sending anything (no key set, say), and litellm again calls it a 500.
    if any(type(cause) is openai.OpenAIError for cause in causes):
        return PermanentModelError, None, None
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        if _QUOTA.search(str(exc)):
            return PermanentModelError, 429, None
        return TransientModelError, 429, _retry_after(exc)
    if status is not None:
        if status in _RETRYABLE or status >= 500:
            return TransientModelError, status, _retry_after(exc)
        return PermanentModelError, status, None
    if isinstance(exc, (TimeoutError, ConnectionError)):
        return TransientModelError, None, None
    return PermanentModelError, None, None
