"""MCQ evaluation: labels and prompts, answer extraction from messy outputs in several languages, the
standard errors (checked against numpy/scipy and a plain-Python reference), option shuffling, and the
position-bias report."""

from __future__ import annotations

import math
import sys
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexsym.answers.choices import extract_choice, option_labels
from lexsym.exams.mcq_prompts import (
    apply_permutation,
    render_mcq_prompt,
    shuffle_permutation,
    to_display,
    to_original,
)
from lexsym.scoring.mcq_samples import McqSample
from lexsym.scoring.position_bias import chi2_sf, chisquare_uniform, position_bias
from lexsym.scoring.standard_errors import bootstrap_se, clustered_se

ABCD = option_labels(4)


# --- labels and prompts -------------------------------------------------------------------------------------


def test_labels_run_past_z_and_can_be_numbers():
    letters = option_labels(32)
    assert letters[:3] == ["A", "B", "C"] and letters[25:28] == ["Z", "AA", "AB"] and letters[-1] == "AF"
    assert option_labels(5, "numbers") == ["1", "2", "3", "4", "5"]
    with pytest.raises(ValueError):
        option_labels(4, "roman")


@pytest.mark.parametrize(
    ("language", "used", "words"),
    [
        ("en", "en", "Options:"),
        ("de", "de", "Optionen:"),
        ("fr", "fr", "Options :"),
        ("it", "it", "Opzioni:"),
        ("German", "de", "Optionen:"),
        ("de-CH", "de", "Optionen:"),
        ("rm", "en", "Options:"),  # Romansh has no template: English, and the record says so
        (None, "en", "Options:"),
    ],
)
def test_mcq_prompt_is_in_the_question_language_with_an_english_fallback(language, used, words):
    prompt, lang = render_mcq_prompt("Q?", ["x", "y", "z", "w"], ABCD, language=language)
    assert lang == used
    assert words in prompt.user
    assert "ANSWER: X" in prompt.system and "A, B, C, D" in prompt.system
    assert prompt.user.index("A. x") < prompt.user.index("D. w")


def test_mcq_prompt_names_a_national_jurisdiction_only():
    swiss, _ = render_mcq_prompt("Q?", ["x", "y"], ["A", "B"], language="de", jurisdiction="Swiss")
    assert "schweizerisches Recht" in swiss.system
    generic, _ = render_mcq_prompt("Q?", ["x", "y"], ["A", "B"], language="en", jurisdiction="International")
    assert "law applies" not in generic.system


# --- extraction ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "label", "method"),
    [
        ("Let me think about each statement.\n\nANSWER: B", "B", "marker"),
        ("ANSWER: A\n\nOn reflection statement ii is wrong.\nANSWER: C", "C", "marker"),
        ("**Answer:** (d)", "D", "marker"),
        ("Final answer: **B**.", "B", "marker"),
        ('FINAL ANSWER: "B"', "B", "marker"),
        ("Answer: Option C", "C", "marker"),
        ("The reasoning is done. $\\boxed{C}$", "C", "marker"),
        ("Die Aussagen i und iii sind richtig.\nAntwort: C", "C", "marker"),
        ("Lösung: B", "B", "marker"),
        ("Les affirmations i et ii sont exactes.\nRéponse : B", "B", "marker"),
        ("Risposta: A", "A", "marker"),
        ("정답: D", "D", "marker"),
        ("Thus the answer is (B).", "B", "phrase"),
        ("Answer: the answer is B", "B", "phrase"),
        ("Die richtige Antwort ist D.", "D", "phrase"),
        ("La bonne réponse est C.", "C", "phrase"),
        ("La risposta corretta è A", "A", "phrase"),
        ("따라서 정답은 C입니다.", "C", "phrase"),
        ("Statement i is right, ii is wrong.\n\n**C**", "C", "last-line"),
        ("Hence:\n(B)", "B", "last-line"),
        ("<think>ANSWER: A ... no, wait</think>\nANSWER: B", "B", "marker"),
    ],
)
def test_extraction_reads_the_last_marker_with_multilingual_fallbacks(output, label, method):
    extraction = extract_choice(output, ABCD)
    assert (extraction.label, extraction.method) == (label, method), extraction
    assert extraction.ok and extraction.error is None


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ("", "empty output"),
        (None, "empty output"),
        ("   \n  ", "empty output"),
        ("I am not sure which statements are right.", "no answer marker"),
        ("answer: a combination of factors decides", "answer marker without a valid option label"),
        ("ANSWER: E", "answer marker without a valid option label"),  # not an option of this question
        ("ANSWER: B or C", "several options named after the answer marker"),
        ("ANSWER: B, D", "several options named after the answer marker"),
        ("<think>statement i is right, so ANSWER: A", "unfinished reasoning"),
        ("The last line is prose about b", "no answer marker"),
    ],
)
def test_extraction_failures_are_reported_not_guessed(output, error):
    extraction = extract_choice(output, ABCD)
    assert extraction.label is None and not extraction.ok
    assert extraction.method == "none"
    assert error in (extraction.error or "")


