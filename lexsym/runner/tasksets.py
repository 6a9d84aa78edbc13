"""Reading a generated task set for a run, and the messages sent for each task.

A task set is `tasks.jsonl` (with the `manifest.json` that `lexsym generate` writes beside it). Its
identity is the sha256 of the file's bytes, which is what the manifest's `tasks_sha256` holds for an
untouched file: a run dir is tied to that hash, so a resumed run can never mix answers to two task sets.

Choosing tasks (`--filter`, `--where`, `--limit`, `--sample-id`) is `lexsym.runner.selection`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym.models.base import Message

#: Task types parsed and scored per sample as they finish. Other types (the exam tasks, MCQ and OPEN) run
#: all the same, and are left to `lexsym.scoring.score` at the end.
TASKS = ("AE", "EC", "EV", "NA", "OE")


@dataclass
class TaskSet:
    """A task file read for a run: its records and hashes. The raw lines (to write subsets for scoring)
    stay on disk, located by byte offset: a run held the file about 4.8 times over (bytes, text, lines
    and records; 1.3 GB for the full benchmark), and now holds the records alone (issue 19, item 14)."""

    path: Path
    records: list[dict[str, Any]]
    spans: list[tuple[int, int]]
    sha256: str
    manifest_sha256: str | None = None
    manifest_inputs: dict[str, str] | None = None
    warnings: list[str] = field(default_factory=list)

    def line_of(self, task_id: str) -> str:
        """The task's line as it is in the file (without its newline)."""
        start, end = self.spans[self._index[task_id]]
        with self.path.open("rb") as stream:
            stream.seek(start)
            return stream.read(end - start).decode("utf-8").removesuffix("\r")

    def raw_lines(self, task_ids: set[str]) -> Iterator[str]:
        """The lines of these tasks as they are in the file, in file order, read in one pass."""
        with self.path.open("rb") as stream:
            for record, (start, end) in zip(self.records, self.spans, strict=True):
                if record["id"] in task_ids:
                    stream.seek(start)
                    yield stream.read(end - start).decode("utf-8").removesuffix("\r")

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
    records: list[dict[str, Any]] = []
    spans: list[tuple[int, int]] = []
    seen: dict[str, int] = {}
    digest = hashlib.sha256()
    for number, start, raw in _raw_lines(file, digest):
        try:
            line = raw.decode("utf-8").removesuffix("\r")
        except UnicodeDecodeError as error:
            raise InputError(f"{file}:{number}: not UTF-8 ({error.reason})") from None
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError) as error:
            raise InputError(f"{file}:{number}: invalid JSON: {str(error)[:200]}") from None
        problem = _record_problem(record)
        if problem:
            raise InputError(f"{file}:{number}: {problem}")
        if record["id"] in seen:
            raise InputError(
                f"{file}:{number}: duplicate task id {record['id']!r} (first at line {seen[record['id']]})"
            )
        seen[record["id"]] = number
        records.append(record)
        spans.append((start, start + len(raw)))
    if not records:
        raise InputError(f"{file}: no task records")
    sha = digest.hexdigest()
    task_set = TaskSet(file, records, spans, sha)
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


def _raw_lines(file: Path, digest: Any) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, bytes without the newline) of each line, split at "\\n" only (see
    `jsonl_lines`), read in one pass that also feeds `digest` the file's bytes."""
    try:
        stream = file.open("rb")
    except FileNotFoundError:
        raise InputError(f"{file}: no such file") from None
    except OSError as error:
        raise InputError(f"{file}: cannot read: {error.strerror or error}") from None
    with stream:
        offset, number = 0, 0
        while True:
            try:
                raw = stream.readline()
            except OSError as error:
                raise InputError(f"{file}:{number + 1}: cannot read: {error.strerror or error}") from None
            if not raw:
                return
            digest.update(raw)
            number += 1
            yield number, offset, raw.removesuffix(b"\n")
            offset += len(raw)


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
