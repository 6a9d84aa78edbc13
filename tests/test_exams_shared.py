"""Cross-checks against the LEXam excerpts in ../shared/reference/lexam (read there, never copied): the
loaders take the published field shapes, and our option texts are LEXam's, subset for subset."""

from __future__ import annotations

import re

import pytest

from lexsym.exams.datasets import load_exam
from lexsym.exams.statements import NONE_TEXT, roman, subset_text
from lexsym.exams.tasks import exam_records

pytestmark = pytest.mark.shared

_ROMAN = {roman(i): i - 1 for i in range(1, 11)}


def parse_option(text: str) -> frozenset[int] | None:
    """The statement subset an option names ("i, ii, and iv" -> {0, 1, 3}); None for the empty set."""
    if text in NONE_TEXT.values():
        return frozenset()
    names = [n for n in re.split(r",\s*|\s+(?:and|und|et|e)\s+|\s+", text) if n and n not in ("and", "und")]
    return frozenset(_ROMAN[n] for n in names)


def test_lexam_mcqs_load_and_our_option_texts_are_lexams(shared):
    reference = shared / "reference" / "lexam"
    loaded = load_exam(reference / "mcq_4_choices_24.jsonl", "lexam-mcq")
    assert len(loaded.items) == 24
    robustness = load_exam(reference / "mcq_perturbation_6.jsonl", "lexam-mcq")
    assert len(robustness.items) == 24 and {i.item.choice_set for i in robustness.items} == {4, 8, 16, 32}
    for entry in [*loaded.items, *robustness.items]:
        item = entry.item
        for text in item.choices:
            assert subset_text(parse_option(text), item.language or "en") == text
        if item.none_as_an_option is not None:
            assert item.none_as_an_option == any(c in NONE_TEXT.values() for c in item.choices)
    records = exam_records(robustness)
    by_question: dict[str, set[str]] = {}
    for record in records:
        by_question.setdefault(record["reference"]["question"], set()).add(record["reference"]["gold_text"])
    assert all(len(golds) == 1 for golds in by_question.values()), "LEXam keeps the gold subset across k"


def test_lexam_open_questions_load(shared):
    for name, count in (("open_questions_12.jsonl", 12), ("open_questions_dev_6.jsonl", 6)):
        loaded = load_exam(shared / "reference" / "lexam" / name, "lexam-open")
        assert len(loaded.items) == count
        records = exam_records(loaded)
        assert all(r["task"] == "OPEN" and r["gold"]["reference"] for r in records)
        assert {r["metadata"]["prompt_language"] for r in records} <= {"en", "de"}
