"""Candidate statements about a case, true and false, of kinds AE, EC, EV and NA (OE in
`schedule_statements`), and the draw of a question's statements from them."""

from __future__ import annotations

import random
from collections.abc import Sequence

from lexsym.exams.generated.config import KINDS
from lexsym.exams.generated.schedule_statements import oe_statements
from lexsym.exams.generated.wording import (
    Statement,
    debtor_phrase,
    jurisdiction_names,
    nice_amount,
    system_phrase,
)
from lexsym.generate.sampling import Scenario
from lexsym.generate.templates import format_money, jurisdiction_name, upfirst
from lexsym.law.case import Case
from lexsym.law.solution import JurisdictionResult, Solution
from lexsym.law.statute_sheet import StatuteSheet
from lexsym.law.vocabulary import FEDERAL, STATES


def _ae_statements(scenario: Scenario, solution: Solution, prompt_codes: Sequence[str]) -> list[Statement]:
    allowable = solution.allowable.jurisdictions
    reasons = {r.jurisdiction: r for r in solution.allowable.reasons}
    lived = [r.state for r in scenario.residences if r.state in STATES]
    subject = upfirst(debtor_phrase(scenario.married))
    out = []
    for code in dict.fromkeys([FEDERAL, *prompt_codes, *lived, *allowable]):
        truth = code in allowable
        if code == FEDERAL:
            text = f"{subject} may claim the federal exemptions of 11 U.S.C. § 522(d)."
        else:
            text = f"{subject} may claim the exemptions of {jurisdiction_name(code)}."
        if truth:
            reason = f"allowable({code}): {reasons[code].justification}"
        else:
            reason = (
                f"not allowable({code}): under 11 U.S.C. § 522(b) only "
                f"{jurisdiction_names(allowable)} may be claimed "
                f"(rule path {solution.allowable.rule_path})"
            )
        out.append(Statement("AE", text, truth, reason, {"jurisdiction": code}, ("AE", code)))
    return out


def _ec_statements(case: Case, results: Sequence[JurisdictionResult], sheet: StatuteSheet) -> list[Statement]:
    out = []
    for result in results:
        code = result.jurisdiction
        citations = [entry.citation for entry in sheet.for_jurisdiction(code)]
        eligible = {a.id: {m.citation: m for m in result.classification.get(a.id, [])} for a in case.assets}
        for asset in case.assets:
            mine = eligible[asset.id]
            for citation, match in mine.items():
                text = f'Under the {system_phrase(code)}, "{asset.description}" falls under {citation}.'
                fact = {"jurisdiction": code, "asset_id": asset.id, "citation": citation}
                reason = f"eligible({code}, {asset.id}, {citation}): {match.because}"
                out.append(Statement("EC", text, True, reason, fact, ("asset-citation", asset.id, citation)))
            # False ones: prefer near misses, exemptions that cover another asset of the same case.
            others = [c for c in citations if c not in mine]
            near = [c for c in others if any(c in eligible[a.id] for a in case.assets if a.id != asset.id)]
            for citation in near or others:
                text = f'Under the {system_phrase(code)}, "{asset.description}" falls under {citation}.'
                fact = {"jurisdiction": code, "asset_id": asset.id, "citation": citation}
                reason = (
                    f"not eligible({code}, {asset.id}, {citation}): under {jurisdiction_name(code)} law "
                    "the asset falls "
                    f"under {', '.join(mine) or 'no exemption'}"
                )
                out.append(Statement("EC", text, False, reason, fact, ("asset-citation", asset.id, citation)))
    return out


def _ev_text(citation: str, description: str, value: int, married: bool) -> str:
    together = " (for the two spouses together)" if married else ""
    money = format_money(value)
    return f'The most that {citation} on its own can protect of "{description}" is {money}{together}.'


