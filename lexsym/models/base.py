"""The one interface every model backend implements: `generate(messages, params) -> Completion`.

Backends: `litellm:<provider>/<model>` (any API litellm supports, or an OpenAI-compatible server such as
vLLM's via api_base), `vllm:<model>` (local weights, offline batch API), and the local `lexsym:oracle` and
`lexsym:baseline`. Errors are typed as transient (retry with backoff) or permanent (record and move on).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

Message = dict[str, str]

_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_CLOSE = re.compile(r"</think>", re.I)


@dataclass(frozen=True)
class GenerationParams:
    """Generation settings; all of them change the output, so all of them are part of the cache key."""

    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    top_p: float | None = None
    extra: tuple[tuple[str, Any], ...] = ()  # further provider options, as sorted pairs

    def key_fields(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, ())}


@dataclass
class Completion:
    text: str
    reasoning: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency: float = 0.0
    finish_reason: str | None = None
    model: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class ModelError(Exception):
    """A failed call. `transient` errors (rate limits, timeouts, 5xx) are retried; others are recorded."""

    transient = False

    def __init__(self, message: str, *, status: int | None = None):
        super().__init__(message)
        self.status = status


class TransientModelError(ModelError):
    transient = True


class PermanentModelError(ModelError):
    transient = False


class EndpointUnreachableError(TransientModelError):
    """No HTTP answer at all: the connection was refused or reset, or the host is unknown. Transient, and
    the one failure an endpoint pool answers by sending the request to another endpoint."""


class Model(Protocol):
    id: str

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion: ...


def split_reasoning(text: str) -> tuple[str, str | None]:
    """Separate `<think>...</think>` blocks (reasoning) from the answer text. An unclosed block runs to the
    end: the model was cut off while thinking, and there is no answer.

    A bare `</think>` with no opening tag before it closes a block that the chat template opened (R1
    distills, QwQ and Qwen3-thinking put `<think>` in the prompt, so the completion starts inside it):
    everything up to it is reasoning."""
    head, bare = _bare_close(text)
    blocks = _THINK.findall(text[bare:]) if bare else _THINK.findall(text)
    if head is None and not blocks:
        return text, None
    answer = _THINK.sub("", text[bare:]).strip()
    parts = ([head] if head else []) + [block.strip() for block in blocks]
    return answer, "\n\n".join(parts) or None


def has_think_tags(text: str) -> bool:
    """Whether `split_reasoning` could find reasoning in `text`: a cheap test before its expressions."""
    return "think>" in text.lower()


def _bare_close(text: str) -> tuple[str | None, int]:
    """(the reasoning before a `</think>` that no `<think>` opened, where the rest begins), or (None, 0)."""
    close = _CLOSE.search(text)
    if close is None:
        return None, 0
    opening = text.lower().find("<think>")
    if 0 <= opening < close.start():
        return None, 0
    return text[: close.start()].strip(), close.end()


async def prepare_model(model: object) -> None:
    """Let a backend do its slow start-up now (import its client, load its weights), before any sample's
    clock starts: its `prepare`, sync or async, when it has one."""
    preparer = getattr(model, "prepare", None)
    if preparer is not None:
        result = preparer()
        if hasattr(result, "__await__"):
            await result


def sent_params(model: object, params: GenerationParams) -> tuple[dict[str, Any], dict[str, str]]:
    """(the settings of `params` the backend sends, {setting: why it is not sent}); a backend without
    `sent_params` sends everything set."""
    describe = getattr(model, "sent_params", None)
    if describe is None:
        return params.key_fields(), {}
    sent, dropped = describe(params)
    return dict(sent), dict(dropped)


def cache_identity(model: object) -> dict[str, Any]:
    """The backend's output-changing settings beyond its id and the generation parameters (endpoint,
    engine options, revision), for the response cache's key; {} for a backend without any."""
    identity = getattr(model, "cache_identity", None)
    return dict(identity()) if identity is not None else {}


def model_settings(model: object) -> dict[str, Any]:
    """What a run header records of a backend's set-up (its `settings()`), never a key."""
    settings = getattr(model, "settings", None)
    return dict(settings()) if settings is not None else {}


async def close_model(model: object) -> None:
    """Let a backend release what it holds in the current event loop (its `aclose`, when it has one)."""
    closer = getattr(model, "aclose", None)
    if closer is not None:
        await closer()
