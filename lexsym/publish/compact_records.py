"""A task record as a flat row of text columns whose prompt points into a table of shared texts.

Why: the statute sheet is about nine tenths of a prompt and the same for every case with the same petition
date, jurisdictions and readings, so writing it in every row made 9,765 tasks take hundreds of megabytes.
A row keeps what differs (the facts before the sheet, the task after it) and the ids of its system prompt
and of its statute sheet; each shared text is stored once. `full_prompt` rebuilds the exact prompt and
`full_record` the exact record, and every export checks that it does, row by row, before writing.

Structured fields (gold, reference, metadata, case, solved_steps) are JSON strings: their shapes differ by
task, and a JSON string keeps each one exactly as lexsym wrote it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from lexsym._util.errors import InputError

#: Where the statute sheet starts in a generated user prompt (`data/templates/prompt/user.j2`); it runs to
#: the next heading. A prompt without it (exam questions) keeps all of its text in `user_head`.
STATUTES_HEADING = "\n## Statutes\n\n"
NEXT_HEADING = "\n\n## "

#: The top-level fields of a task record (`lexsym generate`, `lexsym exam convert`).
RECORD_FIELDS = (
    "id",
    "task",
    "variant",
    "split",
    "prompt",
    "gold",
    "solved_steps",
    "reference",
    "metadata",
    "case",
)
JSON_FIELDS = ("gold", "solved_steps", "reference", "metadata", "case")

#: The columns of a row, in order, with what each holds. Every column is a string, null where stated.
ROW_COLUMNS: dict[str, str] = {
    "id": "the task id, unique in the benchmark (generated tasks: <suite>/<dataset>/<split>-<index>)",
    "task": "the task type: AE, EC, EV, NA or OE (MCQ, OPEN for exam sets)",
    "variant": "the span of the pipeline the task asks for (OE, or EC-OE: steps before EC are given)",
    "split": "dev or test, as lexsym generated it",
    "suite": "the suite (benchmark slice) the task belongs to",
    "dataset": "the suite's dataset: one combination of the suite's varied settings",
    "case_id": "the case behind the task (datasets of one suite share cases); null for exam questions",
    "system_id": "id of the system prompt in the shared texts; null when the task has none",
    "user_head": "the user prompt up to its statute sheet (all of it when it has none)",
    "statutes_id": "id of the statute sheet in the shared texts; null when the prompt has none",
    "user_tail": "the user prompt after its statute sheet (empty when it has none)",
    "gold": "JSON: the gold answer, computed by the logic program (the task's answer shape)",
    "solved_steps": "JSON: the gold answers of the earlier steps given in the prompt",
    "reference": "JSON: the gold answers of all five tasks (MCQ: option labels and texts)",
    "metadata": "JSON: the task's metadata (case shape, obfuscation, readings, rules digest, seed, ...)",
    "case": "JSON: the case the gold was computed from (lexsym schema case); null for exam questions",
}
#: The columns of the shared-text table.
SHARED_COLUMNS: dict[str, str] = {
    "id": "the text's id: the first 16 hex digits of its UTF-8 sha256",
    "kind": "system (a system prompt) or statutes (a statute sheet)",
    "text": "the text, exactly as it appears in the prompts that point at it",
}


def text_id(text: str) -> str:
    """A shared text's id: its content hash, so equal texts share one entry in every export."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass
class SharedTexts(Mapping[str, str]):
    """Texts that many prompts share, each kept once under its id, in first-seen order; as a mapping,
    id -> text (what `full_prompt` takes)."""

    entries: dict[str, tuple[str, str]] = field(default_factory=dict)

    def add(self, kind: str, text: str) -> str:
        identifier = text_id(text)
        self.entries.setdefault(identifier, (kind, text))
        return identifier

    def __getitem__(self, identifier: str) -> str:
        return self.entries[identifier][1]

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def rows(self) -> list[dict[str, str]]:
        return [{"id": i, "kind": kind, "text": text} for i, (kind, text) in self.entries.items()]


