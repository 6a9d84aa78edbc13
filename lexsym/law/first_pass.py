"""Pass 1 of the solver: one plain clingo answer set that classifies, values and sets up every allocation.

The answer set is kept grouped by predicate, as symbols and as decoded rows, because each consumer (AE
justifications, the allocation contract, the checker, explain) reads a few predicates of it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import clingo

from lexsym._util.errors import LexsymError, RuleError, SolveError
from lexsym.law.allocation import decode_arguments
from lexsym.law.case import Case
from lexsym.law.citations import resolve_citation
from lexsym.law.clingo_runner import solve_stratified_together
from lexsym.law.facts import case_facts
from lexsym.law.rules import case_encoding_files, statute_files, stratified_files
from lexsym.law.stratified import solve_stratified
from lexsym.law.whatif import ExemptionTable


@dataclass
class FirstPass:
    """The first pass's shown atoms, grouped by predicate name, as symbols and as decoded rows."""

    by_name: dict[str, list[clingo.Symbol]]
    rows: dict[str, list[tuple]]

    @classmethod
    def of(cls, symbols: Sequence[clingo.Symbol]) -> FirstPass:
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
def statute_citations(root: Path) -> tuple[str, ...]:
    """Every citation the statutes of `root` define, sorted: what loose citations are matched against."""
    symbols = solve_stratified(
        [root / "encodings" / "vocabulary.lp", *statute_files(root)], "#show citation/2."
    )
    return tuple(sorted(s.arguments[1].string for s in symbols if s.match("citation", 2)))


@cache
def _loaded_citations(root: Path, jurisdictions: frozenset[str]) -> frozenset[str]:
    """The citations the statute files loaded for `jurisdictions` define."""
    symbols = solve_stratified(
        [root / "encodings" / "vocabulary.lp", *statute_files(root, jurisdictions)], "#show citation/2."
    )
    return frozenset(s.arguments[1].string for s in symbols if s.match("citation", 2))


def _resolve_listed_citations(
    case: Case, root: Path, tables: Sequence[ExemptionTable], jurisdictions: Iterable[str] | None = None
) -> Case:
    """Map each listed citation to the canonical string of a known citation, matching loosely.

    A list may name every jurisdiction's exemptions at once (OpenExempt's do): when only some
    jurisdictions' statutes are loaded, a known citation of another jurisdiction is left out, as it cannot
    apply; a citation no statute defines stays, and is reported as unknown.
    """
    if not any(asset.applicable_exemptions for asset in case.assets):
        return case
    table_citations = [c for table in tables for c in table.citations()]
    known = [*statute_citations(root), *table_citations]
    loaded = None
    if jurisdictions is not None:
        loaded = _loaded_citations(root, frozenset(jurisdictions)) | set(table_citations)

    def listed(citations: list[str]) -> list[str]:
        resolved = [resolve_citation(c, known) for c in citations]
        if loaded is None:
            return resolved
        defined = set(known)
        return [c for c in resolved if c in loaded or c not in defined]

    assets = [
        asset.model_copy(update={"applicable_exemptions": listed(asset.applicable_exemptions)})
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
) -> tuple[Case, FirstPass]:
    """Pass 1 on a case (listed citations resolved first); raises on defects of the rules or the case.

    jurisdictions: load only the statutes these need (None: all); extra_program: more facts or #show
    lines; extra_files: more encodings (encodings/check.lp for the checker).
    """
    case = _resolve_listed_citations(case, root, tables, jurisdictions)
    files = [*statute_files(root, jurisdictions), *case_encoding_files(root), *extra_files]
    first = FirstPass.of(solve_stratified(files, case_program(case, tables) + "\n" + extra_program))
    _raise_on_rule_defects(first)
    return case, first


MOST_ASSETS_TOGETHER = 10
"""Cases with more assets than this are grounded alone: their own instances outweigh the fixed price a
batch saves, and splitting their many atoms back costs more (measured in benchmarks/solve_versus.py: a
batch was faster up to 8 assets and slower at 16 and 64)."""


def first_pass_many(
    cases: Sequence[Case],
    root: Path,
    tables: Sequence[ExemptionTable] = (),
    jurisdictions: Iterable[str] | None = None,
    extra_programs: Sequence[str] | None = None,
    extra_files: Sequence[Path] = (),
) -> list[tuple[Case, FirstPass] | LexsymError]:
    """`first_pass` for cases that need the same statutes, grounded together (see
    `solve_stratified_together`); each case's result or error, in order. `extra_programs` gives each case
    its own extra facts. Cases the batch cannot carry are run one by one, so each error is the one
    `first_pass` gives."""
    extras = list(extra_programs) if extra_programs is not None else [""] * len(cases)
    jurisdictions = list(jurisdictions) if jurisdictions is not None else None
    resolved: list[Case | LexsymError] = []
    for case in cases:
        try:
            resolved.append(_resolve_listed_citations(case, root, tables, jurisdictions))
        except LexsymError as error:
            resolved.append(error)
    small = [
        (case, extra)
        for case, extra in zip(resolved, extras, strict=True)
        if isinstance(case, Case) and len(case.assets) <= MOST_ASSETS_TOGETHER
    ]
    files = [*statute_files(root, jurisdictions), *case_encoding_files(root), *extra_files]
    programs = [case_program(case) + "\n" + extra for case, extra in small]
    shared = "\n".join(f for table in tables for f in table.to_facts())
    together = solve_stratified_together(files, programs, stratified_files(root), shared)
    shown = iter(together) if together is not None else None
    results: list[tuple[Case, FirstPass] | LexsymError] = []
    for case, extra in zip(resolved, extras, strict=True):
        if isinstance(case, LexsymError):
            results.append(case)
            continue
        try:
            if shown is None or len(case.assets) > MOST_ASSETS_TOGETHER:
                results.append(first_pass(case, root, tables, jurisdictions, extra, extra_files))
                continue
            first = FirstPass.of(next(shown))
            _raise_on_rule_defects(first)
            results.append((case, first))
        except LexsymError as error:
            results.append(error)
    return results


def _raise_on_rule_defects(first: FirstPass) -> None:
    for symbol in first["unknown_citation"]:
        asset, citation = symbol.arguments
        raise SolveError(
            f"asset {asset.string}: unknown citation {citation.string!r} in applicable_exemptions"
        )
    for symbol in first["limit_undeclared"]:
        raise RuleError(f"exemption {symbol.arguments[0]}: no limit amount and not declared unlimited/1")
