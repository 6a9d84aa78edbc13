"""`lexsym.solve`: the gold answers of all five tasks for one case, from the logic program.

Pass 1 (plain clingo, one answer set) decides the allowable jurisdictions (AE), classifies (EC) and values
(EV) every asset, and derives the allocation contract of each jurisdiction. Pass 2 (clingo-lpx) finds, per
jurisdiction, a schedule leaving the least value non-exempt (NA) and proves it optimal; the jurisdiction
with the least non-exempt value gives task OE.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import clingo

from lexsym._version import __version__
from lexsym.allocation import AllocationProblem, decode_arguments
from lexsym.allocator import allocate
from lexsym.case import Case
from lexsym.citations import resolve_citation
from lexsym.clingo_runner import solve_stratified
from lexsym.errors import RuleError, SolveError
from lexsym.facts import case_facts, domicile_facts
from lexsym.rules import (
    case_encoding_files,
    domicile_files,
    encoded_jurisdictions,
    rules_digest,
    rules_root,
    statute_files,
)
from lexsym.solution import (
    AllowableJurisdictions,
    AllowedJurisdiction,
    Claim,
    DebtorDomicile,
    ExemptionMatch,
    ExemptionValue,
    JurisdictionResult,
    OptimalExemptions,
    Solution,
)
from lexsym.systems import system_constant, system_id, system_name, system_parts
from lexsym.vocabulary import FEDERAL
from lexsym.whatif import ExemptionTable

TIE_BREAK = (
    "least non-exempt value; on a tie the federal exemptions (as OpenExempt reports), "
    "then states in alphabetical order"
)
PATHS = {"whole_730": "730", "whole_180": "180_whole", "longer_180": "180_longer"}


jurisdiction_id = system_id
"""US, a USPS code, or a composite "AZ+IL" (lexsym.systems)."""


@dataclass
class _Pass1:
    """The first pass's shown atoms, grouped by predicate name, as symbols and as decoded rows."""

    by_name: dict[str, list[clingo.Symbol]]
    rows: dict[str, list[tuple]]

    @classmethod
    def of(cls, symbols: Sequence[clingo.Symbol]) -> _Pass1:
        grouped: dict[str, list[clingo.Symbol]] = defaultdict(list)
        rows: dict[str, list[tuple]] = defaultdict(list)
        for symbol in symbols:
            name = symbol.name
            grouped[name].append(symbol)
            rows[name].append(decode_arguments(symbol))
        return cls(grouped, rows)

    def __getitem__(self, name: str) -> list[clingo.Symbol]:
        return self.by_name.get(name, [])

    def citations(self) -> dict[str, str]:
        """Exemption and group-cap ids -> their citation strings."""
        return {name: text for name, text in [*self.rows["citation_of"], *self.rows["group_citation"]]}


@cache
def _statute_citations(root: Path) -> tuple[str, ...]:
    symbols = solve_stratified(
        [root / "encodings" / "vocabulary.lp", *statute_files(root)], "#show citation/2."
    )
    return tuple(sorted(s.arguments[1].string for s in symbols if s.match("citation", 2)))


def _resolve_listed_citations(case: Case, root: Path, tables: Sequence[ExemptionTable]) -> Case:
    """Map each listed citation to the canonical string of a known citation, matching loosely."""
    if not any(asset.applicable_exemptions for asset in case.assets):
        return case
    known = [*_statute_citations(root), *(c for table in tables for c in table.citations())]
    assets = [
        asset.model_copy(
            update={
                "applicable_exemptions": [resolve_citation(c, known) for c in asset.applicable_exemptions]
            }
        )
        if asset.applicable_exemptions
        else asset
        for asset in case.assets
    ]
    return case.model_copy(update={"assets": assets})


def case_program(case: Case, tables: Sequence[ExemptionTable] = ()) -> str:
    """The facts of a case and of its what-if tables, as one ASP program."""
    return "\n".join([*case_facts(case), *(f for table in tables for f in table.to_facts())])


def first_pass(
    case: Case,
    root: Path,
    tables: Sequence[ExemptionTable] = (),
    jurisdictions: Iterable[str] | None = None,
    extra_program: str = "",
    extra_files: Sequence[Path] = (),
) -> tuple[Case, _Pass1]:
    """Pass 1 on a case (listed citations resolved first); raises on defects of the rules or the case.

    jurisdictions: load only the statutes these need (None: all); extra_program: more facts or #show
    lines; extra_files: more encodings (encodings/check.lp for the checker).
    """
    case = _resolve_listed_citations(case, root, tables)
    files = [*statute_files(root, jurisdictions), *case_encoding_files(root), *extra_files]
    first = _Pass1.of(solve_stratified(files, case_program(case, tables) + "\n" + extra_program))
    _raise_on_rule_defects(first)
    return case, first


