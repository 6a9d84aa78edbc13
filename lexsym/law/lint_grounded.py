"""The lint checks that need the statutes grounded with the asset catalogue: undefined atoms (LX301),
exemptions without a cap (LX201) and exemptions no described property reaches (LX303)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from pathlib import Path

import clingo
from clingo import ast

from lexsym._util.errors import LexsymError
from lexsym.law.allocation import decode_arguments
from lexsym.law.catalogue import CatalogueAsset, load_catalogue
from lexsym.law.clingo_runner import FATAL_CODES, MessageLog, located_error, parsed_file
from lexsym.law.facts import case_facts
from lexsym.law.lint_problem import Edit, Problem, by_name, did_you_mean, locate
from lexsym.law.readings import DEFAULT_READINGS, READINGS, Readings
from lexsym.law.rules import case_encoding_files, statute_files
from lexsym.law.statute_survey import Survey

LINT_PETITION = dt.date(2024, 6, 1)
"""Catalogue assets are checked as of this petition date (sale dates are placed relative to it)."""

# -- grounded checks --------------------------------------------------------------------------------------


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


_UNDEFINED = re.compile(r"atom does not occur in any rule head: -?([a-z_][A-Za-z0-9_']*)")


def _message_problems(log_: MessageLog, defined: frozenset[str], targets: list[Path]) -> list[Problem]:
    problems = []
    for code, message in log_.messages:
        if code not in FATAL_CODES and "error" not in message:
            continue
        error = located_error(message)
        location, _, text = str(error).partition(": ")
        edits: tuple[Edit, ...] = ()
        undefined = _UNDEFINED.search(text)
        if undefined:
            close = did_you_mean(undefined[1], defined)
            if close:
                text += f"; did you mean `{close}`?"
                path = Path(error.file).resolve() if error.file else None
                if path in targets and error.line:
                    edits = (Edit(path, error.line, undefined[1], close),)
        problems.append(Problem(location, text, "LX301", edits))
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
#show lint_limited(E) : unlimited(E).
#show lint_limited(E) : limited_to_support(E).
#show lint_limited(E) : amount(E,limit,_,_).
#show lint_limited(E) : amount_as_of(E,limit,_,_).
#show lint_reached(E) : qualifies(E,_,_).
"""


def grounded_problems(
    root: Path,
    targets: list[Path],
    surveys: dict[Path, Survey],
    defined: frozenset[str],
    catalogue: Path | None,
    values_wrong: bool,
) -> list[Problem]:
    encodings = (root / "encodings").resolve()
    statutes = {*statute_files(root), *(t for t in targets if not t.is_relative_to(encodings))}
    files = [*sorted(statutes), *case_encoding_files(root)]
    entries = load_catalogue(catalogue)
    symbols, log_ = _ground(files, "\n".join(_catalogue_facts(entries)) + _SHOW)
    problems = _message_problems(log_, defined, targets)
    if values_wrong:  # a bad count or amount also breaks arithmetic in encodings/: say it once, at its line
        shown = {locate(t) for t in targets}
        problems = [p for p in problems if p.location.rsplit(":", 1)[0] in shown]
    if not symbols:
        return problems
    more, _ = _ground(files, "\n".join(_catalogue_facts(entries, _alternative_readings())) + _SHOW)
    rows: dict[str, set[str]] = {}
    for symbol in [*symbols, *(s for s in more if s.name == "lint_reached")]:
        rows.setdefault(symbol.name, set()).add(decode_arguments(symbol)[0])
    for path, fact in by_name(surveys, "exemption", 2):
        exemption, where = fact.arguments[0], locate(path, fact.line)
        if exemption not in rows.get("lint_limited", set()):
            problems.append(
                Problem(where, f"{exemption} has no limit amount and is not declared unlimited/1", "LX201")
            )
        if exemption not in rows.get("lint_reached", set()):
            problems.append(
                Problem(where, f"no catalogue asset qualifies for {exemption} (unreachable rule?)", "LX303")
            )
    return problems
