"""OE statements: whole schedules, the gold one or a mutation of it, true exactly when the checker finds them
valid (a false one carries the violated rule as its reason)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from lexsym.check.checker import ClaimedSchedule, check_schedules
from lexsym.exams.generated.wording import Statement, nice_amount, system_phrase
from lexsym.generate.templates import format_money, jurisdiction_name
from lexsym.law.case import Case
from lexsym.law.solution import JurisdictionResult, Solution
from lexsym.law.statute_sheet import StatuteSheet

Claims = tuple[tuple[str, str, int], ...]


def _aggregate(result: JurisdictionResult) -> Claims:
    """A jurisdiction's schedule as an answer states it: both spouses' claims added per asset and citation."""
    totals: dict[tuple[str, str], int] = {}
    for claim in result.schedule:
        totals[(claim.asset_id, claim.citation)] = (
            totals.get((claim.asset_id, claim.citation), 0) + claim.amount
        )
    return tuple(
        (asset, citation, amount) for (asset, citation), amount in sorted(totals.items()) if amount > 0
    )


def _merge(claims: list[tuple[str, str, int]]) -> Claims:
    totals: dict[tuple[str, str], int] = {}
    for asset, citation, amount in claims:
        totals[(asset, citation)] = totals.get((asset, citation), 0) + amount
    return tuple((asset, citation, amount) for (asset, citation), amount in sorted(totals.items()))


def _mutations(
    case: Case, result: JurisdictionResult, base: Claims, citations: Sequence[str], rng: random.Random
) -> list[tuple[str, Claims]]:
    """Schedules derived from `base`: (how it was changed, claims). The checker decides each one's truth."""
    eligible = {a.id: {m.citation for m in result.classification.get(a.id, [])} for a in case.assets}
    value = {a.id: a.value for a in case.assets}
    out: list[tuple[str, Claims]] = []
    if base:
        asset, citation, amount = rng.choice(base)
        rest = [c for c in base if c[:2] != (asset, citation)]
        bump = nice_amount(max(100, amount // 4))
        out.append(
            (
                f"raised the claim on {asset} under {citation} by {bump}",
                _merge([*rest, (asset, citation, amount + bump)]),
            )
        )
        wrong = [c for c in citations if c not in eligible[asset]]
        if wrong:
            other = rng.choice(wrong)
            out.append(
                (
                    f"moved the claim on {asset} from {citation} to {other}",
                    _merge([*rest, (asset, other, amount)]),
                )
            )
        if amount > 1:
            cut = max(1, nice_amount(amount // 3)) if amount > 3 else 1
            cut = min(cut, amount - 1)
            out.append(
                (
                    f"lowered the claim on {asset} under {citation} by {cut}",
                    _merge([*rest, (asset, citation, amount - cut)]),
                )
            )
        if len(base) > 1:
            out.append((f"dropped the claim on {asset} under {citation}", _merge(rest)))
    claimed = {asset: sum(a for x, _, a in base if x == asset) for asset in value}
    open_assets = [asset for asset in value if claimed[asset] < value[asset]]
    if open_assets:
        asset = rng.choice(open_assets)
        wrong = [c for c in citations if c not in eligible[asset]]
        if wrong:
            other = rng.choice(wrong)
            amount = max(1, nice_amount((value[asset] - claimed[asset]) // 2))
            out.append((f"added {amount} on {asset} under {other}", _merge([*base, (asset, other, amount)])))
    return out


def _claims_text(case: Case, claims: Claims) -> str:
    description = {a.id: a.description for a in case.assets}
    return "; ".join(
        f'{format_money(amount)} in "{description[asset]}" under {citation}'
        for asset, citation, amount in claims
    )


def oe_statements(
    case: Case,
    solution: Solution,
    results: Sequence[JurisdictionResult],
    sheet: StatuteSheet,
    rng: random.Random,
) -> list[Statement]:
    candidates: list[tuple[str, str, Claims]] = []  # (jurisdiction, provenance, claims)
    for result in results:
        code = result.jurisdiction
        base = _aggregate(result)
        which = "the optimal schedule" if code == solution.optimal.jurisdiction else "an optimal schedule"
        if base:
            candidates.append((code, f"{which} under {jurisdiction_name(code)}", base))
        citations = [entry.citation for entry in sheet.for_jurisdiction(code)]
        for how, claims in _mutations(case, result, base, citations, rng):
            if claims and claims != base:
                candidates.append((code, f"{which} under {jurisdiction_name(code)}, {how}", claims))
    unique: dict[tuple[str, Claims], str] = {}
    for code, provenance, claims in candidates:
        unique.setdefault((code, claims), provenance)
    if not unique:
        return []
    keys = list(unique)
    verdicts = check_schedules(
        case, [ClaimedSchedule(code, [list(c) for c in claims]) for code, claims in keys], solution=solution
    )
    out = []
    for (code, claims), verdict in zip(keys, verdicts, strict=True):
        provenance = unique[(code, claims)]
        if verdict.valid:
            reason = f"check_schedules: valid ({provenance})"
        else:
            reason = f"check_schedules: invalid ({provenance}): " + "; ".join(
                v.message for v in verdict.violations
            )
        text = (
            f"Under the {system_phrase(code)}, the following claims together form a valid schedule that "
            "respects "
            f"every limit of the statutes: {_claims_text(case, claims)}."
        )
        fact = {"jurisdiction": code, "claims": [list(c) for c in claims]}
        out.append(Statement("OE", text, verdict.valid, reason, fact, ("OE", code, claims)))
    return out
