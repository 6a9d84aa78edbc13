"""lexsym's exemption figures written as OpenExempt statute files, with what that format cannot hold.

OpenExempt reads one JSON file per jurisdiction of its own (federal and five states): an authority, an
opt-out flag and a list of statutes, where an entry with `single_limit` is an exemption with single and
married limits, item counts, a per-item limit, a fallback and one mutual exclusion. The figures written
here are the ones lexsym's statute files put in force on a date, read from the same facts the solver uses
(`lexsym.law`), so an export never carries numbers the gold answers did not use.

How lexsym's structure is written (the reverse of `lexsym.interop.openexempt`):

- A pool of the household stays one pool (married figures = the statute's joint figures); an exemption
  each spouse has separately (11 U.S.C. § 522(m), a state's own rule) becomes one household pool of twice
  the single limit, item count and fallback, which is how OpenExempt states such exemptions.
- No cap (`unlimited/1`) and a cap of what is reasonably necessary for support (`limited_to_support/1`)
  are both a null limit.

Everything else that changes what may be claimed is a loss (`StatuteLoss`): per-item caps of exemptions
each spouse claims alone, group caps (§ 522(n), § 522(p)), item classes, no-stacking, exclusions that bind
each spouse separately, more than one exclusion, statute caps on single assets, and the interest rule (a
spouse claims only within their own interest). Each names what was written instead and which way it errs.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from lexsym.law.allocation import decode_arguments
from lexsym.law.facts import asp_date
from lexsym.law.rules import rules_root, statute_files
from lexsym.law.statute_sheet import statute_sheet
from lexsym.law.stratified import solve_stratified
from lexsym.law.vocabulary import JURISDICTION_NAMES

NATIVE_JURISDICTIONS: dict[str, str] = {
    "US": "FEDERAL",
    "AZ": "ARIZONA",
    "IL": "ILLINOIS",
    "OR": "OREGON",
    "PA": "PENNSYLVANIA",
    "WI": "WISCONSIN",
}
"""The jurisdictions OpenExempt's format can name (lexsym id -> its upper-case value), in its own order:
its evaluator needs a statute file for every one of them, and a case's places must be among them."""

_SHOW = """
#show exemption/2. #show citation/2. #show amount_in_force/3. #show separate_per_debtor/1.
#show item_count/2. #show joint_item_count/2. #show fallback_of/2. #show excludes/2.
#show excludes_per_debtor/2. #show unlimited/1. #show limited_to_support/1. #show no_stacking/1.
#show item_class_limit/3. #show group/1. #show group_citation/2. #show not_yet_in_force/1.
"""

_CHANGES = """
#show when(D) : amount(_,_,D,_). #show when(D) : amount_as_of(_,_,D,_).
#show when(D) : enacted_on(_,D). #show when(D) : permits_federal_from(_,D).
"""


def file_name(code: str) -> str:
    """The statute file OpenExempt looks for, for lexsym's jurisdiction id ("AZ" -> "arizona.json")."""
    return NATIVE_JURISDICTIONS[code].lower() + ".json"


@dataclass(frozen=True)
class StatuteLoss:
    """A rule of lexsym's that an OpenExempt statute file cannot state, and what was written instead."""

    jurisdiction: str
    citation: str
    rule: str
    written: str
    effect: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class StatuteFiles:
    """The statute files in force over one interval of constant figures, keyed by file name."""

    period_start: dt.date | None
    documents: dict[str, dict[str, Any]]
    opted_out: dict[str, bool]
    citations: dict[str, tuple[str, ...]]
    losses: tuple[StatuteLoss, ...]


@cache
def _change_dates(rules: str | None) -> tuple[dt.date, ...]:
    """Every date on which a figure, an exemption or an opt-out of the rules changes."""
    root = rules_root(rules)
    symbols = solve_stratified([root / "encodings" / "vocabulary.lp", *statute_files(root)], _CHANGES)
    days = {dt.date(*(a.number for a in s.arguments[0].arguments)) for s in symbols if s.match("when", 1)}
    return tuple(sorted(days))


def period_start(day: dt.date, rules: str | None = None) -> dt.date | None:
    """The first day of the interval of constant figures holding `day` (None: before every change date)."""
    dates = _change_dates(rules)
    position = bisect.bisect_right(dates, day)
    return dates[position - 1] if position else None


def statute_files_on(day: dt.date, rules: str | None = None) -> StatuteFiles:
    """The OpenExempt statute files for petitions filed on `day` (shared by its whole interval)."""
    return _files_for_period(period_start(day, rules) or day, rules)


