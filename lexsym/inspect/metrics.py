"""The aggregate `lexsym score` reports, as an inspect_ai metric: per task type, each metric's mean (the
median for median_re) and its seeded bootstrap standard error.

Why not inspect's own `mean()` and `stderr()`: lexsym never averages across task types (a MARE of EV
claims with one of NA totals means nothing), leaves undefined metrics (no MARE without a matched amount)
out of their mean rather than counting them 0, and draws its bootstrap with a fixed seed over the samples
in task-file order. So this metric rebuilds lexsym's rows from the per-sample scores and hands them to
`lexsym.scoring.aggregation.aggregate`, the function behind `lexsym score`'s `by_task` table: the numbers
in the inspect log are that table's, to the last digit, for the same answers.

Undefined metrics arrive as NaN (the scorer's stand-in for lexsym's None) and are None again here. With
inspect epochs > 1 each sample's value is inspect's reduction over its epochs (by default their mean, NaN
skipped), and the aggregate is over those per-sample values; lexsym's `--repeats` instead reports each
repeat apart.

Names are `TASK/metric` and `TASK/metric_se` (`OE/valid`, `EV/mare_se`), for the metrics lexsym's table
shows for that task (`scoring.results.TASK_METRICS`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric

from lexsym.scoring import metrics as lexsym_metrics
from lexsym.scoring.aggregation import aggregate
from lexsym.scoring.inputs import TaskRecord
from lexsym.scoring.results import EXAM_TASKS, MEDIAN_METRICS, TASK_METRICS, TASKS
from lexsym.scoring.task_scorers import Row


def lexsym_value(value: Any) -> Any:
    """A score value as lexsym holds it: NaN (inspect's "not scored") is None (lexsym's "undefined")."""
    return None if isinstance(value, float) and math.isnan(value) else value


def score_rows(scores: list[Any]) -> dict[str, list[Row]]:
    """lexsym's rows, by task type and in task-file order, from inspect SampleScores whose metadata the
    `lexsym_score` scorer wrote (`task`, `index`, `violations`, …)."""
    by_task: dict[str, list[tuple[int, Row]]] = defaultdict(list)
    for sample_score in scores:
        score = sample_score.score
        meta = score.metadata or {}
        value = score.value if isinstance(score.value, dict) else {}
        task = meta.get("task")
        if task not in TASK_METRICS or not value:
            continue
        record = TaskRecord(
            line=int(meta.get("index", 0)),
            id=str(sample_score.sample_id),
            task=task,
            variant=str(meta.get("variant") or task),
            suite=str(meta.get("suite") or "-"),
            case_id=meta.get("case_id"),
            gold=None,
            case=None,
            record={"id": str(sample_score.sample_id), "metadata": {"course": meta.get("course")}},
        )
        scores_of = {k: lexsym_value(v) for k, v in value.items() if k != "format"}
        row = Row(
            record,
            True,
            float(value.get("format") or 0.0),  # parsed: 0/1, or its mean over inspect's epochs
            meta.get("error"),
            scores=scores_of,
            violations=list(meta.get("violations") or []),
            beats_optimum=bool(meta.get("beats_optimum")),
        )
        by_task[task].append((record.line, row))
    return {
        task: [row for _, row in sorted(rows, key=lambda item: item[0])] for task, rows in by_task.items()
    }


def summary(
    scores: list[Any], *, resamples: int = lexsym_metrics.RESAMPLES, seed: int = lexsym_metrics.SEED
) -> dict[str, float]:
    """`TASK/metric` -> value and `TASK/metric_se` -> its standard error (see the module docstring)."""
    rows = score_rows(scores)
    found: dict[str, float] = {}
    for task in (*TASKS, *EXAM_TASKS):
        if task not in rows:
            continue
        group = aggregate(task, None, None, rows[task], seed, resamples)
        for name in TASK_METRICS[task]:
            summary_of = group.metrics.get(name)
            if summary_of is None:
                continue
            value = summary_of.median if name in MEDIAN_METRICS else summary_of.mean
            if value is not None:
                found[f"{task}/{name}"] = value
            if summary_of.se is not None:
                found[f"{task}/{name}_se"] = summary_of.se
    return found


@metric
def lexsym_summary(resamples: int = lexsym_metrics.RESAMPLES, seed: int = lexsym_metrics.SEED) -> Metric:
    """lexsym's per-task means and bootstrap SEs (`lexsym score`'s by_task table); see the module."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return summary(scores, resamples=resamples, seed=seed)

    return compute
