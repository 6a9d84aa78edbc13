"""What the dates of the encoded amounts mean for one petition: a refusal, or warnings on the Solution.

A petition filed before the earliest encoded amount is refused; amounts known to be stale, backdated or
not read from an official text are answered with a warning, so a gold answer says how far to trust it.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable

from lexsym._util.errors import SolveError
from lexsym.law.first_pass import FirstPass
from lexsym.law.solution import AllowableJurisdictions
from lexsym.law.systems import system_id, system_parts


def is_encoded(code: str, encoded: Iterable[str]) -> bool:
    """A system has statutes when every jurisdiction it is made of does."""
    return all(part in set(encoded) for part in system_parts(code))


def raise_on_missing_amounts(first: FirstPass, wanted: Iterable[str], petition: dt.date) -> None:
    """Refuse to answer for a jurisdiction whose amounts do not reach back to the petition date."""
    jurisdiction_of = {str(s.arguments[0]): system_id(s.arguments[1]) for s in first["exemption_of"]}
    citation = first.citations()
    missing: dict[str, list[str]] = defaultdict(list)
    # A cap on a group of exemptions (11 U.S.C. § 522(p)) binds each system whose exemptions it holds here.
    group_systems: dict[str, set[str]] = defaultdict(set)
    for system, _asset, _exemption, group in first.rows.get("group_member", []):
        group_systems[group].add(system_id(system))
    for symbol in first["amount_missing"]:
        exemption, kind = (str(a) for a in symbol.arguments)
        for code in group_systems.get(exemption) or {jurisdiction_of.get(exemption, "?")}:
            missing[code].append((kind != "limit", kind, citation.get(exemption, exemption)))
    for code in wanted:
        if missing.get(code):
            (_, kind, cited), *others = sorted(missing[code])
            more = f" (and {len(others)} more)" if others else ""
            raise SolveError(
                f"{code}: no {kind} amount of {cited} is in force on the petition date {petition}{more}; "
                "the rules hold no earlier amounts"
            )


def solution_warnings(
    first: FirstPass, allowable: AllowableJurisdictions, wanted: Iterable[str], encoded: Iterable[str]
) -> list[str]:
    """Warnings for jurisdictions without statutes and for amounts whose dates are doubtful."""
    encoded = set(encoded)
    wanted = {part for code in wanted for part in system_parts(code)}
    warnings = [
        f"{code}: no exemption statutes of this jurisdiction are encoded; nothing can be exempted under it"
        for code in allowable.jurisdictions
        if not is_encoded(code, encoded)
    ]
    jurisdiction_of = {e: system_id(j) for e, j in first.rows["exemption_of"]}
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
    first: FirstPass, name: str, jurisdiction_of: dict[str, str], wanted: set[str]
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
