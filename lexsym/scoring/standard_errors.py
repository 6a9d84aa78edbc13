"""Standard errors of exam accuracies: bootstrap, and cluster-robust by course or exam.

Accuracy is the mean of 0/1 correctness. Its bootstrap standard error is the standard deviation of bootstrap
means (`lexsym.scoring.metrics.bootstrap_se`): a standard error, in accuracy units. LEXam's published
evaluation script prints the *variance* of the bootstrap means under the label "standard error"; the two
must not be mixed up. Questions from the same course (or exam) are not independent draws, so a clustered
standard error is given too: the cluster-robust (CR1) SE of a mean,

    SE_cluster = sqrt( G/(G-1) * sum_g ( sum_{i in g} (x_i - mean) )^2 ) / n,

with G clusters and n questions; with every question its own cluster it is the textbook s/sqrt(n).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from lexsym.scoring import metrics

# --- statistics ---------------------------------------------------------------------------------------------


def accuracy(correct: Iterable[bool | float]) -> float | None:
    """The share of correct answers (extraction failures count as wrong); None for no questions."""
    values = [float(c) for c in correct]
    return sum(values) / len(values) if values else None


def bootstrap_se(
    values: Sequence[float] | np.ndarray, *, resamples: int = metrics.RESAMPLES, seed: int = metrics.SEED
) -> float | None:
    """Bootstrap standard error of a mean: the standard deviation (ddof=1) of the means of `resamples`
    seeded resamples, as `lexsym.scoring.metrics.bootstrap_se` computes it for every other metric. Not the
    variance of those means, which LEXam's evaluation script prints as "standard error"."""
    return metrics.bootstrap_se(values, resamples=resamples, seed=seed)


def clustered_se(values: Sequence[float] | np.ndarray, clusters: Sequence[Hashable]) -> float | None:
    """Cluster-robust (CR1) standard error of the mean of `values`, clustered by `clusters`:

        sqrt( G/(G-1) * sum_g ( sum_{i in g} (x_i - mean) )^2 ) / n

    Why: LEXam's questions come from a few hundred exams, and questions of one course or exam share topic
    and difficulty, so they are not independent draws and the i.i.d. SE is too small. This is the sandwich
    estimator of an intercept-only regression with the small-sample factor G/(G-1) (statsmodels' default
    for cluster SEs, whose extra (n-1)/(n-k) factor is 1 here). None with fewer than two clusters, where it
    is not defined.
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or len(x) != len(clusters):
        raise ValueError(f"{len(x)} values but {len(clusters)} cluster labels")
    n = len(x)
    index: dict[Hashable, int] = {}
    codes = np.array([index.setdefault(c, len(index)) for c in clusters], dtype=int)
    groups = len(index)
    if n == 0 or groups < 2:
        return None
    sums = np.bincount(codes, weights=x - x.mean(), minlength=groups)
    return float(math.sqrt(groups / (groups - 1) * float(np.sum(sums**2))) / n)


def cluster_key(record: Mapping[str, Any], cluster_by: str) -> str:
    """The cluster of a task: a metadata field ("course"), or "exam" = course and year (LEXam has no exam
    id; a course's exam in one year is the closest); a task without it is its own cluster."""
    meta = record.get("metadata") if isinstance(record.get("metadata"), Mapping) else {}
    if cluster_by == "exam":
        course, year = meta.get("course"), meta.get("year")
        if course is None:
            return f"item:{record.get('id')}"
        return f"{course} ({year})" if year is not None else str(course)
    value = meta.get(cluster_by)
    return str(value) if value not in (None, "") else f"item:{record.get('id')}"
