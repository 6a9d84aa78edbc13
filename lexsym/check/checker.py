"""Checking claimed exemption schedules against the logic program, and saying which rule each one breaks.

The named violations come from `encodings/check.lp`, loaded with the statutes, so no limit is restated
here. Many schedules of one case are checked in one grounding. A schedule that passes every named check is
then tested exactly: in a joint case each debtor has their own pools, so the claims must also admit a
division between the spouses (the allocation encoding with the claim totals fixed).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import clingo

from lexsym._util.errors import LexsymError
from lexsym.check.violations import Violation, ViolationDescriber
from lexsym.law.allocation import AllocationProblem
from lexsym.law.allocator import split_exists
from lexsym.law.case import Case
from lexsym.law.citations import citation_key, resolve_citation
from lexsym.law.facts import asp_string
from lexsym.law.first_pass import first_pass_many, statute_citations
from lexsym.law.rules import rules_root, statute_files
from lexsym.law.solution import Solution
from lexsym.law.solver import all_assigned, allowable_many, jurisdiction_id, solve
from lexsym.law.systems import system_constant, system_parts
from lexsym.law.vocabulary import JURISDICTION_NAMES
from lexsym.law.whatif import ExemptionTable

CHECK_ENCODING = "check.lp"


@dataclass
class ClaimedSchedule:
    """A schedule as an answer states it: a jurisdiction (id, or None to infer it from the citations) and
    claims of (asset key, citation text, amount). Asset keys are asset ids or descriptions."""

    jurisdiction: str | None
    claims: list[tuple[str, str, object]]

    @classmethod
    def from_answer(cls, answer: Any) -> ClaimedSchedule:
        """The schedule of a parsed OE answer (`lexsym.answers.OEAnswer`); an unreadable amount goes in
        as written, for the checker to name (bad_amount)."""
        claims = [
            (
                str(asset),
                str(claim.citation),
                claim.claim_value if claim.claim_value is not None else claim.raw_value,
            )
            for asset, listed in answer.schedule.items()
            for claim in listed
        ]
        return cls(answer.jurisdiction, claims)


@dataclass
class ScheduleVerdict:
    jurisdiction: str | None
    valid: bool
    violations: list[Violation] = field(default_factory=list)
    protected: int = 0
    non_exempt: int = 0
    optimal_non_exempt: int = 0
    gap: int = 0  # dollars more left non-exempt than the optimum (only meaningful when valid)
    gap_percent: float = 0.0  # gap as a percentage of the optimum's protected value
    beats_optimum: bool = False  # valid and better than the proven optimum: a bug to report, never a crash

    @property
    def optimal(self) -> bool:
        return self.valid and self.gap == 0


class _Aligner:
    """Maps an answer's asset keys (ids or descriptions) to the case's asset ids, one to one."""

    def __init__(self, case: Case):
        self.ids = {asset.id for asset in case.assets}
        self.by_description = {asset.description: asset.id for asset in case.assets}

    def map(self, keys: Sequence[str]) -> dict[str, str]:
        mapping = {key: key for key in keys if key in self.ids}
        rest = [key for key in keys if key not in mapping]
        if rest:
            from lexsym.answers import align_assets

            aligned = align_assets(rest, list(self.by_description))
            mapping.update({key: self.by_description[description] for key, description in aligned.items()})
        return mapping


CLINGO_MAX = 2**31 - 1
"""Clingo's integers are 32-bit: larger amounts (or an answer whose claims add up past this) cannot be
checked and are reported as bad amounts instead of wrapping around."""


def _amount(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 0 <= value <= CLINGO_MAX:
        return value
    return None


def _jurisdiction_constant(code: str | None) -> str:
    """A safe ASP term for an answer's system: known ids and composites of them as themselves, else other."""
    if code is None:
        return "none"
    code = code.upper()
    if all(part in JURISDICTION_NAMES for part in system_parts(code)) and len(system_parts(code)) <= 2:
        return system_constant(code)
    return "other"


