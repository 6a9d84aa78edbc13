"""The judge-validation statistics: the alt-test (Calderon et al. 2025) and pairwise agreement.

Hand-computed cases pin the formulas; random data with fixed seeds compare against scipy, numpy, sklearn
(when installed) and a brute-force re-implementation written from the paper's definitions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from lexsym.judges.validation import (
    alt_test,
    benjamini_yekutieli,
    mean_absolute_error,
    one_sided_p_value,
    pairwise_agreement,
    pearson,
    quadratic_weighted_kappa,
    score_grid,
)

# -- fixtures ---------------------------------------------------------------------------------------------


def noisy_annotators(
    seed: int, *, annotators: int = 3, items: int = 60, categories: int = 4, agree: float = 0.7
):
    """A true label per item; each annotator copies it with chance `agree`, else picks uniformly."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, size=items)
    human = {}
    for j in range(annotators):
        copy = rng.random(items) < agree
        labels = np.where(copy, truth, rng.integers(0, categories, size=items))
        human[f"h{j}"] = {f"x{i}": int(labels[i]) for i in range(items)}
    return human, {f"x{i}": int(truth[i]) for i in range(items)}


def majority(human: dict, item: str) -> int:
    votes = [scores[item] for scores in human.values() if item in scores]
    counts = {v: votes.count(v) for v in votes}
    best = max(counts.values())
    return min(v for v, c in counts.items() if c == best)


# -- the alt-test: hand-computed -------------------------------------------------------------------------


def test_alt_test_hand_computed_trial():
    # Three annotators, four items, binary labels; the judge says 1 everywhere.
    human = {
        "a": {"x1": 1, "x2": 0, "x3": 1, "x4": 1},
        "b": {"x1": 1, "x2": 1, "x3": 0, "x4": 1},
        "c": {"x1": 1, "x2": 1, "x3": 1, "x4": 0},
    }
    judge = {"x1": 1, "x2": 1, "x3": 1, "x4": 1}
    result = alt_test(human, judge, epsilon=0.0, min_items_per_annotator=1)
    by = {t.annotator: t for t in result.trials}
    # Leave out a. Rest (b, c): x1 (1,1) judge 1.0 vs a 1.0 -> tie; x2 (1,1) judge 1.0 vs a 0.0 -> judge;
    # x3 (0,1) judge 0.5 vs a 0.5 -> tie; x4 (1,0) judge 0.5 vs a 0.5 -> tie.
    # W^f = 1,1,1,1 (ρ^f = 1); W^h = 1,0,1,1 (ρ^h = 0.75); d = 0,-1,0,0: d̄ = -0.25, s = 0.5,
    # t = (-0.25 - 0) / (0.5 / 2) = -1, p = F_t(3)(-1).
    trial = by["a"]
    assert (trial.items, trial.judge_advantage, trial.annotator_advantage) == (4, 1.0, 0.75)
    assert trial.mean_difference == pytest.approx(-0.25)
    assert trial.t_statistic == pytest.approx(-1.0)
    assert trial.p_value == pytest.approx(stats.t.cdf(-1.0, 3))
    assert trial.p_value == pytest.approx(0.19550110947788535)
    # By symmetry b and c are the same trial.
    assert by["b"].p_value == pytest.approx(trial.p_value) and by["c"].p_value == pytest.approx(trial.p_value)
    # p = 0.1955 > every BY threshold (at most 0.05 / (1 + 1/2 + 1/3) = 0.0273): nothing rejected.
    assert result.winning_rate == 0.0 and not result.passed
    assert result.advantage_probability == pytest.approx(1.0)


