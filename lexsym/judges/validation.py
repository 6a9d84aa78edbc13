"""Validating an LLM judge against human experts: the Alternative Annotator Test and pairwise agreement.

Pure functions of scores keyed by item; numpy and scipy only.

The Alternative Annotator Test (alt-test) follows Calderon, Reichart & Dror, "The Alternative Annotator Test
for LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs", ACL 2025
(arXiv:2501.10970), §3, and the authors' reference implementation (github.com/nitaytech/AltTest,
`alt_test_example.ipynb`), as LEXam (Fan et al., §5.2 and App. G.4) applies it: m annotators, leave one out
at a time, Benjamini–Yekutieli over the m trials, pass when ω ≥ 0.5.

Notation. h_j(i) is annotator j's score of item i, f(i) the judge's, H[i] the annotators who scored i.

1. Items. Keep the items the judge scored and at least `min_annotators_per_item` (2) annotators scored, so
   a left-out annotator always has someone to be compared with; the others are dropped (and counted).
2. For each annotator j, I_j is the kept items j scored, n_j = |I_j|. An annotator with n_j below
   `min_items_per_annotator` (30, for the t-test's normal approximation) is skipped (and reported); the m
   of ω counts the annotators tested.
3. For i ∈ I_j, with R = (h_k(i) : k ∈ H[i], k ≠ j), the alignment of a score x with the rest is
       accuracy:  S(x, R) = (1/|R|) Σ_{r∈R} 1[x = r]
       neg_rmse:  S(x, R) = −sqrt((1/|R|) Σ_{r∈R} (x − r)²)
       neg_mae:   S(x, R) = −(1/|R|) Σ_{r∈R} |x − r|        (ours; the paper lists accuracy and −RMSE)
   or any callable S(x, R). The per-item advantage indicators are
       W^f_{i,j} = 1[S(f(i), R) ≥ S(h_j(i), R)]      W^h_{i,j} = 1[S(h_j(i), R) ≥ S(f(i), R)]
   (a tie counts for both), and the advantage probabilities are ρ^f_j = mean_i W^f_{i,j} and
   ρ^h_j = mean_i W^h_{i,j}.
4. Hypotheses, with the cost-benefit margin ε:  H0_j: ρ^f_j ≤ ρ^h_j − ε   against   H1_j: ρ^f_j > ρ^h_j − ε.
   With d_i = W^h_{i,j} − W^f_{i,j} (so d̄_j = ρ^h_j − ρ^f_j) this is the one-sided one-sample (paired)
   t-test of H0: E[d] ≥ ε against H1: E[d] < ε:
       t_j = (d̄_j − ε) / (s_j / √n_j),   s_j² = Σ_i (d_i − d̄_j)² / (n_j − 1),   p_j = F_{t(n_j−1)}(t_j),
   the lower tail of Student's t with n_j − 1 degrees of freedom (scipy's `ttest_1samp(d, ε,
   alternative="less")`). When s_j = 0 the statistic is ±∞ and p_j is its limit: 0 if d̄_j < ε, else 1
   (computed here, since scipy's moment calculation is numerically unreliable for constant data).
5. Benjamini–Yekutieli at level α over the m p-values: with p_(1) ≤ … ≤ p_(m) and c(m) = Σ_{k=1}^m 1/k,
   k* = max{k : p_(k) ≤ k α / (m c(m))}; reject H0_(1), …, H0_(k*) (none when no k qualifies).
6. Winning rate ω = (1/m) Σ_j 1[H0_j rejected]; the judge passes when ω ≥ 0.5. Average advantage
   probability ρ = (1/m) Σ_j ρ^f_j, the chance that the judge is at least as aligned with the others as a
   randomly chosen annotator; it ranks judges (higher is better) whether or not they pass.

Rule of thumb for ε (Calderon et al.): 0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers.
LEXam reports ε = 0 (the strict test) beside a tolerant level.

Scores are numbers or category labels (strings, such as "model_a" / "model_b" / "tie" for pairwise
choices). Accuracy compares by equality and serves both; neg_rmse and neg_mae need numbers and refuse labels.

Pairwise agreement (LEXam §5.1, App. G.3) between any two raters, over the items both scored:
    exact     the share of items given the same score (labels or numbers alike)
    Pearson   r = Σ (x − x̄)(y − ȳ) / sqrt(Σ (x − x̄)² Σ (y − ȳ)²)
    MAE       (1/n) Σ |x − y|
    quadratic weighted Cohen's κ over K ordered categories c_0 < … < c_{K−1} (a score grid such as
    0.0, 0.1, …, 1.0: K = 11): with O_ab the share of items rated c_a by the first rater and c_b by the
    second, E_ab = O_a· O_·b the share expected by chance from the marginals, and w_ab = (a − b)² / (K − 1)²,
        κ = 1 − Σ_ab w_ab O_ab / Σ_ab w_ab E_ab.
    The categories are the grid's steps, so a gap the raters never used still counts as distance; without a
    grid, the sorted distinct values either rater used (as sklearn's `cohen_kappa_score` does).
Pearson, MAE and κ need ordered numbers: for a pair where either rater gave a category label they are nan.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

PASSING_WINNING_RATE = 0.5
"""The alt-test's passing threshold on ω (Calderon et al. 2025; LEXam §5.2)."""

