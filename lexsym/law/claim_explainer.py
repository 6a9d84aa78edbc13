"""The one-line justification of each claim in a schedule: the rule that made it eligible, its citation and
the limits in force, so a reader can check a gold claim against the statute without running clingo."""

from __future__ import annotations

import datetime as dt

import clingo

from lexsym.law.allocation import AllocationProblem
from lexsym.law.first_pass import FirstPass


def why_text(why: clingo.Symbol) -> str:
    """A rule's Why term in words: used_as_residence_by(debtor) -> "used as residence by debtor"."""
    if why.type is clingo.SymbolType.Function and why.arguments:
        words = why.name.replace("_", " ")
        inner = [why_text(arg) for arg in why.arguments]
        return f"{words} {inner[0]}" if len(inner) == 1 else f"{words} ({', '.join(inner)})"
    if why.type is clingo.SymbolType.String:
        return why.string
    return str(why).replace("_", " ")


class ClaimExplainer:
    """Builds the one-line justification of a claim: the rule, its citation and the limits in force."""

    def __init__(self, first: FirstPass, constant: str, problem: AllocationProblem, citation: dict[str, str]):
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
                text = "listed in the case" if basis.name == "listed" else why_text(basis.arguments[0])
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
            each = f" of up to ${p.claim_caps[pool]:,}" if pool in p.claim_caps else ""
            limits.append(f"{p.pool_items[pool]} item claim(s){each}")
        if (asset, exemption, scope) in p.item_caps:
            limits.append(f"${p.item_caps[(asset, exemption, scope)]:,} per item")
        if pool in p.fallbacks:
            base, dollars = p.fallbacks[pool]
            limits.append(f"plus up to ${dollars:,} of unused {self.citation[base]}")
        for group, scope in p.groups_capping(claimant, asset, exemption):
            shared = " shared by the household" if scope == "household" else ""
            limits.append(
                f"within {self.citation.get(group, group)} cap ${p.group_limits[(group, scope)]:,}{shared}"
            )
        if exemption in p.solo:
            limits.append("not combined with another exemption on this asset")
        if (asset, exemption) in p.asset_caps:
            basis = self.basis.get((asset, exemption), "")
            support = basis.startswith("support need")
            why = "reasonably necessary for support" if support else "of this asset at most"
            limits.append(f"${p.asset_caps[(asset, exemption)]:,} {why}")
        if exemption in self.since:
            limits.append(f"amounts in force from {self.since[exemption]}")
        title = self.titles.get(exemption)
        head = f"{self.citation[exemption]}" + (f" ({title})" if title else "")
        return f"{head}: {self.basis.get((asset, exemption), 'eligible')}; {'; '.join(limits)}"
