"""LEXam's k-choice construction from numbered statements: the properties every version must have, the
option texts, and the error when n statements cannot give k distinct options."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lexsym.exams.statements import (
    K_CHOICES,
    NONE_TEXT,
    StatementsError,
    build_choices,
    build_versions,
    gold_subset,
    lexam_item,
    roman,
    statement_question,
    subset_text,
)


@st.composite
def questions(draw, min_n: int = 1, max_n: int = 7):
    """A truth assignment of n statements, a stem polarity, a seed and a language."""
    truth = draw(st.lists(st.booleans(), min_size=min_n, max_size=max_n))
    return (
        truth,
        draw(st.booleans()),
        draw(st.integers(0, 2**31)),
        draw(st.sampled_from(["en", "de", "fr", "it"])),
        draw(st.booleans()),
    )


def _enough(truth: list[bool], negated: bool, allow_none: bool, k: int) -> bool:
    total = 2 ** len(truth)
    gold = gold_subset(truth, negated=negated)
    return (total if allow_none or not gold else total - 1) >= k


@settings(max_examples=150)
@given(questions(), st.sampled_from(K_CHOICES), st.booleans())
def test_every_version_has_distinct_subsets_the_gold_and_none_exactly_when_offered(question, k, nested):
    truth, negated, seed, language, allow_none = question
    if not _enough(truth, negated, allow_none, k):
        with pytest.raises(StatementsError, match="fewer than the"):
            build_versions(truth, (k,), negated=negated, seed=seed, language=language, allow_none=allow_none)
        return
    version = build_versions(
        truth, (k,), negated=negated, seed=seed, language=language, allow_none=allow_none, nested=nested
    )[k]
    assert len(version.subsets) == k == len(version.texts)
    assert len(set(version.subsets)) == k, "options must be distinct subsets"
    assert len(set(version.texts)) == k, "distinct subsets must read differently"
    assert all(i < len(truth) for subset in version.subsets for i in subset)
    assert version.gold == gold_subset(truth, negated=negated)
    assert version.subsets.count(version.gold) == 1
    none = NONE_TEXT[language]
    assert (none in version.texts) == (frozenset() in version.subsets)
    if none in version.texts:
        assert version.subsets[version.texts.index(none)] == frozenset()
    if not allow_none and version.gold:
        assert none not in version.texts


@settings(max_examples=100)
@given(questions(min_n=5, max_n=8), st.booleans())
def test_the_same_gold_subset_is_in_the_4_8_16_and_32_choice_versions(question, nested):
    truth, negated, seed, language, allow_none = question
    if not _enough(truth, negated, allow_none, 32):
        return
    versions = build_versions(
        truth, K_CHOICES, negated=negated, seed=seed, language=language, allow_none=allow_none, nested=nested
    )
    assert sorted(versions) == list(K_CHOICES)
    golds = {v.gold for v in versions.values()}
    assert golds == {gold_subset(truth, negated=negated)}
    assert len({v.texts[v.gold_index] for v in versions.values()}) == 1
    if nested:
        for small, large in itertools.pairwise(K_CHOICES):
            assert set(versions[small].subsets) <= set(versions[large].subsets)


@given(st.integers(1, 6), st.sampled_from(K_CHOICES))
def test_too_few_statements_for_k_choices_is_a_clear_error(n, k):
    truth = [True] * n
    if 2**n >= k:
        assert build_choices(truth, k).k == k
        return
    with pytest.raises(StatementsError) as raised:
        build_choices(truth, k)
    message = str(raised.value)
    assert f"{n} statement(s) give only {2**n} distinct options" in message
    assert f"fewer than the {k} choices" in message


def test_without_none_one_subset_fewer_is_available():
    # 2 statements, gold {i}: 4 subsets, 3 without the empty one
    assert build_choices([True, False], 4, allow_none=True).none_offered
    with pytest.raises(StatementsError, match="without 'none of the statements'"):
        build_choices([True, False], 4, allow_none=False)
    # ... but an empty gold is always offered
    version = build_choices([False, False], 4, allow_none=False)
    assert version.gold == frozenset() and version.texts[version.gold_index] == NONE_TEXT["en"]


def test_a_negated_stem_makes_the_false_statements_the_gold():
    truth = [True, False, True, False]
    assert gold_subset(truth) == {0, 2}
    assert gold_subset(truth, negated=True) == {1, 3}
    version = build_choices(truth, 8, negated=True, seed=3)
    assert version.texts[version.gold_index] == "ii and iv"


def test_the_construction_is_seeded():
    truth = [True, False, True, True, False]
    same = [build_versions(truth, K_CHOICES, seed=11) for _ in range(2)]
    assert same[0] == same[1]
    others = {build_choices(truth, 8, seed=s).texts for s in range(20)}
    assert len(others) > 10, "different seeds should give different distractors and orders"
    positions = {build_choices(truth, 4, seed=s).gold_index for s in range(40)}
    assert positions == {0, 1, 2, 3}, "the gold should land on every position"


@pytest.mark.parametrize(
    ("subset", "language", "text"),
    [
        ({0}, "en", "i"),
        ({0, 2}, "en", "i and iii"),
        ({0, 1, 3}, "en", "i, ii, and iv"),
        ({1, 2, 3, 4}, "de", "ii, iii, iv, und v"),
        ({0, 1, 3}, "fr", "i, ii et iv"),
        ({0, 3}, "it", "i e iv"),
        (set(), "de", "keine der Aussagen"),
        (set(), "xx", "none of the statements"),
    ],
)
def test_option_texts(subset, language, text):
    assert subset_text(subset, language) == text


def test_roman_numerals_and_the_question_text():
    assert [roman(n) for n in (1, 4, 5, 9, 14, 40)] == ["i", "iv", "v", "ix", "xiv", "xl"]
    with pytest.raises(ValueError):
        roman(0)
    assert statement_question("Which are correct?", ["A.", " B. "]) == "Which are correct?\ni. A.\nii. B."


def test_lexam_item_has_the_robustness_set_shape():
    row = lexam_item(
        "q1",
        "Please indicate whether the following statements are correct:",
        [("s1", True), ("s2", False), ("s3", True), ("s4", False), ("s5", True)],
        seed=5,
        extra={"course": "Bankruptcy Law"},
    )
    for k in K_CHOICES:
        assert len(row[f"{k}_choices"]) == k
        assert row[f"{k}_choices"][row[f"{k}_choices_gold"]] == "i, iii, and v"
    assert row["n_statements"] == 5 and row["negative_question"] == 0 and row["course"] == "Bankruptcy Law"
    assert row["question"].endswith("v. s5")


def test_exam_build_cli_writes_robustness_rows_and_names_bad_lines(tmp_path):
    source = tmp_path / "statements.jsonl"
    good = {
        "id": "b1",
        "stem": "Which statements are correct?",
        "statements": [{"text": f"s{i}", "correct": i % 2 == 0} for i in range(5)],
        "course": "Bankruptcy Law",
    }
    source.write_text(json.dumps(good) + "\n", encoding="utf-8")
    out = tmp_path / "built.jsonl"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "lexsym",
            "exam",
            "build",
            str(source),
            "--out",
            str(out),
            "--k",
            "4",
            "--k",
            "8",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    row = json.loads(out.read_text(encoding="utf-8"))
    assert {"4_choices", "8_choices"} <= set(row) and "16_choices" not in row
    assert row["course"] == "Bankruptcy Law"
    bad = dict(good, id="b2", statements=[{"text": "only one", "correct": True}])
    source.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "lexsym", "exam", "build", str(source), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert f"{source}:2: 1 statement(s) give only 2 distinct options" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
