"""The k-choice versions of one question: a stem, the numbered statements, and options that are subsets of
them, built by the construction LEXam uses (`lexsym.exams.statements`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lexsym.answers.choices import option_labels
from lexsym.exams.generated.wording import Statement
from lexsym.exams.statements import build_versions, statement_question

STEM = {
    False: "Consider the following statements about this case, under the statutes above. Which of them are "
    "correct?",
    True: "Consider the following statements about this case, under the statutes above. Which of them are "
    "incorrect?",
}


@dataclass(frozen=True)
class Option:
    label: str
    statements: tuple[int, ...]  # 1-based statement numbers, ascending; () is "none of the statements"
    text: str


@dataclass(frozen=True)
class Question:
    stem: str
    negated: bool
    statements: tuple[Statement, ...]
    options: tuple[Option, ...]
    gold: str

    @property
    def text(self) -> str:
        """The stem, then the statements numbered "i.", "ii.", … (as LEXam prints them)."""
        return statement_question(self.stem, [s.text for s in self.statements])

    @property
    def gold_statements(self) -> tuple[int, ...]:
        """The numbers of the statements the stem asks for: the true ones, or the false ones if negated."""
        return tuple(n for n, s in enumerate(self.statements, start=1) if s.truth != self.negated)


def build_questions(
    statements: Sequence[Statement],
    ks: Sequence[int],
    *,
    negated: bool,
    seed: str,
    allow_none: bool = True,
    nested: bool = False,
) -> dict[int, Question]:
    """The k-choice versions of one question over the numbered `statements`, one per k in `ks`, built by
    `lexsym.exams.statements.build_versions` (seeded by `seed`; the gold subset is the same in every one)."""
    versions = build_versions(
        [s.truth for s in statements], ks, negated=negated, seed=seed, allow_none=allow_none, nested=nested
    )
    questions = {}
    for k in ks:
        version = versions[k]
        options = tuple(
            Option(label, tuple(sorted(i + 1 for i in subset)), text)
            for label, subset, text in zip(option_labels(k), version.subsets, version.texts, strict=True)
        )
        questions[k] = Question(
            STEM[negated], negated, tuple(statements), options, options[version.gold_index].label
        )
    return questions
