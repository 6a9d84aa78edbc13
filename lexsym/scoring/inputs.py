"""The two files `lexsym score` reads, task records and predictions, read without crashing on hostile input.

Every bad line (not JSON, truncated, wrong types, duplicate id) becomes a counted error naming file:line; a
prediction record may carry the model's raw text or an already-parsed answer object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.jsonl import LineError, read_jsonl
from lexsym.scoring.gold_checks import GOLD_CHECKS
from lexsym.scoring.results import TASKS

#: Fields that may hold a model's raw output, in the order they are looked for.
TEXT_FIELDS = ("output", "completion", "prediction", "response", "text")


@dataclass
class TaskRecord:
    """A usable task line: what scoring needs of it."""

    line: int
    id: str
    task: str
    variant: str
    suite: str
    case_id: str | None
    gold: Any
    case: dict[str, Any] | None
    record: dict[str, Any] | None = None  # MCQ: the whole record (labels, options, metadata)
    table: dict[str, Any] | None = None  # the what-if table the gold rests on (`table.json` beside the tasks)


@dataclass
class Prediction:
    """A usable prediction line: where it was and the model's text."""

    line: int
    text: str


TABLE_FILE = "table.json"
"""A task set whose gold rests on a what-if table (an OpenExempt import) keeps the table beside its tasks."""


def task_set_table(path: Path) -> dict[str, Any] | None:
    """The what-if table of the task set whose tasks file is `path`, as JSON, or None: OE answers are
    then checked under the same figures as the gold."""
    table_path = Path(path).parent / TABLE_FILE
    if not table_path.is_file():
        return None
    from lexsym.law.whatif import load_table

    return json.loads(load_table(table_path).model_dump_json())


def load_tasks(path: Path, errors: list[LineError]) -> list[TaskRecord]:
    """The usable task records of `path`; unusable lines are added to `errors`. Raises InputError when not
    one record is usable."""
    table = task_set_table(path)
    tasks: list[TaskRecord] = []
    seen: dict[str, int] = {}
    for number, record in read_jsonl(path, errors):
        problem = task_problem(record)
        if problem:
            errors.append(LineError(file=str(path), line=number, message=problem))
            continue
        if record["id"] in seen:
            message = f"duplicate task id {record['id']!r} (first at line {seen[record['id']]})"
            errors.append(LineError(file=str(path), line=number, message=message))
            continue
        seen[record["id"]] = number
        tasks.append(task_record_from(record, number, table))
    if not tasks:
        first = next((e for e in errors if e.file == str(path)), None)
        raise InputError(str(first) if first else f"{path}: no task records")
    return tasks


def task_record_from(
    record: dict[str, Any], line: int = 0, table: dict[str, Any] | None = None
) -> TaskRecord:
    """What scoring needs of a record that `task_problem` passes (`table`: the what-if table its task set
    keeps beside it, as JSON)."""
    meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    case = record.get("case") if isinstance(record.get("case"), dict) else None
    case_id = meta.get("case_id") if isinstance(meta.get("case_id"), str) else None
    if case_id is None and case is not None and isinstance(case.get("id"), str):
        case_id = case["id"]
    return TaskRecord(
        line=line,
        id=record["id"],
        task=record["task"],
        variant=str(record.get("variant") or record["task"]),
        suite=str(meta.get("suite") or "-"),
        case_id=case_id,
        gold=record["gold"],
        case=case,
        record=record if record["task"] == "MCQ" else None,
        table=table,
    )


def task_problem(record: Any) -> str | None:
    """Why a task record cannot be scored, or None. The gold is checked here, so scoring can trust it."""
    if not isinstance(record, dict):
        return f"a task record must be a JSON object, not {type(record).__name__}"
    if not isinstance(record.get("id"), str) or not record["id"]:
        return "a task record needs a string id"
    if record.get("task") == "MCQ":
        from lexsym.scoring.mcq_samples import mcq_task_problem

        return mcq_task_problem(record)
    if record.get("task") == "OPEN":
        return f"task {record['id']!r}: OPEN tasks are graded by a judge, not by `lexsym score`"
    if record.get("task") not in TASKS:
        return f"task {record['id']!r}: unknown task {record.get('task')!r}"
    try:
        GOLD_CHECKS[record["task"]](record.get("gold"))
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        return f"task {record['id']!r}: gold is not a {record['task']} answer ({error})"
    if record["task"] == "OE" and not isinstance(record.get("case"), dict):
        return f"task {record['id']!r}: an OE task needs its case"
    return None


def load_predictions(path: Path, errors: list[LineError]) -> dict[str, Prediction]:
    """Usable predictions by id; unusable lines are added to `errors`."""
    found: dict[str, Prediction] = {}
    name = str(path)
    for number, record in read_jsonl(path, errors):
        text, problem = prediction_text(record)
        if problem:
            errors.append(LineError(file=name, line=number, message=problem))
            continue
        identifier = record.get("id", record.get("uid"))
        if identifier in found:
            message = (
                f"duplicate prediction for {identifier!r} (the one at line {found[identifier].line} is used)"
            )
            errors.append(LineError(file=name, line=number, message=message))
            continue
        found[identifier] = Prediction(number, text)
    return found


def prediction_text(record: Any) -> tuple[str, str | None]:
    """The raw text of a prediction record (an "answer" object becomes text after a FINAL ANSWER marker),
    and the problem that makes the record unusable, if any."""
    if not isinstance(record, dict):
        return "", f"a prediction must be a JSON object, not {type(record).__name__}"
    identifier = record.get("id", record.get("uid"))  # uid: OpenExempt's response files
    if not isinstance(identifier, str) or not identifier:
        return "", "a prediction needs a string id"
    for name in TEXT_FIELDS:
        if name in record:
            value = record[name]
            if value is None:
                return "", None  # the model gave nothing: a format failure, not a broken line
            if not isinstance(value, str):
                return "", f"prediction {identifier!r}: {name!r} must be a string, not {type(value).__name__}"
            return value, None
    if "answer" in record:
        answer = record["answer"]
        if isinstance(answer, str):
            return answer, None
        try:
            return "FINAL ANSWER: " + json.dumps(answer, ensure_ascii=False), None
        except (TypeError, ValueError) as error:  # pragma: no cover - JSON from json.loads always dumps
            return "", f"prediction {identifier!r}: answer cannot be serialised ({error})"
    fields = ", ".join((*TEXT_FIELDS, "answer"))
    return "", f"prediction {identifier!r}: no output field (one of {fields})"
