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
* Only the generation parameters the provider takes are sent (`get_supported_openai_params`): a seed is
  not a thing Anthropic's API has, and litellm refuses the whole call when one is given. What is left out
  is reported by `sent_params` and recorded in run.json and judge.json, so a "seeded" run on such a
  provider says it was not. `drop_params=false` turns this off and sends everything as asked.
* `litellm:hosted_vllm/<model>` needs a server: without `api_base` it takes `HOSTED_VLLM_API_BASE` and
  says so, and with neither it is refused rather than sent to a default endpoint.
* Several endpoints (`api_base` a list, or URLs separated by commas) are one pool of servers of the same
  model (`lexsym.models.endpoint_pool`): requests are spread over them, a dead one is routed around, and
  the cache identity names the pool, not its URLs, so answers stay cached whichever server gave them.
* Errors are typed for the runner: `TransientModelError` (429, 408, 5xx, timeouts, connection failures
  as its `EndpointUnreachableError`, a garbled body) is worth a retry; `PermanentModelError` (400, 401,
  403, 404, 422, context too long, quota exhausted) is recorded and the sample moves on. A 429 carries
  `retry_after` (seconds) when the provider sent a Retry-After header.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from types import ModuleType
from typing import Any

from lexsym._util.errors import InputError
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Message,
    ModelError,
    TransientModelError,
    split_reasoning,
)
from lexsym.models.endpoint_pool import EndpointPool, endpoint_urls
from lexsym.models.litellm_errors import classify
from lexsym.models.redaction import redact_options, redact_secrets

log = logging.getLogger("lexsym.models")

#: The generation settings of GenerationParams that a provider may not take.
STANDARD_PARAMS = ("temperature", "max_tokens", "seed", "top_p")
# Options of ours or litellm's that do not change what the model answers: left out of the cache identity.
_NOT_OUTPUT = frozenset({"timeout", "num_retries", "api_key_env", "metadata", "drop_params"})

_MAX_MESSAGE = 1000  # litellm messages can quote whole response bodies; a log line needs the gist