def _facts(
    number: int, schedule: ClaimedSchedule, jurisdiction: str | None, aligner: _Aligner, known: list[str]
) -> tuple[list[str], dict[tuple[str, str], int]]:
    """ASP facts for one answer, and its (asset id, citation) totals."""
    facts = [f"answer({number},{_jurisdiction_constant(jurisdiction)})."]
    mapping = aligner.map([key for key, _, _ in schedule.claims])
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for key, citation_text, raw in schedule.claims:
        citation = resolve_citation(str(citation_text), known)
        asset = mapping.get(key)
        if asset is None:
            facts.append(f"unaligned({number},{asp_string(str(key))}).")
            continue
        amount = _amount(raw)
        if amount is None:
            facts.append(
                f"bad_amount({number},{asp_string(asset)},{asp_string(citation)},{asp_string(str(raw))})."
            )
            continue
        if sum(totals.values()) + amount > CLINGO_MAX:
            facts.append(
                f"bad_amount({number},{asp_string(asset)},{asp_string(citation)},{asp_string(str(raw))})."
            )
            continue
        totals[(asset, citation)] += amount
    for (asset, citation), amount in sorted(totals.items()):
        facts.append(f"claim({number},{asp_string(asset)},{asp_string(citation)},{amount}).")
    return facts, dict(totals)


def _infer_jurisdiction(
    schedule: ClaimedSchedule, citation_jurisdiction: dict[str, str], known: list[str]
) -> str | None:
    if schedule.jurisdiction:
        return schedule.jurisdiction.upper()
    counts = Counter(
        citation_jurisdiction.get(citation_key(resolve_citation(str(c), known)))
        for _, c, _ in schedule.claims
    )
    counts.pop(None, None)
    return counts.most_common(1)[0][0] if counts else None


def check_schedules(
    case: Case,
    schedules: Sequence[ClaimedSchedule],
    *,
    tables: Sequence[ExemptionTable] = (),
    rules: str | None = None,
    solution: Solution | None = None,
) -> list[ScheduleVerdict]:
    """Verdicts for `schedules`, all checked in one grounding of the case."""
    solution = solution or solve(case, tables=tables, rules=rules)
    [verdicts] = check_schedules_many([(case, schedules, solution)], tables=tables, rules=rules)
    if isinstance(verdicts, LexsymError):
        raise verdicts
    return verdicts


def check_schedules_many(
    items: Sequence[tuple[Case, Sequence[ClaimedSchedule], Solution]],
    *,
    tables: Sequence[ExemptionTable] = (),
    rules: str | None = None,
) -> list[list[ScheduleVerdict] | LexsymError]:
    """`check_schedules` for many cases, each with its schedules and its solution: the first passes of the
    cases that need the same statutes are grounded together. Each case's verdicts or error, in order."""
    root = rules_root(rules)
    known = [*statute_citations(root), *(c for table in tables for c in table.citations())]
    citation_jurisdiction = _citation_jurisdictions(root, tables)
    results: list[list[ScheduleVerdict] | LexsymError | None] = [None] * len(items)
    prepared: dict[int, _Prepared] = {}
    allowable = allowable_many([case for case, _, _ in items], root, tables)
    for index, ((case, schedules, _), codes) in enumerate(zip(items, allowable, strict=True)):
        if isinstance(codes, LexsymError):
            results[index] = codes
        else:
            prepared[index] = _prepare(case, schedules, codes, citation_jurisdiction, known)
    groups: dict[tuple[Path, ...], list[int]] = defaultdict(list)
    for index, ready in prepared.items():
        groups[tuple(statute_files(root, ready.wanted))].append(index)
    check_file = [root / "encodings" / CHECK_ENCODING]
    for members in groups.values():
        passes = first_pass_many(
            [items[i][0] for i in members],
            root,
            tables,
            prepared[members[0]].wanted,
            [prepared[i].facts for i in members],
            check_file,
        )
        for index, outcome in zip(members, passes, strict=True):
            if isinstance(outcome, LexsymError):
                results[index] = outcome
                continue
            try:
                results[index] = _verdicts(*outcome, prepared[index], items[index][2], root)
            except LexsymError as error:
                results[index] = error
    return all_assigned(results)


@dataclass
class _Prepared:
    """A case's schedules as the checker grounds them: jurisdictions, facts and claim totals."""

    jurisdictions: list[str | None]
    wanted: list[str]
    facts: str
    totals: list[dict[tuple[str, str], int]]