def _money(value: int) -> str:
    return f"${value:,}"


@cache
def _files_for_period(day: dt.date, rules: str | None) -> StatuteFiles:
    root = rules_root(rules)
    files = [root / "encodings" / "vocabulary.lp", *statute_files(root), root / "encodings" / "amounts.lp"]
    rows: dict[str, list[tuple]] = defaultdict(list)
    for symbol in solve_stratified(files, f"petition_date({asp_date(day)}).\n{_SHOW}"):
        rows[symbol.name].append(decode_arguments(symbol))
    facts = _Facts(rows)
    codes = tuple(NATIVE_JURISDICTIONS)
    sheet = statute_sheet(day, codes, rules)
    losses: list[StatuteLoss] = []
    documents: dict[str, dict[str, Any]] = {}
    citations: dict[str, tuple[str, ...]] = {}
    opted = {code: bool(opted_out) for code, opted_out, _cited, _scope in sheet.opt_out}
    cited_opt_out = {code: (cited, scope) for code, _opted, cited, scope in sheet.opt_out}
    for code in codes:
        statutes: list[dict[str, Any]] = []
        if code == "US":
            statutes += [{"citation": cited, "description": text} for cited, text in sheet.provisions]
        elif opted[code]:
            cited, scope = cited_opt_out[code]
            statutes.append(_opt_out_statute(code, cited, scope))
        entries = sheet.for_jurisdiction(code)
        for entry in entries:
            exemption = facts.id_of(entry.citation, code)
            statutes.append(
                {
                    "citation": entry.citation,
                    "description": "\n".join(
                        [f"{entry.title}: {entry.text}" if entry.title else entry.text, *entry.terms]
                    ),
                    **facts.figures(exemption, code, losses),
                }
            )
        citations[code] = tuple(entry.citation for entry in entries)
        separate = [e.citation for e in entries if facts.id_of(e.citation, code) in facts.per_debtor]
        if separate:
            losses.append(facts.interest_loss(code, separate))
        name = JURISDICTION_NAMES[code]
        documents[file_name(code)] = {
            "jurisdiction": NATIVE_JURISDICTIONS[code],
            "authority": "Federal exemptions (11 U.S.C. § 522(d))" if code == "US" else f"{name} exemptions",
            "has_opted_out": None if code == "US" else opted[code],
            "statutes": statutes,
        }
    losses += facts.group_losses()
    return StatuteFiles(day, documents, {c: opted[c] for c in codes if c != "US"}, citations, tuple(losses))


def _opt_out_statute(code: str, cited: str | None, scope: str) -> dict[str, str]:
    name = JURISDICTION_NAMES[code]
    text = (
        f"{name} does not authorize the federal exemptions of 11 U.S.C. § 522(d): a debtor whose exemptions "
        f"{name} law governs may claim only {name}'s own exemptions."
    )
    if scope != "all":
        text += (
            f" Its opt-out names {scope.replace('_', ' ')}: under lexsym's default reading "
            "(nonresident_opt_out: camp) it does not bar the other debtors its law governs, which this file "
            "cannot say."
        )
    return {"citation": cited or f"{name} opt-out", "description": text}


