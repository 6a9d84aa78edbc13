"""A violation of a claimed schedule, found by `encodings/check.lp`, told as one plain-English sentence with
its citation.
"""

from __future__ import annotations

from dataclasses import dataclass

import clingo

from lexsym.law.allocation import decode_arguments
from lexsym.law.case import Case
from lexsym.law.solver import jurisdiction_id
from lexsym.law.systems import system_name


@dataclass
class Violation:
    name: str
    arguments: tuple
    message: str
    citation: str | None = None


def _name(code: str | None) -> str:
    return system_name(code) if code else "no jurisdiction"


def _money(value: object) -> str:
    return f"${value:,}" if isinstance(value, int) else str(value)


class ViolationDescriber:
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