def _prepare(
    case: Case,
    schedules: Sequence[ClaimedSchedule],
    allowable: list[str],
    citation_jurisdiction: dict[str, str],
    known: list[str],
) -> _Prepared:
    aligner = _Aligner(case)
    jurisdictions = [_infer_jurisdiction(s, citation_jurisdiction, known) for s in schedules]
    wanted = set(allowable) | {j for j in jurisdictions if j}
    wanted |= {
        citation_jurisdiction[k]
        for s in schedules
        for _, c, _ in s.claims
        if (k := citation_key(resolve_citation(str(c), known))) in citation_jurisdiction
    }
    facts: list[str] = []
    totals: list[dict[tuple[str, str], int]] = []
    for number, (schedule, jurisdiction) in enumerate(zip(schedules, jurisdictions, strict=True)):
        answer_facts, answer_totals = _facts(number, schedule, jurisdiction, aligner, known)
        facts.extend(answer_facts)
        totals.append(answer_totals)
    return _Prepared(jurisdictions, sorted(wanted), "\n".join(facts), totals)


def _verdicts(
    case: Case, first: Any, prepared: _Prepared, solution: Solution, root: Path
) -> list[ScheduleVerdict]:
    """The verdict of each schedule, from the check pass's violations and, for those with none, the
    exact test that the claims can be divided between the debtors."""
    found: dict[int, list[clingo.Symbol]] = defaultdict(list)
    for symbol in first["violation"]:
        found[symbol.arguments[0].number].append(symbol.arguments[1])
    describe = ViolationDescriber(case, first)
    best = solution.optimal.non_exempt_total
    optimum_protected = solution.total_value - best
    verdicts = []
    for number, jurisdiction in enumerate(prepared.jurisdictions):
        violations = [describe(v, jurisdiction) for v in sorted(found.get(number, []), key=str)]
        by_exemption = {
            (asset, e): v
            for asset, e, v in ((a, e, v) for n, a, e, v in first.rows["claimed"] if n == number)
        }
        if not violations and jurisdiction:
            problem = AllocationProblem.from_rows(first.rows, system_constant(jurisdiction))
            if not split_exists(problem, by_exemption, root=root):
                violations.append(
                    Violation(
                        "no_valid_split",
                        (),
                        "no division of these claims between the debtors keeps each "
                        "within their own interest and limits (11 U.S.C. § 522(m))",
                        "11 U.S.C. § 522(m)",
                    )
                )
        protected = sum(prepared.totals[number].values())
        valid = not violations
        non_exempt = solution.total_value - protected if valid else solution.total_value
        gap = non_exempt - best if valid else 0
        verdicts.append(
            ScheduleVerdict(
                jurisdiction=jurisdiction,
                valid=valid,
                violations=violations,
                protected=protected if valid else 0,
                non_exempt=non_exempt,
                optimal_non_exempt=best,
                gap=gap,
                gap_percent=(100.0 * gap / optimum_protected) if optimum_protected and valid else 0.0,
                beats_optimum=valid and gap < 0,
            )
        )
    return verdicts


def _citation_jurisdictions(root: Path, tables: Sequence[ExemptionTable]) -> dict[str, str]:
    """Citation key -> jurisdiction id, for every statute exemption and table entry."""
    mapping = dict(_statute_citation_jurisdictions(root))
    for table in tables:
        mapping.update({citation_key(e.citation): e.jurisdiction for e in table.exemptions})
    return mapping


@cache
def _statute_citation_jurisdictions(root: Path) -> tuple[tuple[str, str], ...]:
    from lexsym.law.rules import statute_files
    from lexsym.law.stratified import solve_stratified

    symbols = solve_stratified(
        [root / "encodings" / "vocabulary.lp", *statute_files(root)],
        "#show jc(C,J) : citation(E,C), exemption(E,J).",
    )
    owners: dict[str, set[str]] = defaultdict(set)
    for symbol in symbols:
        if symbol.match("jc", 2):
            owners[citation_key(symbol.arguments[0].string)].add(jurisdiction_id(symbol.arguments[1]))
    # A citation shared by several systems (11 U.S.C. § 522(b)(3)(C) is in every state's) names none of them.
    return tuple((key, next(iter(codes))) for key, codes in sorted(owners.items()) if len(codes) == 1)


def violation_names(verdicts: Iterable[ScheduleVerdict]) -> list[set[str]]:
    return [{v.name for v in verdict.violations} for verdict in verdicts]
