"""Reading a model's raw response into a typed answer, tolerantly and without ever raising.

The prompts (`data/templates/prompt/format/*.j2`) ask for a response that ends with "FINAL ANSWER:" and a
JSON value. Models drift from that in predictable ways, and each drift is either repaired here (and
recorded in `ParsedAnswer.notes`) or reported in `ParsedAnswer.error`, so that a scorer never has to guess
and a run is never stopped by one malformed response. OpenExempt's evaluator (`evaluator.py`,
`source/pydantic_response.py`) reads the text after the last "FINAL ANSWER:" with pydantic and aligns asset
descriptions with rapidfuzz's `partial_ratio` above 90; this module keeps those semantics and widens what it
can read.

Rules, in the order they apply:

1. **Finding the answer** (`extract_final_answer`). The last marker wins: "FINAL ANSWER" in any case, with
   "_" or spaces between the words, with markdown emphasis around it (`**FINAL ANSWER:**`) and a separator
   ":", "：" (full width), "-", "--", "–", "—" or "="; or the words alone on a heading line
   (`## Final answer`). An answer runs to the next marker at most, and a marker followed by nothing is
   skipped in favour of the one before it. After the marker: the body of a markdown fence when one opens
   there; then the first complete JSON value that starts on the first line, its brackets balanced with
   strings (double or single quoted) respected, so prose after it is dropped; a first line ending in ":"
   hands over to the next line that opens a value or a fence; with no bracket at all, the first line (or
   the bullet list that starts there) is the answer, for AE's bare "Oregon, Federal".
2. **No marker.** `extract_final_answer` returns None and `parse_answer` tries, in order, the fenced blocks
   of the text (last first), its top-level JSON values (last first) and, for a one-line response, the whole
   text; the first that reads as the task's answer is taken, with `marker_found=False` and a note.
3. **Reading the value.** `json.loads` (duplicate keys merged: lists concatenated, otherwise the last wins),
   then the same text with trailing commas removed and typographic quotes straightened, then, when the text
   has a single quote, `ast.literal_eval` (Python literals: 'single quotes', True/None, tuples; never
   `eval`; sets and side-by-side strings, which Python would join, are refused). A value whose brackets
   never close is reported as truncated; any other failure names json's line and column.
4. **Shapes.** Single-key wrappers such as `{"answer": ...}` or `{"EC": ...}` are unwrapped. The top level
   must then have the task's shape (a list or text for AE, an object for the others), otherwise ok=False.
   Inside it, an entry that cannot be read (a claim without a citation, an asset whose value is a number) is
   dropped and named in `notes`, never turned into an empty list that could score; ok=False only when every
   entry of a non-empty answer was dropped. Amounts that cannot be read stay None, with the raw value kept.
5. **Names, amounts, citations** follow `jurisdiction_code`, `parse_amount` and `normalize_citation`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from reprlib import repr as short_repr
from typing import Any

from pydantic import BaseModel, ValidationError

from lexsym.answers.extraction import extract_final_answer, fallback_spans
from lexsym.answers.shapes import MODELS, OptimalAnswer, unwrap_answer, validation_message
from lexsym.answers.tolerant_json import Unreadable, load_span
from lexsym.answers.types import OEAnswer, ParsedAnswer
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import JURISDICTION_NAMES

# --------------------------------------------------------------------------------------------------------
# parse_answer
# --------------------------------------------------------------------------------------------------------


def _typed(task: Task, model: BaseModel) -> Any:
    if isinstance(model, OptimalAnswer):
        return OEAnswer(model.jurisdiction, dict(model.schedule))
    return model.root  # type: ignore[attr-defined]


_UNQUOTED_LIST = re.compile(r"\[([^\[\]{}\"]*)\]")


def _read_span(task: Task, span: str, known: tuple[str, ...]) -> tuple[Any, list[str]]:
    """The typed value in `span`, and the notes made reading it; Unreadable with the reason otherwise."""
    notes: list[str] = []
    stripped = span.strip()
    if not stripped:
        raise Unreadable("empty answer after the FINAL ANSWER marker")
    unquoted = _UNQUOTED_LIST.match(stripped) if task is Task.AE else None
    if stripped[0] in "[{":
        try:
            data = load_span(stripped, notes)
        except Unreadable:
            if unquoted is None:
                raise
            data = unquoted.group(1)  # [Oregon, Federal]: names without quotes
            notes.append("read an unquoted list of names")
    elif task is Task.AE:  # quoted names ('"Oregon", "Federal"') or bare ones ("Oregon, Federal")
        data = stripped
    elif stripped[0] in "\"'":
        data = load_span(stripped, notes)  # a JSON string: the model will say it is not an object
    else:
        raise Unreadable(f"expected a JSON object, found text: {short_repr(stripped)}")
    data = unwrap_answer(data, task, notes)
    context = {"notes": notes, "known": known}
    try:
        model = MODELS[task].model_validate(data, context=context)
    except ValidationError as exc:
        raise Unreadable(validation_message(exc)) from None
    return _typed(task, model), notes


def parse_answer(task: Task | str, text: str, *, known: Iterable[str] = ()) -> ParsedAnswer:
    """Read a model's response to a `task` prompt (rules in the module docstring). Never raises on any
    `text`: problems come back as ok=False and a one-line `error`. `known` citations, when given, are the
    ones claims are resolved to (`normalize_citation`); otherwise citations are only cleaned. A `task` that
    is not a Task raises ValueError: that is a caller's mistake, not a model's."""
    task = Task.parse(task)
    try:
        return _parse(task, text, tuple(known))
    except Exception as exc:  # the last safety net: one odd response must not stop a run
        reason = _one_line(f"internal error reading the answer: {type(exc).__name__}: {exc}")
        return ParsedAnswer(task, None, False, reason)


def _one_line(message: str, limit: int = 300) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _parse(task: Task, text: Any, known: tuple[str, ...]) -> ParsedAnswer:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        return ParsedAnswer(task, None, False, f"the response is {type(text).__name__}, not text")
    span = extract_final_answer(text)
    if span is not None:
        try:
            value, notes = _read_span(task, span, known)
        except Unreadable as exc:
            return ParsedAnswer(task, None, False, _one_line(str(exc)), True, span=span)
        return ParsedAnswer(task, value, True, None, True, tuple(notes), span)
    first_problem = "and no readable answer in the text"
    for number, (candidate, source) in enumerate(fallback_spans(text)):
        try:
            value, notes = _read_span(task, candidate, known)
        except Unreadable as exc:
            first_problem = f"{source}: {exc}" if number == 0 else first_problem
            continue
        if task is Task.AE and not all(code in JURISDICTION_NAMES for code in value):
            # Without the marker, prose such as "I am not sure." would read as a list of one unknown
            # jurisdiction; only names we know count as an answer found elsewhere in the text.
            first_problem = f"{source}: no known jurisdiction" if number == 0 else first_problem
            continue
        notes.insert(0, f"no FINAL ANSWER marker: read {source}")
        return ParsedAnswer(task, value, True, None, False, tuple(notes), candidate)
    return ParsedAnswer(task, None, False, _one_line(f"no FINAL ANSWER marker; {first_problem}"), False)
