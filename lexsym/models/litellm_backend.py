"""`litellm:<provider>/<model>`: any API that litellm speaks, behind the one `generate()` interface.

Why litellm: one client for OpenAI, Anthropic, Gemini, Bedrock, OpenRouter, Together, … and for any
OpenAI-compatible server (a self-hosted vLLM, SGLang or llama.cpp server is `litellm:hosted_vllm/<model>`
or `litellm:openai/<model>` with `api_base="http://host:8000/v1"`).

Design choices, each for a reason:

* litellm is imported lazily, on the first call: it takes seconds to import, and `lexsym --help` or a run
  with the local models must not pay for it. `LITELLM_LOCAL_MODEL_COST_MAP` is set first so that it reads
  its bundled price map instead of fetching one from the internet.
* litellm never retries (`num_retries=0`): the runner owns retries and backoff, and counts them. A
  retry hidden inside the client would make latencies and request counts lie.
* Keys stay in the environment. litellm reads the provider's variable itself (`OPENAI_API_KEY`,
  `ANTHROPIC_API_KEY`, …); `api_key_env` names another variable when one endpoint needs its own key. A
  key is never an argument of this class, so it cannot reach a run log's header through its settings.
* Error messages are redacted before they are raised (see `redact_secrets`): providers echo keys back
  ("Incorrect API key provided: sk-…"), and these messages end up in run logs.
* Errors are typed for the runner: `TransientModelError` (429, 408, 5xx, timeouts, connection failures,
  a garbled body) is worth a retry; `PermanentModelError` (400, 401, 403, 404, 422, context too long,
  quota exhausted) is recorded and the sample moves on. A 429 carries `retry_after` (seconds) when the
  provider sent a Retry-After header.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from lexsym._util.errors import InputError
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Message,
    ModelError,
    PermanentModelError,
    TransientModelError,
    split_reasoning,
)

REDACTED = "[redacted]"

# Shapes of keys that may be echoed in an error without being in our environment (a key typed into a
# config file, a proxy's key): OpenAI/Anthropic `sk-…`, Google `AIza…`, Hugging Face `hf_…`, Groq `gsk_…`,
# AWS access key ids, and whatever follows "Bearer".
_KEY_SHAPES = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_*\-]{8,}"
    r"|\bAIza[0-9A-Za-z_\-]{20,}"
    r"|\b(?:hf|gsk|xai)_[A-Za-z0-9]{16,}"
    r"|\bA(?:KIA|SIA)[0-9A-Z]{16}\b"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/\-]{8,}=*"
)
# Environment variables whose values are secrets, by the naming convention providers follow.
_SECRET_NAMES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_MIN_SECRET = 8  # shorter values ("1", "true") would redact ordinary words, and are not real keys
_MAX_MESSAGE = 1000  # litellm messages can quote whole response bodies; a log line needs the gist

# HTTP statuses worth a retry besides 5xx: timeout, conflict, too early, rate limit.
_RETRYABLE = {408, 409, 425, 429}
# A 429 that retrying cannot cure: the account is out of credit, not momentarily over a rate.
_QUOTA = re.compile(r"insufficient_quota|exceeded your current quota|billing", re.I)
_LENGTH_REASONS = {"length", "max_tokens", "max_output_tokens", "MAX_TOKENS"}


def redact_secrets(text: str, *, extra: Iterable[str | None] = ()) -> str:
    """`text` with every key-like string replaced by "[redacted]".

    Redacted are: the current values of environment variables whose names end in _KEY, _TOKEN, _SECRET or
    _PASSWORD (read now, so keys set after start-up are covered), the `extra` values given, and anything
    shaped like a known provider key. Longer secrets go first so a key containing another is fully hidden.
    Importing this helper does not import litellm; the runner may use it on any text bound for a log.
    """
    secrets = {
        value
        for name, value in os.environ.items()
        if name.upper().endswith(_SECRET_NAMES) and len(value) >= _MIN_SECRET
    }
    secrets.update(value for value in extra if value and len(value) >= _MIN_SECRET)
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


_litellm: ModuleType | None = None
_import_lock = threading.Lock()


def _import_litellm() -> ModuleType:
    """litellm, imported once and configured for offline, quiet use; run off the event loop.

    The module is published only once configured: checking `sys.modules` instead would hand a second
    concurrent caller a half-imported module.
    """
    global _litellm
    with _import_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            # Without this, litellm prints "Give Feedback / Get Help" banners, with error details.
            litellm.suppress_debug_info = True
            _litellm = litellm
    return _litellm


class LiteLLMModel:
    """A model reached through litellm: `LiteLLMModel("openai/gpt-4o")` has the id `litellm:openai/gpt-4o`.

    `api_base` points at another endpoint (an OpenAI-compatible server); `api_key_env` names the
    environment variable holding its key, read at each call; `timeout` is seconds per request. Further
    keyword options (`drop_params=True`, `reasoning_effort="low"`, `custom_llm_provider`, `mock_response`,
    …) are passed to `litellm.acompletion` as they are.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | None = None,
        api_key_env: str | None = None,
        timeout: float = 600,
        **extra: Any,
    ):
        if not model:
            raise InputError("litellm: needs a model, as litellm:<provider>/<model> (e.g. openai/gpt-4o)")
        if "api_key" in extra:
            # A key given as an option would be stored in the settings that run logs record.
            raise InputError(
                "litellm: pass keys through the environment (api_key_env names the variable), not api_key"
            )
        if api_key_env is not None and not os.environ.get(api_key_env):
            raise InputError(f"litellm:{model}: the environment variable {api_key_env} is not set")
        self.model = model
        self.id = f"litellm:{model}"
        self.api_base = api_base
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.extra = extra

    def __repr__(self) -> str:
        return f"LiteLLMModel({self.model!r}, api_base={self.api_base!r}, api_key_env={self.api_key_env!r})"

    async def aclose(self) -> None:
        """Stop litellm's background logging worker in this event loop. Left running, it is destroyed
        pending when the loop closes, and a second run in the same process finds it bound to a dead loop.
        Best effort: the worker is a litellm internal that may change."""
        if _litellm is None:
            return
        try:
            from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

            await GLOBAL_LOGGING_WORKER.stop(timeout=2.0)
        except Exception:  # a litellm without this worker, or one that fails to stop: nothing to clean
            pass

    def request(self, messages: list[Message], params: GenerationParams) -> dict[str, Any]:
        """The keyword arguments for `litellm.acompletion`, without the key (which is added at call time).

        Unset generation settings are left out rather than sent as null, so a provider's defaults apply
        and providers that reject an unknown field (a seed, say) are not sent one they were not asked for.
        """
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": params.temperature,
            "timeout": self.timeout,
            "num_retries": 0,  # the runner retries, with backoff, and counts it
        }
        for name in ("max_tokens", "seed", "top_p"):
            value = getattr(params, name)
            if value is not None:
                kwargs[name] = value
        if self.api_base is not None:
            kwargs["api_base"] = self.api_base
        kwargs.update(self.extra)
        kwargs.update(dict(params.extra))
        return kwargs

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion:
        """One chat completion; raises TransientModelError or PermanentModelError, with keys redacted."""
        litellm = _litellm or await asyncio.to_thread(_import_litellm)
        kwargs = self.request(messages, params)
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            kwargs["api_key"] = key
        started = time.perf_counter()
        try:
            response = await litellm.acompletion(**kwargs)
        except Exception as exc:  # every failure becomes a typed ModelError
            error = self._error(litellm, exc, key)
        else:
            return self._completion(litellm, response, time.perf_counter() - started)
        # Raised outside the `except` block so that the original exception, whose message may hold the
        # key, is not chained onto this one as __context__ and printed in a traceback.
        raise error

    def _completion(self, litellm: ModuleType, response: Any, latency: float) -> Completion:
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise TransientModelError(f"{self.id}: the response has no choices")
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None) or ""
        # litellm moves `<think>` blocks and providers' reasoning fields into reasoning_content; blocks it
        # left in the text (an unclosed one, a provider it does not know) are split off here.
        provided = getattr(message, "reasoning_content", None) or None
        text, thought = split_reasoning(content)
        parts = [part for part in (provided, thought) if part]
        reasoning = "\n\n".join(parts) if parts else None
        if reasoning is not None:
            text = text.strip()
        finish_reason = getattr(choice, "finish_reason", None)
        if finish_reason in _LENGTH_REASONS:
            finish_reason = "length"
        usage = getattr(response, "usage", None)
        return Completion(
            text=text,
            reasoning=reasoning,
            tokens_in=int(getattr(usage, "prompt_tokens", 0) or 0),
            tokens_out=int(getattr(usage, "completion_tokens", 0) or 0),
            cost=_cost(litellm, response),
            latency=latency,
            finish_reason=finish_reason,
            model=getattr(response, "model", None) or self.model,
            extra={"response_id": response.id} if getattr(response, "id", None) else {},
        )

    def _error(self, litellm: ModuleType, exc: Exception, key: str | None) -> ModelError:
        """The typed, redacted error for a litellm (or other) exception."""
        kind, status, retry_after = _classify(litellm, exc)
        detail = " ".join(str(exc).split()) or type(exc).__name__
        message = redact_secrets(f"{self.id}: {type(exc).__name__}: {detail}", extra=[key])
        if len(message) > _MAX_MESSAGE:
            message = message[: _MAX_MESSAGE - 1] + "…"
        error = kind(message, status=status)
        # Not (yet) a field of ModelError: the runner may read it with getattr(error, "retry_after", None).
        error.retry_after = retry_after  # type: ignore[attr-defined]
        return error


def _cost(litellm: ModuleType, response: Any) -> float:
    """litellm's price for the call, or 0.0 when it has none (a local server, a model it cannot price)."""
    hidden = getattr(response, "_hidden_params", None) or {}
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    if cost is None:
        try:
            cost = litellm.completion_cost(completion_response=response)
        except Exception:  # unknown model or provider: an unknown price must never fail a sample
            cost = None
    try:
        return float(cost) if cost is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


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


def _classify(litellm: ModuleType, exc: Exception) -> tuple[type[ModelError], int | None, float | None]:
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
    # No HTTP answer at all (refused, reset, DNS), or an answer that is not JSON: litellm calls these
    # an InternalServerError with status 500, but no server said 500, so the status is left unknown.
    unreachable = (litellm.APIConnectionError, openai.APIConnectionError, ConnectionError)
    if isinstance(exc, unreachable) or any(isinstance(cause, unreachable) for cause in causes):
        return TransientModelError, None, None
    if any(isinstance(cause, json.JSONDecodeError) for cause in causes):
        return TransientModelError, None, None
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
