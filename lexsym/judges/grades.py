"""Reading a grade out of a judge's reply, strictly.

A reply that does not follow the output schema is a parse failure with a reason, never a zero: a silent
zero is indistinguishable from a bad answer and drags a model's score down for the judge's fault. Reasoning
judges wrap their thinking in `<think>` blocks, which may themselves contain draft grades, so those blocks
are removed before the grade is read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from lexsym.models.base import split_reasoning

_MARKER = re.compile(r"\[\[\s*([^\[\]]*?)\s*\]\]")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:[.,]\d*)?|[.,]\d+)")
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S | re.I)
GRID = 10  # grades are multiples of 1/GRID


@dataclass(frozen=True)
class Grade:
    """A parsed reference grade: `score` in [0, 1] on the 0.1 grid, or None with the `problem`."""

    score: float | None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.score is not None


def parse_reference_grade(reply: str) -> Grade:
    """The single `[[x]]` grade in a reply, 0 <= x <= 1 in steps of 0.1.

    Several markers are accepted only when they all carry the same value (a judge restating its grade);
    different values are ambiguous. A grade off the scale (`[[7]]` from a judge grading out of 10) or off
    the 0.1 grid is refused rather than rescaled or rounded: either would be a guess about what was meant.
    """
    text, _ = split_reasoning(reply or "")
    markers = _MARKER.findall(text)
    if not markers:
        return Grade(None, "no [[grade]] marker")
    values = []
    for raw in markers:
        if not _NUMBER.fullmatch(raw):
            return Grade(None, f"grade [[{raw}]] is not a number")
        values.append(float(raw.replace(",", ".")))
    if len(set(values)) > 1:
        listed = ", ".join(f"[[{raw}]]" for raw in markers)
        return Grade(None, f"several different grades: {listed}")
    value = values[0]
    if not 0 <= value <= 1:
        return Grade(None, f"grade {markers[0]} is outside 0 to 1")
    tenths = round(value * GRID)
    if abs(value * GRID - tenths) > 1e-6:
        return Grade(None, f"grade {markers[0]} is not a multiple of 0.1")
    return Grade(tenths / GRID)


@dataclass(frozen=True)
class ItemDecision:
    satisfied: bool
    reason: str


@dataclass(frozen=True)
class RubricGrades:
    """The decisions that parsed, by item id, and what was wrong with the rest."""

    decisions: dict[int, ItemDecision]
    problem: str | None = None
    missing: tuple[int, ...] = ()


def _json_object(text: str) -> Any:
    """The JSON object in a reply: the whole text, a fenced block, or the outermost braces."""
    candidates = [text.strip()]
    candidates += [block.strip() for block in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise ValueError("no JSON object")


def _satisfied(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    return None


def parse_rubric_grades(reply: str, item_ids: list[int]) -> RubricGrades:
    """Binary decisions for the rubric items `item_ids` from a JSON reply.

    An entry is used when its id is one asked for, appears once, and its `satisfied` is a boolean (or 0/1,
    yes/no). Everything else is reported; items without a usable entry are `missing`.
    """
    text, _ = split_reasoning(reply or "")
    try:
        data = _json_object(text)
    except ValueError:
        return RubricGrades({}, "the reply holds no JSON object", tuple(item_ids))
    entries = data.get("items") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        return RubricGrades({}, 'the JSON has no "items" list', tuple(item_ids))
    wanted = set(item_ids)
    seen: dict[int, int] = {}
    decisions: dict[int, ItemDecision] = {}
    problems: list[str] = []
    for entry in entries:
        if not isinstance(entry, dict):
            problems.append("an entry is not an object")
            continue
        try:
            item = int(entry.get("id"))
        except (TypeError, ValueError):
            problems.append(f"entry id {entry.get('id')!r} is not an item number")
            continue
        if item not in wanted:
            problems.append(f"item {item} is not on the rubric")
            continue
        seen[item] = seen.get(item, 0) + 1
        satisfied = _satisfied(entry.get("satisfied"))
        if satisfied is None:
            problems.append(f"item {item}: satisfied is {entry.get('satisfied')!r}, not true or false")
            continue
        decisions[item] = ItemDecision(satisfied, str(entry.get("reason") or "").strip())
    for item, count in seen.items():
        if count > 1:
            decisions.pop(item, None)
            problems.append(f"item {item} is decided {count} times")
    missing = tuple(item for item in item_ids if item not in decisions)
    if missing and not problems:
        problems.append(
            "no decision for item" + ("s " if len(missing) > 1 else " ") + ", ".join(map(str, missing))
        )
    return RubricGrades(decisions, "; ".join(problems) or None, missing)
