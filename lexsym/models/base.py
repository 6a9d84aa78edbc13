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


class Model(Protocol):
    id: str

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion: ...


def split_reasoning(text: str) -> tuple[str, str | None]:
    """Separate `<think>...</think>` blocks (reasoning) from the answer text. An unclosed block runs to the
    end: the model was cut off while thinking, and there is no answer."""
    blocks = _THINK.findall(text)
    if not blocks:
        return text, None
    answer = _THINK.sub("", text).strip()
    return answer, "\n\n".join(block.strip() for block in blocks)


async def close_model(model: object) -> None:
    """Let a backend release what it holds in the current event loop (its `aclose`, when it has one)."""
    closer = getattr(model, "aclose", None)
    if closer is not None:
        await closer()