def test_alt_test_epsilon_shifts_the_null():
    human = {
        "a": {"x1": 1, "x2": 0, "x3": 1, "x4": 1},
        "b": {"x1": 1, "x2": 1, "x3": 0, "x4": 1},
        "c": {"x1": 1, "x2": 1, "x3": 1, "x4": 0},
    }
    judge = {"x1": 1, "x2": 1, "x3": 1, "x4": 1}
    # t = (d̄ − ε) / (s/√n) = (-0.25 - 0.5) / 0.25 = -3 with ε = 0.5.
    trial = alt_test(human, judge, epsilon=0.5, min_items_per_annotator=1).trials[0]
    assert trial.t_statistic == pytest.approx(-3.0)
    assert trial.p_value == pytest.approx(stats.t.cdf(-3.0, 3))


def test_alt_test_neg_rmse_hand_computed():
    human = {"a": {"x1": 2, "x2": 4}, "b": {"x1": 3, "x2": 4}, "c": {"x1": 5, "x2": 6}}
    judge = {"x1": 3, "x2": 5}
    result = alt_test(human, judge, epsilon=0.0, metric="neg_rmse", min_items_per_annotator=1)
    trial = next(t for t in result.trials if t.annotator == "a")
    # Leave out a. x1: rest (3, 5); judge 3: -sqrt((0 + 4) / 2) = -1.414; a = 2: -sqrt((1 + 9) / 2) = -2.236
    # -> judge. x2: rest (4, 6); judge 5: -1; a = 4: -sqrt((0 + 4) / 2) = -1.414 -> judge.
    assert (trial.judge_advantage, trial.annotator_advantage) == (1.0, 0.0)
    # d = (-1, -1): constant and below ε, so p is the limit 0.
    assert trial.p_value == 0.0 and trial.t_statistic == -math.inf


def test_one_sided_p_value_matches_scipy():
    rng = np.random.default_rng(3)
    for epsilon in (0.0, 0.1, 0.2):
        d = rng.integers(-1, 2, size=40).astype(float)
        t, p = one_sided_p_value(d, epsilon)
        reference = stats.ttest_1samp(d, epsilon, alternative="less")
        assert t == pytest.approx(reference.statistic) and p == pytest.approx(reference.pvalue)


def test_one_sided_p_value_constant_differences():
    assert one_sided_p_value([0.0] * 30, 0.2) == (-math.inf, 0.0)
    assert one_sided_p_value([0.5] * 30, 0.2) == (math.inf, 1.0)
    t, p = one_sided_p_value([0.2] * 30, 0.2)  # exactly at the margin: H0 (E[d] ≥ ε) holds
    assert math.isnan(t) and p == 1.0


# -- Benjamini–Yekutieli ----------------------------------------------------------------------------------


def test_benjamini_yekutieli_hand_calculation():
    # m = 3, c(3) = 1 + 1/2 + 1/3 = 11/6; thresholds k α / (m c(m)) = k · 0.05 · 6 / 33 = 0.00909, 0.01818,
    # 0.02727.
    assert benjamini_yekutieli([0.01, 0.02, 0.03]).tolist() == [False, False, False]
    # Benjamini–Hochberg (thresholds 0.0167, 0.0333, 0.05) would reject all three: the c(m) factor matters.
    assert all(p <= (k + 1) * 0.05 / 3 for k, p in enumerate([0.01, 0.02, 0.03]))
    # 0.001 <= 0.00909 and 0.015 <= 0.01818, 0.04 > 0.02727: the first two (in input order).
    assert benjamini_yekutieli([0.04, 0.001, 0.015]).tolist() == [False, True, True]
    # Step-up: p_(2) = 0.018 passes its threshold although p_(1) = 0.0095 misses its own, so both go.
    assert benjamini_yekutieli([0.018, 0.0095, 0.5]).tolist() == [True, True, False]
    assert benjamini_yekutieli([0.0095]).tolist() == [True]  # m = 1: c(1) = 1, threshold α
    assert benjamini_yekutieli([]).tolist() == []


