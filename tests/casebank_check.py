"""Running the casebank (tests/casebank/**/*.yaml): each case's expected answers against the solver's.

The cases were written blind, from the statute texts alone; tests/casebank/README.md says how. This module
turns one case into a list of disagreements (empty when the solver agrees), so the pytest test and the
triage script report the same thing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from lexsym import parse_case, solve
from lexsym._util.errors import LexsymError
from lexsym.law.solution import Solution

CASEBANK = Path(__file__).parent / "casebank"


def casebank_files(root: Path = CASEBANK) -> list[Path]:
    return sorted(path for path in root.rglob("*.yaml"))


def casebank_cases(root: Path = CASEBANK) -> Iterator[tuple[Path, dict[str, Any], dict[str, Any]]]:
    """(file, document, case) for every case of every casebank file."""
    for path in casebank_files(root):
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        for case in document["cases"]:
            yield path, document, case


def _jurisdictions(expect: dict[str, Any]) -> set[str]:
    wanted: set[str] = set()
    for key in ("eligible", "eligible_includes", "eligible_excludes", "max_claim", "non_exempt"):
        wanted |= set(expect.get(key) or {})
    return wanted


def disagreements(case: dict[str, Any]) -> list[str]:
    """Where the solver's answers differ from the case's expected answers (each a one-line text)."""
    expect = case.get("expect") or {}
    try:
        solution = solve(
            parse_case(case["case"], source=case["name"]), jurisdictions=sorted(_jurisdictions(expect))
        )
    except LexsymError as error:
        return [f"solve failed: {error}"]
    return _compare(solution, expect)


def _compare(solution: Solution, expect: dict[str, Any]) -> list[str]:
    found: list[str] = []
    if "allowable" in expect:
        got = sorted(solution.allowable.jurisdictions)
        if got != sorted(expect["allowable"]):
            found.append(f"allowable: expected {sorted(expect['allowable'])}, got {got}")
    for claimant, path in (expect.get("rule_path") or {}).items():
        entry = next((e for e in solution.allowable.by_debtor if e.claimant == claimant), None)
        got = entry.rule_path if entry else None
        if got != str(path):
            found.append(f"rule_path[{claimant}]: expected {path}, got {got}")
    results = {r.jurisdiction: r for r in solution.jurisdictions}
    for code in sorted(_jurisdictions(expect)):
        if code not in results:
            found.append(f"{code}: no result")

    def citations_of(code: str, asset: str) -> set[str]:
        if code not in results:
            return set()
        return {m.citation for m in results[code].classification.get(asset, [])}

    checks = {
        "eligible": lambda want, got: f"expected {sorted(want)}, got {sorted(got)}" if got != want else "",
        "eligible_includes": lambda want, got: f"missing {sorted(want - got)}" if want - got else "",
        "eligible_excludes": lambda want, got: f"present {sorted(want & got)}" if want & got else "",
    }
    for key, differs in checks.items():
        for code, assets in (expect.get(key) or {}).items():
            for asset, citations in (assets or {}).items():
                problem = differs(set(citations or []), citations_of(code, asset))
                if problem:
                    found.append(f"{key}[{code}][{asset}]: {problem}")
    for code, assets in (expect.get("max_claim") or {}).items():
        for asset, values in (assets or {}).items():
            got = (
                {v.citation: v.max_claim for v in results[code].valuation.get(asset, [])}
                if code in results
                else {}
            )
            for citation, dollars in (values or {}).items():
                if got.get(citation) != dollars:
                    found.append(
                        f"max_claim[{code}][{asset}][{citation}]: expected {dollars}, got {got.get(citation)}"
                    )
    for code, dollars in (expect.get("non_exempt") or {}).items():
        if code in results and results[code].non_exempt_total != dollars:
            found.append(f"non_exempt[{code}]: expected {dollars}, got {results[code].non_exempt_total}")
        elif code in results and not results[code].optimal:
            found.append(f"non_exempt[{code}]: not proven optimal")
    return found
