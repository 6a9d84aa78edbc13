"""Aggregates of scored samples: means and bootstrap standard errors per task, variant or suite (and, in
`slices`, per value of any task field).

A group never mixes tasks: a MARE of EV claims averaged with one of NA totals would mean nothing.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from lexsym.scoring import metrics
from lexsym.scoring.results import (
    EXAM_TASKS,
    MEDIAN_METRICS,
    OE_RATES,
    PARTIAL_METRICS,
    RATE_METRICS,
    TASKS,
    GroupScore,
    MetricSummary,
)
from lexsym.scoring.task_scorers import Row


def group_scores(rows: list[Row], key, seed: int, resamples: int) -> list[GroupScore]:
    grouped: dict[tuple[str, str | None, str | None], list[Row]] = defaultdict(list)
    for row in rows:
        grouped[key(row)].append(row)
    order = {task: i for i, task in enumerate((*TASKS, *EXAM_TASKS))}
    return [
        aggregate(task, variant, suite, members, seed, resamples)
        for (task, variant, suite), members in sorted(
            grouped.items(), key=lambda item: (order[item[0][0]], item[0][1] or "", item[0][2] or "")
        )
    ]


def aggregate(
    task: str, variant: str | None, suite: str | None, rows: list[Row], seed: int, resamples: int
) -> GroupScore:
    """Means and bootstrap SEs of one group's `rows` (all of `task`). Metrics every sample has share one draw
    of resampled rows; metrics defined for some samples only are resampled among those samples."""
    full = [*RATE_METRICS, *(OE_RATES if task == "OE" else ()), *(("accuracy",) if task == "MCQ" else ())]
    values = np.array(
        [[float(r.parsed), *(float(r.scores[m] or 0.0) for m in full[1:])] for r in rows], dtype=float
    )
    ses = metrics.bootstrap_ses(values, resamples=resamples, seed=seed)
    summary = {
        name: MetricSummary(mean=float(values[:, i].mean()), se=ses[i], n=len(rows))
        for i, name in enumerate(full)
    }
    for name in PARTIAL_METRICS:
        if not any(name in r.scores for r in rows):
            continue
        defined = [r.scores[name] for r in rows if r.scores.get(name) is not None]
        if name in MEDIAN_METRICS:  # the headline is the median; its SE is the median's
            summary[name] = MetricSummary(
                mean=metrics.mean_defined(defined),
                se=metrics.bootstrap_median_se(defined, resamples=resamples, seed=seed),
                n=len(defined),
                median=metrics.median(defined),
            )
            continue
        summary[name] = MetricSummary(
            mean=metrics.mean_defined(defined),
            se=metrics.bootstrap_se(defined, resamples=resamples, seed=seed),
            n=len(defined),
        )
    if task == "MCQ":
        summary.update(mcq_summaries(rows, seed, resamples))
    violations = metrics.ViolationCounts()
    for row in rows:
        violations.add(row.violations)
    return GroupScore(
        task=task,
        variant=variant,
        suite=suite,
        n=len(rows),
        metrics=summary,
        violations=dict(sorted(violations.counts.items())),
        beats_optimum=sum(r.beats_optimum for r in rows),
    )


def mcq_summaries(rows: list[Row], seed: int, resamples: int) -> dict[str, MetricSummary]:
    """Accuracy's clustered SE (by course; n counts courses) and accuracy among the extracted answers."""
    from lexsym.scoring.standard_errors import cluster_key, clustered_se

    correct = [float(r.scores.get("accuracy") or 0.0) for r in rows]
    clusters = [cluster_key(r.task.record or {"id": r.task.id}, "course") for r in rows]
    extracted = [float(r.scores.get("accuracy") or 0.0) for r in rows if r.parsed]
    return {
        "accuracy_clustered": MetricSummary(
            mean=float(np.mean(correct)) if correct else None,
            se=clustered_se(correct, clusters),
            n=len(set(clusters)),
        ),
        "accuracy_extracted": MetricSummary(
            mean=metrics.mean_defined(extracted),
            se=metrics.bootstrap_se(extracted, resamples=resamples, seed=seed),
            n=len(extracted),
        ),
    }