def test_benjamini_yekutieli_matches_scipy_adjusted_p_values():
    rng = np.random.default_rng(11)
    for m in (2, 3, 5, 10, 40):
        for _ in range(20):
            p = rng.random(m) ** 3
            adjusted = stats.false_discovery_control(p, method="by")
            assert benjamini_yekutieli(p, 0.05).tolist() == (adjusted <= 0.05).tolist()


# -- the alt-test: behaviour ------------------------------------------------------------------------------


def test_judge_equal_to_the_majority_passes():
    human, _ = noisy_annotators(1, annotators=3, items=80, categories=2, agree=0.75)
    judge = {item: majority(human, item) for item in human["h0"]}
    result = alt_test(human, judge, epsilon=0.2)
    # With binary labels and three annotators the majority is always at least as aligned as the left-out one.
    assert result.advantage_probability == 1.0
    assert result.winning_rate == 1.0 and result.passed
    assert all(t.rejected and t.p_value < 0.001 for t in result.trials)


def test_random_judge_fails():
    human, _ = noisy_annotators(2, annotators=4, items=80, categories=4, agree=0.8)
    rng = np.random.default_rng(5)
    judge = {item: int(rng.integers(0, 4)) for item in human["h0"]}
    result = alt_test(human, judge, epsilon=0.2)
    assert result.winning_rate == 0.0 and not result.passed
    assert result.advantage_probability < 0.5


def test_a_constant_judge_fails_on_a_score_scale():
    # LEXam App. G.5: constant-score baselines never pass.
    rng = np.random.default_rng(8)
    truth = rng.integers(0, 11, size=50)
    human = {
        f"e{j}": {f"q{i}": int(np.clip(truth[i] + rng.integers(-1, 2), 0, 10)) for i in range(50)}
        for j in range(3)
    }
    for constant in (0, 5, 10):
        result = alt_test(human, {f"q{i}": constant for i in range(50)}, epsilon=0.0, metric="neg_rmse")
        assert not result.passed


def test_missing_labels_follow_the_paper():
    human, truth = noisy_annotators(4, annotators=3, items=60, categories=3, agree=0.8)
    # x0..x9: only h0 scored them -> dropped (no one to compare with). h2 keeps only 20 items -> skipped.
    for i in range(10):
        del human["h1"][f"x{i}"], human["h2"][f"x{i}"]
    for i in range(10, 50):
        del human["h2"][f"x{i}"]
    judge = dict(truth)
    del judge["x59"]  # the judge did not score x59 -> dropped
    result = alt_test(human, judge, epsilon=0.1)
    assert result.items_dropped == 11 and result.items_used == 49
    assert result.skipped == (("h2", 9),)
    assert {t.annotator: t.items for t in result.trials} == {"h0": 49, "h1": 49}
    assert result.winning_rate == float(np.mean([t.rejected for t in result.trials]))


def test_alt_test_refuses_what_it_cannot_test():
    with pytest.raises(ValueError, match="at least two annotators"):
        alt_test({"a": {"x": 1}}, {"x": 1})
    with pytest.raises(ValueError, match="no annotator has 30 items"):
        alt_test({"a": {"x": 1}, "b": {"x": 1}}, {"x": 1})
    with pytest.raises(ValueError, match="unknown metric"):
        alt_test({"a": {"x": 1}, "b": {"x": 1}}, {"x": 1}, metric="f1")


