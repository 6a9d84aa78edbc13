"""What reading a response produces: typed answers, claims and the parse result."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lexsym.law.tasks import Task

Amount = int | float | None


# --------------------------------------------------------------------------------------------------------
# Typed answers
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One claim of an answer: the cleaned citation (resolved to a known one when `known` was given), the
    amount as `parse_amount` reads it (None when unreadable) and the value exactly as the answer wrote it."""

    citation: str
    claim_value: Amount
    raw_value: Any = None


@dataclass(frozen=True)
class OEAnswer:
    """An OE answer: the chosen jurisdiction's id (None when the answer names none: the checker infers it
    from the citations) and the schedule, asset description -> claims."""

    jurisdiction: str | None
    schedule: dict[str, list[Claim]]


@dataclass(frozen=True)
class ParsedAnswer:
    """What `parse_answer` made of a response.

    `value` is typed by task: AE list[str] of jurisdiction ids; EC dict[str, list[str]]; EV dict[str,
    list[Claim]]; NA dict[str, int | float | None] keyed by jurisdiction id; OE OEAnswer. It is None when
    ok is False. `error` is a one-line reason when ok is False; `notes` lists the repairs made on the way;
    `span` is the text that was read.
    """

    task: Task
    value: Any
    ok: bool
    error: str | None = None
    marker_found: bool = False
    notes: tuple[str, ...] = ()
    span: str | None = None
