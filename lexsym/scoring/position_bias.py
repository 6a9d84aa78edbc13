"""Position bias of MCQ answers: accuracy by gold position, prediction rates by position, and a chi-square
test of uniform predicted positions (a model that favours "A" looks better on exams whose gold is often A)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from lexsym.answers.choices import option_labels
from lexsym.scoring.mcq_samples import McqSample


class PositionCell(BaseModel):
    """One display position of a k-choice group."""

    position: int
    label: str
    gold_count: int
    gold_accuracy: float | None = Field(description="Accuracy on questions whose gold is here.")
    predicted_count: int
    predicted_rate: float | None = Field(description="Share of extracted answers that chose this position.")
    predicted_precision: float | None = Field(description="Share of answers choosing it that were right.")


class PositionBias(BaseModel):
    """Position bias among k-choice questions: by gold and by predicted position, and a chi-square test
    of uniformity of the predicted positions (extraction failures left out)."""

    k: int
    n: int
    extracted: int
    positions: list[PositionCell]
    chi2: float | None
    dof: int
    p_value: float | None
    min_expected: float | None = Field(description="n/k; below 5 the chi-square approximation is rough.")
    gold_chi2: float | None = Field(None, description="The same test on gold positions (0 when balanced).")
    gold_p_value: float | None = None


def chi2_sf(x: float, dof: int) -> float:
    """P(X >= x) for X ~ chi-square with `dof` degrees of freedom, in closed form (no scipy needed):
    even dof 2m: exp(-x/2) sum_{j<m} (x/2)^j / j!; odd dof 2m+1: erfc(sqrt(x/2)) plus
    exp(-x/2) sum_{j=1..m} (x/2)^(j-1/2) / Gamma(j+1/2)."""
    if dof < 1:
        raise ValueError(f"degrees of freedom must be positive, not {dof}")
    if x <= 0:
        return 1.0
    half = x / 2
    if dof % 2 == 0:
        term, total = 1.0, 1.0
        for j in range(1, dof // 2):
            term *= half / j
            total += term
        return min(1.0, math.exp(-half) * total)
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) / math.gamma(1.5)  # j = 1
    for j in range(1, (dof - 1) // 2 + 1):
        if j > 1:
            term *= half / (j - 0.5)
        total += math.exp(-half) * term
    return min(1.0, total)


def chisquare_uniform(counts: Sequence[int]) -> tuple[float | None, float | None]:
    """Pearson's chi-square statistic of `counts` against a uniform distribution and its p-value
    (scipy.stats.chisquare when scipy is installed, the closed form `chi2_sf` otherwise); (None, None)
    for no counts."""
    n, k = sum(counts), len(counts)
    if n == 0 or k < 2:
        return None, None
    try:
        from scipy.stats import chisquare
    except ImportError:
        expected = n / k
        statistic = sum((c - expected) ** 2 / expected for c in counts)
        return float(statistic), chi2_sf(statistic, k - 1)
    result = chisquare(counts)
    return float(result.statistic), float(result.pvalue)


def position_bias(
    samples: Sequence[McqSample], labels_of: Callable[[int], list[str]] | None = None
) -> list[PositionBias]:
    """Position bias per number of choices k (positions are only comparable among k-choice questions)."""
    by_k: dict[int, list[McqSample]] = defaultdict(list)
    for sample in samples:
        by_k[sample.n_choices].append(sample)
    reports = []
    for k in sorted(by_k):
        group = by_k[k]
        labels = labels_of(k) if labels_of else option_labels(k)
        extracted = [s for s in group if s.predicted_position is not None]
        gold_counts = Counter(s.gold_position for s in group)
        gold_right = Counter(s.gold_position for s in group if s.correct)
        predicted = Counter(s.predicted_position for s in extracted)
        predicted_right = Counter(s.predicted_position for s in extracted if s.correct)
        cells = [
            PositionCell(
                position=p,
                label=labels[p] if p < len(labels) else str(p),
                gold_count=gold_counts[p],
                gold_accuracy=gold_right[p] / gold_counts[p] if gold_counts[p] else None,
                predicted_count=predicted[p],
                predicted_rate=predicted[p] / len(extracted) if extracted else None,
                predicted_precision=predicted_right[p] / predicted[p] if predicted[p] else None,
            )
            for p in range(k)
        ]
        chi2, p_value = chisquare_uniform([predicted[p] for p in range(k)])
        gold_chi2, gold_p = chisquare_uniform([gold_counts[p] for p in range(k)])
        reports.append(
            PositionBias(
                k=k,
                n=len(group),
                extracted=len(extracted),
                positions=cells,
                chi2=chi2,
                dof=k - 1,
                p_value=p_value,
                min_expected=len(extracted) / k if extracted else None,
                gold_chi2=gold_chi2,
                gold_p_value=gold_p,
            )
        )
    return reports
