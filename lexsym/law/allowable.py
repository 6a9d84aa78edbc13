"""Task AE in words: the allowable jurisdictions decoded from pass 1, each with the rule that allows it.

Kept apart from the solver because the justifications (730/180-day paths, opt-out scopes, spouses' own
laws) are most of the text a reader checks, and they change when the law's wording does, not the search.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import clingo

from lexsym.law.first_pass import FirstPass
from lexsym.law.solution import AllowableJurisdictions, AllowedJurisdiction, DebtorDomicile
from lexsym.law.systems import system_id, system_name, system_parts
from lexsym.law.vocabulary import state_of

PATHS = {"whole_730": "730", "whole_180": "180_whole", "longer_180": "180_longer"}


def allowable_from(first: FirstPass) -> AllowableJurisdictions:
    """Task AE for the case and for each debtor, with a justification per allowed jurisdiction."""
    days: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: {"w730": {}, "w180": {}})
    for claimant, place, window, count in first.rows["days_in"]:
        if window in ("w730", "w180"):
            days[claimant][window][system_id(place)] = count
    governing: dict[str, dict[str, str]] = defaultdict(dict)
    for claimant, place, path in first.rows["governing_place"]:
        governing[claimant][path] = system_id(place)
    opted_out = {system_id(s.arguments[0]) for s in first["state_opted_out"]}
    binds = {(claimant, system_id(state)) for claimant, state in first.rows["opt_out_binds"]}
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
            code = system_id(symbol.arguments[1])
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
        code = system_id(symbol.arguments[0])
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

    def __init__(self, first: FirstPass):
        self.citations = {system_id(s): c for s, c in first.rows["opt_out_citation"]}
        self.scopes = {system_id(s): w for s, w in first.rows["opt_out_scope"]}
        self.keeps = defaultdict(list)
        for state, paragraph, cited in first.rows["opt_out_keeps"]:
            self.keeps[system_id(state)].append((paragraph, cited))
        filed = first.rows["filed_in"]
        self.filed_in = system_id(filed[0][0]) if filed else None
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
        place = state_of(code)
        # A state with several systems: the debtor elects one of them (Cal. Civ. Proc. Code § 703.140(a)).
        system = "" if place == code else f"; its law offers {system_name(code)} as a system to elect"
        if path == "whole_730":
            return f"{a}: domiciled in {place} for all 730 days before the petition{system}"
        if path == "whole_180":
            return (
                f"{a}: not domiciled in a single state for the 730 days; domiciled in {place} for all 180 "
                f"days before that period{system}"
            )
        return (
            f"{a}: not domiciled in a single state for the 730 days; domiciled in {place} for "
            f"{days['w180'][place]} of the 180 days before that period, longer than in any other "
            f"place{system}"
        )
    if why.name == "not_opted_out":
        state = system_id(why.arguments[0])
        return f"11 U.S.C. § 522(b)(2): {state} has not opted out of the § 522(d) exemptions"
    if why.name == "opt_out_does_not_reach":
        state = system_id(why.arguments[0])
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
