"""`lexsym exam score`: an MCQ run evaluated from its task and prediction files."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from lexsym._util.errors import InputError
from lexsym._util.jsonl import LineError, read_jsonl
from lexsym._version import __version__
from lexsym.answers.choices import option_labels
from lexsym.scoring import metrics
from lexsym.scoring.inputs import load_predictions
from lexsym.scoring.mcq_samples import AccuracySummary, McqSample, mcq_task_problem, score_sample, summarise
from lexsym.scoring.position_bias import PositionBias, position_bias


class McqEvaluation(BaseModel):
    """Everything `lexsym exam score` found."""

    lexsym_version: str = __version__
    tasks_path: str
    predictions_path: str
    seed: int
    resamples: int
    cluster_by: str
    overall: AccuracySummary
    by_variant: dict[str, AccuracySummary]
    by_n_choices: dict[str, AccuracySummary]
    by_language: dict[str, AccuracySummary]
    by_course: dict[str, AccuracySummary]
    extraction_methods: dict[str, int]
    position_bias: list[PositionBias]
    missing: list[str] = Field(description="MCQ task ids without a usable prediction (extraction failures).")
    unknown: list[str]
    skipped: int = Field(description="Task records that are not MCQ (left to their own scorers).")
    errors: list[str]
    samples: list[McqSample]


@dataclass
class _Tasks:
    records: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    errors: list[str] = field(default_factory=list)


def _read_tasks(path: Path) -> _Tasks:
    found = _Tasks()
    line_errors: list[LineError] = []
    seen: set[str] = set()
    for number, record in read_jsonl(path, line_errors):
        if not isinstance(record, dict) or record.get("task") != "MCQ":
            found.skipped += 1
            continue
        problem = mcq_task_problem(record)
        if problem is None and record["id"] in seen:
            problem = f"duplicate task id {record['id']!r}"
        if problem:
            found.errors.append(f"{path}:{number}: {problem}")
            continue
        seen.add(record["id"])
        found.records.append(record)
    found.errors[:0] = [str(e) for e in line_errors]
    return found


def evaluate(
    tasks_path: str | Path,
    predictions_path: str | Path,
    *,
    cluster_by: str = "course",
    seed: int = metrics.SEED,
    resamples: int = metrics.RESAMPLES,
) -> McqEvaluation:
    """Score every MCQ task of `tasks_path` against `predictions_path` (the JSONL `lexsym score` reads):
    accuracy with bootstrap and clustered SEs overall and by variant, number of choices, language and
    course; extraction failures apart; and the position-bias report."""
    tasks_path, predictions_path = Path(tasks_path), Path(predictions_path)
    tasks = _read_tasks(tasks_path)
    if not tasks.records:
        first = tasks.errors[0] if tasks.errors else f"{tasks_path}: no MCQ task records"
        raise InputError(first)
    line_errors: list[LineError] = []
    predictions = load_predictions(predictions_path, line_errors)
    known = {r["id"] for r in tasks.records}
    samples = []
    missing = []
    for record in tasks.records:
        prediction = predictions.get(record["id"])
        if prediction is None:
            missing.append(record["id"])
        samples.append(score_sample(record, prediction.text if prediction else None, cluster_by))

    def grouped(key: Callable[[McqSample], Any]) -> dict[str, AccuracySummary]:
        groups: dict[str, list[McqSample]] = defaultdict(list)
        for sample in samples:
            value = key(sample)
            if value is not None:
                groups[str(value)].append(sample)
        return {
            name: summarise(members, seed=seed, resamples=resamples)
            for name, members in sorted(groups.items(), key=lambda item: natural_order(item[0]))
        }

    labels_by_k = {len(r["reference"]["labels"]): list(r["reference"]["labels"]) for r in tasks.records}
    return McqEvaluation(
        tasks_path=str(tasks_path),
        predictions_path=str(predictions_path),
        seed=seed,
        resamples=resamples,
        cluster_by=cluster_by,
        overall=summarise(samples, seed=seed, resamples=resamples),
        by_variant=grouped(lambda s: s.variant),
        by_n_choices=grouped(lambda s: s.n_choices),
        by_language=grouped(lambda s: s.language),
        by_course=grouped(lambda s: s.course),
        extraction_methods=dict(sorted(Counter(s.method for s in samples).items())),
        position_bias=position_bias(samples, lambda k: labels_by_k.get(k) or option_labels(k)),
        missing=missing,
        unknown=[i for i in predictions if i not in known],
        skipped=tasks.skipped,
        errors=[*tasks.errors, *(str(e) for e in line_errors)],
        samples=samples,
    )


def natural_order(text: str) -> list[Any]:
    """Sort key putting "k4" before "k16"."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text)]
