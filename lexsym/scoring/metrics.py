"""Metric definitions for scoring model answers: pure functions of already-aligned predictions and gold.

Everything here is arithmetic on plain values, so each definition can be checked by hand; parsing answers,
aligning asset descriptions and normalising citations happen in `lexsym.scoring`. The definitions follow
OpenExempt's evaluator (paper §5.3, App. A.3) where it is sound, and depart from it in three places, each
marked below: an empty answer to an empty gold set is right (1/1/1), a format failure is a wrong answer in
every rate (OE included), and a standard error comes with every mean.

Conventions. A per-sample metric is a number in [0, 1] (or a non-negative error); an aggregate is its
mean over samples (macro-average), with a bootstrap standard error. A metric that is undefined for a sample
(no MARE without a matched amount, no gap without a valid schedule) is None and left out of its mean.

MARE is OpenExempt's, kept as defined: the mean of |ŷ/(y+1) − 1|. Where the gold is 0 that is about the
absolute error in dollars (a prediction of 920 for a gold of 0 gives 919), so one such amount can swamp a
mean. The median relative error (`median_re`: per sample, the median of the same errors; across samples,
their median) sits beside it and is not moved by a few such amounts.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

#: OpenExempt's stabilising constant ε in |ŷ/(y+ε) − 1|: relative error stays finite for gold amounts of 0.
EPSILON = 1.0
#: OpenExempt's tolerance τ: an amount is right when its relative error is strictly below 5 %.
TOLERANCE = 0.05
#: Bootstrap defaults: 1,000 resamples, seed 0, so two runs on the same samples give the same SE.
RESAMPLES = 1000
SEED = 0


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of one comparison (a sample, an asset, or a mean of them)."""

    precision: float
    recall: float
    f1: float

    @staticmethod
    def mean(scores: Sequence[PRF]) -> PRF:
        """Component-wise mean; the mean of no scores is 0/0/0 (nothing was answered right)."""
        if not scores:
            return PRF(0.0, 0.0, 0.0)
        n = len(scores)
        return PRF(
            sum(s.precision for s in scores) / n,
            sum(s.recall for s in scores) / n,
            sum(s.f1 for s in scores) / n,
        )


ZERO = PRF(0.0, 0.0, 0.0)
PERFECT = PRF(1.0, 1.0, 1.0)


def prf_from_counts(tp: int, fp: int, fn: int) -> PRF:
    """Precision tp/(tp+fp), recall tp/(tp+fn), F1 their harmonic mean.

    A ratio whose denominator is 0 is 0 (as in OpenExempt), with one exception: tp = fp = fn = 0, an empty
    answer to an empty gold set, is exactly right and scores 1/1/1. OpenExempt scores it 0/0/0, which
    marks a correct "no exemption applies" as wrong; we do not repeat that.
    """
    if tp == fp == fn == 0:
        return PERFECT
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return PRF(precision, recall, f1)


def set_prf(predicted: Iterable[Hashable], gold: Iterable[Hashable]) -> PRF:
    """Set overlap of one sample (AE: jurisdiction ids; EC: one asset's citation keys).

    tp = |P ∩ G|, fp = |P − G|, fn = |G − P| over the sets (duplicates in the prediction count once), then
    `prf_from_counts`; so an empty prediction for an empty gold set is 1/1/1. Callers normalise the labels.
    """
    p, g = set(predicted), set(gold)
    return prf_from_counts(len(p & g), len(p - g), len(g - p))


def relative_error(predicted: float, gold: float, epsilon: float = EPSILON) -> float:
    """OpenExempt's absolute relative error |ŷ/(y+ε) − 1| with ε = 1, and exactly 0 when ŷ == y.

    The ε keeps the error finite for a gold amount of 0, where it becomes roughly the absolute error
    (ŷ = 3 for y = 0 gives 2.0). Note the asymmetry it brings: ŷ = y + 1 also gives 0.
    """
    if predicted == gold:
        return 0.0
    return abs(predicted / (gold + epsilon) - 1.0)


