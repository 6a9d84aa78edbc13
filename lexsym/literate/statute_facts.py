"""What the rules of one jurisdiction say about its exemptions, read by grounding them: citations, titles,
paraphrases, every dated amount with its source, the figures the solver flags (as-of, unconfirmed, stale),
the departures from OpenExempt and the opt-out.

The page takes these from clingo rather than from the text, so a rule that derives an amount (`Y =
2024..2026`) shows the amounts it derives, exactly as the solver will use them.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lexsym.law.allocation import decode_arguments
from lexsym.law.citations import citation_order
from lexsym.law.facts import asp_date
from lexsym.law.rules import statute_files
from lexsym.law.statute_survey import survey
from lexsym.law.stratified import solve_stratified
from lexsym.law.vocabulary import state_of, systems_of

_SHOW = """
#show exemption/2. #show citation/2. #show exemption_title/2. #show statute_text/2.
#show amount/4. #show amount_as_of/4. #show amount_source/3. #show unconfirmed/3. #show amount_stale_from/3.
#show departs_from_openexempt/2. #show opt_out/1. #show opt_out_citation/2. #show opt_out_scope/2.
#show opt_out_source/2. #show jurisdiction_name/2.
#show group/1. #show group_citation/2. #show counts_toward/2. #show figures_follow_family/1.
"""


@dataclass(frozen=True)
class DatedAmount:
    """One figure of one exemption: in force from `start` until a later figure of the same kind."""

    kind: str
    start: dt.date
    dollars: int
    as_of: bool  # known in force on `start`; history before it not encoded
    source: str | None
    unconfirmed: bool


@dataclass
class ExemptionFacts:
    ident: str
    citation: str
    title: str
    text: str
    amounts: list[DatedAmount] = field(default_factory=list)
    stale_from: dict[str, dt.date] = field(default_factory=dict)
    departures: list[str] = field(default_factory=list)
    family_figures: bool = False  # its joint figures are a family's (figures_follow_family/1)
    is_cap: bool = False  # a group cap over several claims (group/1), not an exemption


SCOPE_WORDS = {
    "residents": "residents",
    "domiciliaries": "domiciliaries",
    "citizens": "citizens",
    "residents_180": "residents, and non-residents for fewer than the 180 days before filing",
    "longer_180": "debtors domiciled there for the 180 days before filing or the longer part of them",
    "filed_in_state": "cases filed in the state",
}
"""Whom an opt-out's words reach (opt_out_scope/2 in statutes/opt_out.lp), as a page says it."""


@dataclass(frozen=True)
class OptOut:
    """Whether the state has opted out of the federal exemptions on the date the page is written for."""

    opted_out: bool
    citation: str | None
    scope: str | None
    source: str | None


@dataclass(frozen=True)
class JurisdictionFacts:
    code: str
    name: str
    exemptions: dict[str, ExemptionFacts]
    opt_out: OptOut | None  # None for the federal exemptions
    other_systems: tuple[str, ...] = ()  # names of the state's other systems (California's § 703.140(b))

    def adjustment_dates(self) -> list[dt.date]:
        """Every date on which one of the jurisdiction's amounts takes effect, oldest first."""
        return sorted({a.start for e in self.exemptions.values() for a in e.amounts})


def _date(text: str) -> dt.date:
    """`date(2019,4,1)` as a date."""
    year, month, day = (int(part) for part in text.removeprefix("date(").rstrip(")").split(","))
    return dt.date(year, month, day)


def _group_homes(root: Path, files: Iterable[Path]) -> dict[str, str]:
    """Group id -> the jurisdiction whose folder declares it (`group(g).` in statutes/ny/ is New York's):
    a cap over parts of exemptions (C.P.L.R. 5205(a)(2)'s other books) has no counts_toward/2 members."""
    homes: dict[str, str] = {}
    statutes = root / "statutes"
    for path in files:
        parts = path.relative_to(statutes).parts if path.is_relative_to(statutes) else ()
        if len(parts) < 2:
            continue
        home = "us" if parts[0] == "federal" else parts[0]
        for fact in survey(path).facts:
            if fact.name == "group" and len(fact.arguments) == 1:
                homes[fact.arguments[0]] = home
    return homes


