"""The end of a run: totals over samples.jsonl, one predictions file and one score report per repeat.

Decisions:

- **Everything is derived from samples.jsonl**, the run's only source of truth, so a resumed run's totals
  and scores cover all its sessions.
- **What is scored.** The tasks of the latest session's selection that have a recorded sample in that
  repeat: a failed sample is a format failure (the model did not answer), but a sample never attempted
  (the run was stopped by a budget) is left out rather than counted wrong. The header's totals say how
  many are still missing, so a partial score is never mistaken for a full one.
- **Repeats.** Repeat 0 is the headline: `predictions.jsonl` and `scores.json` are exactly what
  `lexsym score` would write for it, so every tool that reads a score report reads a run's. Each further
  repeat K gets `predictions.rK.jsonl` and `scores.rK.json`; the header's `scores` summary lists each
  repeat's per-task means and, over repeats, the mean and standard deviation of each task's F1 (the
  spread between runs of a sampling model). Pooling repeats into one report would understate the
  standard errors, because the repeats of one task are not independent samples.
- **The answer text** scored is the completion with its `<think>` blocks removed: a reasoning model's
  drafts must not be read as its answer (an unclosed block, a model cut off while thinking, leaves none).
"""

from __future__ import annotations

import os
import statistics
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym.models.base import has_think_tags, split_reasoning
from lexsym.runner.run_records import Totals
from lexsym.runner.samples_log import read_samples
from lexsym.runner.tasksets import TaskSet

JUDGED_TASKS = ("OPEN",)
#: The header's per-task means, each shown only for the tasks it applies to (`scoring.results.TASK_METRICS`):
#: an MCQ task has format and accuracy, not F1 or MARE. median_re is a median across samples; mare is
#: OpenExempt's MARE, /(gold+1).
SUMMARY_METRICS = ("format", "f1", "accuracy", "mare", "median_re", "valid", "optimal")
#: The metric whose spread over repeats is reported, by task (F1 unless named here).
SPREAD_METRIC = {"MCQ": "accuracy"}


def answer_text(completion: str | None) -> str | None:
    """The part of a completion that is the answer (see the module docstring)."""
    if completion is None:
        return None
    if not has_think_tags(completion):
        return completion
    return split_reasoning(completion)[0]


@dataclass
class SampleSummary:
    """Totals over every line, and the answer of each selected (task, repeat) recorded."""

    totals: Totals = field(default_factory=Totals)
    outputs: dict[int, dict[str, str | None]] = field(default_factory=lambda: defaultdict(dict))


def summarize_samples(samples_path: str | Path, selected: set[str] | None = None) -> SampleSummary:
    """One streaming pass over samples.jsonl."""
    summary = SampleSummary()
    totals = summary.totals
    for record in read_samples(samples_path):
        totals.recorded += 1
        failed = bool(record.get("error"))
        totals.failed += failed
        totals.ok += not failed
        totals.cached += bool(record.get("cached"))
        totals.parse_failures += (not failed) and record.get("parsed") is False
        totals.tokens_in += _int(record.get("tokens_in"))
        totals.tokens_out += _int(record.get("tokens_out"))
        totals.cost += _float(record.get("cost"))
        if selected is None or record["task_id"] in selected:
            completion = record.get("completion")
            summary.outputs[record["repeat"]].setdefault(
                record["task_id"], answer_text(completion) if isinstance(completion, str) else None
            )
    return summary


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def predictions_name(repeat: int) -> str:
    return "predictions.jsonl" if repeat == 0 else f"predictions.r{repeat}.jsonl"


def scores_name(repeat: int) -> str:
    return "scores.json" if repeat == 0 else f"scores.r{repeat}.json"


