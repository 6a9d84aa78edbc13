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

from lexsym.law.allocation import AllocationProblem, decode_arguments
from lexsym.law.allocator import split_exists
from lexsym.law.case import Case
from lexsym.law.citations import citation_key, resolve_citation
from lexsym.law.facts import asp_string
from lexsym.law.first_pass import first_pass, statute_citations
from lexsym.law.rules import rules_root
from lexsym.law.solution import Solution
from lexsym.law.solver import allowable_jurisdictions, jurisdiction_id, solve
from lexsym.law.systems import system_constant, system_name, system_parts
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
class Violation:
    name: str
    arguments: tuple
    message: str
    citation: str | None = None


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


def _name(code: str | None) -> str:
    return system_name(code) if code else "no jurisdiction"


def _money(value: object) -> str:
    return f"${value:,}" if isinstance(value, int) else str(value)


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
    root = rules_root(rules)
    solution = solution or solve(case, tables=tables, rules=rules)
    known = [*statute_citations(root), *(c for table in tables for c in table.citations())]
    citation_jurisdiction = _citation_jurisdictions(root, tables)
    aligner = _Aligner(case)
    jurisdictions = [_infer_jurisdiction(s, citation_jurisdiction, known) for s in schedules]
    wanted = set(allowable_jurisdictions(case, root, tables)) | {j for j in jurisdictions if j}
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
    case, first = first_pass(
        case, root, tables, sorted(wanted), "\n".join(facts), [root / "encodings" / CHECK_ENCODING]
    )
    found: dict[int, list[clingo.Symbol]] = defaultdict(list)
    for symbol in first["violation"]:
        found[symbol.arguments[0].number].append(symbol.arguments[1])
    describe = _Describer(case, first)
    best = solution.optimal.non_exempt_total
    optimum_protected = solution.total_value - best
    verdicts = []
    for number, jurisdiction in enumerate(jurisdictions):
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
        protected = sum(totals[number].values())
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
    from lexsym.law.clingo_runner import solve_stratified
    from lexsym.law.rules import statute_files

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


class _Describer:
    """One plain-English sentence, with its citation, per violation."""

    def __init__(self, case: Case, first):
        self.description = {asset.id: asset.description for asset in case.assets}
        self.citation = first.citations()
        allowable = sorted({jurisdiction_id(s.arguments[0]) for s in first["allowable"]})
        self.allowable = ", ".join(_name(code) for code in allowable)

    def __call__(self, symbol: clingo.Symbol, jurisdiction: str | None) -> Violation:
        name = symbol.name
        args = decode_arguments(symbol)
        d = lambda asset: f"'{self.description.get(asset, asset)}'"  # noqa: E731
        c = lambda exemption: self.citation.get(exemption, exemption)  # noqa: E731
        text, cited = {
            "jurisdiction_not_allowable": lambda: (
                f"{_name(jurisdiction)} exemptions are not open to this debtor (allowable: {self.allowable})",
                "11 U.S.C. § 522(b)",
            ),
            "no_jurisdiction": lambda: (
                "the answer names no jurisdiction and its citations identify none",
                "11 U.S.C. § 522(b)",
            ),
            "unknown_asset": lambda: (f"'{args[0]}' matches no asset of the case", None),
            "unknown_citation": lambda: (f"'{args[1]}' is not an exemption of the encoded statutes", None),
            "bad_amount": lambda: (
                f"the amount {args[2]!r} claimed in {d(args[0])} under {args[1]} is not a whole, "
                "non-negative number of dollars",
                args[1],
            ),
            "other_jurisdiction": lambda: (
                f"{c(args[1])} is a {_name(args[2].upper())} exemption, but the schedule claims "
                f"{_name(jurisdiction)}'s: a debtor uses one jurisdiction's exemptions",
                "11 U.S.C. § 522(b)(1)",
            ),
            "not_eligible": lambda: (f"{d(args[0])} does not fall under {c(args[1])}", c(args[1])),
            "exceeds_value": lambda: (
                f"claims on {d(args[0])} total {_money(args[1])}, more than its value {_money(args[2])}",
                None,
            ),
            "per_item_exceeded": lambda: (
                f"{c(args[1])} allows at most {_money(args[3])} in one item; {_money(args[2])} is claimed in "
                f"{d(args[0])}",
                c(args[1]),
            ),
            "exceeds_single_claim": lambda: (
                f"{c(args[1])} can protect at most {_money(args[3])} in {d(args[0])} (its caps and the "
                f"debtors' interests); {_money(args[2])} is claimed",
                c(args[1]),
            ),
            "aggregate_exceeded": lambda: (
                f"claims under {c(args[0])} total {_money(args[1])}, over its limit of {_money(args[2])} "
                "in this case",
                c(args[0]),
            ),
            "fallback_exceeded": lambda: (
                f"{c(args[0])} goes {_money(args[2])} over its own limit but may take only {_money(args[3])} "
                f"from the unused amount of {c(args[1])}",
                c(args[0]),
            ),
            "item_count_exceeded": lambda: (
                f"{c(args[0])} allows {args[2]} item claim(s) in this case; the claims need {args[1]}",
                c(args[0]),
            ),
            "exclusion_broken": lambda: (
                f"{c(args[0])} and {c(args[1])} cannot both be claimed in one case",
                c(args[0]),
            ),
            "group_exceeded": lambda: (
                f"claims counted under {c(args[0])} total {_money(args[1])}, over its cap of "
                f"{_money(args[2])}",
                c(args[0]),
            ),
            "stacking_not_allowed": lambda: (
                f"{c(args[1])} cannot be combined with another exemption on {d(args[0])}",
                c(args[1]),
            ),
        }.get(name, lambda: (f"{name}{args}", None))()
        return Violation(name, args, text, cited)


def violation_names(verdicts: Iterable[ScheduleVerdict]) -> list[set[str]]:
    return [{v.name for v in verdict.violations} for verdict in verdicts]
