"""Named statute tests: YAML files of cases and the answers the law gives them (`lexsym test`).

In the manner of OpenFisca's YAML tests, a file tests one statute file:

    statute: statutes/az/33-1123_household.lp      # optional: the file under test
    cases:
      - name: furniture at the $15,000 cap is fully protected
        petition_date: 2023-06-05                  # any case field (`lexsym schema case`)
        assets: [{id: furniture, kind: household_furnishing, use: personal, value: 15000}]
        expect:
          jurisdiction: AZ                         # whose results are checked (default US)
          eligible: {furniture: ["Ariz. Rev. Stat. § 33-1123"]}   # the exact EC set of an asset
          includes: {asset: [citations]}           # citations that must be among them
          excludes: {asset: [citations]}           # citations that must not apply
          max_claim: {asset: {citation: dollars}}  # EV
          non_exempt: 0                            # NA under that jurisdiction (and proven optimal)
          exempt_under: {citation: dollars}        # claimed under a citation in the optimal schedule
          allowable: [jurisdictions]               # AE
          error: pattern                           # solving must fail with a message it matches

A case states only what matters to the rule: the domicile defaults to ten years in the jurisdiction under
test (Oregon, which permits the federal exemptions, for US), the filing to single, each asset's
description to its id. Keys are strict: a misspelt one is an error naming file:line, never a test that
passes by checking nothing.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError, LexsymError
from lexsym.law.date_arithmetic import years_before
from lexsym.law.vocabulary import state_of

DEFAULT_STATE = "OR"
"""Where a federal case's debtor lives: Oregon permits the federal exemptions, so US is allowable."""

FILE_KEYS = ("statute", "cases")
EXPECT_KEYS = (
    "jurisdiction",
    "eligible",
    "includes",
    "excludes",
    "max_claim",
    "non_exempt",
    "exempt_under",
    "allowable",
    "error",
)


@dataclass(frozen=True)
class StatuteCase:
    """One named case of a test file: where it is, its facts and what the law must answer."""

    file: str
    line: int
    name: str
    facts: dict[str, Any]
    expect: dict[str, Any]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass
class CaseOutcome:
    """A case's verdict: passed, failed (each difference on one line) or an error in the test itself."""

    case: StatuteCase
    failures: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def status(self) -> str:
        return "error" if self.error else ("fail" if self.failures else "pass")

    def record(self) -> dict[str, Any]:
        return {
            "file": self.case.file,
            "line": self.case.line,
            "name": self.case.name,
            "status": self.status,
            "failures": self.failures,
            "error": self.error,
        }


def build_case(facts: dict[str, Any], *, state: str = DEFAULT_STATE) -> dict[str, Any]:
    """A complete case dict from a test's facts: ten years' domicile in `state` before the petition
    (2023-06-01 unless given), and each asset described by its id."""
    data = dict(facts)
    petition = dt.date.fromisoformat(str(data.setdefault("petition_date", "2023-06-01")))
    data.setdefault("domicile", [{"state": state, "start": str(years_before(petition, 10))}])
    assets = []
    for asset in data.get("assets", []):
        asset = dict(asset) if isinstance(asset, dict) else asset
        if isinstance(asset, dict):
            asset.setdefault("description", asset.get("id"))
        assets.append(asset)
    data["assets"] = assets
    return data


