"""Reading a generated task set for a run, and the messages sent for each task.

A task set is `tasks.jsonl` (with the `manifest.json` that `lexsym generate` writes beside it). Its
identity is the sha256 of the file's bytes, which is what the manifest's `tasks_sha256` holds for an
untouched file: a run dir is tied to that hash, so a resumed run can never mix answers to two task sets.

Choosing tasks (`--filter`, `--where`, `--limit`, `--sample-id`) is `lexsym.runner.selection`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.jsonl import jsonl_lines
from lexsym.models.base import Message

#: Task types parsed and scored per sample as they finish. Other types (the exam tasks, MCQ and OPEN) run
#: all the same, and are left to `lexsym.scoring.score` at the end.
TASKS = ("AE", "EC", "EV", "NA", "OE")


@dataclass
class TaskSet:
    """A task file read for a run: its records (and raw lines, to write subsets for scoring) and hashes."""

    path: Path
    records: list[dict[str, Any]]
    lines: list[str]
    sha256: str
    manifest_sha256: str | None = None
    manifest_inputs: dict[str, str] | None = None
    warnings: list[str] = field(default_factory=list)

    def line_of(self, task_id: str) -> str:
        return self.lines[self._index[task_id]]

    def __post_init__(self) -> None:
        self._index = {r["id"]: i for i, r in enumerate(self.records)}


def _record_problem(record: Any) -> str | None:
    if not isinstance(record, dict):
        return "a task record must be a JSON object"
    if not isinstance(record.get("id"), str) or not record["id"]:
        return "a task record needs a string id"
    if not isinstance(record.get("task"), str) or not record["task"]:
        return f"task {record['id']!r}: no task type"
    prompt = record.get("prompt")
    if not isinstance(prompt, dict) or not isinstance(prompt.get("user"), str):
        return f"task {record['id']!r}: no prompt.user text"
    if prompt.get("system") is not None and not isinstance(prompt["system"], str):
        return f"task {record['id']!r}: prompt.system must be text"
    return None


def load_task_set(path: str | Path) -> TaskSet:
    """Read DIR/tasks.jsonl (or a tasks.jsonl given directly) and the manifest beside it, if any. A task
    file is generated, so any unreadable line is an InputError naming file and line rather than a task
    silently left out of the run."""
    path = Path(path)
    file = path / "tasks.jsonl" if path.is_dir() else path
    if path.is_dir() and not file.is_file():
        hint = (
            " (for `generate --all-suites` output, pass DIR/<suite>)"
            if (path / "manifest.json").is_file()
            else ""
        )
        raise InputError(f"{path}: no tasks.jsonl in this directory{hint}")
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{file}: no such file") from None
    except OSError as error:
        raise InputError(f"{file}: cannot read: {error.strerror or error}") from None
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{file}: not UTF-8 ({error.reason} at byte {error.start})") from None
    records: list[dict[str, Any]] = []
    lines: list[str] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(jsonl_lines(text), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as error:
            raise InputError(f"{file}:{number}: invalid JSON: {error}") from None
        problem = _record_problem(record)
        if problem:
            raise InputError(f"{file}:{number}: {problem}")
        if record["id"] in seen:
            raise InputError(
                f"{file}:{number}: duplicate task id {record['id']!r} (first at line {seen[record['id']]})"
            )
        seen[record["id"]] = number
        records.append(record)
        lines.append(line)
    if not records:
        raise InputError(f"{file}: no task records")
    task_set = TaskSet(file, records, lines, sha)
    manifest = file.parent / "manifest.json"
    if manifest.is_file():
        try:
            content = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            task_set.warnings.append(f"{manifest}: unreadable, ignored ({error})")
            content = None
        if isinstance(content, dict) and isinstance(content.get("tasks_sha256"), str):
            task_set.manifest_sha256 = content["tasks_sha256"]
            if isinstance(content.get("inputs"), dict):
                task_set.manifest_inputs = {str(k): str(v) for k, v in content["inputs"].items()}
            if task_set.manifest_sha256 != sha:
                task_set.warnings.append(
                    f"{file} does not match the tasks_sha256 of {manifest} (edited after generation?); "
                    "the run is tied to the file's own hash"
                )
    return task_set


def messages_for(record: dict[str, Any]) -> list[Message]:
    """The chat messages for a task: its system prompt (when it has one) and its user prompt."""
    prompt = record["prompt"]
    messages: list[Message] = []
    if prompt.get("system"):
        messages.append({"role": "system", "content": prompt["system"]})
    messages.append({"role": "user", "content": prompt["user"]})
    return messages


def prompt_sha256(messages: list[Message]) -> str:
    """The hash a sample records instead of the prompt text (which the task file already holds)."""
    text = json.dumps(messages, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
