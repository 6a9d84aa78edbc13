"""`lexsym.solve`: the gold answers of all five tasks for one case, from the logic program.

Pass 1 (plain clingo, one answer set; `lexsym.law.first_pass`) decides the allowable jurisdictions (AE),
classifies (EC) and values (EV) every asset, and derives the allocation contract of each jurisdiction. Pass 2
(clingo-lpx) finds, per jurisdiction, a schedule leaving the least value non-exempt (NA) and proves it
optimal; the jurisdiction with the least non-exempt value gives task OE.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from lexsym._util.errors import LexsymError, SolveError
from lexsym._version import __version__
from lexsym.law.allocation import AllocationProblem
from lexsym.law.allocator import allocate
from lexsym.law.allowable import allowable_from
from lexsym.law.amount_notes import is_encoded, raise_on_missing_amounts, solution_warnings
from lexsym.law.case import Case
from lexsym.law.claim_explainer import ClaimExplainer, why_text
from lexsym.law.clingo_runner import solve_stratified_together
from lexsym.law.facts import domicile_facts
from lexsym.law.first_pass import FirstPass, first_pass
from lexsym.law.rules import (
    domicile_files,
    encoded_jurisdictions,
    rules_digest,
    rules_root,
    statute_files,
    stratified_files,
)
from lexsym.law.solution import (
    Claim,
    ExemptionMatch,
    ExemptionValue,
    JurisdictionResult,
    OptimalExemptions,
    Solution,
)
from lexsym.law.stratified import solve_stratified
from lexsym.law.systems import system_constant, system_id, system_name
from lexsym.law.vocabulary import FEDERAL
from lexsym.law.whatif import ExemptionTable

TIE_BREAK = (
    "least non-exempt value; on a tie the federal exemptions (as OpenExempt reports), "
    "then states in alphabetical order"
)

CASES_PER_GROUNDING = 32
"""How many cases a batch hands `solve_cases` at a time: pass 1 cost 10-11 ms per case alone, 2.4 ms in
groups of 16 and 1.9 ms in groups of 32; past that the saving is small and a worker's share grows coarse."""

jurisdiction_id = system_id
"""US, a USPS code, or a composite "AZ+IL" (lexsym.law.systems)."""


def _allowable_program(case: Case, tables: Sequence[ExemptionTable]) -> str:
    return "\n".join(
        [
            *domicile_facts(case),
            *(f for table in tables for f in table.to_facts() if f.startswith("table_opt_out(")),
        ]
    )


def _allowable_codes(symbols: Iterable) -> list[str]:
    return sorted({jurisdiction_id(s.arguments[0]) for s in symbols if s.match("allowable", 2)})


def allowable_jurisdictions(case: Case, root: Path, tables: Sequence[ExemptionTable] = ()) -> list[str]:
    """Task AE alone, from the 730-day rule and the opt-out table (cheap: no statute is grounded)."""
    program = _allowable_program(case, tables) + "\n#show allowable/2."
    return _allowable_codes(solve_stratified(domicile_files(root), program))


def allowable_many(
    cases: Sequence[Case], root: Path, tables: Sequence[ExemptionTable]
) -> list[list[str] | LexsymError]:
    """`allowable_jurisdictions` for many cases, grounded together when they can be (each case's codes or
    error, in order)."""
    programs = ["\n".join(domicile_facts(case)) for case in cases]
    shared = "\n".join(f for table in tables for f in table.to_facts() if f.startswith("table_opt_out("))
    together = solve_stratified_together(domicile_files(root), programs, stratified_files(root), shared)
    if together is not None:
        return [_allowable_codes(symbols) for symbols in together]
    results: list[list[str] | LexsymError] = []
    for case in cases:
        try:
            results.append(allowable_jurisdictions(case, root, tables))
        except LexsymError as error:
            results.append(error)
    return results