Scores = Mapping[Hashable, Any]
Alignment = Callable[[Any, Sequence[Any]], float]


# -- alignment scores ------------------------------------------------------------------------------------


def accuracy_alignment(score: Any, others: Sequence[Any]) -> float:
    """S(x, R) = (1/|R|) Σ 1[x = r]: the share of the other annotators who gave the same score."""
    return float(np.mean([score == other for other in others]))


def neg_rmse_alignment(score: float, others: Sequence[float]) -> float:
    """S(x, R) = −sqrt((1/|R|) Σ (x − r)²)."""
    return -math.sqrt(float(np.mean([(score - other) ** 2 for other in others])))


def neg_mae_alignment(score: float, others: Sequence[float]) -> float:
    """S(x, R) = −(1/|R|) Σ |x − r|."""
    return -float(np.mean([abs(score - other) for other in others]))


ALIGNMENTS: dict[str, Alignment] = {
    "accuracy": accuracy_alignment,
    "neg_rmse": neg_rmse_alignment,
    "neg_mae": neg_mae_alignment,
}
NUMERIC_ALIGNMENTS = ("neg_rmse", "neg_mae")
"""The alignments that measure distance, so need numbers (accuracy compares labels too)."""


def is_number(value: Any) -> bool:
    """A real number (not a bool, not a category label)."""
    return isinstance(value, (int, float, np.number)) and not isinstance(value, (bool, np.bool_))


def first_label(*raters: Scores) -> Any:
    """The first score of `raters` that is not a number (a category label), or None."""
    return next((v for scores in raters for v in scores.values() if not is_number(v)), None)


# -- the alt-test ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnnotatorTrial:
    """One leave-one-annotator-out trial: the judge against annotator j, aligned with the others."""

    annotator: Hashable
    items: int  # n_j
    judge_advantage: float  # ρ^f_j
    annotator_advantage: float  # ρ^h_j
    mean_difference: float  # d̄_j = ρ^h_j − ρ^f_j
    t_statistic: float
    p_value: float
    rejected: bool  # H0_j rejected after the Benjamini–Yekutieli correction: the judge wins against j


@dataclass(frozen=True)
class AltTestResult:
    winning_rate: float  # ω
    advantage_probability: float  # ρ
    passed: bool  # ω ≥ 0.5
    epsilon: float
    alpha: float
    metric: str
    trials: tuple[AnnotatorTrial, ...]
    skipped: tuple[tuple[Hashable, int], ...]  # (annotator, kept items) for those below the minimum
    items_used: int
    items_dropped: int


def one_sided_p_value(differences: Sequence[float], epsilon: float) -> tuple[float, float]:
    """(t, p) of the one-sample t-test of H0: E[d] ≥ ε against H1: E[d] < ε (see step 4 above)."""
    d = np.asarray(differences, dtype=float)
    n = d.size
    if n < 2:
        raise ValueError(f"a t-test needs at least 2 items, not {n}")
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd <= 1e-12 * max(1.0, abs(mean)):  # constant differences: the statistic's limit
        if math.isclose(mean, epsilon, rel_tol=1e-9, abs_tol=1e-12):
            return math.nan, 1.0
        return (-math.inf, 0.0) if mean < epsilon else (math.inf, 1.0)
    t = (mean - epsilon) / (sd / math.sqrt(n))
    return t, float(stats.t.cdf(t, df=n - 1))


