"""Combining several judges' scores for one answer.

LEXam recommends the minimum: a judge that misses an error is outvoted by one that catches it. Every
judge's own score is kept beside the combined one, so any other rule can be recomputed later.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

METHODS = ("min", "mean", "median")


def combine(scores: Sequence[float | None], method: str = "min", *, partial: bool = False) -> float | None:
    """The ensemble score, or None when it cannot be formed.

    A judge that failed to give a parseable grade leaves a hole. By default any hole makes the ensemble
    score missing: dropping the failed judge would silently turn a min-ensemble into a more lenient one.
    With `partial=True` the remaining judges are combined (and the caller records how many there were).
    """
    if method not in METHODS:
        raise ValueError(f"unknown ensemble method {method!r}; use one of {', '.join(METHODS)}")
    present = [score for score in scores if score is not None]
    if not present or (len(present) < len(scores) and not partial):
        return None
    if method == "min":
        return min(present)
    if method == "mean":
        return statistics.fmean(present)
    return float(statistics.median(present))
