"""One judge conversation: ask, parse, and on a reply that does not parse, say what is wrong and ask again.

The follow-up turn carries the judge's own reply and the problem, so a retry is a different request (and
a different cache entry) even at temperature 0, where repeating the same request would return the same
unparseable reply. Every attempt's raw output is kept.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Generic, TypeVar

from lexsym.models.base import Completion, GenerationParams, Message, ModelError

Ask = Callable[[list[Message], GenerationParams], Awaitable[Completion]]
Parsed = TypeVar("Parsed")


@dataclass
class Attempt:
    raw: str
    reasoning: str | None
    problem: str | None
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    latency: float = 0.0
    cached: bool = False
    finish_reason: str | None = None

    @classmethod
    def of(cls, completion: Completion, problem: str | None) -> Attempt:
        return cls(
            raw=completion.text,
            reasoning=completion.reasoning,
            problem=problem,
            tokens_in=completion.tokens_in,
            tokens_out=completion.tokens_out,
            cost=completion.cost,
            latency=completion.latency,
            cached=bool(completion.extra.get("cached")),
            finish_reason=completion.finish_reason,
        )


@dataclass
class Conversation(Generic[Parsed]):
    """What came of asking one judge about one answer."""

    parsed: list[Parsed] = field(default_factory=list)  # one per attempt
    attempts: list[Attempt] = field(default_factory=list)
    error: str | None = None  # the call itself failed (permanent error, or transient ones exhausted)
    error_kind: str | None = None  # "transient" (retried when judging resumes) or "permanent"

    def attempts_json(self) -> list[dict[str, Any]]:
        return [asdict(attempt) for attempt in self.attempts]

    @property
    def cost(self) -> float:
        return sum(attempt.cost for attempt in self.attempts)


async def converse(
    ask: Ask,
    messages: list[Message],
    params: GenerationParams,
    *,
    parse: Callable[[str, list[Parsed]], tuple[Parsed, str | None]],
    retry_message: Callable[[Parsed, str], str],
    retries: int,
) -> Conversation[Parsed]:
    """Ask, and ask again up to `retries` times while `parse` reports a problem.

    `parse(text, earlier)` returns the parsed value and its problem (None when usable); `earlier` holds
    the values parsed from previous attempts, so a rubric judge can keep the items already decided.
    """
    outcome: Conversation[Parsed] = Conversation()
    history = list(messages)
    for _ in range(retries + 1):
        try:
            completion = await ask(history, params)
        except ModelError as error:
            outcome.error = str(error)
            outcome.error_kind = "transient" if error.transient else "permanent"
            return outcome
        value, problem = parse(completion.text, outcome.parsed)
        outcome.parsed.append(value)
        outcome.attempts.append(Attempt.of(completion, problem))
        if problem is None:
            return outcome
        history = [
            *history,
            {"role": "assistant", "content": completion.text},
            {"role": "user", "content": retry_message(value, problem)},
        ]
    return outcome
