"""Scoring model predictions against generated tasks: parse, align, score per task, aggregate, report.

`score` (in `score_file`) reads the two JSONL files, `task_scorers` scores AE..NA and MCQ answers,
`oe_checking` checks OE schedules with the logic program, `aggregation` computes means and standard errors,
`score_table` prints them. The metric definitions live in `metrics`; `lexsym exam score` is `mcq`.
"""

from lexsym._util.jsonl import LineError
from lexsym.scoring.inputs import TEXT_FIELDS
from lexsym.scoring.results import EXAM_TASKS, TASKS, GroupScore, MetricSummary, SampleRow, ScoreReport
from lexsym.scoring.score_file import score
from lexsym.scoring.score_table import render_report

__all__ = [
    "EXAM_TASKS",
    "TASKS",
    "TEXT_FIELDS",
    "GroupScore",
    "LineError",
    "MetricSummary",
    "SampleRow",
    "ScoreReport",
    "render_report",
    "score",
]