def brute_force_alt_test(human, judge, epsilon, alpha, align, min_items):
    """The paper's procedure written out loop by loop, independent of the module."""
    annotators = list(human)
    kept = [
        i
        for i in sorted({i for scores in human.values() for i in scores})
        if i in judge and sum(i in human[h] for h in annotators) >= 2
    ]
    rhos, pvalues = [], []
    for h in annotators:
        items = [i for i in kept if i in human[h]]
        if len(items) < min_items:
            continue
        wf, wh = [], []
        for i in items:
            rest = [human[k][i] for k in annotators if k != h and i in human[k]]
            sf, sh = align(judge[i], rest), align(human[h][i], rest)
            wf.append(int(sf >= sh))
            wh.append(int(sh >= sf))
        d = np.array(wh) - np.array(wf)
        rhos.append(np.mean(wf))
        pvalues.append(stats.ttest_1samp(d, epsilon, alternative="less").pvalue)
    m = len(pvalues)
    order = sorted(range(m), key=lambda k: pvalues[k])
    c = sum(1 / k for k in range(1, m + 1))
    last = max((r for r in range(1, m + 1) if pvalues[order[r - 1]] <= r * alpha / (m * c)), default=0)
    return last / m, float(np.mean(rhos))


@pytest.mark.parametrize("seed", range(6))
def test_alt_test_matches_a_brute_force_reading_of_the_paper(seed):
    rng = np.random.default_rng(100 + seed)
    human, truth = noisy_annotators(
        seed, annotators=int(rng.integers(3, 6)), items=70, categories=5, agree=0.7
    )
    for scores in human.values():  # a sixth of the labels missing at random
        for item in list(scores):
            if rng.random() < 1 / 6:
                del scores[item]
    noise = rng.random(70) < rng.uniform(0.1, 0.6)
    judge = {f"x{i}": (int(rng.integers(0, 5)) if noise[i] else truth[f"x{i}"]) for i in range(70)}
    for epsilon in (0.0, 0.1, 0.2):
        result = alt_test(human, judge, epsilon=epsilon, min_items_per_annotator=30)
        omega, rho = brute_force_alt_test(
            human, judge, epsilon, 0.05, lambda x, rest: float(np.mean([x == r for r in rest])), 30
        )
        assert result.winning_rate == pytest.approx(omega)
        assert result.advantage_probability == pytest.approx(rho)
        assert result.passed == (omega >= 0.5)


# -- pairwise agreement -----------------------------------------------------------------------------------


def test_kappa_hand_computed():
    # Categories 0, 1, 2. O: (0,0), (1,2), (2,2), (2,1); marginals (1,1,2) and (1,1,2), N = 4.
    # Σ (a−b)² O = 0 + 1 + 0 + 1 = 2; Σ (a−b)² r_a c_b / N = (1 + 8 + 1 + 2 + 8 + 2) / 4 = 5.5 (the (K−1)²
    # normalisation cancels). κ = 1 − 2 / 5.5 = 7/11.
    assert quadratic_weighted_kappa([0, 1, 2, 2], [0, 2, 2, 1]) == pytest.approx(7 / 11)
    assert quadratic_weighted_kappa([0, 1, 2], [0, 1, 2]) == pytest.approx(1.0)
    assert math.isnan(quadratic_weighted_kappa([1, 1], [1, 1]))


def test_kappa_on_a_grid_counts_unused_steps():
    grid = score_grid(0.0, 1.0, 0.1)
    assert len(grid) == 11 and grid[3] == 0.3
    first, second = [0.0, 0.5, 1.0, 0.5], [0.0, 1.0, 1.0, 0.5]
    # Only 0.0, 0.5 and 1.0 are used: on their own they are three equally spaced categories, so the grid
    # (indices 0, 5, 10) gives the same κ as the bare values (indices 0, 1, 2) ...
    assert quadratic_weighted_kappa(first, second, categories=grid) == pytest.approx(
        quadratic_weighted_kappa(first, second)
    )
    # ... but not when the used steps are unevenly spaced.
    first, second = [0.0, 0.1, 1.0, 0.1], [0.1, 0.0, 1.0, 1.0]
    assert quadratic_weighted_kappa(first, second, categories=grid) != pytest.approx(
        quadratic_weighted_kappa(first, second)
    )
    # Float noise still lands on the grid; a value off the grid is an error.
    assert quadratic_weighted_kappa([0.1 + 0.2, 1.0], [0.3, 1.0], categories=grid) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="not one of the categories"):
        quadratic_weighted_kappa([0.35], [0.3], categories=grid)