def split_user_prompt(user: str) -> tuple[str, str | None, str]:
    """(head, statute sheet or None, tail) with head + sheet + tail == user."""
    start = user.find(STATUTES_HEADING)
    if start < 0:
        return user, None, ""
    start += len(STATUTES_HEADING)
    end = user.find(NEXT_HEADING, start)
    end = len(user) if end < 0 else end
    return user[:start], user[start:end], user[end:]


def compact_row(record: Mapping[str, Any], suite: str, shared: SharedTexts) -> dict[str, str | None]:
    """`record` as a row of text columns (ROW_COLUMNS), its shared texts added to `shared`. InputError for
    a record with fields the row has no column for (nothing is dropped silently)."""
    unknown = sorted(set(record) - set(RECORD_FIELDS))
    if unknown:
        raise InputError(f"task {record.get('id')!r}: fields {unknown} have no column in an export")
    prompt = record["prompt"]
    system = prompt.get("system")
    head, statutes, tail = split_user_prompt(prompt["user"])
    metadata = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    case = record.get("case") if isinstance(record.get("case"), dict) else None
    case_id = metadata.get("case_id") or (case or {}).get("id")
    row: dict[str, str | None] = {
        "id": record["id"],
        "task": record["task"],
        "variant": str(record.get("variant") or record["task"]),
        "split": str(record.get("split") or "test"),
        "suite": suite,
        "dataset": str(metadata.get("dataset") or ""),
        "case_id": case_id if isinstance(case_id, str) else None,
        "system_id": shared.add("system", system) if isinstance(system, str) else None,
        "user_head": head,
        "statutes_id": shared.add("statutes", statutes) if statutes is not None else None,
        "user_tail": tail,
    }
    row.update({name: _dumps(record.get(name)) for name in JSON_FIELDS})
    return row


def full_prompt(row: Mapping[str, Any], texts: Mapping[str, str]) -> dict[str, str | None]:
    """The prompt lexsym sends for `row` ({"system", "user"}), rebuilt from the shared `texts` (id -> text).
    KeyError when the row points at a text that `texts` lacks."""
    system = texts[row["system_id"]] if row.get("system_id") else None
    statutes = texts[row["statutes_id"]] if row.get("statutes_id") else ""
    return {"system": system, "user": row["user_head"] + statutes + row["user_tail"]}


def full_record(row: Mapping[str, Any], texts: Mapping[str, str] | None) -> dict[str, Any]:
    """The task record `row` was made from (its prompt too, when `texts` is given)."""
    record: dict[str, Any] = {"id": row["id"], "task": row["task"], "variant": row["variant"]}
    record["split"] = row["split"]
    if texts is not None:
        record["prompt"] = full_prompt(row, texts)
    record.update({name: json.loads(row[name]) for name in JSON_FIELDS})
    return record


def same_prompt(record: Mapping[str, Any], rebuilt: Mapping[str, Any]) -> bool:
    """Whether a rebuilt prompt is the record's: the same user text and the same system text (a record
    without a system prompt matches None)."""
    prompt = record["prompt"]
    return prompt["user"] == rebuilt["user"] and prompt.get("system") == rebuilt["system"]


def compact_rows(
    records: list[dict[str, Any]], suite: str, shared: SharedTexts
) -> list[dict[str, str | None]]:
    """Every record as a row, each one checked to rebuild its own prompt and record exactly."""
    rows = []
    for record in records:
        row = compact_row(record, suite, shared)
        rebuilt = full_record(row, shared)
        if not same_prompt(record, rebuilt["prompt"]):
            raise InputError(f"task {record['id']!r}: its prompt does not rebuild from the shared texts")
        if any(rebuilt[name] != record.get(name) for name in JSON_FIELDS):
            raise InputError(f"task {record['id']!r}: a JSON field does not survive the round trip")
        rows.append(row)
    return rows
