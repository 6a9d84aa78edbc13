"""Local models that need no network: the oracle (the logic program's gold) and a naive baseline.

Both read the task record the runner passes along (its case, task and the jurisdictions in the prompt)
and answer in the prompt's format, so every stage of the pipeline (parsing, checking, scoring) runs on
them exactly as on a real model's text.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from typing import Any

from lexsym.models.base import Completion, GenerationParams, Message, PermanentModelError


def _answer(value: Any) -> str:
    return "FINAL ANSWER: " + json.dumps(value, ensure_ascii=False)


class OracleModel:
    """Answers with the gold answer: scores 100% by construction, which checks the whole pipeline. For an
    open question it writes the reference answer (or states every rubric item), which a sound judge must
    grade at or near full marks: a check on the judge as much as on the pipeline."""

    id = "lexsym:oracle"

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion:
        if not task or "gold" not in task:
            raise PermanentModelError("lexsym:oracle needs the task record (its gold answer)")
        started = time.perf_counter()
        gold = task["gold"]
        if task.get("task") == "OPEN":  # an essay: the reference answer, or every rubric item stated
            text = gold.get("reference") or "\n".join(f"- {item}" for item in gold.get("rubrics", []))
            return Completion(
                text=text, latency=time.perf_counter() - started, finish_reason="stop", model=self.id
            )
        if task.get("task") == "OE":
            gold = {"jurisdiction": gold["jurisdiction"], "schedule": gold["schedule"]}
        return Completion(
            text=_answer(gold), latency=time.perf_counter() - started, finish_reason="stop", model=self.id
        )


class BaselineModel:
    """A deterministic, naive answerer: every jurisdiction in the prompt, every exemption the rules classify
    under any of them, values capped only by the exemption's dollar limit, and greedy allocation. On exam
    tasks it gives a floor (`exam_floor_answer`)."""

    id = "lexsym:baseline"

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion:
        started = time.perf_counter()
        if task and task.get("task") in ("MCQ", "OPEN"):
            return Completion(
                text=exam_floor_answer(task),
                latency=time.perf_counter() - started,
                finish_reason="stop",
                model=self.id,
            )
        if not task or not task.get("case"):
            raise PermanentModelError("lexsym:baseline needs the task record (its case)")
        answers = baseline_answers(task)
        return Completion(
            text=_answer(answers[task["task"]]),
            latency=time.perf_counter() - started,
            finish_reason="stop",
            model=self.id,
        )


def exam_floor_answer(task: dict[str, Any]) -> str:
    """The baseline on exam tasks: always the first option of an MCQ (chance level, and a probe of position
    bias in scoring), and for an open question the question restated with no legal content, which any
    sound judge grades at or near zero."""
    if task["task"] == "MCQ":
        labels = (task.get("reference") or {}).get("labels") or ["A"]
        return f"ANSWER: {labels[0]}"
    question = (task.get("reference") or {}).get("question") or task["prompt"]["user"]
    return "The question asks: " + " ".join(str(question).split()[:60])


def baseline_answers(task: dict[str, Any]) -> dict[str, Any]:
    """The baseline's answers to all five tasks for a task record."""
    from lexsym.law.allocation import AllocationProblem
    from lexsym.law.case import Case
    from lexsym.law.first_pass import first_pass
    from lexsym.law.gold import jurisdiction_name
    from lexsym.law.rules import rules_root
    from lexsym.oracles.greedy import greedy_allocation

    case = Case.model_validate(task["case"])
    codes = ["US", *task.get("metadata", {}).get("states_in_prompt", [])]
    _, first = first_pass(case, rules_root(), (), codes)
    citation = first.citations()
    description = {asset.id: asset.description for asset in case.assets}
    value = {asset.id: asset.value for asset in case.assets}
    classification: dict[str, set[str]] = defaultdict(set)
    valuation: dict[str, dict[str, int]] = defaultdict(dict)
    non_exempt: dict[str, int] = {}
    schedules: dict[str, dict[str, dict[str, int]]] = {}
    for code in codes:
        problem = AllocationProblem.from_rows(first.rows, code.lower())
        for asset, exemption in problem.eligible:
            classification[description[asset]].add(citation[exemption])
            limit = sum(v for (e, _), v in problem.pool_limits.items() if e == exemption) or value[asset]
            valuation[description[asset]][citation[exemption]] = min(value[asset], limit)
        amounts = greedy_allocation(problem)
        schedule: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for (_, asset, exemption), dollars in amounts.items():
            schedule[description[asset]][citation[exemption]] += dollars
        non_exempt[jurisdiction_name(code)] = problem.total_value - sum(amounts.values())
        schedules[jurisdiction_name(code)] = schedule
    best = min(non_exempt, key=lambda name: (non_exempt[name], name))
    return {
        "AE": [jurisdiction_name(code) for code in codes],
        "EC": {description[a.id]: sorted(classification[description[a.id]]) for a in case.assets},
        "EV": {
            description[a.id]: [
                {"citation": c, "claim_value": v} for c, v in sorted(valuation[description[a.id]].items())
            ]
            for a in case.assets
        },
        "NA": non_exempt,
        "OE": {
            "jurisdiction": best,
            "schedule": {
                asset: [{"citation": c, "claim_value": v} for c, v in sorted(claims.items())]
                for asset, claims in sorted(schedules[best].items())
            },
        },
    }