class _Facts:
    """The statute facts in force on one day, read per exemption id and written as OpenExempt figures."""

    def __init__(self, rows: dict[str, list[tuple]]):
        self.rows = rows
        self.citation = dict(rows["citation"]) | dict(rows["group_citation"])
        self.ids = {(self.citation[e], j.upper()): e for e, j in rows["exemption"]}
        self.amounts = {(e, k): v for e, k, v in rows["amount_in_force"]}
        self.per_debtor = {e for (e,) in rows["separate_per_debtor"]}
        self.counts = dict(rows["item_count"])
        self.joint_counts = dict(rows["joint_item_count"])
        self.fallback = dict(rows["fallback_of"])
        self.excludes: dict[str, set[str]] = defaultdict(set)
        for first, second in rows["excludes"]:
            self.excludes[first].add(second)
            self.excludes[second].add(first)
        self.per_debtor_excludes: dict[str, set[str]] = defaultdict(set)
        for first, second in rows["excludes_per_debtor"]:
            self.per_debtor_excludes[first].add(second)
            self.per_debtor_excludes[second].add(first)
        self.uncapped = {e for (e,) in rows["unlimited"]}
        self.support = {e for (e,) in rows["limited_to_support"]}
        self.solo = {e for (e,) in rows["no_stacking"]}
        self.classes: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for e, kind, count in rows["item_class_limit"]:
            self.classes[e].append((kind, count))

    def id_of(self, citation: str, code: str) -> str:
        return self.ids[(citation, code)]

    def figures(self, e: str, code: str, losses: list[StatuteLoss]) -> dict[str, Any]:
        """OpenExempt's keys for exemption `e` of jurisdiction `code` (absent keys: no such limit)."""
        cited = self.citation[e]

        def lose(rule: str, written: str, effect: str) -> None:
            losses.append(StatuteLoss(code, cited, rule, written, effect))

        each = e in self.per_debtor
        times = 2 if each else 1
        limit = None if e in self.uncapped | self.support else self.amounts.get((e, "limit"))
        married = (
            None if limit is None else limit * 2 if each else self.amounts.get((e, "joint_limit"), limit)
        )
        out: dict[str, Any] = {"single_limit": limit, "married_limit": married}
        if e in self.support:
            lose(
                "limited to what is reasonably necessary for the support of the debtor and dependents "
                "(a finding the case supplies)",
                "no dollar limit",
                "looser: OpenExempt's solver lets a claim take the whole asset",
            )
        per_item = self.amounts.get((e, "per_item"))
        if per_item is not None:
            out["per_item_limit"] = per_item
            if each:
                lose(
                    f"at most {_money(per_item)} in one item for each debtor (a jointly owned item may take "
                    f"{_money(per_item)} from each spouse)",
                    f"per_item_limit {per_item} for single and joint cases alike",
                    "stricter in joint cases: a claim over the single per-item figure on one jointly owned "
                    "item cannot be made",
                )
        if e in self.counts:
            count = self.counts[e]
            out["single_item_claim_count"] = count
            out["married_item_claim_count"] = count * times if each else self.joint_counts.get(e, count)
        if e in self.fallback and (e, "fallback") in self.amounts:
            extra = self.amounts[(e, "fallback")]
            base = self.citation.get(self.fallback[e], self.fallback[e])
            if extra > 0:
                out |= {
                    "fallback_relationship": base,
                    "single_fallback_limit": extra,
                    "married_fallback_limit": extra * times,
                }
            else:
                lose(
                    f"may use up to $0 of the unused amount of {base}",
                    "no fallback",
                    "none: the fallback is zero",
                )
        others = sorted(
            self.citation[o] for o in self.excludes.get(e, set()) | self.per_debtor_excludes.get(e, set())
        )
        if others:
            out["mutual_exclusion"] = others[0]
            if len(others) > 1:
                lose(
                    f"cannot be claimed with any of {', '.join(others)}",
                    f"mutual_exclusion {others[0]} (OpenExempt holds one citation)",
                    "looser: the other exclusions are not enforced",
                )
        if self.per_debtor_excludes.get(e):
            lose(
                "the exclusion binds each spouse separately (each may take a different side)",
                "one exclusion for the whole case",
                "stricter in joint cases: the spouses cannot split the two exemptions",
            )
        if e in self.solo:
            lose(
                "cannot be combined with any other exemption on the same asset",
                "nothing",
                "looser: stacking with another exemption is allowed",
            )
        if e in self.classes:
            said = ", ".join(f"{count} {kind.replace('_', ' ')}" for kind, count in sorted(self.classes[e]))
            lose(
                f"item classes: at most {said} per pool",
                "no item count",
                "looser: any number of items of each class may be claimed",
            )
        return out

    def interest_loss(self, code: str, cited: list[str]) -> StatuteLoss:
        """One loss per jurisdiction for the exemptions each spouse claims separately."""
        return StatuteLoss(
            code,
            f"{len(cited)} exemptions each spouse claims separately",
            "in a joint case each spouse claims only within their own interest in an asset, from their own "
            "pool",
            "one household pool of the doubled figures, from which a claim may cover the whole asset",
            "looser in joint cases for property only one spouse owns",
        )

    def group_losses(self) -> list[StatuteLoss]:
        """Caps across several exemptions (§ 522(n), § 522(p)): OpenExempt has no such structure."""
        return [
            StatuteLoss(
                "US",
                self.citation[g],
                f"caps the members of a group of exemptions together at {_money(self.amounts[(g, 'limit')])} "
                "(members depend on the asset: IRAs for § 522(n), homesteads acquired in the last 1,215 "
                "days for § 522(p))",
                "nothing",
                "looser: members are capped only by their own limits",
            )
            for (g,) in sorted(self.rows["group"])
            if (g, "limit") in self.amounts
        ]
