"""The reference judge (LEXam): grade an answer against the examiner's reference answer, 0 to 1.

Status of a judgement: `ok` (a grade), `parse_failure` (no reply in the schema after the retries),
`error` (the judge call failed), `empty_answer` (nothing to judge once `<think>` is stripped: scored 0,
with no judge call, because an empty answer is the model's failure, not the judge's).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lexsym.judges.attempts import Ask, converse
from lexsym.judges.grades import Grade, parse_reference_grade
from lexsym.judges.prompts import REFERENCE_JUDGE, JudgeTemplate
from lexsym.models.base import GenerationParams, Message, split_reasoning


@dataclass
class ReferenceJudgement:
    status: str
    score: float | None
    problem: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    cost: float = 0.0
    error_kind: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "score": self.score,
            "problem": self.problem,
            "cost": self.cost,
            "error_kind": self.error_kind,
            "attempts": self.attempts,
        }


def reference_messages(
    question: str, reference: str, answer: str, template: JudgeTemplate = REFERENCE_JUDGE
) -> list[Message]:
    return [
        {"role": "system", "content": template.system},
        {
            "role": "user",
            "content": template.user.format(question=question, reference=reference, answer=answer),
        },
    ]


def answer_to_judge(answer: str | None) -> str:
    """The part of a model's answer a judge sees: its reasoning (`<think>` blocks) removed."""
    text, _ = split_reasoning(answer or "")
    return text.strip()


async def judge_reference(
    ask: Ask,
    *,
    question: str,
    reference: str,
    answer: str | None,
    params: GenerationParams,
    retries: int = 2,
    template: JudgeTemplate = REFERENCE_JUDGE,
) -> ReferenceJudgement:
    """Grade one answer; a reply that does not parse is retried, then recorded as a failure, never as 0."""
    shown = answer_to_judge(answer)
    if not shown:
        return ReferenceJudgement("empty_answer", 0.0, "the answer is empty once reasoning is removed")

    def parse(text: str, earlier: list[Grade]) -> tuple[Grade, str | None]:
        grade = parse_reference_grade(text)
        return grade, grade.problem

    outcome = await converse(
        ask,
        reference_messages(question, reference, shown, template),
        params,
        parse=parse,
        retry_message=lambda grade, problem: template.retry.format(problem=problem),
        retries=retries,
    )
    attempts = outcome.attempts_json()
    if outcome.error is not None:
        return ReferenceJudgement("error", None, outcome.error, attempts, outcome.cost, outcome.error_kind)
    last = outcome.parsed[-1]
    if last.ok:
        return ReferenceJudgement("ok", last.score, None, attempts, outcome.cost)
    return ReferenceJudgement("parse_failure", None, last.problem, attempts, outcome.cost)
