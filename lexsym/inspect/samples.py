"""lexsym task records as inspect_ai samples: the exact messages `lexsym run` sends, the gold as target.

Why the input is built here from `lexsym.runner.tasksets.messages_for` and nothing else: a score is only
comparable with `lexsym run`'s when the model saw the same words, so no inspect solver adds a system
prompt or a template. The task file is read with the runner's own reader (a bad line is an error naming
file:line, never a task silently left out) and chosen with the runner's own selection, so `-T limit=N`
takes exactly the tasks `lexsym run --limit N` takes (stratified by dataset, not the first N).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from lexsym.runner.selection import choose
from lexsym.runner.tasksets import TaskSet, load_task_set, messages_for

#: Record fields copied into every sample's metadata (the record's own metadata follows, scalars only).
RECORD_FIELDS = ("task", "variant", "split")
#: Metadata fields every generated record has and the scorers read; kept even when not scalar-valued.
SCORING_FIELDS = ("suite", "dataset", "case_id", "course", "year")


def read_task_set(path: str | Path) -> TaskSet:
    """The task set at `path` (a directory holding tasks.jsonl, or the file), read once per file version:
    the task function and its scorer read the same file, and a suite of 500 records need not be parsed
    twice. An edited file (other size or mtime) is read again."""
    path = Path(path)
    file = path / "tasks.jsonl" if path.is_dir() else path
    try:
        stat = file.stat()
    except OSError:
        return load_task_set(path)  # its own error message names the file
    return _read(str(file.resolve()), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=16)
def _read(file: str, mtime_ns: int, size: int) -> TaskSet:
    return load_task_set(file)


def as_list(value: str | Sequence[str] | None) -> list[str]:
    """A task argument given once (`-T task=AE`) or as a list (`-T task=[AE,EC]`)."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def selected_records(
    task_set: TaskSet,
    *,
    task: str | Sequence[str] | None = None,
    split: str | Sequence[str] | None = None,
    filter: str | Sequence[str] | None = None,
    where: str | Sequence[str] | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The records a run would take: `task` and `split` are shorthands for `--filter task=…` and
    `--filter split=…`; `filter`, `where` and `limit` are `lexsym run`'s options of the same names."""
    filters = as_list(filter)
    if task:
        filters.append("task=" + ",".join(as_list(task)))
    if split:
        filters.append("split=" + ",".join(as_list(split)))
    return choose(task_set.records, filters=filters, conditions=as_list(where), count=limit)


def sample_metadata(record: dict[str, Any], index: int) -> dict[str, Any]:
    """What the viewer can filter on: the record's type, variant and split, its position in the task file
    (`index`, the order `lexsym score` aggregates in) and its metadata's scalar and list fields (asset
    count, governing state, course, …). The case and the gold stay in the task file."""
    metadata: dict[str, Any] = {name: record.get(name) for name in RECORD_FIELDS}
    metadata["index"] = index
    for key, value in (record.get("metadata") or {}).items():
        if key in metadata:
            continue
        if key in SCORING_FIELDS or _plain(value):
            metadata[key] = value
    if metadata.get("case_id") is None and isinstance(record.get("case"), dict):
        metadata["case_id"] = record["case"].get("id")
    return metadata


def _plain(value: Any) -> bool:
    scalar = (str, int, float, bool, type(None))
    return isinstance(value, scalar) or (
        isinstance(value, list) and all(isinstance(v, scalar) for v in value)
    )


def target_text(record: dict[str, Any]) -> str:
    """The gold as the viewer shows it: an option label (MCQ), the reference answer or the rubric items
    (OPEN), or the gold answer's JSON in the shape the task prompt asks for (AE..OE)."""
    gold = record.get("gold")
    if record.get("task") == "MCQ":
        return str(gold)
    if record.get("task") == "OPEN" and isinstance(gold, dict):
        if isinstance(gold.get("reference"), str):
            return gold["reference"]
        if isinstance(gold.get("rubrics"), list):
            return "\n".join(f"{n}. {item}" for n, item in enumerate(gold["rubrics"], 1))
    return json.dumps(gold, ensure_ascii=False, sort_keys=True)


def record_sample(record: dict[str, Any], index: int) -> Any:
    """One inspect Sample: id = the task id, input = the system and user messages of `lexsym run`."""
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser}
    messages = [kinds[m["role"]](content=m["content"]) for m in messages_for(record)]
    return Sample(
        id=record["id"],
        input=messages,
        target=target_text(record),
        metadata=sample_metadata(record, index),
    )


def record_dataset(task_set: TaskSet, records: list[dict[str, Any]], name: str) -> Any:
    """The chosen records as an inspect MemoryDataset, in task-file order."""
    from inspect_ai.dataset import MemoryDataset

    position = {record["id"]: index for index, record in enumerate(task_set.records)}
    samples = [record_sample(record, position[record["id"]]) for record in records]
    return MemoryDataset(samples, name=name, location=str(task_set.path))