def within_tolerance(predicted: float, gold: float, tolerance: float = TOLERANCE) -> bool:
    """OpenExempt's indicator 1[|ŷ/(y+ε) − 1| < τ], τ = 0.05 (strictly below), decided in exact arithmetic.

    In floating point an error of exactly 5 % comes out on either side of 0.05 (105 against 99 gives
    0.05000000000000004), so the boundary would depend on rounding; exactly 5 % is not within tolerance.
    """
    if predicted == gold:
        return True
    if not math.isfinite(predicted):
        return False
    scale = Fraction(gold) + Fraction(EPSILON)
    return abs(Fraction(predicted) - scale) < Fraction(str(tolerance)) * abs(scale)


@dataclass(frozen=True)
class AmountScore:
    """Overlap of labelled amounts (EV claims of one asset, NA totals of one sample) and their errors."""

    prf: PRF
    errors: tuple[float, ...]  # relative error of every prediction whose label matched a gold label

    @property
    def mare(self) -> float | None:
        """Mean absolute relative error over label-matched predictions; None when none matched."""
        return sum(self.errors) / len(self.errors) if self.errors else None

    @property
    def median_re(self) -> float | None:
        """Median of the same relative errors; None when none matched."""
        return median(self.errors)


def median(values: Iterable[float]) -> float | None:
    """The median of `values` (the mean of the middle two for an even count); None for no values."""
    kept = sorted(values)
    if not kept:
        return None
    middle = len(kept) // 2
    return kept[middle] if len(kept) % 2 else (kept[middle - 1] + kept[middle]) / 2


def amounts_score(
    predicted: Iterable[tuple[Hashable, float | None]],
    gold: Iterable[tuple[Hashable, float]],
    tolerance: float = TOLERANCE,
) -> AmountScore:
    """Match predicted (label, amount) pairs to gold ones, as OpenExempt does for EV claims and NA totals.

    Predictions are taken in order. Each looks for a still-unmatched gold pair with the same label (for a
    label listed twice in the gold, the closer amount); if there is one, its relative error is recorded
    (for MARE, whether or not it is within tolerance), and within tolerance it is a true positive and
    uses that gold pair up; otherwise it is a false positive. Gold pairs left over are false negatives.
    A prediction whose amount is None (not a number) is a false positive with no error. A label repeated
    in the prediction can match at most once, so the repeat is a false positive.
    """
    remaining: dict[Hashable, list[float]] = defaultdict(list)
    for label, amount in gold:
        remaining[label].append(amount)
    tp = fp = 0
    errors: list[float] = []
    for label, amount in predicted:
        candidates = remaining.get(label)
        if not candidates or amount is None:
            fp += 1
            continue
        best = min(range(len(candidates)), key=lambda i: relative_error(amount, candidates[i]))
        error = relative_error(amount, candidates[best])
        errors.append(error)
        if within_tolerance(amount, candidates[best], tolerance):
            candidates.pop(best)
            tp += 1
        else:
            fp += 1
    fn = sum(len(amounts) for amounts in remaining.values())
    return AmountScore(prf_from_counts(tp, fp, fn), tuple(errors))


@dataclass(frozen=True)
class SampleScore:
    """One sample's scores: precision/recall/F1, and, where amounts are compared (else None), MARE and the
    median relative error of the sample's matched amounts."""

    prf: PRF
    mare: float | None = None
    median_re: float | None = None


def asset_mean_prf(
    predicted: Mapping[str, Iterable[Hashable]] | None, gold: Mapping[str, Iterable[Hashable]]
) -> SampleScore:
    """EC for one sample: the mean of `set_prf` over the gold assets (paper §5.3: per asset, then averaged,
    so an asset with many exemptions does not dominate).

    `predicted` is keyed by gold asset (the caller aligned the descriptions); a gold asset with no
    predicted entry scores 0/0/0, even if its gold set is empty (the answer said nothing about it).
    Predicted assets that match no gold asset are ignored, as in OpenExempt. None (a format failure)
    scores 0/0/0. A case with no assets at all is right only when the prediction is empty too.
    """
    if predicted is None:
        return SampleScore(ZERO)
    if not gold:
        return SampleScore(PERFECT if not predicted else ZERO)
    scores = [
        set_prf(predicted[asset], citations) if asset in predicted else ZERO
        for asset, citations in gold.items()
    ]
    return SampleScore(PRF.mean(scores))


