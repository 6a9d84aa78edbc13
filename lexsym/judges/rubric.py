"""The rubric judge (KCL): one binary decision, with a reason, per instance-level rubric item.

A question's points are shared across its items: equally by default (as KCL does), or in proportion to
explicit item weights. A sample scores the points of the items it satisfies; items the judge never
decided in a usable form are `undecided` and are counted, never scored as unmet in silence.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lexsym.judges.attempts import Ask, converse
from lexsym.judges.grades import ItemDecision, RubricGrades, parse_rubric_grades
from lexsym.judges.prompts import RUBRIC_JUDGE, JudgeTemplate
from lexsym.judges.reference import answer_to_judge
from lexsym.models.base import GenerationParams, Message


@dataclass(frozen=True)
class RubricItem:
    id: int
    text: str
    points: float


def rubric_items(
    rubrics: list[Any], total_points: float | None, weights: list[float] | None = None
) -> list[RubricItem]:
    """Number the rubric items from 1 and share the question's points among them.

    Items are strings or objects with `text` (or `rubric`/`criterion`) and an optional `weight` (or
    `points`). With no total, each item is worth one point (score = share of items satisfied).
    """
    texts: list[str] = []
    item_weights: list[float | None] = []
    for index, entry in enumerate(rubrics, start=1):
        if isinstance(entry, str):
            texts.append(entry)
            item_weights.append(None)
        elif isinstance(entry, dict):
            text = entry.get("text") or entry.get("rubric") or entry.get("criterion")
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"rubric item {index} has no text")
            texts.append(text)
            weight = entry.get("weight", entry.get("points"))
            item_weights.append(None if weight is None else float(weight))
        else:
            raise ValueError(f"rubric item {index} is neither text nor an object")
    if not texts:
        raise ValueError("the rubric has no items")
    if weights is not None:
        if len(weights) != len(texts):
            raise ValueError(f"{len(weights)} weights for {len(texts)} rubric items")
        item_weights = list(weights)
    if any(weight is not None for weight in item_weights):
        if any(weight is None for weight in item_weights):
            raise ValueError("either every rubric item has a weight or none does")
        shares = [float(weight) for weight in item_weights]  # type: ignore[arg-type]
        if any(share < 0 for share in shares) or sum(shares) <= 0:
            raise ValueError("rubric weights must be non-negative and not all zero")
    else:
        shares = [1.0] * len(texts)
    total = float(total_points) if total_points is not None else float(len(texts))
    scale = total / sum(shares)
    return [
        RubricItem(index, text, share * scale)
        for index, (text, share) in enumerate(zip(texts, shares, strict=True), 1)
    ]


@dataclass
class RubricJudgement:
    status: str  # ok | incomplete (some items undecided) | error | empty_answer
    items: list[dict[str, Any]]  # id, points, satisfied (None = undecided), reason
    earned: float
    total: float
    undecided_points: float
    problem: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)
    cost: float = 0.0
    error_kind: str | None = None

    @property
    def score(self) -> float | None:
        """Share of points earned; None unless every item was decided."""
        if self.status not in ("ok", "empty_answer") or not self.total:
            return None
        return self.earned / self.total

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "score": self.score,
            "earned": self.earned,
            "total": self.total,
            "undecided_points": self.undecided_points,
            "problem": self.problem,
            "cost": self.cost,
            "error_kind": self.error_kind,
            "items": self.items,
            "attempts": self.attempts,
        }


def rubric_messages(
    question: str, answer: str, items: list[RubricItem], template: JudgeTemplate = RUBRIC_JUDGE
) -> list[Message]:
    listing = "\n".join(f"{item.id}. {item.text}" for item in items)
    return [
        {"role": "system", "content": template.system},
        {"role": "user", "content": template.user.format(question=question, answer=answer, items=listing)},
    ]


def _judgement(
    status: str,
    items: list[RubricItem],
    decided: RubricGrades | None,
    problem: str | None,
    attempts: list[dict[str, Any]],
    cost: float,
) -> RubricJudgement:
    rows: list[dict[str, Any]] = []
    earned = undecided = 0.0
    for item in items:
        decision = decided.decisions.get(item.id) if decided else None
        rows.append(
            {
                "id": item.id,
                "points": item.points,
                "satisfied": None if decision is None else decision.satisfied,
                "reason": None if decision is None else decision.reason,
            }
        )
        if decision is None:
            undecided += item.points
        elif decision.satisfied:
            earned += item.points
    total = sum(item.points for item in items)
    return RubricJudgement(status, rows, earned, total, undecided, problem, attempts, cost)


async def judge_rubric(
    ask: Ask,
    *,
    question: str,
    answer: str | None,
    items: list[RubricItem],
    params: GenerationParams,
    retries: int = 2,
    template: JudgeTemplate = RUBRIC_JUDGE,
) -> RubricJudgement:
    """Decide every rubric item for one answer; a retry asks again for the items still undecided."""
    shown = answer_to_judge(answer)
    ids = [item.id for item in items]
    if not shown:
        unmet = {item: ItemDecision(False, "empty answer") for item in ids}
        problem = "the answer is empty once reasoning is removed"
        return _judgement("empty_answer", items, RubricGrades(unmet), problem, [], 0.0)

    def parse(text: str, earlier: list[RubricGrades]) -> tuple[RubricGrades, str | None]:
        kept = dict(earlier[-1].decisions) if earlier else {}
        fresh = parse_rubric_grades(text, [item for item in ids if item not in kept])
        merged = {**kept, **fresh.decisions}
        missing = tuple(item for item in ids if item not in merged)
        return RubricGrades(merged, fresh.problem, missing), (fresh.problem if missing else None)

    def retry_message(grades: RubricGrades, problem: str) -> str:
        return template.retry.format(problem=problem, ids=", ".join(map(str, grades.missing)))

    outcome = await converse(
        ask,
        rubric_messages(question, shown, items, template),
        params,
        parse=parse,
        retry_message=retry_message,
        retries=retries,
    )
    attempts = outcome.attempts_json()
    last = outcome.parsed[-1] if outcome.parsed else None
    if outcome.error is not None:
        status = "error" if last is None else "incomplete"
        result = _judgement(status, items, last, outcome.error, attempts, outcome.cost)
        result.error_kind = outcome.error_kind
        return result
    assert last is not None
    status = "ok" if not last.missing else "incomplete"
    return _judgement(status, items, last, last.problem if last.missing else None, attempts, outcome.cost)