def allowable_jurisdictions(case: Case, root: Path, tables: Sequence[ExemptionTable] = ()) -> list[str]:
    """Task AE alone, from the 730-day rule and the opt-out table (cheap: no statute is grounded)."""
    program = "\n".join(
        [
            *domicile_facts(case),
            *(f for table in tables for f in table.to_facts() if f.startswith("table_opt_out(")),
            "#show allowable/2.",
        ]
    )
    symbols = solve_stratified(domicile_files(root), program)
    return sorted({jurisdiction_id(s.arguments[0]) for s in symbols if s.match("allowable", 2)})


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
    table_codes = {entry.jurisdiction for table in tables for entry in table.exemptions}
    encoded = sorted(set(encoded_jurisdictions(root)) | table_codes)
    if all_jurisdictions:
        wanted = encoded
    else:
        wanted = sorted(set(allowable_jurisdictions(case, root, tables)) | {c.upper() for c in jurisdictions})
    case, first = first_pass(case, root, tables, wanted)

    allowable = _allowable(first)
    wanted = sorted(set(wanted) | set(allowable.jurisdictions))
    _raise_on_missing_amounts(first, wanted, case.petition_date)
    warnings = _warnings(first, allowable, wanted, encoded)
    results = [
        _jurisdiction_result(
            first, code, code in allowable.jurisdictions, _is_encoded(code, encoded), root, time_limit
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


def _is_encoded(code: str, encoded: Iterable[str]) -> bool:
    """A system has statutes when every jurisdiction it is made of does."""
    return all(part in set(encoded) for part in system_parts(code))


def _raise_on_rule_defects(first: _Pass1) -> None:
    for symbol in first["unknown_citation"]:
        asset, citation = symbol.arguments
        raise SolveError(
            f"asset {asset.string}: unknown citation {citation.string!r} in applicable_exemptions"
        )
    for symbol in first["limit_undeclared"]:
        raise RuleError(f"exemption {symbol.arguments[0]}: no limit amount and not declared unlimited/1")


def _raise_on_missing_amounts(first: _Pass1, wanted: Iterable[str], petition: dt.date) -> None:
    """Refuse to answer for a jurisdiction whose amounts do not reach back to the petition date."""
    jurisdiction_of = {str(s.arguments[0]): jurisdiction_id(s.arguments[1]) for s in first["exemption_of"]}
    citation = first.citations()
    missing: dict[str, list[str]] = defaultdict(list)
    for symbol in first["amount_missing"]:
        exemption, kind = (str(a) for a in symbol.arguments)
        missing[jurisdiction_of.get(exemption, "?")].append(
            (kind != "limit", kind, citation.get(exemption, exemption))
        )
    for code in wanted:
        if missing.get(code):
            (_, kind, cited), *others = sorted(missing[code])
            more = f" (and {len(others)} more)" if others else ""
            raise SolveError(
                f"{code}: no {kind} amount of {cited} is in force on the petition date {petition}{more}; "
                "the rules hold no earlier amounts"
            )


def _allowable(first: _Pass1) -> AllowableJurisdictions:
    days: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: {"w730": {}, "w180": {}})
    for claimant, place, window, count in first.rows["days_in"]:
        if window in ("w730", "w180"):
            days[claimant][window][jurisdiction_id(place)] = count
    governing: dict[str, dict[str, str]] = defaultdict(dict)
    for claimant, place, path in first.rows["governing_place"]:
        governing[claimant][path] = jurisdiction_id(place)
    opted_out = {jurisdiction_id(s.arguments[0]) for s in first["state_opted_out"]}
    binds = {(claimant, jurisdiction_id(state)) for claimant, state in first.rows["opt_out_binds"]}
    context = _OptOutContext(first)
    claimants = sorted(
        {str(s.arguments[0]) for s in first["claimant_allowable"]}, key=lambda c: c != "debtor"
    )
    debtors: list[DebtorDomicile] = []
    for claimant in claimants:
        reasons = []
        state: str | None = None
        path = "hanging_paragraph"
        symbols = [s for s in first["claimant_allowable"] if str(s.arguments[0]) == claimant]
        for symbol in sorted(symbols, key=lambda s: (str(s.arguments[1]) == "us", str(s))):
            code = jurisdiction_id(symbol.arguments[1])
            why = symbol.arguments[2]
            if why.name == "state_law":
                state, path = code, PATHS[str(why.arguments[0])]
            reasons.append(
                AllowedJurisdiction(
                    jurisdiction=code,
                    name=system_name(code),
                    reason=str(why),
                    justification=_allowable_justification(
                        why, code, days[claimant], governing[claimant], context
                    ),
                )
            )
        debtors.append(
            DebtorDomicile(
                claimant=claimant,
                applicable_state=state,
                rule_path=path,
                opted_out=None if state is None else state in opted_out,
                opt_out_binds=None if state is None or state not in opted_out else (claimant, state) in binds,
                days_730=dict(sorted(days[claimant]["w730"].items())),
                days_180=dict(sorted(days[claimant]["w180"].items())),
                reasons=reasons,
            )
        )
    by_claimant = {entry.claimant: entry for entry in debtors}
    reasons = []
    for symbol in sorted(first["allowable"], key=lambda s: (str(s.arguments[0]) == "us", str(s))):
        code = jurisdiction_id(symbol.arguments[0])
        why = symbol.arguments[1]
        reasons.append(
            AllowedJurisdiction(
                jurisdiction=code,
                name=system_name(code),
                reason=str(why),
                justification=_couple_justification(code, why, by_claimant, context),
            )
        )
    debtor = by_claimant["debtor"]
    return AllowableJurisdictions(
        jurisdictions=[r.jurisdiction for r in reasons],
        applicable_state=debtor.applicable_state,
        rule_path=debtor.rule_path,
        opted_out=debtor.opted_out,
        days_730=debtor.days_730,
        days_180=debtor.days_180,
        reasons=reasons,
        by_debtor=debtors,
    )


@dataclass
class _OptOutContext:
    """What the AE justifications quote beyond the day counts: opt-out citations, scopes, kept paragraphs."""

    citations: dict[str, str]
    scopes: dict[str, str]
    keeps: dict[str, list[tuple[str, str]]]
    filed_in: str | None
    separate_histories: bool

    def __init__(self, first: _Pass1):
        self.citations = {jurisdiction_id(s): c for s, c in first.rows["opt_out_citation"]}
        self.scopes = {jurisdiction_id(s): w for s, w in first.rows["opt_out_scope"]}
        self.keeps = defaultdict(list)
        for state, paragraph, cited in first.rows["opt_out_keeps"]:
            self.keeps[jurisdiction_id(state)].append((paragraph, cited))
        filed = first.rows["filed_in"]
        self.filed_in = jurisdiction_id(filed[0][0]) if filed else None
        periods: dict[str, set] = defaultdict(set)
        for claimant, _index, place, start, end in first.rows["domicile_period"]:
            periods[claimant].add((place, start, end))
        self.separate_histories = len(periods) > 1 and periods["debtor"] != periods["spouse"]


_SCOPE_WORDS = {
    "residents": "its residents",
    "domiciliaries": "debtors domiciled there",
    "citizens": "its citizens",
    "residents_180": "its residents and those who left fewer than 180 days before filing",
    "longer_180": "debtors domiciled there for the longer portion of the 180 days before filing",
    "filed_in_state": "cases filed in that state",
}


def _allowable_justification(
    why: clingo.Symbol,
    code: str,
    days: dict[str, dict[str, int]],
    governing: dict[str, str],
    context: _OptOutContext,
) -> str:
    a = "11 U.S.C. § 522(b)(3)(A)"
    if why.name == "state_law":
        path = str(why.arguments[0])
        if path == "whole_730":
            return f"{a}: domiciled in {code} for all 730 days before the petition"
        if path == "whole_180":
            return (
                f"{a}: not domiciled in a single state for the 730 days; domiciled in {code} for all 180 "
                "days "
                "before that period"
            )
        return (
            f"{a}: not domiciled in a single state for the 730 days; domiciled in {code} for "
            f"{days['w180'][code]} of the 180 days before that period, longer than in any other place"
        )
    if why.name == "not_opted_out":
        state = jurisdiction_id(why.arguments[0])
        return f"11 U.S.C. § 522(b)(2): {state} has not opted out of the § 522(d) exemptions"
    if why.name == "opt_out_does_not_reach":
        state = jurisdiction_id(why.arguments[0])
        cited = context.citations.get(state, "its opt-out")
        words = _SCOPE_WORDS.get(context.scopes.get(state, ""), "the debtors it names")
        return (
            f"11 U.S.C. § 522(b)(2): {state}'s opt-out ({cited}) withholds the § 522(d) exemptions only from "
            f"{words}, and this debtor is not one of them on the petition date (reading nonresident_opt_out: "
            "camp, after In re Camp, 631 F.3d 757 (5th Cir. 2011))"
        )
    in_730 = governing.get("whole_730") or governing.get("whole_180") or governing.get("longer_180")
    if in_730 is not None:
        cause = f"the governing place ({in_730}) is outside the United States"
    elif not days["w180"]:
        cause = "no domicile in a state for the 730 days and none recorded in the 180 days before them"
    else:
        tied = sorted(p for p, n in days["w180"].items() if n == max(days["w180"].values()))
        cause = f"no place has a longer portion of the 180 days ({', '.join(tied)} tie)"
    return (
        f"11 U.S.C. § 522(b)(3), hanging paragraph: no state's law applies under (b)(3)(A) because "
        f"{cause}, so the debtor may elect the § 522(d) exemptions"
    )


def _couple_justification(
    code: str, why: clingo.Symbol, debtors: dict[str, DebtorDomicile], context: _OptOutContext
) -> str:
    """Why the debtors (one, or both spouses together) may elect system `code`."""
    if why.name == "deemed_election":
        return (
            f"11 U.S.C. § 522(b)(1): the spouses cannot agree, so they are deemed to elect paragraph (2), "
            "the "
            f"§ 522(d) exemptions, which each may elect and the law of the filing state ({context.filed_in}) "
            "permits"
        )
    if why.name == "each_own_law":
        parts = system_parts(code)
        laws = [
            f"the {claimant}'s is {system_name(part)} ({debtors[claimant].rule_path})"
            for claimant, part in zip(("debtor", "spouse"), parts, strict=True)
        ]
        return (
            "11 U.S.C. § 522(b)(1), (b)(3), (m): both spouses elect paragraph (3), each under their own law: "
            + "; ".join(laws)
            + " (In re Hassen, 432 B.R. 343 (Bankr. D.D.C. 2010))"
        )
    own = {
        claimant: next((r.justification for r in entry.reasons if r.jurisdiction == code), "")
        for claimant, entry in debtors.items()
    }
    text = own["debtor"]
    if len(debtors) > 1 and context.separate_histories:
        text = f"debtor: {own['debtor']}; spouse: {own['spouse']}"
    keeps = context.keeps.get(code, [])
    if keeps:
        kept = "; ".join(f"{cited} keeps {paragraph}" for paragraph, cited in keeps)
        text += f" ({kept}, whose state exemptions are not encoded)"
    return text


def _warnings(
    first: _Pass1, allowable: AllowableJurisdictions, wanted: Iterable[str], encoded: Iterable[str]
) -> list[str]:
    encoded = set(encoded)
    wanted = {part for code in wanted for part in system_parts(code)}
    warnings = [
        f"{code}: no exemption statutes of this jurisdiction are encoded; nothing can be exempted under it"
        for code in allowable.jurisdictions
        if not _is_encoded(code, encoded)
    ]
    jurisdiction_of = {e: jurisdiction_id(j) for e, j in first.rows["exemption_of"]}
    notes = {
        name: _amount_notes(first, name, jurisdiction_of, wanted)
        for name in ("amount_backdated", "amount_stale", "amount_unconfirmed")
    }
    for (code, day), cited in notes["amount_backdated"]:
        warnings.append(
            f"{code}: the petition predates the amounts recorded as of {_day_text(day)} for {cited}; "
            "earlier amounts are not encoded, so these are used"
        )
    for (code, day), cited in notes["amount_stale"]:
        warnings.append(
            f"{code}: {cited}: the amount was adjusted again on {_day_text(day)} to a figure not encoded; "
            f"the amount used is the last one encoded and {STALE_WARNING}"
        )
    for (code, day), cited in notes["amount_unconfirmed"]:
        warnings.append(
            f"{code}: {cited}: the amount in force from {_day_text(day)} was not read from an official text "
            "(computed from the statute's formula or taken from a secondary source)"
        )
    return warnings


def _amount_notes(
    first: _Pass1, name: str, jurisdiction_of: dict[str, str], wanted: set[str]
) -> list[tuple[tuple[str, str], str]]:
    """((jurisdiction, date), cited exemptions) for the amount atoms `name`(E, Kind, Date) of `wanted`."""
    citation = first.citations()
    grouped: dict[tuple[str, str], set[str]] = defaultdict(set)
    for exemption, _kind, day in first.rows[name]:
        code = jurisdiction_of.get(exemption)
        if code in wanted:
            grouped[(code, day)].add(citation.get(exemption, exemption))
    return [(key, ", ".join(sorted(cited))) for key, cited in sorted(grouped.items())]


STALE_WARNING = "understates the law"
"""Marks a warning that the figures used are known to be out of date (the generator refuses such gold)."""


def _day_text(day: str) -> str:
    """'date(2024,1,1)' -> '2024-01-01'."""
    return dt.date(*(int(n) for n in day[5:-1].split(","))).isoformat()


def _why_text(why: clingo.Symbol) -> str:
    """A rule's Why term in words: used_as_residence_by(debtor) -> "used as residence by debtor"."""
    if why.type is clingo.SymbolType.Function and why.arguments:
        words = why.name.replace("_", " ")
        inner = [_why_text(arg) for arg in why.arguments]
        return f"{words} {inner[0]}" if len(inner) == 1 else f"{words} ({', '.join(inner)})"
    if why.type is clingo.SymbolType.String:
        return why.string
    return str(why).replace("_", " ")


def _jurisdiction_result(
    first: _Pass1, code: str, allowable: bool, encoded: bool, root: Path, time_limit: int
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
                because="listed in the case" if listed else _why_text(basis.arguments[0]),
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
    first: _Pass1,
    constant: str,
    citation: dict[str, str],
) -> tuple[list[Claim], dict[str, int], bool]:
    """Run the optimiser on one jurisdiction's contract and explain each claim of its schedule."""
    allocation = allocate(problem, root=root, time_limit=time_limit)
    fallback_used: dict[str, int] = defaultdict(int)
    for (exemption, _scope), dollars in allocation.fallback_used.items():
        fallback_used[citation[exemption]] += dollars
    explain = _ClaimExplainer(first, constant, problem, citation)
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


class _ClaimExplainer:
    """Builds the one-line justification of a claim: the rule, its citation and the limits in force."""

    def __init__(self, first: _Pass1, constant: str, problem: AllocationProblem, citation: dict[str, str]):
        self.problem = problem
        self.citation = citation
        self.titles = {str(s.arguments[0]): s.arguments[1].string for s in first["exemption_title"]}
        self.since: dict[str, str] = {}
        for symbol in first["amount_from"]:
            exemption, _kind, day = symbol.arguments
            self.since[str(exemption)] = dt.date(*(a.number for a in day.arguments)).isoformat()
        self.basis: dict[tuple[str, str], str] = {}
        for symbol in first["eligible_by"]:
            j, asset, exemption, basis = symbol.arguments
            if str(j) == constant:
                text = "listed in the case" if basis.name == "listed" else _why_text(basis.arguments[0])
                self.basis.setdefault((asset.string, str(exemption)), text)

    def __call__(self, asset: str, exemption: str, claimant: str) -> str:
        p = self.problem
        scope = p.draws[(exemption, claimant)]
        pool = (exemption, scope)
        whose = "per debtor" if scope != "household" else "for the case"
        limits = []
        if pool in p.pool_limits:
            limits.append(f"cap ${p.pool_limits[pool]:,} {whose}")
        else:
            limits.append("no dollar cap")
        if pool in p.pool_items:
            limits.append(f"{p.pool_items[pool]} item claim(s) of up to ${p.claim_caps[pool]:,}")
        if (asset, exemption, scope) in p.item_caps:
            limits.append(f"${p.item_caps[(asset, exemption, scope)]:,} per item")
        if pool in p.fallbacks:
            base, dollars = p.fallbacks[pool]
            limits.append(f"plus up to ${dollars:,} of unused {self.citation[base]}")
        for (group, claimant_), dollars in p.group_limits.items():
            if claimant_ == claimant and (asset, exemption, group) in p.group_members:
                limits.append(f"within {self.citation.get(group, group)} cap ${dollars:,}")
        if exemption in p.solo:
            limits.append("not combined with another exemption on this asset")
        if (asset, exemption) in p.asset_caps:
            limits.append(f"${p.asset_caps[(asset, exemption)]:,} reasonably necessary for support")
        if exemption in self.since:
            limits.append(f"amounts in force from {self.since[exemption]}")
        title = self.titles.get(exemption)
        head = f"{self.citation[exemption]}" + (f" ({title})" if title else "")
        return f"{head}: {self.basis.get((asset, exemption), 'eligible')}; {'; '.join(limits)}"


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
