"""What an export reads: the task sets under TASKS_DIR, one per suite, with their manifests.

TASKS_DIR may be one tasks.jsonl, a folder holding one, or a folder of suite folders (`lexsym generate
--all-suites`). Every line is read by the runner's own reader (`lexsym.runner.tasksets.load_task_set`),
so a published benchmark holds exactly the records `lexsym run` would send, and a bad line stops the
export with an error naming its file and line. A task set whose gold rests on a what-if table (an
OpenExempt import) keeps it beside its tasks, read as `lexsym score` reads it, so OE answers are checked
under the same figures as the gold.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_json
from lexsym.runner.tasksets import TaskSet, load_task_set
from lexsym.scoring.inputs import task_set_table

#: A suite's name as it becomes a config (Hugging Face) or part of a task name (lm-eval).
NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
#: A split's name as Hugging Face `datasets` takes it.
SPLIT_PATTERN = re.compile(r"^\w+$")


@dataclass
class SuiteSource:
    """One suite's records as an export takes them, and where they came from."""

    name: str
    records: list[dict[str, Any]]
    path: Path
    sha256: str
    manifest: dict[str, Any] | None
    table: dict[str, Any] | None = None  # the what-if table the gold rests on, as JSON
    warnings: list[str] = field(default_factory=list)

    @property
    def splits(self) -> list[str]:
        """The suite's splits in first-seen order (dev before test in generated sets)."""
        return list(dict.fromkeys(str(r.get("split") or "test") for r in self.records))

    @property
    def seeds(self) -> list[int]:
        """The generator seeds of the suite's datasets, from its manifest (none for exam sets)."""
        datasets = (self.manifest or {}).get("datasets") or []
        found = {d.get("config", {}).get("seed") for d in datasets if isinstance(d, dict)}
        return sorted(seed for seed in found if isinstance(seed, int))

    @property
    def rules_digests(self) -> list[str]:
        """The digests of statutes/ and encodings/ that the gold answers were computed with."""
        found = {(r.get("metadata") or {}).get("rules_digest") for r in self.records}
        return sorted(d for d in found if isinstance(d, str))


def task_files(path: Path) -> list[Path]:
    """The tasks.jsonl files under `path`: itself, the one in it, or one per suite folder in it."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError(f"{path}: no such file or directory")
    if (path / "tasks.jsonl").is_file():
        return [path / "tasks.jsonl"]
    found = sorted(child / "tasks.jsonl" for child in path.iterdir() if (child / "tasks.jsonl").is_file())
    if not found:
        raise InputError(f"{path}: no tasks.jsonl in this folder or in its sub-folders")
    return found


def _suite_of(record: dict[str, Any], fallback: str) -> str:
    metadata = record.get("metadata")
    suite = metadata.get("suite") if isinstance(metadata, dict) else None
    return suite if isinstance(suite, str) and suite else fallback


def _manifest(task_set: TaskSet) -> dict[str, Any] | None:
    path = task_set.path.parent / "manifest.json"
    if not path.is_file():
        return None
    content = read_json(path)
    return content if isinstance(content, dict) else None


def read_sources(path: str | Path) -> list[SuiteSource]:
    """Every suite under `path`, in folder order; records keep their file order. A suite is named by its
    records' `metadata.suite`, else by its folder. InputError (exit 2) for an unreadable line, a suite
    name that cannot be a config name, or one suite found twice."""
    sources: dict[str, SuiteSource] = {}
    for file in task_files(Path(path)):
        task_set = load_task_set(file)
        manifest = _manifest(task_set)
        table = task_set_table(file)
        fallback = file.parent.name if file.name == "tasks.jsonl" else file.stem
        groups: dict[str, list[dict[str, Any]]] = {}
        for record in task_set.records:
            split = record.get("split")
            if split is not None and not (isinstance(split, str) and SPLIT_PATTERN.match(split)):
                raise InputError(f"{file}: task {record['id']!r}: split {split!r} is not a word (dev, test)")
            groups.setdefault(_suite_of(record, fallback), []).append(record)
        for name, records in groups.items():
            if not NAME_PATTERN.match(name):
                raise InputError(f"{file}: suite name {name!r} must be letters, digits, '_', '-' or '.'")
            if name in sources:
                raise InputError(f"{file}: suite {name!r} is also in {sources[name].path}")
            sources[name] = SuiteSource(
                name, records, task_set.path, task_set.sha256, manifest, table, list(task_set.warnings)
            )
    return list(sources.values())


def identifier(name: str) -> str:
    """`name` as a lower-case Python-style identifier, for lm-eval task names (`asset-scaling` ->
    `asset_scaling`)."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