def jurisdiction_facts(
    root: Path, code: str, names: dict[str, str], as_of: dt.date, declared: Iterable[str] = ()
) -> JurisdictionFacts:
    """The facts of jurisdiction `code` (US or a USPS code) under the rules in `root`, on date `as_of`: its
    own exemptions and those its files declare for other jurisdictions (`declared`: 11 U.S.C.
    § 522(b)(3)(C), a federal file's exemption of every state system)."""
    # The federal files declare exemptions of every state system too: ground them with every state.
    files = [root / "encodings" / "vocabulary.lp", *statute_files(root, None if code == "US" else [code])]
    rows: dict[str, list[tuple]] = defaultdict(list)
    for symbol in solve_stratified(files, f"petition_date({asp_date(as_of)}).\n{_SHOW}"):
        rows[symbol.name].append(decode_arguments(symbol))
    own = code.lower()
    declared_here = set(declared)
    citation, titles, texts = (
        dict(rows["citation"]),
        dict(rows["exemption_title"]),
        dict(rows["statute_text"]),
    )
    exemptions = {
        ident: ExemptionFacts(ident, citation.get(ident, ident), titles.get(ident, ""), texts.get(ident, ""))
        for ident, where in rows["exemption"]
        if where == own or ident in declared_here
    }
    # Group caps carry dated amounts too: a state's aggregate belongs to the state of its members, the
    # federal caps over state exemptions (11 U.S.C. § 522(n), (p)) to the federal page.
    where_of = dict(rows["exemption"])
    group_citation = dict(rows["group_citation"])
    homes = _group_homes(root, files)
    for (group,) in rows["group"]:
        members = {where_of.get(e) for e, g in rows["counts_toward"] if g == group}
        if (members.pop() if len(members) == 1 else homes.get(group, "us")) == own:
            cited = group_citation.get(group, group)
            exemptions[group] = ExemptionFacts(group, cited, "Cap over several claims", "", is_cap=True)
    for (ident,) in rows["figures_follow_family"]:
        if ident in exemptions:
            exemptions[ident].family_figures = True
    sources = {(e, d): text for e, d, text in rows["amount_source"]}
    doubtful = {(e, k, d) for e, k, d in rows["unconfirmed"]}
    for predicate, as_of_record in (("amount", False), ("amount_as_of", True)):
        for ident, kind, start, dollars in rows[predicate]:
            if ident in exemptions:
                exemptions[ident].amounts.append(
                    DatedAmount(
                        kind,
                        _date(start),
                        dollars,
                        as_of_record,
                        sources.get((ident, start)),
                        (ident, kind, start) in doubtful,
                    )
                )
    for facts in exemptions.values():
        facts.amounts.sort(key=lambda a: (a.kind != "limit", a.kind, a.start))
    for ident, kind, start in rows["amount_stale_from"]:
        if ident in exemptions:
            exemptions[ident].stale_from[kind] = _date(start)
    for ident, text in rows["departs_from_openexempt"]:
        if ident in exemptions:
            exemptions[ident].departures.append(text)
    opt_out = None
    if code != "US":
        opted = {s for (s,) in rows["opt_out"]}
        state = state_of(code).lower()  # the opt-out is the state's, for each of its systems
        opt_out = OptOut(
            state in opted,
            dict(rows["opt_out_citation"]).get(state),
            SCOPE_WORDS.get(scope, scope) if (scope := dict(rows["opt_out_scope"]).get(state)) else None,
            dict(rows["opt_out_source"]).get(state),
        )
    name = dict(rows["jurisdiction_name"]).get(own) or names.get(code, code)
    others = tuple(names.get(s, s) for s in systems_of(state_of(code)) if s != code) if code != "US" else ()
    return JurisdictionFacts(code, name, exemptions, opt_out, others)


KIND_LABELS = {
    "limit": "limit",
    "joint_limit": "joint case",
    "per_item": "per item",
    "fallback": "from unused base",
}
"""How a page names each amount kind (encodings/amounts.lp); a kind not listed shows as written."""


@dataclass(frozen=True)
class AmountRow:
    """One line of a jurisdiction's table of dated amounts: an exemption's amount kind across the dates."""

    citation: str
    anchor: str
    kind: str
    by_date: dict[dt.date, DatedAmount]
    stale_from: dt.date | None


def amount_rows(facts: JurisdictionFacts) -> list[AmountRow]:
    """The table of a jurisdiction's dated amounts (one column per adjustment date, as a § 104(a) notice or
    a state's own adjustment sets them), in the order of the citations."""
    rows = []
    for ident, exemption in sorted(
        facts.exemptions.items(), key=lambda item: citation_order(item[1].citation)
    ):
        kinds = dict.fromkeys(amount.kind for amount in exemption.amounts)
        for kind in kinds:
            by_date = {a.start: a for a in exemption.amounts if a.kind == kind}
            label = (
                "family"
                if kind == "joint_limit" and exemption.family_figures
                else KIND_LABELS.get(kind, kind)
            )
            rows.append(AmountRow(exemption.citation, ident, label, by_date, exemption.stale_from.get(kind)))
    return rows
