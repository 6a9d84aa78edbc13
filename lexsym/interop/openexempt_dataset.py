"""OpenExempt's published benchmark layout read as it is: suites of dataset folders, each with its tasks,
their shared prompt parts and their cases.

A dataset folder (what OpenExempt's `TaskDataset.save` writes) holds `config.json`, `test.jsonl` (per task:
`uid`, `jurisdiction`, `facts`, `solved_steps`, `solution`), `shared.json` (the parts every task of the
dataset shares: `start_task_id`, `terminal_task_id`, `instruction`, `meta_instruction`, `response_format`,
`statutes`, `format_reminder`), `cases.jsonl` (native cases, line for line with `test.jsonl`) and the same
for the dev split (`dev.jsonl`, `dev_cases.jsonl`). A suite is a folder of such folders.

The prompt OpenExempt sends is its parts joined by blank lines, empty parts left out (`Task.prompt()`), as
one user message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.jsonl import LineError, read_jsonl
from lexsym.law.case import load_json
from lexsym.law.tasks import Task

PROMPT_PARTS = (
    "instruction",
    "meta_instruction",
    "response_format",
    "facts",
    "solved_steps",
    "statutes",
    "format_reminder",
)
"""The parts of an OpenExempt prompt, in the order it joins them."""

SHARED_PARTS = ("instruction", "meta_instruction", "response_format", "statutes", "format_reminder")
"""The prompt parts every task of a dataset shares (`shared.json`); the others vary per task."""
SHARED_KEYS = ("start_task_id", "terminal_task_id", *SHARED_PARTS)
TASK_KEYS = ("uid", "jurisdiction", "facts", "solution")
SPLITS = {"test": "cases.jsonl", "dev": "dev_cases.jsonl"}
"""Each split's task file is `<split>.jsonl`; its cases file is this."""


def joined_prompt(parts: dict[str, str]) -> str:
    """A prompt as OpenExempt's `Task.prompt()` makes it: the parts in order, empty ones left out, joined by
    one blank line."""
    return "\n\n".join(parts[name] for name in PROMPT_PARTS if parts.get(name))


@dataclass(frozen=True)
class OpenExemptTask:
    """One OpenExempt task with its case, as published."""

    uid: str
    split: str
    task: Task
    start_task: Task
    state: str
    solution: Any
    parts: dict[str, str]
    case: dict[str, Any]
    source: str

    def prompt(self) -> str:
        """The prompt OpenExempt sends for this task."""
        return joined_prompt(self.parts)


@dataclass
class OpenExemptDataset:
    """One dataset folder: its id (OpenExempt's `dataset_id`), config and tasks of every split present."""

    directory: Path
    dataset_id: str
    suite: str
    config: dict[str, Any]
    tasks: list[OpenExemptTask] = field(default_factory=list)

    @property
    def task(self) -> Task:
        return self.tasks[0].task


def is_dataset_dir(path: Path) -> bool:
    return (path / "test.jsonl").is_file() and (path / "shared.json").is_file()


def find_datasets(path: Path) -> list[Path]:
    """The dataset folders at or under `path` (a dataset folder, a suite folder, a tree of suites, or a
    dataset's `test.jsonl`), in name order."""
    path = Path(path)
    if path.is_file():
        if path.name.endswith(".jsonl") and is_dataset_dir(path.parent):
            return [path.parent]
        raise InputError(f"{path}: not an OpenExempt task file (no shared.json beside it)")
    if not path.is_dir():
        raise InputError(f"{path}: no such file or directory")
    if is_dataset_dir(path):
        return [path]
    found = sorted(p.parent for p in path.rglob("shared.json") if is_dataset_dir(p.parent))
    if not found:
        raise InputError(f"{path}: no OpenExempt dataset folders (test.jsonl with shared.json) under it")
    return found


def looks_like_openexempt(path: Path) -> bool:
    """Whether `path` is OpenExempt's layout rather than a lexsym task file (for `lexsym score`)."""
    path = Path(path)
    if path.is_dir():
        try:
            return bool(find_datasets(path))
        except InputError:
            return False
    return (
        path.suffix == ".jsonl"
        and is_dataset_dir(path.parent)
        and not (path.parent / "manifest.json").exists()
    )