def _ev_statements(
    case: Case, results: Sequence[JurisdictionResult], married: bool, rng: random.Random
) -> list[Statement]:
    out = []
    for result in results:
        code = result.jurisdiction
        for asset in case.assets:
            values = result.valuation.get(asset.id, [])
            for value in values:
                true = value.max_claim
                fact = {"jurisdiction": code, "asset_id": asset.id, "citation": value.citation}
                topic = ("asset-citation", asset.id, value.citation)
                reason = f"max_claim({code}, {asset.id}, {value.citation}) = {true}"
                out.append(
                    Statement(
                        "EV",
                        _ev_text(value.citation, asset.description, true, married),
                        True,
                        reason,
                        {**fact, "value": true},
                        topic,
                    )
                )
                candidates = {
                    asset.value,
                    2 * true,
                    nice_amount(true // 2),
                    nice_amount(true + max(100, true // 4)),
                }
                candidates |= {v.max_claim for v in values}
                candidates |= {
                    v.max_claim
                    for other in case.assets
                    for v in result.valuation.get(other.id, [])
                    if v.citation == value.citation
                }
                wrong = sorted(c for c in candidates if c != true and c > 0)
                stated = rng.choice(wrong)
                reason = f"max_claim({code}, {asset.id}, {value.citation}) = {true}, not {stated}"
                out.append(
                    Statement(
                        "EV",
                        _ev_text(value.citation, asset.description, stated, married),
                        False,
                        reason,
                        {**fact, "value": stated},
                        topic,
                    )
                )
    return out


def _na_text(code: str, value: int, married: bool) -> str:
    claim = "claim" if married else "claims"
    return (
        f"If {debtor_phrase(married)} {claim} the {system_phrase(code)} as advantageously as the statutes "
        "allow, the "
        f"least total value left non-exempt is {format_money(value)}."
    )


def _na_statements(
    solution: Solution, results: Sequence[JurisdictionResult], married: bool, rng: random.Random
) -> list[Statement]:
    out = []
    for result in results:
        code, true = result.jurisdiction, result.non_exempt_total
        reason = f"non_exempt_total({code}) = {true}"
        fact = {"jurisdiction": code}
        out.append(
            Statement(
                "NA", _na_text(code, true, married), True, reason, {**fact, "value": true}, ("NA", code)
            )
        )
        candidates = {r.non_exempt_total for r in results} | {solution.total_value, 0}
        candidates |= {
            nice_amount(true + max(100, true // 4)),
            nice_amount(max(true - max(100, true // 4), 0)),
        }
        wrong = sorted(c for c in candidates if c != true)
        stated = rng.choice(wrong)
        reason = f"non_exempt_total({code}) = {true}, not {stated}"
        out.append(
            Statement(
                "NA", _na_text(code, stated, married), False, reason, {**fact, "value": stated}, ("NA", code)
            )
        )
    return out


def case_statements(
    scenario: Scenario,
    solution: Solution,
    sheet: StatuteSheet,
    *,
    kinds: Sequence[str] = KINDS,
    rng: random.Random,
) -> list[Statement]:
    """Every candidate statement about the case (true and false), in a fixed order."""
    case = scenario.case
    results = [r for r in solution.jurisdictions if r.allowable]
    prompt_codes = [code for code in sheet.jurisdictions if code != FEDERAL]
    out: list[Statement] = []
    if "AE" in kinds:
        out += _ae_statements(scenario, solution, prompt_codes)
    if case.assets:
        if "EC" in kinds:
            out += _ec_statements(case, results, sheet)
        if "EV" in kinds:
            out += _ev_statements(case, results, scenario.married, rng)
        if "NA" in kinds:
            out += _na_statements(solution, results, scenario.married, rng)
        if "OE" in kinds:
            out += oe_statements(case, solution, results, sheet, rng)
    return out


def select_statements(
    pool: Sequence[Statement], count: int, rng: random.Random, *, true_ratio: float = 0.5
) -> list[Statement]:
    """`count` statements of distinct topics. Each slot asks for a true statement with chance `true_ratio`
    (the other truth when none is left), then a kind uniformly among those that have one, then a statement
    of that kind uniformly; so the gold subset is spread over all 2^n subsets, "none" included."""
    chosen: list[Statement] = []
    topics: set[tuple] = set()
    for _ in range(count):
        want = rng.random() < true_ratio
        available: list[Statement] = []
        for truth in (want, not want):
            available = [s for s in pool if s.truth is truth and s.topic not in topics]
            if available:
                break
        if not available:
            raise ValueError(f"only {len(chosen)} statements of distinct topics; {count} are needed")
        kinds = [kind for kind in KINDS if any(s.kind == kind for s in available)]
        kind = rng.choice(kinds)
        statement = rng.choice([s for s in available if s.kind == kind])
        chosen.append(statement)
        topics.add(statement.topic)
    return chosen
