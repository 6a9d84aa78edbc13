"""One tidy table of results over run directories: a row per (run, sample, repeat).

Why: every analysis in the seed papers is a group-by over samples (F1 by asset count, accuracy by
number of choices, grades with and without precedents), and the facts for one sample are spread over four
files: samples.jsonl (the completion, tokens, cost, latency), scores(.rK).json (the scores and OE
violations), judged.json (the judges' grades) and the task file (the metadata). This joins them once,
by sample id, so a researcher gets a DataFrame (`load_runs`) or a file (`lexsym export`) instead of a join
of their own.

The table is built in plain Python (`load_table`), so CSV and JSONL exports need no pandas; pandas is
needed only for `load_runs` and parquet (`pip install 'lexsym[analysis]'`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_json
from lexsym.analysis.columns import BASE_NAMES, BASE_TYPES, JUDGE_PREFIX, SCORE_COLUMNS, infer_type
from lexsym.runner.rundir import HEADER, SAMPLES
from lexsym.runner.samples_log import read_samples
from lexsym.runner.tasksets import load_task_set

_SCORES = re.compile(r"^scores(?:\.r(\d+))?\.json$")
JUDGED = "judged.json"


@dataclass
class ResultsTable:
    """The rows (dicts keyed by column name) and each column's type, in column order."""

    types: dict[str, str]
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def columns(self) -> list[str]:
        return list(self.types)

    def to_pandas(self) -> Any:
        """The table as a pandas DataFrame with nullable dtypes (Int64, boolean, string, float64)."""
        try:
            import pandas as pd
        except ImportError:
            raise InputError("this needs pandas: pip install 'lexsym[analysis]'") from None
        dtypes = {"int": "Int64", "float": "float64", "bool": "boolean", "string": "string"}
        frame = pd.DataFrame.from_records(self.rows, columns=self.columns)
        return frame.astype({name: dtypes[kind] for name, kind in self.types.items()})


def flatten(metadata: Any, prefix: str = "") -> dict[str, Any]:
    """Metadata as flat columns: nested keys joined by dots, lists joined by commas."""
    flat: dict[str, Any] = {}
    if not isinstance(metadata, dict):
        return flat
    for key, value in metadata.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten(value, name + "."))
        elif isinstance(value, list):
            flat[name] = ",".join(str(item) for item in value)
        else:
            flat[name] = value
    return flat


