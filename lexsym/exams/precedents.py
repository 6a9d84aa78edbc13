"""Supporting precedents as they go into a prompt: KCL's own cut of its long precedents, then a fair share
of a character budget. Both are recorded per task.

KCL's cut. KCL's evaluation code (lbox-kr/kcl, `src/kcl/tasks/kcl_essay.py`, read December 2026) gives each
supporting precedent whole in its with-precedents essay setting, except for eleven essay questions whose
precedents are long, named by their `meta`: for those, each precedent's text is cut before the first
"\n\n사건" (the head is kept, with no marker). Its MCQA setting cuts nothing. `kcl_cut` applies the same rule
(the default of `lexsym exam convert --context precedents`; `--no-kcl-cut` gives the texts whole), so our
with-precedents essay prompts carry the precedent text KCL's carry. The prompt's wording around the
precedents is ours, not KCL's.

Why a budget at all: KCL's precedents are long (its largest is 750k tokens), so giving "the supporting
precedents" to a model with a finite context means cutting them, and results are only comparable when the
cut is the same. The policy here is a fair share: with a budget of N characters for the precedents of one
question, each precedent keeps min(its length, an equal share of what the shorter ones leave), so one
enormous precedent cannot crowd out the others; each kept part is the precedent's head, and a cut one ends
with a marker saying how much was kept. The budget counts precedent text (after KCL's cut), not names or
markers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lexsym.exams.items import Precedent
from lexsym.exams.prompts import PrecedentText

TRUNCATION_POLICY = (
    "fair-share: each precedent keeps min(its length, an equal share of the budget the shorter ones "
    "leave); the head is kept, the tail cut and marked; names and markers are not counted"
)

#: Where KCL cuts the precedents of its long-precedent questions: before the first occurrence.
KCL_CUT_MARKER = "\n\n사건"

#: The essay questions (by `meta`) whose precedents KCL's evaluation cuts at KCL_CUT_MARKER.
KCL_LONG_PRECEDENT_QUESTIONS = frozenset(
    {
        "변호사시험 08회 공법 제1문의 1",
        "변호사시험 10회 형사법 제2문 1.",
        "변호사시험 11회 형사법 제1문 3. (나)",
        "변호사시험 11회 형사법 제2문 1. (가)",
        "변호사시험 12회 민사법 제3문의 1 1. 가.",
        "변호사시험 12회 민사법 제3문의 1 1. 나.",
        "변호사시험 12회 형사법 제2문 1. 가.",
        "변호사시험 13회 민사법 제1문의 5 1.",
        "변호사시험 13회 민사법 제3문 5.",
        "변호사시험 14회 형사법 제1문 2.",
        "변호사시험 14회 형사법 제2문 1.",
    }
)

KCL_CUT_POLICY = (
    "kcl: as KCL's evaluation, the precedents of its eleven long-precedent essay questions are cut before "
    "the first '\\n\\n사건' (head kept, unmarked); other precedents are whole"
)


def kcl_cut(meta: str, precedents: Sequence[Precedent]) -> tuple[list[Precedent], list[dict[str, Any]]]:
    """The precedents of the essay question `meta` as KCL gives them, and a record of each one it cut."""
    if meta not in KCL_LONG_PRECEDENT_QUESTIONS:
        return list(precedents), []
    kept, cuts = [], []
    for index, precedent in enumerate(precedents):
        head = precedent.text.split(KCL_CUT_MARKER, 1)[0]
        if len(head) < len(precedent.text):
            cuts.append(
                {"index": index, "name": precedent.name, "kept": len(head), "chars": len(precedent.text)}
            )
        kept.append(Precedent(name=precedent.name, text=head))
    return kept, cuts


def fair_share(lengths: Sequence[int], budget: int) -> list[int]:
    """How many characters each of several texts keeps under a total `budget`: all of them when they fit;
    otherwise the shortest are kept whole and the rest get equal shares of what is left (water-filling),
    so sum(kept) == budget. Deterministic; ties go to the earlier text."""
    if sum(lengths) <= budget:
        return list(lengths)
    kept = [0] * len(lengths)
    remaining = budget
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    for done, index in enumerate(order):
        share = remaining // (len(order) - done)
        kept[index] = min(lengths[index], share)
        remaining -= kept[index]
    # Integer shares leave up to (m - 1) characters unspent; give them to the cut texts, in order.
    for index in range(len(lengths)):
        if remaining == 0:
            break
        extra = min(remaining, lengths[index] - kept[index])
        kept[index] += extra
        remaining -= extra
    return kept


def fit_precedents(
    precedents: Sequence[Precedent], max_chars: int | None, *, kcl_cuts: list[dict[str, Any]] | None = None
) -> tuple[list[PrecedentText], dict[str, Any]]:
    """The precedents as they go into a prompt under a budget of `max_chars` characters (None: no limit),
    and a record of what was kept. `kcl_cuts` (from `kcl_cut`, already applied) is recorded beside it;
    None when KCL's cut was not asked for."""
    lengths = [len(p.text) for p in precedents]
    kept = list(lengths) if max_chars is None else fair_share(lengths, max_chars)
    texts = []
    cut = []
    for number, (precedent, keep, length) in enumerate(zip(precedents, kept, lengths, strict=True)):
        text = precedent.text
        if keep < length:
            text = text[:keep].rstrip() + f"\n[… truncated: {keep} of {length} characters kept]"
            cut.append({"index": number, "name": precedent.name, "kept": keep, "chars": length})
        texts.append(PrecedentText(precedent.name, text))
    report = {
        "setting": "precedents",
        "max_chars": max_chars,
        "policy": TRUNCATION_POLICY if max_chars is not None else "none: full text",
        "kcl_cut": kcl_cuts,
        "precedents": len(precedents),
        "chars_total": sum(lengths),
        "chars_kept": sum(kept),
        "truncated": cut,
    }
    return texts, report
