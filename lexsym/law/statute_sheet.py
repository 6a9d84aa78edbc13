"""The statutes as a prompt states them: each exemption's citation, our paraphrase, and its terms in force
on a given date (limits, joint-case rule, item counts, per-item caps, fallbacks, exclusions).

The terms are read from the same statute facts the solver uses, so what a model is told and what the gold
answer applies cannot drift apart.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from lexsym.law.allocation import decode_arguments
from lexsym.law.citations import citation_order
from lexsym.law.facts import asp_date
from lexsym.law.rules import rules_root, statute_files
from lexsym.law.stratified import solve_stratified
from lexsym.law.vocabulary import JURISDICTION_NAMES

_SHOW = """
#show exemption/2. #show citation/2. #show exemption_title/2. #show statute_text/2.
#show amount_in_force/3. #show separate_per_debtor/1. #show item_count/2. #show joint_item_count/2.
#show fallback_of/2. #show excludes/2. #show no_stacking/1. #show unlimited/1. #show limited_to_support/1.
#show group_citation/2. #show provision_text/3. #show opt_out/1. #show opt_out_citation/2. #show state/1.
#show opt_out_scope/2. #show not_yet_in_force/1. #show counts_toward/2. #show figures_follow_family/1.
"""


@dataclass(frozen=True)
class SheetExemption:
    jurisdiction: str
    citation: str
    title: str
    text: str
    terms: tuple[str, ...]


@dataclass(frozen=True)
class StatuteSheet:
    petition_date: dt.date
    jurisdictions: tuple[str, ...]
    provisions: tuple[tuple[str, str], ...]  # (citation, text)
    opt_out: tuple[tuple[str, bool, str | None, str], ...]  # (state id, opted out, citation, scope)
    exemptions: tuple[SheetExemption, ...]

    def for_jurisdiction(self, code: str) -> list[SheetExemption]:
        return [entry for entry in self.exemptions if entry.jurisdiction == code]


def _money(value: int) -> str:
    return f"${value:,}"


@lru_cache(maxsize=4096)
def statute_sheet(
    petition_date: dt.date, jurisdictions: tuple[str, ...], rules: str | None = None
) -> StatuteSheet:
    """The sheet for `jurisdictions` (ids; US first) as in force on `petition_date`."""
    root: Path = rules_root(rules)
    files = [
        root / "encodings" / "vocabulary.lp",
        *statute_files(root, jurisdictions),
        root / "encodings" / "amounts.lp",
    ]
    rows: dict[str, list[tuple]] = defaultdict(list)
    for symbol in solve_stratified(files, f"petition_date({asp_date(petition_date)}).\n{_SHOW}"):
        rows[symbol.name].append(decode_arguments(symbol))
    citation = dict(rows["citation"]) | dict(rows["group_citation"])
    amounts = {(e, k): v for e, k, v in rows["amount_in_force"]}
    per_debtor = {e for (e,) in rows["separate_per_debtor"]}
    counts, joint_counts = dict(rows["item_count"]), dict(rows["joint_item_count"])
    fallback = dict(rows["fallback_of"])
    excludes: dict[str, set[str]] = defaultdict(set)
    for first, second in rows["excludes"]:
        excludes[first].add(second)
        excludes[second].add(first)
    solo = {e for (e,) in rows["no_stacking"]}
    unlimited = {e for (e,) in rows["unlimited"]}
    support = {e for (e,) in rows["limited_to_support"]}
    titles, texts = dict(rows["exemption_title"]), dict(rows["statute_text"])
    family = {e for (e,) in rows["figures_follow_family"]}
    toward: dict[str, list[str]] = defaultdict(list)
    for e, group in rows["counts_toward"]:
        toward[e].append(group)

    def terms(e: str) -> tuple[str, ...]:
        said: list[str] = []
        each = e in per_debtor
        if e in unlimited and e in toward:
            said.append("No dollar limit of its own.")
        elif e in unlimited:
            said.append("No dollar limit.")
        elif e in support:
            said.append(
                "Limited to the amount found reasonably necessary to support the debtor and dependents."
            )
        elif (e, "limit") in amounts:
            limit = amounts[(e, "limit")]
            if each:
                said.append(
                    f"Limit: {_money(limit)}; in a joint case each debtor has a separate {_money(limit)}."
                )
            elif e in family:
                joint = amounts.get((e, "joint_limit"), limit)
                said.append(f"Limit: {_money(limit)} for a single adult; {_money(joint)} for a family.")
            else:
                joint = amounts.get((e, "joint_limit"), limit)
                said.append(
                    f"Limit: {_money(limit)}; in a joint case {_money(joint)} for both debtors together."
                )
        if (e, "per_item") in amounts:
            said.append(
                f"At most {_money(amounts[(e, 'per_item')])} in any one item"
                + (" for each debtor." if each else ".")
            )
        if e in counts:
            count = counts[e]
            if each:
                said.append(f"Only {count} item{'s' if count > 1 else ''} for each debtor.")
            else:
                joint = joint_counts.get(e, count)
                said.append(f"Only {count} item{'s' if count > 1 else ''} ({joint} in a joint case).")
        for group in sorted(toward.get(e, ())):
            said.append(
                f"Counts toward the {citation.get(group, group)} aggregate, with the others listed there."
            )
        if e in fallback and (e, "fallback") in amounts:
            said.append(
                f"May also use up to {_money(amounts[(e, 'fallback')])} of any unused amount of "
                f"{citation.get(fallback[e], fallback[e])}" + (" (for each debtor)." if each else ".")
            )
        for other in sorted(excludes.get(e, ())):
            said.append(f"Cannot be claimed in the same case as {citation.get(other, other)}.")
        if e in solo:
            said.append("Cannot be combined with any other exemption on the same asset.")
        return tuple(said)

    exemptions = [
        SheetExemption(
            jurisdiction=j.upper(),
            citation=citation[e],
            title=titles.get(e, ""),
            text=texts.get(e, ""),
            terms=terms(e),
        )
        for e, j in rows["exemption"]
        if j.upper() in jurisdictions and (e,) not in set(rows["not_yet_in_force"])
    ]
    order = {code: i for i, code in enumerate(jurisdictions)}
    exemptions.sort(key=lambda x: (order[x.jurisdiction], citation_order(x.citation)))
    provisions = []
    for key, cited, text in sorted(rows["provision_text"], key=lambda r: citation_order(r[1])):
        limit, joint = amounts.get((key, "limit")), amounts.get((key, "joint_limit"))
        if limit and joint and key in family:
            text += f" (Amounts in force: {_money(limit)} for a single adult, {_money(joint)} for a family.)"
        elif limit:
            text += f" (Amount in force: {_money(limit)}.)"
        provisions.append((cited, text))
    opted = {s.upper() for (s,) in rows["opt_out"]}
    cited_opt_out = {s.upper(): c for s, c in rows["opt_out_citation"]}
    scopes = {s.upper(): w for s, w in rows["opt_out_scope"]}
    opt_out = tuple(
        (code, code in opted, cited_opt_out.get(code) if code in opted else None, scopes.get(code, "all"))
        for code in jurisdictions
        if code != "US"
    )
    return StatuteSheet(petition_date, jurisdictions, tuple(provisions), opt_out, tuple(exemptions))


def state_names(codes: tuple[str, ...]) -> list[str]:
    return [JURISDICTION_NAMES.get(code, code) for code in codes]


@lru_cache(maxsize=8)
def _change_dates(rules: str | None) -> tuple[dt.date, ...]:
    """Every date on which some amount of some statute changes (dated and as-of amounts)."""
    root = rules_root(rules)
    program = "#show when(D) : amount(_,_,D,_).\n#show when(D) : amount_as_of(_,_,D,_)."
    symbols = solve_stratified([root / "encodings" / "vocabulary.lp", *statute_files(root)], program)
    days = {dt.date(*(a.number for a in s.arguments[0].arguments)) for s in symbols if s.match("when", 1)}
    return tuple(sorted(days))


def sheet_for(
    petition_date: dt.date, jurisdictions: tuple[str, ...], rules: str | None = None
) -> StatuteSheet:
    """`statute_sheet`, shared by every petition date with the same amounts in force: amounts only change
    on their dates, so the sheet is computed once per interval between two change dates."""
    import bisect

    dates = _change_dates(rules)
    position = bisect.bisect_right(dates, petition_date)
    representative = (
        dates[position - 1] if position else (dates[0] - dt.timedelta(days=1) if dates else petition_date)
    )
    return statute_sheet(representative, jurisdictions, rules)