def benjamini_yekutieli(p_values: Sequence[float], alpha: float = 0.05) -> np.ndarray:
    """Which hypotheses the Benjamini–Yekutieli step-up procedure rejects at FDR level α (see step 5):
    a boolean array in the order of `p_values`."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    rejected = np.zeros(m, dtype=bool)
    if m == 0:
        return rejected
    order = np.argsort(p, kind="stable")
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    thresholds = np.arange(1, m + 1) * alpha / (m * harmonic)
    passing = np.nonzero(p[order] <= thresholds)[0]
    if passing.size:
        rejected[order[: passing[-1] + 1]] = True
    return rejected


def alt_test(
    human: Mapping[Hashable, Scores],
    judge: Scores,
    *,
    epsilon: float = 0.2,
    alpha: float = 0.05,
    metric: str | Alignment = "accuracy",
    min_annotators_per_item: int = 2,
    min_items_per_annotator: int = 30,
) -> AltTestResult:
    """The alt-test of `judge` against the annotators in `human` ({annotator: {item: score}}); missing
    scores are simply absent keys. See the module docstring for every formula.

    Raises ValueError when fewer than two annotators are given or no annotator has enough items.
    """
    if isinstance(metric, str):
        if metric not in ALIGNMENTS:
            raise ValueError(f"unknown metric {metric!r} (known: {', '.join(ALIGNMENTS)}, or a callable)")
        align, metric_name = ALIGNMENTS[metric], metric
    else:
        align, metric_name = metric, getattr(metric, "__name__", "custom")
    if metric_name in NUMERIC_ALIGNMENTS:
        label = first_label(judge, *human.values())
        if label is not None:
            raise ValueError(
                f"metric {metric_name} needs numeric scores, and {label!r} is a category label "
                "(compare labels with accuracy)"
            )
    if len(human) < 2:
        raise ValueError("the alt-test needs at least two annotators (the paper recommends three or more)")
    if min_annotators_per_item < 2:
        raise ValueError("each item needs at least two annotators: the left-out one and one to compare with")

    raters: dict[Hashable, list[Hashable]] = {}
    for annotator, scores in human.items():
        for item in scores:
            raters.setdefault(item, []).append(annotator)
    kept = {item for item, who in raters.items() if len(who) >= min_annotators_per_item and item in judge}
    dropped = len(set(raters) - kept)

    trials: list[tuple[Hashable, int, float, float, float, float, float]] = []
    skipped: list[tuple[Hashable, int]] = []
    for annotator, scores in human.items():
        items = [item for item in scores if item in kept]
        if len(items) < max(min_items_per_annotator, 2):
            skipped.append((annotator, len(items)))
            continue
        judge_wins, annotator_wins = [], []
        for item in items:
            rest = [human[other][item] for other in raters[item] if other != annotator]
            s_judge = align(judge[item], rest)
            s_annotator = align(scores[item], rest)
            judge_wins.append(1.0 if s_judge >= s_annotator else 0.0)
            annotator_wins.append(1.0 if s_annotator >= s_judge else 0.0)
        w_f, w_h = np.array(judge_wins), np.array(annotator_wins)
        t, p = one_sided_p_value(w_h - w_f, epsilon)
        trials.append(
            (annotator, len(items), float(w_f.mean()), float(w_h.mean()), float((w_h - w_f).mean()), t, p)
        )
    if not trials:
        raise ValueError(
            f"no annotator has {min_items_per_annotator} items that the judge and another annotator also "
            f"scored (kept items per annotator: {dict(skipped)})"
        )
    rejected = benjamini_yekutieli([trial[-1] for trial in trials], alpha)
    results = tuple(
        AnnotatorTrial(a, n, rho_f, rho_h, diff, t, p, bool(r))
        for (a, n, rho_f, rho_h, diff, t, p), r in zip(trials, rejected, strict=True)
    )
    winning_rate = float(np.mean(rejected))
    return AltTestResult(
        winning_rate=winning_rate,
        advantage_probability=float(np.mean([trial.judge_advantage for trial in results])),
        passed=winning_rate >= PASSING_WINNING_RATE,
        epsilon=epsilon,
        alpha=alpha,
        metric=metric_name,
        trials=results,
        skipped=tuple(skipped),
        items_used=len(kept),
        items_dropped=dropped,
    )


# -- pairwise agreement ----------------------------------------------------------------------------------


def paired(first: Scores | Sequence[Any], second: Scores | Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Two raters' scores on the items both scored: mappings are matched by item (in `first`'s order),
    sequences by position (and must have the same length)."""
    if isinstance(first, Mapping) and isinstance(second, Mapping):
        items = [item for item in first if item in second]
        return np.array([first[i] for i in items]), np.array([second[i] for i in items])
    if isinstance(first, Mapping) or isinstance(second, Mapping):
        raise TypeError("give both raters as mappings (item -> score) or both as sequences")
    if len(first) != len(second):
        raise ValueError(f"the raters scored {len(first)} and {len(second)} items")
    return np.asarray(first), np.asarray(second)


def pearson(first: Scores | Sequence[float], second: Scores | Sequence[float]) -> float:
    """Pearson's r over the items both scored; nan when either rater gives one score throughout."""
    x, y = (a.astype(float) for a in paired(first, second))
    if x.size < 2:
        raise ValueError("a correlation needs at least two items")
    dx, dy = x - x.mean(), y - y.mean()
    denominator = math.sqrt(float(np.sum(dx * dx)) * float(np.sum(dy * dy)))
    return float(np.sum(dx * dy)) / denominator if denominator else math.nan