def asset_mean_amounts(
    predicted: Mapping[str, Iterable[tuple[Hashable, float | None]]] | None,
    gold: Mapping[str, Iterable[tuple[Hashable, float]]],
) -> SampleScore:
    """EV for one sample: `amounts_score` per gold asset (claims labelled by citation), averaged over the
    gold assets; MARE is the mean of the per-asset MAREs that are defined (OpenExempt's nesting), None if
    no claim matched a gold citation; the median relative error is over all the sample's matched claims.

    An unmatched gold asset scores 0/0/0 and has no MARE; None (a format failure) scores 0/0/0, no MARE.
    """
    if predicted is None:
        return SampleScore(ZERO)
    if not gold:
        return SampleScore(PERFECT if not predicted else ZERO)
    scores = [
        amounts_score(predicted[asset], claims) if asset in predicted else AmountScore(ZERO, ())
        for asset, claims in gold.items()
    ]
    mares = [s.mare for s in scores if s.mare is not None]
    return SampleScore(
        PRF.mean([s.prf for s in scores]),
        sum(mares) / len(mares) if mares else None,
        median(error for s in scores for error in s.errors),  # over every matched claim of the sample
    )


def non_exempt_score(
    predicted: Mapping[Hashable, float | None] | None, gold: Mapping[Hashable, float]
) -> SampleScore:
    """NA for one sample: `amounts_score` with jurisdictions as labels; MARE over the jurisdictions the
    prediction shares with the gold. None (a format failure) scores 0/0/0 with no MARE."""
    if predicted is None:
        return SampleScore(ZERO)
    score = amounts_score(predicted.items(), gold.items())
    return SampleScore(score.prf, score.mare, score.median_re)


@dataclass(frozen=True)
class ScheduleOutcome:
    """What the checker said about one OE schedule, reduced to what the metrics need (None: not parsed)."""

    valid: bool
    non_exempt: int
    optimal_non_exempt: int
    gap: int
    gap_percent: float
    beats_optimum: bool
    violations: tuple[str, ...] = ()


@dataclass(frozen=True)
class OEScore:
    """Per-sample OE metrics. `correct` (valid and optimal) is also the sample's precision, recall and F1.

    An OE answer is one schedule, right or wrong, so its per-sample precision, recall and F1 are all the
    0/1 outcome, and their macro-average is accuracy over all samples. OpenExempt counts a format failure
    only as a false negative, which leaves it out of OE precision and inflates it; here every failed
    answer, format failures included, is a wrong sample.
    """

    correct: bool
    valid: bool
    within_tolerance: bool
    gap_percent: float | None  # only for valid schedules
    mare: float | None  # relative error of the non-exempt total, only for valid schedules
    beats_optimum: bool
    violations: tuple[str, ...]

    @property
    def prf(self) -> PRF:
        return PERFECT if self.correct else ZERO


def oe_score(outcome: ScheduleOutcome | None, tolerance: float = TOLERANCE) -> OEScore:
    """OE for one sample.

    - correct: the schedule is valid (no violation found by the checker) and optimal: it leaves exactly
      the proven optimum's non-exempt value (gap 0).
    - within_tolerance: valid and the non-exempt total within OpenExempt's 5 % relative error of the
      optimum's (their OE rule, with "no invalid claim" read as "valid schedule").
    - gap_percent and mare (relative error of the non-exempt total): for valid schedules only.
    - A valid schedule better than the proven optimum (gap < 0, `beats_optimum`) means the checker or the
      solver is wrong, and which one cannot be told here: the checker's clingo integers are 32-bit, so a
      huge claim can wrap around and pass. Such a sample stays valid (the checker's word) but is neither
      correct nor within tolerance, and has no gap or MARE; it is flagged for a loud report.
    A format failure (None) is wrong on every count and breaks no named rule.
    """
    if outcome is None:
        return OEScore(False, False, False, None, None, False, ())
    if not outcome.valid:
        return OEScore(False, False, False, None, None, False, outcome.violations)
    if outcome.beats_optimum or outcome.gap < 0:
        return OEScore(False, True, False, None, None, True, outcome.violations)
    error = relative_error(outcome.non_exempt, outcome.optimal_non_exempt)
    return OEScore(
        correct=outcome.gap == 0,
        valid=True,
        within_tolerance=within_tolerance(outcome.non_exempt, outcome.optimal_non_exempt, tolerance),
        gap_percent=outcome.gap_percent,
        mare=error,
        beats_optimum=False,
        violations=outcome.violations,
    )