def statute_test_files(paths: Iterable[Path]) -> list[Path]:
    """The YAML test files under `paths` (files, or folders searched recursively), sorted."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(p for p in path.rglob("*.y*ml") if p.suffix in (".yaml", ".yml"))
        elif path.is_file():
            found.append(path)
        else:
            raise InputError(f"{path}: no such file or folder")
    return sorted(set(found))


def read_test_file(path: Path) -> Iterator[StatuteCase | CaseOutcome]:
    """The cases of one test file; a case whose keys are wrong comes as an errored outcome naming its
    line. Raises InputError when the file is not a test file at all."""
    import yaml

    from lexsym._util.safe_yaml import load_yaml

    try:
        text = path.read_text(encoding="utf-8")
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        document = load_yaml(text)
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read ({error.__class__.__name__})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise InputError(f"{path}{line}: not YAML ({getattr(error, 'problem', None) or error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("cases"), list):
        raise InputError(f"{path}: a statute test file is a mapping with a list of `cases`")
    lines = _key_lines(root)
    for key in document:
        if key not in FILE_KEYS:
            raise InputError(f"{path}:{lines.get((key,), 1)}: unknown key {key!r}{_suggest(key, FILE_KEYS)}")
    case_nodes = _case_nodes(root)
    for index, raw in enumerate(document["cases"]):
        line = case_nodes[index] if index < len(case_nodes) else 1
        yield _read_case(str(path), line, index, raw, lines)


def _read_case(
    file: str, line: int, index: int, raw: Any, lines: dict[tuple, int]
) -> StatuteCase | CaseOutcome:
    name = raw.get("name") if isinstance(raw, dict) else None
    case = StatuteCase(file, line, str(name or f"case {index + 1}"), {}, {})
    if not isinstance(raw, dict) or not isinstance(name, str) or not name.strip():
        return CaseOutcome(case, error=f"{case.where}: a case is a mapping with a `name`")
    expect = raw.get("expect")
    if not isinstance(expect, dict) or not expect:
        return CaseOutcome(case, error=f"{case.where}: case {name!r} has no `expect` mapping")
    for key in expect:
        if key not in EXPECT_KEYS:
            where = f"{file}:{lines.get(('cases', index, 'expect', key), line)}"
            return CaseOutcome(
                case, error=f"{where}: unknown expected key {key!r}{_suggest(str(key), EXPECT_KEYS)}"
            )
    facts = {key: value for key, value in raw.items() if key not in ("name", "expect")}
    from lexsym.law.case import Case

    known = [name for name in Case.model_fields if name != "id"]
    for key in facts:
        if key not in known:
            where = f"{file}:{lines.get(('cases', index, key), line)}"
            return CaseOutcome(case, error=f"{where}: unknown case key {key!r}{_suggest(str(key), known)}")
    return StatuteCase(file, line, name, facts, expect)


def _suggest(word: str, choices: Sequence[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(choices)})"


def _case_nodes(root: Any) -> list[int]:
    """1-based lines of the items of the top-level `cases` list."""
    for key, value in getattr(root, "value", []):
        if getattr(key, "value", None) == "cases" and hasattr(value, "value"):
            return [item.start_mark.line + 1 for item in value.value]
    return []


def _key_lines(root: Any) -> dict[tuple, int]:
    """1-based line of every mapping key, by its path of keys and list indexes from the top."""
    lines: dict[tuple, int] = {}

    def walk(node: Any, path: tuple) -> None:
        kind = getattr(node, "id", None)
        if kind == "mapping":
            for key, value in node.value:
                lines[(*path, key.value)] = key.start_mark.line + 1
                walk(value, (*path, key.value))
        elif kind == "sequence":
            for index, item in enumerate(node.value):
                walk(item, (*path, index))

    walk(root, ())
    return lines


def run_case(case: StatuteCase, *, rules: str | None = None) -> CaseOutcome:
    """Solve the case and compare every expected answer; never raises for a problem in the test."""
    from lexsym.law.case import parse_case
    from lexsym.law.solver import solve

    expect = case.expect
    jurisdiction = str(expect.get("jurisdiction", "US")).upper()
    state = state_of(jurisdiction) if jurisdiction != "US" else DEFAULT_STATE  # CA_703: domiciled in CA
    try:
        parsed = parse_case(build_case(case.facts, state=state), source=f"{case.where}: case {case.name!r}")
    except (LexsymError, ValueError, TypeError) as error:
        message = str(error) if isinstance(error, LexsymError) else f"{case.where}: {error}"
        if "error" in expect and _matches(str(expect["error"]), message):
            return CaseOutcome(case)  # the case is meant to be refused
        return CaseOutcome(case, error=message)
    try:
        solution = solve(parsed, jurisdictions=[jurisdiction], rules=rules)
    except LexsymError as error:
        if "error" in expect:
            if _matches(str(expect["error"]), str(error)):
                return CaseOutcome(case)
            return CaseOutcome(case, [f"error: expected a message with {expect['error']!r}, got {error}"])
        return CaseOutcome(case, [f"solving failed: {error}"])
    if "error" in expect:
        return CaseOutcome(case, [f"error: expected solving to fail with {expect['error']!r}; it solved"])
    return CaseOutcome(case, _differences(expect, solution, jurisdiction))


def _matches(pattern: str, message: str) -> bool:
    """`error:` is a regular expression searched in the message (a plain substring matches too)."""
    try:
        return re.search(pattern, message) is not None
    except re.error:
        return pattern in message


def _differences(expect: dict[str, Any], solution: Any, jurisdiction: str) -> list[str]:
    result = solution.result(jurisdiction)
    eligible = {asset: {m.citation: m for m in matches} for asset, matches in result.classification.items()}
    notes: list[str] = []

    def got(asset: str) -> str:
        matches = eligible.get(asset, {})
        return "; ".join(f"{c} ({m.because})" for c, m in sorted(matches.items())) or "none"

    for asset, citations in (expect.get("eligible") or {}).items():
        if set(eligible.get(asset, {})) != set(citations or []):
            notes.append(f"eligible[{asset}]: expected {sorted(citations or [])}, got {got(asset)}")
    for asset, citations in (expect.get("includes") or {}).items():
        missing = set(citations or []) - set(eligible.get(asset, {}))
        if missing:
            notes.append(f"includes[{asset}]: {sorted(missing)} do not apply; got {got(asset)}")
    for asset, citations in (expect.get("excludes") or {}).items():
        wrong = set(citations or []) & set(eligible.get(asset, {}))
        if wrong:
            notes.append(f"excludes[{asset}]: {got(asset)} includes {sorted(wrong)}")
    claims = {asset: {v.citation: v.max_claim for v in values} for asset, values in result.valuation.items()}
    for asset, values in (expect.get("max_claim") or {}).items():
        for citation, dollars in (values or {}).items():
            actual = claims.get(asset, {}).get(citation)
            if actual != dollars:
                notes.append(f"max_claim[{asset}][{citation}]: expected {dollars}, got {actual}")
    if "non_exempt" in expect:
        if result.non_exempt_total != expect["non_exempt"]:
            notes.append(
                f"non_exempt ({jurisdiction}): expected {expect['non_exempt']}, got {result.non_exempt_total}"
            )
        elif not result.optimal:
            notes.append(f"non_exempt ({jurisdiction}): {result.non_exempt_total} but not proven optimal")
    exempt: dict[str, int] = {}
    for claim in result.schedule:
        exempt[claim.citation] = exempt.get(claim.citation, 0) + claim.amount
    for citation, dollars in (expect.get("exempt_under") or {}).items():
        if exempt.get(citation, 0) != dollars:
            notes.append(f"exempt_under[{citation}]: expected {dollars}, got {exempt.get(citation, 0)}")
    if "allowable" in expect and solution.allowable.jurisdictions != expect["allowable"]:
        notes.append(f"allowable: expected {expect['allowable']}, got {solution.allowable.jurisdictions}")
    return notes


def run_tests(paths: Iterable[Path], *, rules: str | None = None) -> Iterator[CaseOutcome]:
    """Every case of every test file under `paths`, in file order; a file that is not a test file raises."""
    for path in statute_test_files(paths):
        for item in read_test_file(path):
            yield item if isinstance(item, CaseOutcome) else run_case(item, rules=rules)
