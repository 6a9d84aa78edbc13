"""The metric definitions of `lexsym.scoring.metrics`, each against numbers worked out by hand.

Where a definition departs from OpenExempt's evaluator (empty-empty scores 1/1/1; format failures count in
OE precision), a test says so, so that a change back to their behaviour fails here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lexsym.scoring import metrics
from lexsym.scoring.metrics import (
    PRF,
    ScheduleOutcome,
    amounts_score,
    asset_mean_amounts,
    asset_mean_prf,
    bootstrap_se,
    bootstrap_ses,
    non_exempt_score,
    oe_score,
    prf_from_counts,
    relative_error,
    set_prf,
    within_tolerance,
)


def close(prf: PRF, precision: float, recall: float, f1: float) -> bool:
    return (
        math.isclose(prf.precision, precision)
        and math.isclose(prf.recall, recall)
        and math.isclose(prf.f1, f1)
    )


# --- precision, recall, F1 -------------------------------------------------------------------------------


def test_counts_give_precision_recall_and_their_harmonic_mean():
    assert close(prf_from_counts(2, 1, 1), 2 / 3, 2 / 3, 2 / 3)
    # P = 1/4, R = 1/2, F1 = 2 * (1/8) / (3/4) = 1/3
    assert close(prf_from_counts(1, 3, 1), 0.25, 0.5, 1 / 3)
    assert close(prf_from_counts(0, 2, 3), 0, 0, 0)


def test_ae_set_overlap_by_hand():
    # Gold {WI}; the answer adds Federal: tp 1, fp 1, fn 0.
    assert close(set_prf({"WI", "US"}, {"WI"}), 0.5, 1.0, 2 / 3)
    # Gold {WI, US}; the answer names only Federal: tp 1, fp 0, fn 1.
    assert close(set_prf(["US"], ["WI", "US"]), 1.0, 0.5, 2 / 3)
    # Duplicates in a prediction count once.
    assert close(set_prf(["US", "US"], ["US"]), 1, 1, 1)


def test_an_empty_answer_to_an_empty_gold_set_is_right():
    # OpenExempt scores this 0/0/0 (tp = fp = fn = 0); a correct "no exemption applies" is right.
    assert set_prf([], []) == PRF(1.0, 1.0, 1.0)
    assert prf_from_counts(0, 0, 0) == PRF(1.0, 1.0, 1.0)
    # Only the empty-empty case: saying nothing when something applies, or the reverse, is wrong.
    assert set_prf([], ["11 U.S.C. § 522(d)(5)"]) == PRF(0.0, 0.0, 0.0)
    assert set_prf(["11 U.S.C. § 522(d)(5)"], []) == PRF(0.0, 0.0, 0.0)


def test_ec_sample_is_the_mean_over_gold_assets():
    gold = {"car": {"d2", "d5"}, "lamp": set(), "ring": {"d4"}}
    predicted = {"car": {"d2"}, "lamp": set()}  # the ring is not answered
    # car: P 1, R 1/2, F1 2/3; lamp: empty-empty 1/1/1; ring: unmatched, 0/0/0.
    score = asset_mean_prf(predicted, gold)
    assert close(score.prf, (1 + 1 + 0) / 3, (0.5 + 1 + 0) / 3, (2 / 3 + 1 + 0) / 3)
    assert score.mare is None


def test_ec_unmatched_gold_asset_scores_zero_even_when_its_gold_is_empty():
    # The prompt asks for every asset; leaving out one that has no exemption is still leaving it out.
    score = asset_mean_prf({"car": {"d2"}}, {"car": {"d2"}, "lamp": set()})
    assert close(score.prf, 0.5, 0.5, 0.5)


def test_ec_extra_predicted_assets_are_ignored_and_a_format_failure_is_zero():
    assert close(asset_mean_prf({"car": {"d2"}, "boat": {"d5"}}, {"car": {"d2"}}).prf, 1, 1, 1)
    assert asset_mean_prf(None, {"car": {"d2"}}).prf == PRF(0.0, 0.0, 0.0)


# --- tolerance and relative error --------------------------------------------------------------------------


def test_relative_error_is_openexempt_definition():
    assert relative_error(100, 100) == 0.0  # equal amounts: exactly 0
    assert math.isclose(relative_error(105, 100), 4 / 101)  # |105/101 - 1|
    assert math.isclose(relative_error(95, 100), 6 / 101)  # |95/101 - 1|: the ε makes low answers worse
    assert math.isclose(relative_error(3, 0), 2.0)  # gold 0: about the absolute error, |3/1 - 1|
    assert relative_error(0, 0) == 0.0
    assert relative_error(1, 0) == 0.0  # the ε's quirk: one dollar over a gold 0 is "exact"


def test_within_tolerance_is_strictly_below_five_percent():
    assert within_tolerance(105, 100)  # 0.0396
    assert within_tolerance(106, 100)  # 5/101 = 0.0495
    assert not within_tolerance(107, 100)  # 6/101 = 0.0594
    assert within_tolerance(96, 100)  # 5/101
    assert not within_tolerance(95, 100)  # 6/101
    assert metrics.TOLERANCE == 0.05 and metrics.EPSILON == 1.0


# --- EV claims and NA totals ------------------------------------------------------------------------------


def test_ev_claims_matched_by_citation_with_mare():
    gold = [("d5", 1000), ("d3", 4000)]
    predicted = [("d5", 1040), ("d3", 5000), ("d9", 10)]
    score = amounts_score(predicted, gold)
    # d5: |1040/1001 - 1| = 39/1001 < 0.05, a true positive; d3: 999/4001 = 0.2497, a false positive whose
    # error still counts in MARE; d9 matches no gold citation: a false positive without an error.
    # tp 1, fp 2, fn 1 (d3): P 1/3, R 1/2, F1 (2 * 1/6) / (5/6) = 0.4.
    assert close(score.prf, 1 / 3, 0.5, 0.4)
    assert score.errors == pytest.approx((39 / 1001, 999 / 4001))
    assert score.mare == pytest.approx((39 / 1001 + 999 / 4001) / 2)


def test_ev_repeated_citation_matches_once_and_a_wrong_amount_does_not_use_up_the_gold():
    assert close(amounts_score([("d5", 1000), ("d5", 1000)], [("d5", 1000)]).prf, 0.5, 1.0, 2 / 3)
    score = amounts_score([("d5", 2000), ("d5", 1000)], [("d5", 1000)])
    assert close(score.prf, 0.5, 1.0, 2 / 3)
    assert score.errors == pytest.approx((999 / 1001, 0.0))


def test_ev_unreadable_amount_is_a_false_positive_without_an_error():
    score = amounts_score([("d5", None)], [("d5", 1000)])
    assert score.prf == PRF(0.0, 0.0, 0.0) and score.mare is None


def test_ev_sample_averages_assets_and_nests_mare_per_asset():
    gold = {"car": [("c1", 99), ("c2", 99)], "lamp": [("c1", 99)], "ring": []}
    predicted = {"car": [("c1", 110), ("c2", 130)], "lamp": [("c1", 99)], "ring": []}
    score = asset_mean_amounts(predicted, gold)
    # car: errors 110/100 - 1 = 0.1 and 0.3, both out of tolerance: 0/0/0, asset MARE 0.2;
    # lamp: exact, 1/1/1, MARE 0; ring: empty-empty, 1/1/1, no MARE. Sample: 2/3 each; MARE (0.2 + 0) / 2.
    assert close(score.prf, 2 / 3, 2 / 3, 2 / 3)
    assert score.mare == pytest.approx(0.1)
    assert asset_mean_amounts(None, gold) == metrics.SampleScore(PRF(0.0, 0.0, 0.0), None)
    assert asset_mean_amounts({}, gold).prf == PRF(0.0, 0.0, 0.0)  # no asset answered


def test_na_totals_by_jurisdiction():
    gold = {"US": 0, "WI": 8190}
    predicted = {"US": 0, "WI": 8500, "OR": 10}
    score = non_exempt_score(predicted, gold)
    # US exact; WI |8500/8191 - 1| = 309/8191 = 0.0377, within; OR not allowable: fp. P 2/3, R 1, F1 0.8.
    assert close(score.prf, 2 / 3, 1.0, 0.8)
    assert score.mare == pytest.approx((0 + 309 / 8191) / 2)
    missed = non_exempt_score({"US": 50}, gold)  # |50/1 - 1| = 49: fp; both gold totals missed
    assert missed.prf == PRF(0.0, 0.0, 0.0) and missed.mare == pytest.approx(49.0)
    assert non_exempt_score(None, gold) == metrics.SampleScore(PRF(0.0, 0.0, 0.0), None)


def test_an_error_of_exactly_five_percent_is_not_within_tolerance_anywhere():
    """Issue 18: the strict boundary, pinned in exact arithmetic (floats put 5 % on either side)."""
    assert not within_tolerance(105, 99) and not within_tolerance(95, 99)  # |105/100 - 1| = 1/20 exactly
    assert not within_tolerance(2100, 1999) and not within_tolerance(1900, 1999)
    assert within_tolerance(104.99, 99) and within_tolerance(95.01, 99)
    assert not within_tolerance(float("nan"), 99) and not within_tolerance(float("inf"), 99)
    at, inside = amounts_score([("d5", 105)], [("d5", 99)]), amounts_score([("d5", 104)], [("d5", 99)])
    assert at.prf == PRF(0.0, 0.0, 0.0) and inside.prf == PRF(1.0, 1.0, 1.0)
    on_the_line = oe_score(outcome(non_exempt=2100, optimal_non_exempt=1999, gap=101, gap_percent=1.0))
    assert on_the_line.valid and not on_the_line.within_tolerance


def test_a_case_without_assets_is_right_only_for_an_answer_without_assets():
    """Issue 18: no gold assets and a non-empty answer must not score as perfect (EC and EV)."""
    assert asset_mean_prf({}, {}).prf == PRF(1.0, 1.0, 1.0)
    assert asset_mean_prf({"a boat": ["11 U.S.C. § 522(d)(5)"]}, {}).prf == PRF(0.0, 0.0, 0.0)
    assert asset_mean_amounts({}, {}).prf == PRF(1.0, 1.0, 1.0)
    assert asset_mean_amounts({"a boat": [("11 U.S.C. § 522(d)(5)", 100)]}, {}).prf == PRF(0.0, 0.0, 0.0)


# --- OE ------------------------------------------------------------------------------------------------


def outcome(**fields) -> ScheduleOutcome:
    base = dict(
        valid=True, non_exempt=1000, optimal_non_exempt=1000, gap=0, gap_percent=0.0, beats_optimum=False
    )
    return ScheduleOutcome(**{**base, **fields})


def test_oe_valid_and_optimal_is_correct():
    score = oe_score(outcome())
    assert score.correct and score.valid and score.within_tolerance
    assert score.prf == PRF(1.0, 1.0, 1.0) and score.mare == 0.0 and score.gap_percent == 0.0


def test_oe_valid_but_short_of_the_optimum_can_be_within_tolerance():
    # 1040 left non-exempt against 1000: |1040/1001 - 1| = 39/1001 < 0.05: OpenExempt's "correct", not ours.
    score = oe_score(outcome(non_exempt=1040, gap=40, gap_percent=2.5))
    assert not score.correct and score.valid and score.within_tolerance
    assert score.mare == pytest.approx(39 / 1001) and score.gap_percent == 2.5
    far = oe_score(outcome(non_exempt=2000, gap=1000, gap_percent=50.0))
    assert not far.within_tolerance and far.prf == PRF(0.0, 0.0, 0.0)


def test_oe_invalid_schedule_is_wrong_with_its_violations_and_no_gap():
    score = oe_score(outcome(valid=False, violations=("exceeds_value", "aggregate_exceeded")))
    assert not (score.correct or score.valid or score.within_tolerance)
    assert score.gap_percent is None and score.mare is None
    assert score.violations == ("exceeds_value", "aggregate_exceeded")


def test_oe_format_failure_is_wrong_on_every_count():
    score = oe_score(None)
    assert score.prf == PRF(0.0, 0.0, 0.0) and not score.valid and score.violations == ()


def test_oe_precision_counts_format_failures():
    # One optimal answer and one format failure: precision 1/2. OpenExempt puts the failure only in fn,
    # which gives precision 1/1.
    scores = [oe_score(outcome()), oe_score(None)]
    assert metrics.mean_defined(s.prf.precision for s in scores) == 0.5


def test_oe_beating_the_optimum_is_flagged_and_not_credited():
    # Either the solver's optimum or the checker's verdict is wrong; neither earns the model credit.
    score = oe_score(outcome(non_exempt=990, gap=-10, gap_percent=-1.0, beats_optimum=True))
    assert score.beats_optimum and score.valid
    assert not score.correct and not score.within_tolerance
    assert score.gap_percent is None and score.mare is None


# --- rates, means, violation counts -----------------------------------------------------------------------


def test_rates_and_means_leave_undefined_values_out():
    assert metrics.rate([True, False, True, True]) == 0.75
    assert metrics.rate([]) is None
    assert metrics.mean_defined([0.1, None, 0.3]) == pytest.approx(0.2)
    assert metrics.mean_defined([None]) is None


def test_violations_count_answers_not_occurrences():
    counts = metrics.ViolationCounts()
    counts.add(["exceeds_value", "exceeds_value", "not_eligible"])
    counts.add(["exceeds_value"])
    assert counts.counts == {"exceeds_value": 2, "not_eligible": 1}


# --- bootstrap standard error -----------------------------------------------------------------------------


def test_bootstrap_se_is_the_sd_of_resampled_means():
    values = np.array([0.0, 1.0, 1.0, 0.5, 0.25, 1.0, 0.0])
    rng = np.random.default_rng(7)
    means = values[rng.integers(0, len(values), size=(300, len(values)))].mean(axis=1)
    assert bootstrap_se(values, resamples=300, seed=7) == pytest.approx(float(means.std(ddof=1)))


def test_bootstrap_se_is_reproducible_and_depends_on_the_seed():
    values = [float(i % 3) for i in range(50)]
    assert bootstrap_se(values) == bootstrap_se(values)
    assert bootstrap_se(values, seed=0) == bootstrap_se(values, seed=0, resamples=metrics.RESAMPLES)
    assert bootstrap_se(values, seed=1) != bootstrap_se(values, seed=0)


def test_bootstrap_se_is_a_standard_error_not_a_variance():
    # 100 values, half 0 and half 1: population variance 1/4, so the SE of the mean is sqrt(1/4 / 100) =
    # 0.05 (a variance would be 0.0025). With 1,000 resamples the estimate is within a few percent.
    values = [0.0, 1.0] * 50
    se = bootstrap_se(values, resamples=1000, seed=0)
    assert se == pytest.approx(0.05, rel=0.1)
    assert bootstrap_se([0.0, 1.0] * 200) == pytest.approx(0.025, rel=0.1)  # four times n: half the SE


def test_bootstrap_se_edge_cases():
    assert bootstrap_se([]) is None
    assert bootstrap_se([0.7]) == 0.0
    assert bootstrap_se([0.3] * 20) == pytest.approx(0.0, abs=1e-12)  # up to rounding of the means


def test_bootstrap_ses_share_draws_and_match_bootstrap_se_per_column():
    rng = np.random.default_rng(3)
    columns = rng.random((40, 3))
    ses = bootstrap_ses(columns, resamples=200, seed=5)
    assert ses == [pytest.approx(bootstrap_se(columns[:, k], resamples=200, seed=5)) for k in range(3)]


def test_bootstrap_draws_in_chunks_give_the_same_result_as_one_draw():
    # n large enough that the draw is split into chunks of rows (1e6 // n = 166 rows at a time).
    values = np.random.default_rng(1).random(6000)
    rng = np.random.default_rng(0)
    means = values[rng.integers(0, 6000, size=(400, 6000))].mean(axis=1)
    assert bootstrap_se(values, resamples=400) == pytest.approx(float(means.std(ddof=1)), rel=1e-12)


# --- issue 18 (second sweep): survivors of the mutation sweep of lexsym/scoring/metrics.py ----------------


def test_the_mean_of_no_scores_is_zero():
    """A group with no samples answered nothing right: 0/0/0, not an error and not None (PRF.mean)."""
    assert PRF.mean([]) == PRF(0.0, 0.0, 0.0) == metrics.ZERO


def test_oe_a_schedule_one_dollar_better_than_the_optimum_beats_it():
    """Any negative gap, even -$1, means the checker or the solver is wrong: flagged, never credited
    (oe_score: gap < 0)."""
    score = oe_score(outcome(non_exempt=999, gap=-1, gap_percent=-0.1))
    assert score.beats_optimum and score.valid
    assert not score.correct and not score.within_tolerance


def test_bootstrap_defaults_are_1000_resamples_and_seed_0():
    """The documented defaults (module docstring: "1,000 resamples, seed 0"): reports state them, so a
    changed default would silently change every published standard error."""
    values = [float(i % 7) for i in range(40)]
    assert bootstrap_se(values) == bootstrap_se(values, resamples=1000, seed=0)
    assert metrics.bootstrap_median_se(values) == metrics.bootstrap_median_se(values, resamples=1000, seed=0)


def test_two_resamples_are_enough_for_a_bootstrap_standard_error():
    """Two resampled means (or medians) have a standard deviation; fewer do not (resamples < 2 is None)."""
    values = [0.0, 1.0, 2.0, 3.0, 4.0]
    for se in (bootstrap_se, metrics.bootstrap_median_se):
        assert se(values, resamples=1) is None
        two = se(values, resamples=2, seed=3)
        assert two is not None and two >= 0.0


def test_bootstrap_median_se_is_the_sd_of_resampled_medians():
    """As for the mean: the sample standard deviation (ddof=1) of the medians of `resamples` draws of n
    values with replacement, from numpy's default_rng(seed)."""
    values = np.array([0.0, 1.0, 1.0, 0.5, 0.25, 1.0, 0.0, 900.0])
    rng = np.random.default_rng(7)
    medians = np.median(values[rng.integers(0, len(values), size=(300, len(values)))], axis=1)
    expected = float(medians.std(ddof=1))
    assert metrics.bootstrap_median_se(values, resamples=300, seed=7) == pytest.approx(expected, rel=1e-12)


def test_bootstrap_median_se_of_two_values_and_of_over_a_million():
    """Two different values have a spread of resampled medians (only one value has none); and more than a
    million values are drawn one row at a time (chunks of max(1, 1_000_000 // n) rows) without error."""
    assert metrics.bootstrap_median_se([0.0, 1.0]) > 0.0
    many = np.zeros(1_000_001)
    assert metrics.bootstrap_median_se(many, resamples=2) == 0.0
