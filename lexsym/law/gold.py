"""Gold answers in the shapes the task prompts ask for, computed from the logic program's Solution.

Assets are keyed by their description (as OpenExempt's formats are), jurisdictions by name ("Oregon",
"Federal"), amounts in whole dollars. EC and EV cover the allowable jurisdictions; NA each allowable
jurisdiction; OE the best one, with claims of both spouses added up per asset and citation.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from lexsym.law.case import Case
from lexsym.law.solution import Solution
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import JURISDICTION_NAMES


def jurisdiction_name(code: str) -> str:
    return JURISDICTION_NAMES.get(code, code)


def gold_answers(case: Case, solution: Solution) -> dict[str, Any]:
    """Gold for all five tasks (each in its answer format)."""
    description = {asset.id: asset.description for asset in case.assets}
    allowable = [r for r in solution.jurisdictions if r.allowable]
    classification: dict[str, list[str]] = {description[a.id]: [] for a in case.assets}
    valuation: dict[str, list[dict[str, Any]]] = {description[a.id]: [] for a in case.assets}
    for result in allowable:
        for asset_id, matches in result.classification.items():
            classification[description[asset_id]].extend(m.citation for m in matches)
        for asset_id, values in result.valuation.items():
            valuation[description[asset_id]].extend(
                {"citation": v.citation, "claim_value": v.max_claim} for v in values
            )
    schedule: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for claim in solution.optimal.schedule:
        schedule[description[claim.asset_id]][claim.citation] += claim.amount
    return {
        Task.AE.value: [jurisdiction_name(code) for code in solution.allowable.jurisdictions],
        Task.EC.value: {asset: sorted(set(citations)) for asset, citations in classification.items()},
        Task.EV.value: {
            asset: sorted(values, key=lambda v: v["citation"]) for asset, values in valuation.items()
        },
        Task.NA.value: {jurisdiction_name(r.jurisdiction): r.non_exempt_total for r in allowable},
        Task.OE.value: {
            "jurisdiction": jurisdiction_name(solution.optimal.jurisdiction),
            "non_exempt_total": solution.optimal.non_exempt_total,
            "schedule": {
                asset: [{"citation": c, "claim_value": v} for c, v in sorted(claims.items())]
                for asset, claims in sorted(schedule.items())
            },
        },
    }