def brute_force_kappa(x, y, k):
    """κ = 1 − mean_i w(x_i, y_i) / mean_{i,i'} w(x_i, y_i'): the chance term averages the weight over all
    n² pairings of one rater's score with the other's, which is Σ_ab w_ab E_ab written item by item."""
    n = len(x)
    w = lambda a, b: (a - b) ** 2 / (k - 1) ** 2  # noqa: E731
    observed = sum(w(a, b) for a, b in zip(x, y, strict=True)) / n
    chance = sum(w(a, b) for a in x for b in y) / n**2
    return 1 - observed / chance


def test_kappa_against_brute_force_and_sklearn():
    rng = np.random.default_rng(21)
    try:
        from sklearn.metrics import cohen_kappa_score
    except ImportError:
        cohen_kappa_score = None
    for _ in range(25):
        x = rng.integers(0, 11, size=50)
        y = np.clip(x + rng.integers(-3, 4, size=50), 0, 10)
        grid = list(range(11))
        ours = quadratic_weighted_kappa(x.tolist(), y.tolist(), categories=grid)
        assert ours == pytest.approx(brute_force_kappa(x.tolist(), y.tolist(), 11))
        # On the 0.0..1.0 grid the same scores give the same κ.
        assert quadratic_weighted_kappa((x / 10).tolist(), (y / 10).tolist(), categories=score_grid()) == (
            pytest.approx(ours)
        )
        if cohen_kappa_score is not None:
            assert ours == pytest.approx(cohen_kappa_score(x, y, labels=grid, weights="quadratic"))
            assert quadratic_weighted_kappa(x.tolist(), y.tolist()) == pytest.approx(
                cohen_kappa_score(x, y, weights="quadratic")
            )


def test_pearson_and_mae_against_scipy_and_numpy():
    rng = np.random.default_rng(34)
    for _ in range(20):
        x = rng.normal(size=40)
        y = 0.6 * x + rng.normal(size=40)
        assert pearson(x.tolist(), y.tolist()) == pytest.approx(stats.pearsonr(x, y).statistic)
        assert mean_absolute_error(x.tolist(), y.tolist()) == pytest.approx(np.mean(np.abs(x - y)))
    assert math.isnan(pearson([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))


def test_mappings_are_matched_by_item():
    first = {"a": 1.0, "b": 2.0, "c": 3.0, "d": 9.0}
    second = {"c": 3.5, "a": 1.0, "b": 2.5}  # no "d"
    assert mean_absolute_error(first, second) == pytest.approx((0 + 0.5 + 0.5) / 3)
    assert pearson(first, second) == pytest.approx(stats.pearsonr([1, 2, 3], [1.0, 2.5, 3.5]).statistic)
    with pytest.raises(ValueError, match="scored 2 and 3 items"):
        mean_absolute_error([1, 2], [1, 2, 3])
    with pytest.raises(TypeError):
        pearson({"a": 1.0}, [1.0])


def test_pairwise_agreement_covers_every_pair():
    raters = {
        "e1": {"q1": 0.2, "q2": 0.8, "q3": 0.5},
        "e2": {"q1": 0.3, "q2": 0.7, "q3": 0.5},
        "e3": {"q1": 0.1},
    }
    pairs = pairwise_agreement(raters, categories=score_grid())
    assert [(p.first, p.second, p.items) for p in pairs] == [
        ("e1", "e2", 3),
        ("e1", "e3", 1),
        ("e2", "e3", 1),
    ]
    assert pairs[0].mae == pytest.approx(0.2 / 3)
    assert pairs[0].pearson == pytest.approx(stats.pearsonr([0.2, 0.8, 0.5], [0.3, 0.7, 0.5]).statistic)
    assert math.isnan(pairs[1].pearson) and pairs[1].mae == pytest.approx(0.1)