def test_extraction_prefers_longer_labels_and_respects_word_boundaries():
    assert extract_choice("ANSWER: AB", option_labels(32)).label == "AB"
    assert extract_choice("ANSWER: 12", option_labels(16, "numbers")).label == "12"
    assert extract_choice("ANSWER: 1", option_labels(16, "numbers")).label == "1"
    assert extract_choice("Answer: Because B fits", ABCD).label is None  # "Because" is not B
    assert extract_choice("정답은 (3)번입니다", option_labels(5, "numbers")).label == "3"


def test_an_option_text_after_the_marker_counts():
    options = ["ii", "i and iii", "iii", "i"]
    extraction = extract_choice("ANSWER: i and iii.", ABCD, options=options)
    assert (extraction.label, extraction.method) == ("B", "option-text")
    assert extract_choice("ANSWER: iv", ABCD, options=options).label is None
    # with 9+ options "I" is a label too: lower-case "i" is the option text, upper-case "I" the label
    labels = option_labels(12)
    texts = ["i", "ii", "iii", "i and ii", "i and iii", "ii and iii", "iv", "v", "vi", "vii", "viii", "ix"]
    assert extract_choice("ANSWER: i", labels, options=texts).label == "A"
    assert extract_choice("ANSWER: I", labels, options=texts).label == "I"


# --- standard errors ----------------------------------------------------------------------------------------


def reference_clustered_se(values, clusters) -> float:
    """The cluster-robust SE of a mean written out with plain Python (no numpy, no statsmodels)."""
    n = len(values)
    mean = sum(values) / n
    sums: dict[object, float] = defaultdict(float)
    for x, g in zip(values, clusters, strict=True):
        sums[g] += x - mean
    groups = len(sums)
    return math.sqrt(groups / (groups - 1) * sum(s * s for s in sums.values())) / n


def sandwich_se(values, clusters) -> float:
    """The same SE as the sandwich (X'X)^-1 (sum_g X_g'e_g e_g'X_g) (X'X)^-1 of an intercept-only OLS,
    with the CR1 factor G/(G-1) * (n-1)/(n-k), k = 1 - computed with numpy linear algebra."""
    y = np.asarray(values, dtype=float)
    x = np.ones((len(y), 1))
    beta = np.linalg.solve(x.T @ x, x.T @ y)
    residuals = y - x @ beta
    labels = np.asarray(clusters)
    meat = np.zeros((1, 1))
    for g in np.unique(labels):
        score = x[labels == g].T @ residuals[labels == g]
        meat += np.outer(score, score)
    bread = np.linalg.inv(x.T @ x)
    groups, n, k = len(np.unique(labels)), len(y), 1
    factor = groups / (groups - 1) * (n - 1) / (n - k)
    return float(np.sqrt((bread @ meat @ bread)[0, 0] * factor))


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_clustered_se_matches_a_plain_python_reference_and_the_ols_sandwich(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 400))
    groups = int(rng.integers(2, 25))
    clusters = [f"course-{int(c)}" for c in rng.integers(0, groups, size=n)]
    if len(set(clusters)) < 2:
        clusters[0], clusters[1] = "a", "b"
    # correlated within cluster: a cluster effect on the chance of a right answer
    effect = {c: rng.normal(0, 0.2) for c in set(clusters)}
    values = [float(rng.random() < min(1, max(0, 0.55 + effect[c]))) for c in clusters]
    got = clustered_se(values, clusters)
    assert got == pytest.approx(reference_clustered_se(values, clusters), rel=1e-12)
    assert got == pytest.approx(sandwich_se(values, clusters), rel=1e-10)


@pytest.mark.parametrize("seed", [0, 7, 42])
def test_clustered_se_with_singleton_clusters_is_the_textbook_se(seed):
    stats = pytest.importorskip("scipy.stats")
    values = np.random.default_rng(seed).random(200) < 0.6
    got = clustered_se(values.astype(float), list(range(200)))
    assert got == pytest.approx(float(stats.sem(values.astype(float))), rel=1e-12)


def test_clustered_se_is_undefined_with_one_cluster_and_checks_lengths():
    assert clustered_se([1.0, 0.0, 1.0], ["a", "a", "a"]) is None
    assert clustered_se([], []) is None
    with pytest.raises(ValueError):
        clustered_se([1.0, 0.0], ["a"])


@pytest.mark.parametrize("seed", [0, 3, 11])
def test_bootstrap_se_is_the_sd_of_bootstrap_means_not_their_variance(seed):
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(100 + seed)
    values = (rng.random(500) < 0.4).astype(float)
    se = bootstrap_se(values, resamples=2000, seed=seed)
    # the definition, with the same generator stream
    draws = np.random.default_rng(seed).integers(0, len(values), size=(2000, len(values)))
    means = values[draws].mean(axis=1)
    assert se == pytest.approx(float(np.std(means, ddof=1)), rel=1e-12)
    # close to the analytic SE s/sqrt(n), and far from the variance LEXam's script prints as "SE"
    assert se == pytest.approx(float(stats.sem(values)), rel=0.1)
    variance = float(np.var(means, ddof=1))
    assert variance < se / 10


