"""One model output scored against one task record, with lexsym's own scorer, for harnesses that score a
sample at a time (lm-evaluation-harness's `process_results`).

`lexsym.scoring.score` scores whole files; this takes the same steps for one sample, through the same
functions (answer parsing, `TaskScorer`, the OE checker, the MCQ extractor), so a harness's per-sample
scores are the ones `lexsym score` would give the same text. tests/test_publish.py holds the two to
that, metric by metric.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.jsonl import LineError
from lexsym.scoring.inputs import TaskRecord, task_problem, task_record_from
from lexsym.scoring.task_scorers import Row, TaskScorer, answer_row

Scores = dict[str, float | None]

_scorer: TaskScorer | None = None


def _task_scorer() -> TaskScorer:
    """One scorer per process: building it reads every statute's citations (about a second)."""
    global _scorer
    if _scorer is None:
        _scorer = TaskScorer()
    return _scorer


def task_record(record: Mapping[str, Any], table: dict[str, Any] | None = None) -> TaskRecord:
    """What scoring needs of `record`, as `lexsym score` reads it from a task file (`table`: the what-if
    table beside it, as JSON, if any); InputError naming the task when the record cannot be scored (a
    gold of the wrong shape, an OE task without its case)."""
    problem = task_problem(dict(record))
    if problem:
        raise InputError(problem)
    return task_record_from(dict(record), 0, table)


def scored_row(record: Mapping[str, Any], text: str, table: dict[str, Any] | None = None) -> Row:
    """The scorer's row for `text` answering `record`: parsed or not, its scores, OE violations."""
    task = task_record(record, table)
    row = answer_row(task, text, _task_scorer(), [])
    if task.task == "OE" and row.parsed:
        from lexsym.scoring.oe_checking import score_oe

        errors: list[LineError] = []
        score_oe([row], errors, [], Path(f"task {task.id}"), workers=1)
        if errors:  # the task's own case does not solve: the task is broken, not the answer
            raise InputError(errors[0].message)
    return row


def sample_scores(record: Mapping[str, Any], text: str, table: dict[str, Any] | None = None) -> Scores:
    """The per-sample scores `lexsym score` reports for `text` answering `record` (under the what-if
    `table` its gold rests on, if any): format (the answer was found and read), then the task's metrics
    (None where undefined, such as MARE with no matched amount)."""
    row = scored_row(record, text, table)
    return {"format": float(row.parsed), **row.scores}
