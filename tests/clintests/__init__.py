"""Helpers for asserting on the logic program's answers, written once for every test module.

`build_case` fills in the facts a statute test does not care about (a long domicile in a state that
permits the federal exemptions, single filing, descriptions), so each named test states only what
matters to the rule it tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import clingo

from lexsym import parse_case, solve
from lexsym.law.rules import case_encoding_files, rules_root, statute_files
from lexsym.law.solution import JurisdictionResult, Solution
from lexsym.law.statute_tests import DEFAULT_STATE, build_case
from lexsym.law.stratified import solve_stratified


def solve_spec(spec: dict[str, Any], *, state: str = DEFAULT_STATE, **options: Any) -> Solution:
    return solve(parse_case(build_case(spec, state=state)), **options)


def result_for(solution: Solution, jurisdiction: str) -> JurisdictionResult:
    return solution.result(jurisdiction)


def eligible_citations(result: JurisdictionResult, asset: str) -> set[str]:
    return {match.citation for match in result.classification.get(asset, [])}


def max_claims(result: JurisdictionResult, asset: str) -> dict[str, int]:
    return {value.citation: value.max_claim for value in result.valuation.get(asset, [])}


def exempt_by_citation(result: JurisdictionResult) -> dict[str, int]:
    totals: dict[str, int] = {}
    for claim in result.schedule:
        totals[claim.citation] = totals.get(claim.citation, 0) + claim.amount
    return totals


def answer_set(facts: Iterable[str], *, files: Iterable[Any] | None = None) -> set[str]:
    """The shown atoms (as strings) of statutes plus case encodings on the given facts."""
    root = rules_root()
    paths = list(files) if files is not None else [*statute_files(root), *case_encoding_files(root)]
    return {str(symbol) for symbol in solve_stratified(paths, "\n".join(facts))}


def atoms_named(atoms: Iterable[str], name: str) -> set[str]:
    return {atom for atom in atoms if atom.startswith(name + "(")}


__all__ = [
    "DEFAULT_STATE",
    "answer_set",
    "atoms_named",
    "build_case",
    "clingo",
    "eligible_citations",
    "exempt_by_citation",
    "max_claims",
    "result_for",
    "solve_spec",
]
