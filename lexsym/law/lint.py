"""`lexsym lint`: the checks a statute file must pass before it is trusted with a case.

- a `%#` header stating Source, Input and Output;
- a canonical citation on every exemption, with the id derived from it;
- every exemption capped by a dated amount, or declared unlimited or limited to support; dates valid;
- no undefined predicates (a misspelt vocabulary word silently makes a rule dead);
- every exemption reachable: some catalogue asset satisfies its antecedent.
Each problem is one line, `file:line: message`.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import clingo
from clingo import ast

from lexsym._util.errors import InputError, LexsymError
from lexsym.law.allocation import decode_arguments
from lexsym.law.catalogue import CatalogueAsset, load_catalogue
from lexsym.law.citations import clean_citation, exemption_id
from lexsym.law.clingo_runner import FATAL_CODES, MessageLog, located_error, parsed_file
from lexsym.law.facts import case_facts
from lexsym.law.readings import DEFAULT_READINGS, READINGS, Readings
from lexsym.law.rules import case_encoding_files, rules_root, statute_files

LINT_PETITION = dt.date(2024, 6, 1)
"""Catalogue assets are checked as of this petition date (sale dates are placed relative to it)."""


@dataclass(frozen=True)
class Problem:
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def _files(paths: Iterable[Path], root: Path) -> list[Path]:
    found: list[Path] = []
    for path in paths:
        path = Path(path)
        if path.is_dir():
            found.extend(sorted(path.rglob("*.lp")))
        elif path.suffix == ".lp" and path.is_file():
            found.append(path)
        else:
            raise InputError(f"{path}: not a .lp file or a directory")
    if not found:
        raise InputError("no statute files to lint")
    return [p.resolve() for p in found]


def _where(path: Path, line: int | None = None) -> str:
    try:
        shown = path.relative_to(Path.cwd())
    except ValueError:
        shown = path
    return f"{shown}:{line}" if line else str(shown)


def _header_problems(path: Path) -> list[Problem]:
    text = path.read_text(encoding="utf-8")
    head = text[:3000]
    problems = []
    if not text.startswith("%# "):
        problems.append(Problem(_where(path, 1), "the file must open with a '%# <citation>: <title>' line"))
    for field in ("Source:", "Output:"):
        if field not in head:
            problems.append(Problem(_where(path, 1), f"the header has no '{field}' line"))
    return problems


def _ground(files: list[Path], program: str) -> tuple[list[clingo.Symbol], MessageLog]:
    """Ground and solve, collecting every message instead of stopping at the first."""
    log_ = MessageLog()
    control = clingo.Control(["--warn=all"], logger=log_, message_limit=1000)
    try:
        with ast.ProgramBuilder(control) as builder:
            for path in files:
                for statement in parsed_file(path, log_):
                    builder.add(statement)
        control.add("base", [], program)
        control.ground([("base", [])])
    except (RuntimeError, LexsymError):
        return [], log_
    symbols: list[clingo.Symbol] = []
    control.solve(on_model=lambda model: symbols.extend(model.symbols(shown=True)))
    return symbols, log_


def _message_problems(log_: MessageLog) -> list[Problem]:
    problems = []
    for code, message in log_.messages:
        if code in FATAL_CODES or "error" in message:
            error = located_error(message)
            location, _, text = str(error).partition(": ")
            problems.append(Problem(location, text))
    return problems


def _catalogue_facts(entries: Iterable[CatalogueAsset], readings: Readings = DEFAULT_READINGS) -> list[str]:
    """Facts for every catalogue asset (at its lowest value) in one single-filing case."""
    from lexsym.law.case import Case, DomicilePeriod

    assets = []
    for entry in entries:
        extra = {}
        if entry.sale_months_ago is not None:
            months = entry.sale_months_ago[0]
            year, month = divmod(LINT_PETITION.year * 12 + LINT_PETITION.month - 1 - months, 12)
            extra["sold_on"] = dt.date(year, month + 1, 1)
        assets.append(entry.to_asset(asset_id=entry.id, value=entry.value_min, **extra))
    case = Case(
        id="catalogue",
        petition_date=LINT_PETITION,
        domicile=[DomicilePeriod(state="OR", start=dt.date(2000, 1, 1))],
        assets=assets,
        readings=readings,
    )
    return case_facts(case)


def _alternative_readings() -> Readings:
    """Every contested reading set to its first non-default option: a rule that only one reading turns on
    is reachable if some asset reaches it there."""
    return Readings.model_validate({r.name: r.options[1] for r in READINGS})


_SHOW = """
#show lint_exemption(E,J) : exemption(E,J).
#show lint_citation(E,C) : citation(E,C).
#show lint_amount(E,K,D) : amount(E,K,D,_).
#show lint_amount(E,K,D) : amount_as_of(E,K,D,_).
#show lint_limited(E) : unlimited(E).
#show lint_limited(E) : limited_to_support(E).
#show lint_limited(E) : amount(E,limit,_,_).
#show lint_limited(E) : amount_as_of(E,limit,_,_).
#show lint_reached(E) : qualifies(E,_,_).
#show lint_group(G) : group(G).
"""


def _declaration_lines(files: list[Path]) -> dict[str, tuple[Path, int]]:
    """Where each exemption is declared (`exemption(E, J).`), for locating problems."""
    where: dict[str, tuple[Path, int]] = {}
    pattern = re.compile(r"^\s*exemption\(\s*([a-z][A-Za-z0-9_]*)\s*,")
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = pattern.match(line)
            if match:
                where.setdefault(match[1], (path, number))
    return where


def lint(paths: Iterable[Path], *, rules: str | None = None, catalogue: Path | None = None) -> list[Problem]:
    """Every problem found in the statute files under `paths` (checked together with all statutes)."""
    root = rules_root(rules)
    targets = _files(paths, root)
    problems: list[Problem] = [p for path in targets for p in _header_problems(path)]

    everything = sorted({*statute_files(root), *targets})
    entries = load_catalogue(catalogue)
    facts = "\n".join(_catalogue_facts(entries))
    symbols, log_ = _ground([*everything, *case_encoding_files(root)], facts + _SHOW)
    problems += _message_problems(log_)
    if not symbols and problems:
        return problems
    alternative = "\n".join(_catalogue_facts(entries, _alternative_readings()))
    more, _ = _ground([*everything, *case_encoding_files(root)], alternative + _SHOW)
    symbols = [*symbols, *(s for s in more if s.name == "lint_reached")]

    rows: dict[str, set[tuple]] = {}
    for symbol in symbols:
        rows.setdefault(symbol.name, set()).add(decode_arguments(symbol))
    declared = _declaration_lines(targets)
    citations = {e: c for e, c in rows.get("lint_citation", set())}
    limited = {e for (e,) in rows.get("lint_limited", set())}
    reached = {e for (e,) in rows.get("lint_reached", set())}
    for exemption, (path, line) in sorted(declared.items()):
        where = _where(path, line)
        citation = citations.get(exemption)
        if citation is None:
            problems.append(Problem(where, f"{exemption} has no citation/2"))
        else:
            if clean_citation(citation) != citation:
                problems.append(Problem(where, f"citation {citation!r} is not canonical"))
            if exemption_id(citation) != exemption:
                problems.append(Problem(where, f"{exemption} should be named {exemption_id(citation)}"))
        if exemption not in limited:
            problems.append(
                Problem(where, f"{exemption} has no limit amount and is not declared unlimited/1")
            )
        if exemption not in reached:
            problems.append(
                Problem(where, f"no catalogue asset qualifies for {exemption} (unreachable rule?)")
            )
    for exemption, kind, day in sorted(rows.get("lint_amount", set())):
        match = re.fullmatch(r"date\((\d+),(\d+),(\d+)\)", day)
        try:
            valid = match is not None and dt.date(*(int(g) for g in match.groups())) is not None
        except ValueError:
            valid = False
        if not valid and exemption in declared:
            problems.append(
                Problem(_where(*declared[exemption]), f"amount {kind} of {exemption}: bad date {day}")
            )
    return problems