def rate(flags: Iterable[bool]) -> float | None:
    """The fraction of true flags (format compliance, validity, ...); None for no samples."""
    values = list(flags)
    return sum(1 for v in values if v) / len(values) if values else None


def mean_defined(values: Iterable[float | None]) -> float | None:
    """The mean of the values that are not None (undefined metrics are left out); None if none is."""
    kept = [v for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def bootstrap_se(
    values: Sequence[float] | np.ndarray, *, resamples: int = RESAMPLES, seed: int = SEED
) -> float | None:
    """Bootstrap standard error of the mean of per-sample `values`.

    Draws `resamples` samples of size n with replacement (numpy's default_rng(seed), so the result is
    reproducible), takes each one's mean, and returns the standard deviation of those means (ddof=1): a
    standard error, in the units of the metric, not a variance. For n values with population variance σ²
    it approaches σ/√n. None for no values; 0.0 for one value (every resample is the same).
    """
    return bootstrap_ses(np.asarray(values, dtype=float).reshape(-1, 1), resamples=resamples, seed=seed)[0]


def bootstrap_median_se(
    values: Sequence[float] | np.ndarray, *, resamples: int = RESAMPLES, seed: int = SEED
) -> float | None:
    """Bootstrap standard error of the median of `values` (as `bootstrap_se`, with medians of resamples in
    place of means). None for no values; 0.0 for one."""
    column = np.asarray(values, dtype=float)
    n = column.shape[0]
    if n == 0 or resamples < 2:
        return None
    if n == 1:
        return 0.0
    rng = np.random.default_rng(seed)
    medians = np.empty(resamples)
    chunk = max(1, 1_000_000 // n)  # as in `bootstrap_ses`: memory stays small for large n
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        medians[start : start + rows] = np.median(column[rng.integers(0, n, size=(rows, n))], axis=1)
    se = float(medians.std(ddof=1))
    return se if math.isfinite(se) else None


def bootstrap_ses(columns: np.ndarray, *, resamples: int = RESAMPLES, seed: int = SEED) -> list[float | None]:
    """`bootstrap_se` of every column of an (n, k) array, all from the same resampled rows (one draw of
    indices serves every metric of a group; each column's SE equals `bootstrap_se` of that column)."""
    columns = np.asarray(columns, dtype=float)
    n = columns.shape[0]
    k = columns.shape[1] if columns.ndim == 2 else 1
    if n == 0 or resamples < 2:
        return [None] * k
    if n == 1:
        return [0.0] * k
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, k))
    # Draw index rows in chunks of about a million indices: memory stays small for large n, and the
    # generator's stream (so the result) is the same as for one big draw.
    chunk = max(1, 1_000_000 // n)
    for start in range(0, resamples, chunk):
        rows = min(chunk, resamples - start)
        indices = rng.integers(0, n, size=(rows, n))
        means[start : start + rows] = columns[indices].mean(axis=1)
    return [float(se) if math.isfinite(se) else None for se in means.std(axis=0, ddof=1)]


@dataclass
class ViolationCounts:
    """How many answers break each named rule (an answer breaking a rule twice counts once)."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, names: Iterable[str]) -> None:
        for name in set(names):
            self.counts[name] = self.counts.get(name, 0) + 1