def solve(
    case: Case,
    *,
    tables: Sequence[ExemptionTable] = (),
    all_jurisdictions: bool = False,
    jurisdictions: Sequence[str] = (),
    rules: str | None = None,
    time_limit: int = 0,
) -> Solution:
    """Compute tasks AE, EC, EV, NA and OE for `case`.

    tables: what-if tables whose figures replace the statutes' for the citations they list.
    all_jurisdictions: also value and allocate under every encoded jurisdiction, allowable or not.
    jurisdictions: also value and allocate under these (ids such as "US", "AZ"), allowable or not.
    rules: a directory holding statutes/ and encodings/ (default: the packaged rules).
    time_limit: seconds per optimisation (0: none); an unfinished search is reported as not optimal.
    """
    root = rules_root(rules)
    encoded = _encoded(root, tables)
    allowable = [] if all_jurisdictions else allowable_jurisdictions(case, root, tables)
    wanted = _wanted(allowable, encoded, all_jurisdictions, jurisdictions)
    case, first = first_pass(case, root, tables, wanted)
    return _solution(case, first, wanted, encoded, root, time_limit)


def solve_cases(
    cases: Sequence[Case],
    *,
    tables: Sequence[ExemptionTable] = (),
    all_jurisdictions: bool = False,
    jurisdictions: Sequence[str] = (),
    rules: str | None = None,
    time_limit: int = 0,
) -> list[Solution | LexsymError]:
    """`solve` for many cases at once, each case's solution or the error that stopped it, in order. The
    first passes of cases that need the same statutes are grounded together (lexsym.law.case_tagging),
    which costs a fraction of grounding them one by one; the solutions are the same as `solve`'s."""
    from lexsym.law.first_pass import first_pass_many

    root = rules_root(rules)
    encoded = _encoded(root, tables)
    results: list[Solution | LexsymError | None] = [None] * len(cases)
    wanted: dict[int, list[str]] = {}
    allowable = [[]] * len(cases) if all_jurisdictions else allowable_many(cases, root, tables)
    for index, codes in enumerate(allowable):
        if isinstance(codes, LexsymError):
            results[index] = codes
        else:
            wanted[index] = _wanted(codes, encoded, all_jurisdictions, jurisdictions)
    groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for index, codes in wanted.items():
        groups[tuple(statute_files(root, codes))].append(index)
    for members in groups.values():
        passes = first_pass_many([cases[i] for i in members], root, tables, wanted[members[0]])
        for index, outcome in zip(members, passes, strict=True):
            if isinstance(outcome, LexsymError):
                results[index] = outcome
                continue
            case, first = outcome
            try:
                results[index] = _solution(case, first, wanted[index], encoded, root, time_limit)
            except LexsymError as error:
                results[index] = error
    return all_assigned(results)


def all_assigned(results: list) -> list:
    """The per-case results of a batch, which must cover every case: a gap would misalign the rest."""
    if any(result is None for result in results):
        raise SolveError("internal error: a case of the batch got no result")
    return results


def _encoded(root: Path, tables: Sequence[ExemptionTable]) -> list[str]:
    table_codes = {entry.jurisdiction for table in tables for entry in table.exemptions}
    return sorted(set(encoded_jurisdictions(root)) | table_codes)


def _wanted(
    allowable: list[str], encoded: list[str], all_jurisdictions: bool, jurisdictions: Sequence[str]
) -> list[str]:
    """The jurisdictions to value and allocate under before pass 1: the allowable ones and those asked for."""
    if all_jurisdictions:
        return encoded
    return sorted(set(allowable) | {c.upper() for c in jurisdictions})


def _solution(
    case: Case, first: FirstPass, wanted: list[str], encoded: list[str], root: Path, time_limit: int
) -> Solution:
    """Everything after pass 1: allowable jurisdictions, warnings, one allocation per jurisdiction."""
    allowable = allowable_from(first)
    wanted = sorted(set(wanted) | set(allowable.jurisdictions))
    raise_on_missing_amounts(first, wanted, case.petition_date)
    warnings = solution_warnings(first, allowable, wanted, encoded)
    results = [
        _jurisdiction_result(
            first, code, code in allowable.jurisdictions, is_encoded(code, encoded), root, time_limit
        )
        for code in wanted
    ]
    results.sort(key=lambda r: (r.jurisdiction != FEDERAL, r.jurisdiction))
    return Solution(
        lexsym_version=__version__,
        rules_digest=rules_digest(root),
        case_id=case.id,
        petition_date=case.petition_date,
        filing=case.filing.value,
        total_value=sum(asset.value for asset in case.assets),
        allowable=allowable,
        jurisdictions=results,
        optimal=_optimal(results),
        readings=case.readings.as_dict(),
        warnings=warnings,
    )