def _strict_lines(path: Path) -> list[tuple[int, Any]]:
    errors: list[LineError] = []
    lines = list(read_jsonl(path, errors))
    if errors:
        raise InputError(str(errors[0]))
    return lines


def _shared(directory: Path) -> dict[str, Any]:
    path = directory / "shared.json"
    shared = load_json(path)
    if not isinstance(shared, dict):
        raise InputError(f"{path}: expected a JSON object")
    missing = [key for key in SHARED_KEYS if key not in shared]
    if missing:
        raise InputError(f"{path}: missing {', '.join(missing)}")
    for key in ("start_task_id", "terminal_task_id"):
        try:
            Task.parse(shared[key])
        except ValueError as error:
            raise InputError(f"{path}: {key}: {error}") from None
    return shared


def _task(record: Any, case: Any, shared: dict[str, Any], split: str, where: str) -> OpenExemptTask:
    if not isinstance(record, dict):
        raise InputError(f"{where}: a task must be a JSON object")
    missing = [key for key in TASK_KEYS if key not in record]
    if missing:
        raise InputError(f"{where}: missing {', '.join(missing)}")
    if not isinstance(record["uid"], str) or not record["uid"]:
        raise InputError(f"{where}: uid: expected a non-empty string")
    merged = {**shared, **record}
    parts = {name: str(merged.get(name) or "") for name in PROMPT_PARTS}
    return OpenExemptTask(
        uid=record["uid"],
        split=split,
        task=Task.parse(shared["terminal_task_id"]),
        start_task=Task.parse(shared["start_task_id"]),
        state=str(record["jurisdiction"]),
        solution=record["solution"],
        parts=parts,
        case=case,
        source=where,
    )


def read_dataset(directory: Path, suite: str | None = None) -> OpenExemptDataset:
    """Every task of the dataset folder `directory`, paired with its case; errors name file:line."""
    directory = Path(directory)
    shared = _shared(directory)
    config_path = directory / "config.json"
    config = load_json(config_path) if config_path.is_file() else {}
    if not isinstance(config, dict):
        raise InputError(f"{config_path}: expected a JSON object")
    dataset_id = str(config.get("dataset_id") or directory.name)
    dataset = OpenExemptDataset(
        directory=directory,
        dataset_id=dataset_id,
        suite=suite or str(config.get("suite_name") or directory.parent.name),
        config=config,
    )
    seen: dict[str, str] = {}
    for split, cases_name in SPLITS.items():
        tasks_path = directory / f"{split}.jsonl"
        if not tasks_path.is_file():
            continue
        cases_path = directory / cases_name
        if not cases_path.is_file():
            raise InputError(f"{cases_path}: missing (the cases of {tasks_path.name}, line for line)")
        tasks, cases = _strict_lines(tasks_path), _strict_lines(cases_path)
        if len(tasks) != len(cases):
            raise InputError(
                f"{cases_path}: {len(cases)} cases for the {len(tasks)} tasks of {tasks_path.name}"
            )
        for (number, record), (_, case) in zip(tasks, cases, strict=True):
            task = _task(record, case, shared, split, f"{tasks_path}:{number}")
            if task.uid in seen:
                raise InputError(f"{task.source}: uid {task.uid!r} already at {seen[task.uid]}")
            seen[task.uid] = task.source
            dataset.tasks.append(task)
    if not dataset.tasks:
        raise InputError(f"{directory}: no tasks")
    return dataset


def read_datasets(path: Path) -> list[OpenExemptDataset]:
    """Every dataset at or under `path` (see `find_datasets`); each dataset's suite is its parent folder."""
    return [read_dataset(directory) for directory in find_datasets(path)]


def solution_text(solution: Any) -> str:
    """A solution as a model would answer it: AE's string as it is, the others as JSON."""
    return solution if isinstance(solution, str) else json.dumps(solution, ensure_ascii=False)