def mean_absolute_error(first: Scores | Sequence[float], second: Scores | Sequence[float]) -> float:
    """(1/n) Σ |x − y| over the items both scored."""
    x, y = (a.astype(float) for a in paired(first, second))
    if x.size == 0:
        raise ValueError("no item was scored by both raters")
    return float(np.mean(np.abs(x - y)))


def score_grid(low: float = 0.0, high: float = 1.0, step: float = 0.1) -> tuple[float, ...]:
    """The categories of a score scale: score_grid() = (0.0, 0.1, …, 1.0), eleven of them."""
    count = round((high - low) / step)
    if count < 1 or not math.isclose(low + count * step, high, rel_tol=1e-9, abs_tol=1e-9):
        raise ValueError(f"({high} − {low}) is not a whole number of steps of {step}")
    return tuple(round(low + k * step, 10) for k in range(count + 1))


def _category_indices(values: np.ndarray, categories: Sequence[Any]) -> np.ndarray:
    """Each value's position in `categories`; numbers match within float noise (0.1 + 0.2 is 0.3)."""
    exact = {category: k for k, category in enumerate(categories)}
    numeric = all(isinstance(c, (int, float, np.number)) and not isinstance(c, bool) for c in categories)
    grid = np.asarray(categories, dtype=float) if numeric else None
    out = np.empty(len(values), dtype=int)
    for n, value in enumerate(values.tolist()):
        if value in exact:
            out[n] = exact[value]
            continue
        if grid is not None and isinstance(value, (int, float)):
            close = np.nonzero(np.isclose(grid, float(value), rtol=1e-9, atol=1e-9))[0]
            if close.size:
                out[n] = int(close[0])
                continue
        raise ValueError(f"score {value!r} is not one of the categories {list(categories)}")
    return out


def quadratic_weighted_kappa(
    first: Scores | Sequence[Any],
    second: Scores | Sequence[Any],
    *,
    categories: Sequence[Any] | None = None,
) -> float:
    """Cohen's κ with quadratic weights over the ordered `categories` (see the module docstring); nan when
    chance disagreement is zero (both raters use one and the same category throughout)."""
    x, y = paired(first, second)
    if x.size == 0:
        raise ValueError("no item was scored by both raters")
    if categories is None:
        categories = sorted(set(x.tolist()) | set(y.tolist()))
    size = len(categories)
    if size < 2:
        return math.nan
    a, b = _category_indices(x, categories), _category_indices(y, categories)
    observed = np.zeros((size, size))
    np.add.at(observed, (a, b), 1.0)
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    index = np.arange(size)
    weights = (index[:, None] - index[None, :]) ** 2 / (size - 1) ** 2
    chance = float(np.sum(weights * expected))
    if chance == 0.0:
        return math.nan
    return 1.0 - float(np.sum(weights * observed)) / chance


def exact_agreement(first: Scores | Sequence[Any], second: Scores | Sequence[Any]) -> float:
    """The share of the items both scored that got the same score; numbers match within float noise."""
    x, y = paired(first, second)
    if x.size == 0:
        raise ValueError("no item was scored by both raters")
    same = [
        math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) if is_number(a) and is_number(b) else a == b
        for a, b in zip(x.tolist(), y.tolist(), strict=True)
    ]
    return float(np.mean(same))


@dataclass(frozen=True)
class PairAgreement:
    first: Hashable
    second: Hashable
    items: int
    pearson: float  # nan where either rater gave a category label, as kappa and mae
    kappa: float
    mae: float
    exact: float = math.nan  # the share of items both scored the same


def pairwise_agreement(
    raters: Mapping[Hashable, Scores], *, categories: Sequence[Any] | None = None
) -> list[PairAgreement]:
    """Pearson r, quadratic weighted κ, MAE and exact agreement for every pair of raters, over the items
    both scored (LEXam App. G.3 reports the first three per pair of experts, and their means). A pair with
    a category label gets exact agreement only: the other three need ordered numbers."""
    out = []
    for first, second in itertools.combinations(raters, 2):
        a, b = raters[first], raters[second]
        x, _ = paired(a, b)
        numeric = x.size > 0 and first_label(a, b) is None
        out.append(
            PairAgreement(
                first=first,
                second=second,
                items=int(x.size),
                pearson=pearson(a, b) if numeric and x.size >= 2 else math.nan,
                kappa=quadratic_weighted_kappa(a, b, categories=categories) if numeric else math.nan,
                mae=mean_absolute_error(a, b) if numeric else math.nan,
                exact=exact_agreement(a, b) if x.size else math.nan,
            )
        )
    return out