def _jurisdiction_result(
    first: FirstPass, code: str, allowable: bool, encoded: bool, root: Path, time_limit: int
) -> JurisdictionResult:
    constant = system_constant(code)
    citation = first.citations()
    classification: dict[str, list[ExemptionMatch]] = defaultdict(list)
    for symbol in sorted(first["eligible_by"], key=str):
        j, asset, exemption, basis = symbol.arguments
        if str(j) != constant:
            continue
        listed = basis.name == "listed"
        classification[asset.string].append(
            ExemptionMatch(
                citation=citation[str(exemption)],
                basis="listed" if listed else "rule",
                because="listed in the case" if listed else why_text(basis.arguments[0]),
            )
        )
    valuation: dict[str, list[ExemptionValue]] = defaultdict(list)
    for symbol in sorted(first["max_claim"], key=str):
        j, asset, exemption, value = symbol.arguments
        if str(j) == constant:
            valuation[asset.string].append(
                ExemptionValue(citation=citation[str(exemption)], max_claim=value.number)
            )

    problem = AllocationProblem.from_rows(first.rows, constant)
    schedule, fallback_used, proven = _allocate(problem, root, time_limit, first, constant, citation)
    exempt_by_asset: dict[str, int] = defaultdict(int)
    for claim in schedule:
        exempt_by_asset[claim.asset_id] += claim.amount
    non_exempt = {
        asset: value - exempt_by_asset[asset]
        for asset, value in sorted(problem.asset_values.items())
        if value - exempt_by_asset[asset] > 0
    }
    exempt_total = sum(exempt_by_asset.values())
    return JurisdictionResult(
        jurisdiction=code,
        name=system_name(code),
        allowable=allowable,
        statutes_encoded=encoded,
        classification=dict(classification),
        valuation=dict(valuation),
        non_exempt_total=problem.total_value - exempt_total,
        exempt_total=exempt_total,
        optimal=proven,
        schedule=schedule,
        non_exempt_by_asset=non_exempt,
        fallback_used=fallback_used,
    )


def _allocate(
    problem: AllocationProblem,
    root: Path,
    time_limit: int,
    first: FirstPass,
    constant: str,
    citation: dict[str, str],
) -> tuple[list[Claim], dict[str, int], bool]:
    """Run the optimiser on one jurisdiction's contract and explain each claim of its schedule."""
    allocation = allocate(problem, root=root, time_limit=time_limit)
    fallback_used: dict[str, int] = defaultdict(int)
    for (exemption, _scope), dollars in allocation.fallback_used.items():
        fallback_used[citation[exemption]] += dollars
    explain = ClaimExplainer(first, constant, problem, citation)
    schedule = [
        Claim(
            asset_id=asset,
            citation=citation[exemption],
            amount=amount,
            claimant=claimant,
            justification=explain(asset, exemption, claimant),
        )
        for (claimant, asset, exemption), amount in sorted(
            allocation.amounts.items(), key=lambda item: (item[0][1], item[0][2], item[0][0])
        )
    ]
    return schedule, dict(fallback_used), allocation.proven


def _optimal(results: Iterable[JurisdictionResult]) -> OptimalExemptions:
    candidates = [r for r in results if r.allowable]
    if not candidates:
        raise SolveError("no allowable jurisdiction was found")
    best = min(candidates, key=lambda r: (r.non_exempt_total, r.jurisdiction != FEDERAL, r.jurisdiction))
    return OptimalExemptions(
        jurisdiction=best.jurisdiction,
        non_exempt_total=best.non_exempt_total,
        schedule=best.schedule,
        tie_break=TIE_BREAK,
    )
