"""Reading the lexsym task sets an OpenExempt export starts from, and refusing records it cannot use.

A task set is a `tasks.jsonl` written by `lexsym generate` (with its `manifest.json` beside it), the folder
holding it, or a folder of suite folders (`--all-suites`, whose top manifest lists them). Each record is
checked for the fields the export reads, and the gold answer for the shape of its task; a bad one is a
one-line InputError naming the file, line and field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_json
from lexsym._util.jsonl import LineError, read_jsonl

TASKS = ("AE", "EC", "EV", "NA", "OE")
_REQUIRED = ("id", "task", "split", "prompt", "gold", "reference", "metadata", "case")


def task_sets(path: Path) -> list[tuple[Path, dict[str, Any] | None]]:
    """(tasks.jsonl, its manifest or None) for each task set under `path`."""
    if path.is_file():
        manifest = path.parent / "manifest.json"
        return [(path, read_json(manifest) if manifest.is_file() else None)]
    if (path / "tasks.jsonl").is_file():
        return task_sets(path / "tasks.jsonl")
    manifest = path / "manifest.json"
    if manifest.is_file():
        top = read_json(manifest)
        suites = top.get("suites") if isinstance(top, dict) else None
        if isinstance(suites, dict) and suites:
            found = []
            for name in suites:
                if not (path / name / "tasks.jsonl").is_file():
                    raise InputError(f"{manifest}: suites.{name}: {path / name / 'tasks.jsonl'} is missing")
                found += task_sets(path / name / "tasks.jsonl")
            return found
    raise InputError(f"{path}: no tasks.jsonl (give a task set written by `lexsym generate`)")


def read_task_records(path: Path) -> list[dict[str, Any]]:
    """The task records of one tasks.jsonl, each checked for the fields the export reads."""
    errors: list[LineError] = []
    records = []
    for number, record in read_jsonl(path, errors):
        if not isinstance(record, dict):
            raise InputError(f"{path}:{number}: a task record must be a JSON object")
        for key in _REQUIRED:
            if key not in record:
                raise InputError(f"{path}:{number}: field {key!r} is missing")
        if record["task"] not in TASKS:
            raise InputError(f"{path}:{number}: task: unknown task {record['task']!r}")
        for key, kind in (("prompt", dict), ("reference", dict), ("metadata", dict), ("case", dict)):
            if not isinstance(record[key], kind):
                raise InputError(f"{path}:{number}: field {key!r} must be a JSON object")
        for key in ("system", "user"):
            if not isinstance(record["prompt"].get(key), str):
                raise InputError(f"{path}:{number}: field 'prompt.{key}' must be a string")
        if "petition_date" not in record["case"]:
            raise InputError(f"{path}:{number}: field 'case.petition_date' is missing")
        problem = _shape_problem("reference.AE", record["reference"].get("AE"), "AE") or _shape_problem(
            "gold", record["gold"], record["task"]
        )
        if problem:
            raise InputError(f"{path}:{number}: field {problem}")
        record["_source"] = f"{path}:{number}"
        records.append(record)
    if errors:
        raise InputError(str(errors[0]))
    if not records:
        raise InputError(f"{path}: no task records")
    return records


def _claims(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(c, dict) and isinstance(c.get("citation"), str) and isinstance(c.get("claim_value"), int)
        for c in value
    )


def _shape_problem(name: str, value: Any, task: str) -> str | None:
    """'<name>: what is wrong' when `value` is not a gold answer of `task`, else None."""
    if task == "AE":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        return None if ok else f"{name}: expected a list of jurisdiction names"
    if task == "OE":
        if not isinstance(value, dict) or not isinstance(value.get("schedule"), dict):
            return f"{name}: expected an object with jurisdiction, non_exempt_total and schedule"
        if not isinstance(value.get("non_exempt_total"), int) or not isinstance(
            value.get("jurisdiction"), str
        ):
            return f"{name}: expected jurisdiction (a name) and non_exempt_total (whole dollars)"
        bad = [asset for asset, claims in value["schedule"].items() if not _claims(claims)]
        return (
            f"{name}.schedule[{bad[0]!r}]: expected a list of citation/claim_value objects" if bad else None
        )
    if not isinstance(value, dict):
        return f"{name}: expected an object"
    for key, item in value.items():
        if task == "EC" and not (isinstance(item, list) and all(isinstance(c, str) for c in item)):
            return f"{name}[{key!r}]: expected a list of citations"
        if task == "EV" and not _claims(item):
            return f"{name}[{key!r}]: expected a list of citation/claim_value objects"
        if task == "NA" and (isinstance(item, bool) or not isinstance(item, int)):
            return f"{name}[{key!r}]: expected whole dollars"
    return None
