"""Versioned judge prompt templates.

A judged score is only comparable with another judged with the same words, so every template carries a
version id, and each judgement records the id and a hash of the template text: editing a template without
bumping its version is caught when scores from two runs are combined.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class JudgeTemplate:
    id: str  # e.g. "reference/1": name and version; bump the version on any change of wording
    system: str
    user: str  # str.format template; fields are documented by each judge
    retry: str  # the follow-up sent when a reply cannot be parsed; field {problem}

    @property
    def digest(self) -> str:
        text = "\x00".join((self.id, self.system, self.user, self.retry))
        return hashlib.sha256(text.encode()).hexdigest()[:16]


REFERENCE_JUDGE = JudgeTemplate(
    id="reference/1",
    system=(
        "You grade answers to law exam questions. You compare a candidate's answer with the examiner's "
        "reference answer and judge the quality of the candidate's legal reasoning."
    ),
    user=(
        "Grade the candidate's answer against the reference answer.\n\n"
        "How to grade:\n"
        "- Credit each legal issue the reference answer raises that the candidate identifies and resolves "
        "correctly: the governing rule or provision, its application to the facts, and the conclusion.\n"
        "- A different route to a legally defensible result earns credit when the reasoning is sound, even "
        "if the reference answer takes another route.\n"
        "- Deduct for wrong or invented statutes, articles, cases or authorities, for misstated rules, and "
        "for conclusions that do not follow from the reasoning.\n"
        "- Length, confidence and style earn nothing by themselves. Content not asked for earns nothing.\n"
        "- The question and answers may be in any language; grade the substance.\n\n"
        "[Question]\n{question}\n\n"
        "[Reference answer]\n{reference}\n\n"
        "[Candidate's answer]\n{answer}\n\n"
        "First explain your assessment in a few sentences. Then give the grade on the last line, as a number "
        "from 0 to 1 in steps of 0.1 inside double square brackets, for example [[0.6]]. Write exactly one "
        "such bracketed grade."
    ),
    retry=(
        "Your reply could not be graded: {problem}. Reply again: a short assessment, then exactly one grade "
        "from 0 to 1 in steps of 0.1 inside double square brackets on the last line, for example [[0.6]]."
    ),
)


RUBRIC_JUDGE = JudgeTemplate(
    id="rubric/1",
    system=(
        "You grade answers to law exam questions against a marking rubric. For each rubric item you decide, "
        "on the content of the answer alone, whether the answer satisfies it."
    ),
    user=(
        "Decide for each rubric item whether the candidate's answer satisfies it.\n\n"
        "How to decide:\n"
        "- An item is satisfied only when the answer states its substance: the issue, the rule or the "
        "precedent's holding, the application, or the conclusion the item asks for. Naming a case or an "
        "article without its content does not satisfy an item that asks for the content.\n"
        "- Decide each item on its own; do not award an item because a related one is satisfied.\n"
        "- The answer may be in any language; decide on the substance.\n\n"
        "[Question]\n{question}\n\n"
        "[Candidate's answer]\n{answer}\n\n"
        "[Rubric items]\n{items}\n\n"
        "Reply with a JSON object and nothing else, in this form:\n"
        '{{"items": [{{"id": 1, "satisfied": true, "reason": "one sentence"}}, ...]}}\n'
        'with one entry for every item id above, "satisfied" true or false.'
    ),
    retry=(
        "Your reply could not be used: {problem}. Reply again with only the JSON object, one entry for "
        'each of the item ids {ids}, each with "id", "satisfied" (true or false) and "reason".'
    ),
)