_LENGTH_REASONS = {"length", "max_tokens", "max_output_tokens", "MAX_TOKENS"}


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

    `api_base` points at another endpoint (an OpenAI-compatible server), or at several serving the same
    model (a list, or URLs separated by commas: an `EndpointPool`); `api_key_env` names the
    environment variable holding its key, read at each call; `timeout` is seconds per request. Further
    keyword options (`drop_params=True`, `reasoning_effort="low"`, `custom_llm_provider`, `mock_response`,
    …) are passed to `litellm.acompletion` as they are.
    """

    def __init__(
        self,
        model: str,
        *,
        api_base: str | list[str] | None = None,
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
        urls = endpoint_urls(api_base)
        if not urls and model.startswith("hosted_vllm/"):
            urls = endpoint_urls(os.environ.get("HOSTED_VLLM_API_BASE"))
            if not urls:
                raise InputError(
                    f"litellm:{model}: a hosted_vllm model needs its server: give --api-base "
                    "(e.g. http://localhost:8000/v1) or set HOSTED_VLLM_API_BASE"
                )
            log.warning(
                "litellm:%s: no --api-base given; using HOSTED_VLLM_API_BASE=%s", model, ",".join(urls)
            )
        self.model = model
        self.id = f"litellm:{model}"
        #: The one endpoint, or None for the provider's own (and for a pool, whose URLs are `pool.urls`).
        self.api_base = urls[0] if len(urls) == 1 else None
        self.pool = EndpointPool(urls, label=self.id) if len(urls) > 1 else None
        self.api_key_env = api_key_env
        self.timeout = float(timeout)
        self.extra = extra
        self._supported: frozenset[str] | None = None
        self._supported_known = False

    def __repr__(self) -> str:
        api_base = self.pool.urls if self.pool is not None else self.api_base
        return f"LiteLLMModel({self.model!r}, api_base={api_base!r}, api_key_env={self.api_key_env!r})"

    async def aclose(self) -> None:
        """Stop litellm's background logging worker in this event loop. Left running, it is destroyed
        pending when the loop closes, and a second run in the same process finds it bound to a dead loop.
        Best effort: the worker is a litellm internal that may change. For a pool, first logs how many
        requests each endpoint served."""
        if self.pool is not None:
            log.info("%s: requests per endpoint: %s", self.id, self.pool.describe())
        if _litellm is None:
            return
        try:
            from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

            await GLOBAL_LOGGING_WORKER.stop(timeout=2.0)
        except Exception:  # a litellm without this worker, or one that fails to stop: nothing to clean
            pass

    async def prepare(self) -> None:
        """Import litellm now (seconds of CPU), before any sample's clock starts, and learn which
        generation parameters the provider takes."""
        if _litellm is None:
            await asyncio.to_thread(_import_litellm)
        self.supported_params()

    def supported_params(self) -> frozenset[str] | None:
        """The OpenAI-style parameters litellm says this provider and model take; None when it does not
        know (an unknown provider: then everything asked for is sent)."""
        if not self._supported_known:
            litellm = _litellm or _import_litellm()
            try:
                names = litellm.get_supported_openai_params(
                    model=self.model, custom_llm_provider=self.extra.get("custom_llm_provider")
                )
            except Exception:  # a provider litellm cannot resolve: no list to go by
                names = None
            self._supported = frozenset(names) if names else None
            self._supported_known = True
        return self._supported

    def sent_params(self, params: GenerationParams) -> tuple[dict[str, Any], dict[str, str]]:
        """(the generation settings sent, {setting: why it was not sent}) for `params`."""
        asked: dict[str, Any] = {"temperature": params.temperature}
        for name in ("max_tokens", "seed", "top_p"):
            value = getattr(params, name)
            if value is not None:
                asked[name] = value
        if self.extra.get("drop_params") is False:
            return asked, {}
        supported = self.supported_params()
        if supported is None:
            return asked, {}
        allowed = supported | set(self.extra.get("allowed_openai_params") or ())
        sent = {name: value for name, value in asked.items() if name in allowed}
        provider = self.model.split("/", 1)[0] if "/" in self.model else self.model
        dropped = {name: f"{provider} does not take {name}" for name in asked if name not in allowed}
        return sent, dropped

    def cache_identity(self) -> dict[str, Any]:
        """The settings besides the model id and generation parameters that change what comes back: the
        endpoint, and every option passed to litellm except timeouts and the key's variable name. A pool
        is named as one, not by its URLs: its servers are copies of one model, so which of them answered,
        and how many there are, changes nothing (`lexsym.models.endpoint_pool`)."""
        identity = {k: v for k, v in sorted(self.extra.items()) if k not in _NOT_OUTPUT}
        if self.api_base is not None:
            identity["api_base"] = self.api_base
        if self.pool is not None:
            identity["endpoints"] = "pool"
        return identity

    def settings(self) -> dict[str, Any]:
        """What run.json records of this backend: endpoint and options (never a key)."""
        recorded = redact_options(self.extra)
        return {
            "api_base": self.pool.urls if self.pool is not None else self.api_base,
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
            **recorded,
        }

    def request(self, messages: list[Message], params: GenerationParams) -> dict[str, Any]:
        """The keyword arguments for `litellm.acompletion`, without the key (which is added at call time)
        and, for a pool, without the endpoint (chosen per request).

        Unset generation settings are left out rather than sent as null, so a provider's defaults apply,
        and settings the provider does not take are left out too (`sent_params`).
        """
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout,
            "num_retries": 0,  # the runner retries, with backoff, and counts it
        }
        kwargs.update(self.sent_params(params)[0])
        if self.api_base is not None:
            kwargs["api_base"] = self.api_base
        kwargs.update(self.extra)
        kwargs.update(dict(params.extra))
        return kwargs

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion:
        """One chat completion; raises TransientModelError or PermanentModelError, with keys redacted. A
        pool sends it to one of its endpoints, and to another if that one cannot be reached."""
        litellm = _litellm or await asyncio.to_thread(_import_litellm)
        kwargs = self.request(messages, params)
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            kwargs["api_key"] = key
        if self.pool is None:
            return await self._send(litellm, kwargs, key)

        async def on(url: str) -> Completion:
            completion = await self._send(litellm, {**kwargs, "api_base": url}, key)
            completion.extra["served_by"] = url
            return completion

        return await self.pool.send(on)

    async def _send(self, litellm: ModuleType, kwargs: dict[str, Any], key: str | None) -> Completion:
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
        kind, status, retry_after = classify(litellm, exc)
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
