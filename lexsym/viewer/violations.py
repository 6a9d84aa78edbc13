"""The checker's verdict on OE answers, in plain English with citations, for the viewer.

scores.json keeps only the names of the rules a schedule breaks (`exceeds_cap`), enough for a column but
not for a reader. So each parsed OE answer is checked again here, as `lexsym check` does: every rule broken
as one sentence naming the asset, the amount and the limit, with the citation of the rule, and for a valid
schedule how far it falls short of the optimum. Each case is solved once and all its answers (from every
run shown) are checked in one grounding, as the scorer does.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from lexsym.answers import OEAnswer


@dataclass
class OeVerdict:
    """What the checker says of one schedule; `error` when it could not say (the case or the check failed)."""

    violations: list[dict[str, Any]] = field(default_factory=list)  # name, message, citation
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def _verdict(verdict: Any, optimum: int) -> OeVerdict:
    notes = []
    if verdict.beats_optimum:
        notes.append(
            f"this valid schedule protects more than the proven optimum (${verdict.protected:,} > "
            f"${optimum:,}): the rules or the solver are wrong; please report it"
        )
    elif verdict.valid and verdict.gap:
        notes.append(
            f"valid but not optimal: protects ${verdict.protected:,} of the optimum's ${optimum:,} "
            f"(${verdict.gap:,} or {verdict.gap_percent:.1f}% short)"
        )
    elif verdict.valid:
        notes.append(f"valid and optimal: protects ${verdict.protected:,}, as much as the law allows")
    return OeVerdict(
        violations=[
            {"name": v.name, "message": v.message, "citation": v.citation} for v in verdict.violations
        ],
        notes=notes,
    )


def _check_case(case_data: dict[str, Any], answers: list[OEAnswer]) -> list[OeVerdict]:
    from lexsym.check.checker import ClaimedSchedule, check_schedules
    from lexsym.law.case import Case
    from lexsym.law.solver import solve

    try:
        case = Case.model_validate(case_data)
        solution = solve(case)
    except Exception as error:
        return [OeVerdict(error=f"the case does not solve: {error.__class__.__name__}: {error}")] * len(
            answers
        )
    optimum = solution.total_value - solution.optimal.non_exempt_total
    schedules = [ClaimedSchedule.from_answer(answer) for answer in answers]
    try:
        verdicts = check_schedules(case, schedules, solution=solution)
        return [_verdict(verdict, optimum) for verdict in verdicts]
    except Exception:  # one odd schedule must not cost the others their verdicts: check them one by one
        pass
    results = []
    for schedule in schedules:
        try:
            results.append(_verdict(check_schedules(case, [schedule], solution=solution)[0], optimum))
        except Exception as error:
            results.append(OeVerdict(error=f"the checker failed: {error.__class__.__name__}: {error}"))
    return results


def check_oe_answers(jobs: list[tuple[dict[str, Any], OEAnswer]]) -> list[OeVerdict]:
    """The verdicts of (case, parsed OE answer) pairs, in order; one solve and one check per case."""
    by_case: dict[str, list[int]] = defaultdict(list)
    for index, (case, _) in enumerate(jobs):
        by_case[str(case.get("id") if isinstance(case, dict) else index)].append(index)
    results: list[OeVerdict | None] = [None] * len(jobs)
    for members in by_case.values():
        case = jobs[members[0]][0]
        if not isinstance(case, dict):
            for index in members:
                results[index] = OeVerdict(error="the task has no case to check the answer against")
            continue
        for index, verdict in zip(members, _check_case(case, [jobs[i][1] for i in members]), strict=True):
            results[index] = verdict
    return [result or OeVerdict(error="not checked") for result in results]