def _params_digest(params: Any) -> str:
    text = json.dumps(params or {}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def task_file(run_dir: Path, header: dict[str, Any]) -> Path:
    """The run's task file: the path run.json names, or, for a run directory moved with its tasks, the
    same path relative to the run directory's parent."""
    named = Path(header.get("tasks", {}).get("path") or "")
    for candidate in (named, run_dir.parent / named):
        if str(named) and candidate.exists():
            return candidate
    raise InputError(f"{run_dir / HEADER}: its task file {named} is not there (moved or deleted?)")


def _scores_by_sample(run_dir: Path) -> dict[tuple[int, str], dict[str, Any]]:
    """The per-sample rows of every scores(.rK).json, by (repeat, task id)."""
    found: dict[tuple[int, str], dict[str, Any]] = {}
    for path in sorted(run_dir.glob("scores*.json")):
        match = _SCORES.match(path.name)
        if match is None:
            continue
        repeat = int(match.group(1) or 0)
        for row in read_json(path).get("samples", []):
            found[(repeat, row["id"])] = row
    return found


def _judged_by_sample(run_dir: Path) -> tuple[list[str], dict[str, dict[str, Any]]]:
    path = run_dir / JUDGED
    if not path.is_file():
        return [], {}
    judged = read_json(path)
    return list(judged.get("judges") or []), {row["sample_id"]: row for row in judged.get("samples", [])}


def _run_rows(run_dir: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of one run directory, and its judges."""
    header_path = run_dir / HEADER
    if not header_path.is_file():
        raise InputError(f"{run_dir}: not a run directory (no {HEADER})")
    header = read_json(header_path)
    task_set = load_task_set(task_file(run_dir, header))
    records = {record["id"]: record for record in task_set.records}
    scores = _scores_by_sample(run_dir)
    judges, judged = _judged_by_sample(run_dir)
    common = {
        "run": run_dir.name,
        "run_dir": str(run_dir),
        "model": header.get("model"),
        "params_digest": _params_digest(header.get("params")),
        "run_status": header.get("status"),
    }
    rows = []
    statics: dict[str, dict[str, Any]] = {}
    seen: set[tuple[str, int]] = set()
    for sample in read_samples(run_dir / SAMPLES):
        key = (sample["task_id"], sample["repeat"])
        if key in seen:  # a line repeated by a resume: the first one counts, as in the run's scores
            continue
        seen.add(key)
        record = records.get(sample["task_id"])
        if record is None:
            raise InputError(f"{run_dir / SAMPLES}: sample {sample['id']!r} has no task in {task_set.path}")
        static = statics.get(record["id"])
        if static is None:
            static = statics[record["id"]] = _static(record)
        scored = scores.get((sample["repeat"], sample["task_id"]))
        rows.append(_row(common, sample, record, static, scored, judged))
    return rows, judges


def _static(record: dict[str, Any]) -> dict[str, Any]:
    """The columns a task record gives every sample of it (computed once per task, not per sample)."""
    meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    prompt = record.get("prompt") or {}
    static = {
        "task": record.get("task"),
        "variant": record.get("variant"),
        "suite": meta.get("suite"),
        "dataset": meta.get("dataset"),
        "split": record.get("split"),
        "solved_steps": ",".join(sorted(record.get("solved_steps") or {})),
        "n_solved_steps": len(record.get("solved_steps") or {}),
        "prompt_chars": len(prompt.get("system") or "") + len(prompt.get("user") or ""),
    }
    for name, value in flatten(meta).items():
        static.setdefault(name, value)
    return static


_SAMPLE_FIELDS = (
    "answer",
    "parsed",
    "parse_error",
    "error",
    "error_kind",
    "finish_reason",
    "tokens_in",
    "tokens_out",
    "cost",
    "latency",
    "attempts",
    "cached",
)


def _row(
    common: dict[str, Any],
    sample: dict[str, Any],
    record: dict[str, Any],
    static: dict[str, Any],
    scored: dict[str, Any] | None,
    judged: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    completion = sample.get("completion")
    row: dict[str, Any] = {
        **common,
        "sample_id": sample["id"],
        "task_id": sample["task_id"],
        "repeat": sample["repeat"],
        "completion_chars": len(completion) if isinstance(completion, str) else 0,
        "reasoning_chars": len(sample.get("reasoning") or ""),
    }
    row.update({name: sample.get(name) for name in _SAMPLE_FIELDS})
    values = (scored or {}).get("scores") or sample.get("scores") or {}
    row.update({name: values.get(name) for name in SCORE_COLUMNS})
    if scored is not None:
        row["format"] = float(bool(scored.get("parsed")))
        if row["parsed"] is None:
            row["parsed"] = bool(scored.get("parsed"))
        if static["task"] == "OE":
            row["violations"] = ";".join(scored.get("violations") or [])
            row["n_violations"] = len(scored.get("violations") or [])
    grades = judged.get(sample["id"])
    if grades is not None:
        row["judge_grade"] = grades.get("score")
        row["judge_status"] = grades.get("status")
        for judge, grade in (grades.get("judges") or {}).items():
            row[JUDGE_PREFIX + judge] = grade
    for name, value in static.items():
        row.setdefault(name, value)
    return row


def load_table(run_dirs: Iterable[str | Path]) -> ResultsTable:
    """The results table of these run directories (see the module docstring); InputError for a directory
    that is not a run or whose files cannot be read."""
    paths = [Path(path) for path in run_dirs]
    if not paths:
        raise InputError("give at least one run directory")
    rows: list[dict[str, Any]] = []
    judges: list[str] = []
    for path in paths:
        found, names = _run_rows(path)
        rows.extend(found)
        judges.extend(name for name in names if name not in judges)
    extra = sorted(
        {name for row in rows for name in row} - set(BASE_NAMES) - {JUDGE_PREFIX + j for j in judges}
    )
    types = dict(BASE_TYPES)
    types.update({JUDGE_PREFIX + judge: "float" for judge in judges})
    types.update({name: infer_type([row.get(name) for row in rows]) for name in extra})
    empty = dict.fromkeys(types)
    rows = [{**empty, **row} for row in rows]
    for name, kind in types.items():
        wanted = _PYTHON[kind]
        if any(row[name] is not None and type(row[name]) is not wanted for row in rows):
            for row in rows:  # a column with a stray type (an int among floats, a number as a name)
                if row[name] is not None:
                    row[name] = wanted(row[name])
    return ResultsTable(types, rows)


_PYTHON: dict[str, type] = {"string": str, "int": int, "float": float, "bool": bool}


def load_runs(run_dirs: Iterable[str | Path] | str | Path) -> Any:
    """The results table of one or several run directories as a pandas DataFrame: one row per (run,
    sample, repeat), every metadata field a column (`lexsym schema sample` documents them)."""
    if isinstance(run_dirs, (str, Path)):
        run_dirs = [run_dirs]
    return load_table(run_dirs).to_pandas()