def write_predictions(
    run_dir: Path, task_set: TaskSet, outputs: dict[int, dict[str, str | None]]
) -> list[Path]:
    """predictions(.rK).jsonl for every repeat with answers, in task-file order: the input of
    `lexsym score`, one line per task: "id" and "output" (null for a failed sample)."""
    import json

    written = []
    for repeat in sorted(outputs):
        answers = outputs[repeat]
        lines = [
            json.dumps({"id": r["id"], "output": answers[r["id"]]}, ensure_ascii=False) + "\n"
            for r in task_set.records
            if r["id"] in answers
        ]
        path = run_dir / predictions_name(repeat)
        write_atomic(path, "".join(lines))
        written.append(path)
    return written


def score_repeats(
    run_dir: Path, task_set: TaskSet, outputs: dict[int, dict[str, str | None]], *, workers: int = 0
) -> dict[int, Any]:
    """Score each repeat's predictions file against the tasks it answered; write scores(.rK).json.
    Returns the ScoreReports by repeat. Open questions are left to `lexsym judge` (judged.json): there is
    no exact score for an essay."""
    from lexsym.scoring import score

    reports: dict[int, Any] = {}
    judged = {r["id"] for r in task_set.records if r["task"] in JUDGED_TASKS}
    for repeat in sorted(outputs):
        answered = {task_id: text for task_id, text in outputs[repeat].items() if task_id not in judged}
        if not answered:
            continue
        subset = None
        tasks_path = task_set.path
        if len(answered) != len(task_set.records):
            handle, name = tempfile.mkstemp(prefix=f".scoring-tasks.r{repeat}.", suffix=".jsonl", dir=run_dir)
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                for line in task_set.raw_lines(set(answered)):
                    stream.write(line + "\n")
            subset = tasks_path = Path(name)
        try:
            report = score(tasks_path, run_dir / predictions_name(repeat), workers=workers)
        finally:
            if subset is not None:
                subset.unlink(missing_ok=True)
        report.tasks_path = str(task_set.path)
        write_atomic(run_dir / scores_name(repeat), report.model_dump_json(indent=2) + "\n")
        reports[repeat] = report
    return reports


def _task_means(report: Any) -> dict[str, dict[str, float | int | None]]:
    from lexsym.scoring.results import MEDIAN_METRICS, applies

    means: dict[str, dict[str, float | int | None]] = {}
    for group in report.by_task:
        entry: dict[str, float | int | None] = {"n": group.n}
        for name in SUMMARY_METRICS:
            if name in group.metrics and applies(name, group.task):
                summary = group.metrics[name]
                entry[name] = summary.median if name in MEDIAN_METRICS else summary.mean
        means[group.task] = entry
    return means


def _spread(by_repeat: dict[str, Any], metric: str, tasks: set[str] | None) -> dict[str, Any]:
    """Mean and standard deviation over repeats of each task's `metric` (for `tasks`, or all)."""
    values: dict[str, list[float]] = defaultdict(list)
    for means in by_repeat.values():
        for task, entry in means.items():
            if (tasks is None or task in tasks) and isinstance(entry.get(metric), (int, float)):
                values[task].append(float(entry[metric]))
    return {
        task: {
            "mean": statistics.fmean(found),
            "sd": statistics.stdev(found) if len(found) > 1 else None,
            "repeats": len(found),
        }
        for task, found in values.items()
    }


def scores_summary(reports: dict[int, Any]) -> dict[str, Any] | None:
    """The header's `scores`: the headline file, per-task means per repeat, and the spread over repeats of
    F1 (`f1_over_repeats`) and, for MCQ, of accuracy (`accuracy_over_repeats`)."""
    if not reports:
        return None
    headline = 0 if 0 in reports else min(reports)
    by_repeat = {str(k): _task_means(r) for k, r in sorted(reports.items())}
    summary: dict[str, Any] = {
        "headline_repeat": headline,
        "file": scores_name(headline),
        "by_task": by_repeat[str(headline)],
    }
    if len(reports) > 1:
        summary["by_repeat"] = by_repeat
        summary["f1_over_repeats"] = _spread(by_repeat, "f1", None)
        for task, metric in SPREAD_METRIC.items():
            spread = _spread(by_repeat, metric, {task})
            if spread:
                summary[f"{metric}_over_repeats"] = spread
    return summary