def test_bootstrap_se_is_seeded():
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0]
    assert bootstrap_se(values, seed=5) == bootstrap_se(values, seed=5)
    assert bootstrap_se(values, seed=5) != bootstrap_se(values, seed=6)
    assert bootstrap_se([], seed=0) is None and bootstrap_se([1.0], seed=0) == 0.0


# --- shuffling ----------------------------------------------------------------------------------------------


@given(st.integers(2, 32), st.integers(0, 2**31), st.text(min_size=1, max_size=20))
def test_shuffling_round_trips(n, seed, key):
    options = [f"option {i}" for i in range(n)]
    permutation = shuffle_permutation(n, seed, key)
    assert sorted(permutation) == list(range(n))
    assert permutation == shuffle_permutation(n, seed, key), "the same seed and item give the same order"
    shown = apply_permutation(options, permutation)
    for display, text in enumerate(shown):
        original = to_original(display, permutation)
        assert options[original] == text
        assert to_display(original, permutation) == display


def test_shuffling_depends_on_the_seed_and_item_not_on_other_items():
    orders = {tuple(shuffle_permutation(8, seed, "item-1")) for seed in range(30)}
    assert len(orders) > 20
    assert shuffle_permutation(8, 3, "item-1") != shuffle_permutation(8, 3, "item-2")
    with pytest.raises(ValueError):
        apply_permutation(["a", "b"], [0, 0])


# --- position bias ------------------------------------------------------------------------------------------


def sample(i: int, gold: int, predicted: int | None, k: int = 4) -> McqSample:
    labels = option_labels(k)
    return McqSample(
        id=f"q{i}",
        variant="v",
        gold=labels[gold],
        predicted=labels[predicted] if predicted is not None else None,
        correct=predicted == gold,
        extracted=predicted is not None,
        method="marker" if predicted is not None else "none",
        n_choices=k,
        gold_position=gold,
        predicted_position=predicted,
        cluster=f"item:q{i}",
    )


def test_position_bias_of_a_model_that_always_answers_a():
    stats = pytest.importorskip("scipy.stats")
    samples = [sample(i, gold=i % 4, predicted=0) for i in range(40)]
    samples.append(sample(40, gold=1, predicted=None))  # a failure: left out of the predicted positions
    (report,) = position_bias(samples)
    assert report.k == 4 and report.n == 41 and report.extracted == 40
    cells = {c.label: c for c in report.positions}
    assert cells["A"].gold_accuracy == 1.0 and cells["B"].gold_accuracy == 0.0
    assert cells["B"].gold_count == 11  # ten answered plus the failure
    assert cells["A"].predicted_rate == 1.0 and cells["C"].predicted_rate == 0.0
    assert cells["A"].predicted_precision == 0.25 and cells["C"].predicted_precision is None
    expected = stats.chisquare([40, 0, 0, 0])
    assert report.chi2 == pytest.approx(float(expected.statistic)) == pytest.approx(120.0)
    assert report.p_value == pytest.approx(float(expected.pvalue)) and report.p_value < 1e-20
    assert report.dof == 3 and report.min_expected == 10.0


def test_position_bias_of_a_uniform_model_is_not_significant_and_groups_by_k():
    samples = [sample(i, gold=i % 4, predicted=(i * 3) % 4) for i in range(80)]
    samples += [sample(100 + i, gold=i % 8, predicted=i % 8, k=8) for i in range(16)]
    reports = position_bias(samples)
    assert [r.k for r in reports] == [4, 8]
    assert reports[0].chi2 == pytest.approx(0.0) and reports[0].p_value == pytest.approx(1.0)
    assert reports[0].gold_chi2 == pytest.approx(0.0)
    assert all(c.predicted_precision == 1.0 for c in reports[1].positions)


def test_the_chi_square_p_value_without_scipy_matches_scipy(monkeypatch):
    stats = pytest.importorskip("scipy.stats")
    for dof in (1, 2, 3, 4, 7, 15, 31):
        for x in (0.0, 0.5, 3.0, 12.0, 45.0):
            assert chi2_sf(x, dof) == pytest.approx(float(stats.chi2.sf(x, dof)), rel=1e-9, abs=1e-15)
    counts = [9, 3, 5, 1, 2, 4, 0, 8]
    with_scipy = chisquare_uniform(counts)
    monkeypatch.setitem(sys.modules, "scipy.stats", None)  # as if scipy were not installed
    without = chisquare_uniform(counts)
    assert without[0] == pytest.approx(with_scipy[0]) and without[1] == pytest.approx(with_scipy[1], rel=1e-9)
    assert chisquare_uniform([0, 0, 0]) == (None, None)
