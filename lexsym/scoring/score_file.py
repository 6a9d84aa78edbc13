"""`lexsym score`: a file of model predictions scored against a generated tasks.jsonl.

Hostile input never crashes it: a bad line is a counted error naming file:line, a task without a usable
prediction is a format failure, and predictions for unknown ids are listed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from lexsym._util.errors import InputError
from lexsym._util.jsonl import LineError, read_jsonl
from lexsym._util.parallel import Executor
from lexsym.scoring import metrics
from lexsym.scoring.aggregation import group_scores
from lexsym.scoring.inputs import load_predictions, load_tasks
from lexsym.scoring.oe_checking import score_oe
from lexsym.scoring.results import SampleRow, ScoreReport
from lexsym.scoring.slices import check_fields, records_by_id, with_slices
from lexsym.scoring.task_scorers import Row, TaskScorer, answer_row, empty_scores


def score(
    tasks_path: str | Path,
    predictions_path: str | Path,
    *,
    seed: int = metrics.SEED,
    resamples: int = metrics.RESAMPLES,
    workers: int = 0,
    by: Sequence[str] = (),
    executor: Executor | str = Executor.local,
) -> ScoreReport:
    """Score the predictions in `predictions_path` against the tasks in `tasks_path`.

    Predictions are JSONL, one object per line with an "id" and the model's raw text in one of
    "output", "completion", "prediction", "response" or "text", or an already-parsed "answer" object.
    Raises InputError (exit code 2) only when a file cannot be read, or holds lines but none usable.
    OE cases are solved and checked in `workers` processes (0: one per core; 1: in this process), or on a
    Ray cluster with `executor` "ray"; the report does not depend on either. With fields `by` (`slices`:
    metadata paths, scalar record fields, solved_steps), the report is a SlicedScoreReport: the same fields
    and `by_fields`, its aggregates per task and values of those fields; a field no record has is an
    InputError, raised before any scoring.
    """
    tasks_path, predictions_path = Path(tasks_path), Path(predictions_path)
    records = None
    if by:
        records = records_by_id(record for _, record in read_jsonl(tasks_path, []))
        check_fields(by, list(records.values()), str(tasks_path))
    errors: list[LineError] = []
    warnings: list[str] = []
    tasks = load_tasks(tasks_path, errors)
    predictions = load_predictions(predictions_path, errors)
    first = next((e for e in errors if e.file == str(predictions_path)), None)
    if first is not None and not predictions:  # lines, but not one usable: the wrong file, or not JSONL
        raise InputError(str(first))
    known_ids = {t.id for t in tasks}
    unknown = [identifier for identifier in predictions if identifier not in known_ids]
    scorer = TaskScorer()
    rows: list[Row] = []
    missing: list[str] = []
    for task in tasks:
        prediction = predictions.get(task.id)
        if prediction is None:
            missing.append(task.id)
            rows.append(Row(task, False, False, "no prediction", scores=empty_scores(task.task)))
            continue
        rows.append(answer_row(task, prediction.text, scorer, warnings))
    oe_rows = [r for r in rows if r.task.task == "OE" and r.parsed]
    score_oe(
        oe_rows, errors, warnings, tasks_path, workers if workers > 0 else (os.cpu_count() or 1), executor
    )
    report_rows = [r for r in rows if r.scores]
    report = ScoreReport(
        tasks_path=str(tasks_path),
        predictions_path=str(predictions_path),
        seed=seed,
        resamples=resamples,
        tasks=len(tasks),
        predictions=len(predictions),
        scored=len(report_rows),
        missing=missing,
        unknown=unknown,
        errors=errors,
        warnings=warnings,
        by_task=group_scores(report_rows, lambda r: (r.task.task, None, None), seed, resamples),
        by_variant=group_scores(report_rows, lambda r: (r.task.task, r.task.variant, None), seed, resamples),
        by_suite=group_scores(report_rows, lambda r: (r.task.task, None, r.task.suite), seed, resamples),
        samples=[
            SampleRow(
                id=r.task.id,
                task=r.task.task,
                variant=r.task.variant,
                suite=r.task.suite,
                case_id=r.task.case_id,
                predicted=r.predicted,
                parsed=r.parsed,
                error=r.error,
                scores={"format": float(r.parsed), **r.scores},
                violations=r.violations,
                beats_optimum=r.beats_optimum,
            )
            for r in report_rows
        ],
    )
    return report if records is None else with_slices(report, report_rows, records, by)
