"""`lexsym lint`: the checks a statute file must pass before it is trusted with a case.

It is the single checker of the house conventions; the test suite calls it rather than keeping its own.
Each problem is one line, `file:line: CODE message`; the codes, their reasons and their fixes are in
lexsym/law/lint_codes.py and docs/lint.md. Checks that read the syntax tree run first and need no solving;
the ones that need the catalogue grounded (undefined atoms, limits, reachability) run only when selected.
"""

from __future__ import annotations

import datetime as dt
import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import clingo
from clingo import ast

from lexsym._util.errors import InputError, LexsymError
from lexsym.law.allocation import decode_arguments
from lexsym.law.catalogue import CatalogueAsset, load_catalogue
from lexsym.law.citation_formats import formats_for, recognise
from lexsym.law.citations import exemption_id
from lexsym.law.clingo_runner import FATAL_CODES, MessageLog, located_error, parsed_file
from lexsym.law.facts import case_facts
from lexsym.law.lint_codes import selected
from lexsym.law.readings import DEFAULT_READINGS, READINGS, Readings
from lexsym.law.rules import case_encoding_files, rules_root, statute_files
from lexsym.law.scaffold import PLACEHOLDERS
from lexsym.law.statute_survey import DOMAINS, Fact, Survey, survey
from lexsym.law.vocabulary import JURISDICTION_NAMES

LINT_PETITION = dt.date(2024, 6, 1)
"""Catalogue assets are checked as of this petition date (sale dates are placed relative to it)."""

GROUNDED_CODES = ("LX201", "LX301", "LX303")
"""The codes that need the statutes grounded with the catalogue (a second or two); the rest read files."""

CLASSIFICATION_RULES = ("qualifies(", "in_group(", "group_extra(", "no_stacking(")
KNOWN_JURISDICTIONS = frozenset(code.lower() for code in JURISDICTION_NAMES)


@dataclass(frozen=True)
class Edit:
    """Replace `old` by `new` as a whole word on `line` of `path` (every line when `line` is None)."""

    path: Path
    line: int | None
    old: str
    new: str


@dataclass(frozen=True)
class Problem:
    location: str
    message: str
    code: str = "LX301"
    edits: tuple[Edit, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"{self.location}: {self.code} {self.message}"


def _files(paths: Iterable[Path]) -> list[Path]:
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


def _did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.75)
    return close[0] if close else None


# -- text checks ------------------------------------------------------------------------------------------


def _header_problems(path: Path, lines: list[str]) -> list[Problem]:
    head = "\n".join(lines[:60])
    problems = []
    if not (lines and lines[0].startswith("%# ")):
        problems.append(
            Problem(_where(path, 1), "the file must open with a '%# <citation>: <title>' line", "LX001")
        )
    if "Source:" not in head:
        problems.append(Problem(_where(path, 1), "the header has no 'Source:' line", "LX002"))
    if "Output:" not in head:
        problems.append(Problem(_where(path, 1), "the header has no 'Output:' line", "LX003"))
    return problems


_PLACEHOLDER = re.compile(r"\b(" + "|".join(sorted(PLACEHOLDERS, key=len, reverse=True)) + r")\b")


def _placeholder_problems(path: Path, lines: list[str]) -> list[Problem]:
    problems = []
    for number, line in enumerate(lines, 1):
        found = sorted(set(_PLACEHOLDER.findall(line)))
        if found:
            names = ", ".join(found)
            problems.append(
                Problem(_where(path, number), f"placeholder {names} from `lexsym new`: fill it in", "LX004")
            )
    return problems


def _uncited_rule_problems(path: Path, lines: list[str]) -> list[Problem]:
    """A classification rule needs a citation in the comment block right above it (its own earlier lines
    and blank lines are skipped)."""
    from lexsym.law.citation_formats import mentions_a_citation

    problems = []
    for index, line in enumerate(lines):
        if not line.startswith(CLASSIFICATION_RULES):
            continue
        start = index
        while start > 0 and not lines[start - 1].startswith("%"):
            start -= 1
        block = []
        while start > 0 and lines[start - 1].startswith("%"):
            start -= 1
            block.append(lines[start])
        if not any(mentions_a_citation(comment) for comment in block):
            rule = line.split("(", 1)[0]
            problems.append(
                Problem(
                    _where(path, index + 1), f"no citation in the comment above this {rule} rule", "LX106"
                )
            )
    return problems


# -- fact checks (from the syntax tree) -------------------------------------------------------------------


def _by_name(surveys: dict[Path, Survey], name: str, arity: int) -> list[tuple[Path, Fact]]:
    return [
        (path, fact)
        for path, found in surveys.items()
        for fact in found.facts
        if fact.name == name and len(fact.arguments) == arity
    ]


def _unquote(text: str) -> str:
    return text[1:-1].replace('\\"', '"').replace("\\\\", "\\") if text.startswith('"') else text


def _rename_edits(root: Path, old: str, new: str, targets: list[Path]) -> tuple[Edit, ...]:
    pattern = re.compile(rf"\b{re.escape(old)}\b")
    files = sorted({*statute_files(root), *targets})
    return tuple(Edit(p, None, old, new) for p in files if pattern.search(p.read_text(encoding="utf-8")))


def _exemption_problems(
    root: Path, surveys: dict[Path, Survey], everything: dict[Path, Survey]
) -> list[Problem]:
    problems: list[Problem] = []
    citations = {f.arguments[0]: (p, f) for p, f in _by_name(everything, "citation", 2)}
    titled = {f.arguments[0] for _, f in _by_name(everything, "exemption_title", 2)}
    paraphrased = {f.arguments[0] for _, f in _by_name(everything, "statute_text", 2)}
    for path, fact in _by_name(surveys, "exemption", 2):
        exemption, jurisdiction = fact.arguments
        where = _where(path, fact.line)
        if jurisdiction not in KNOWN_JURISDICTIONS:
            close = _did_you_mean(jurisdiction, KNOWN_JURISDICTIONS)
            hint = f"; did you mean `{close}`?" if close else " (us or a lower-case USPS code)"
            edits = (Edit(path, fact.line, jurisdiction, close),) if close else ()
            problems.append(
                Problem(where, f"unknown jurisdiction `{jurisdiction}` for {exemption}{hint}", "LX104", edits)
            )
        if exemption not in titled or exemption not in paraphrased:
            missing = " and ".join(
                n
                for n, s in (("exemption_title/2", titled), ("statute_text/2", paraphrased))
                if exemption not in s
            )
            problems.append(Problem(where, f"{exemption} has no {missing}", "LX105"))
        if exemption not in citations:
            problems.append(Problem(where, f"{exemption} has no citation/2", "LX101"))
            continue
        cited_in, cited = citations[exemption]
        citation = _unquote(cited.arguments[1])
        recognised = recognise(citation, jurisdiction) if jurisdiction in KNOWN_JURISDICTIONS else None
        if recognised is None and jurisdiction in KNOWN_JURISDICTIONS:
            forms = " or ".join(f"`{f.example}`" for f in formats_for(jurisdiction))
            problems.append(
                Problem(
                    _where(cited_in, cited.line),
                    f"citation {citation!r} does not follow {jurisdiction}'s canonical form {forms}",
                    "LX102",
                )
            )
        elif recognised is not None and recognised.canonical != citation:
            edits = (Edit(cited_in, cited.line, citation, recognised.canonical),)
            if path.read_text(encoding="utf-8").startswith(f"%# {citation}"):
                edits += (Edit(path, 1, citation, recognised.canonical),)
            problems.append(
                Problem(
                    _where(cited_in, cited.line),
                    f"citation {citation!r} is not canonical: {recognised.canonical!r}",
                    "LX102",
                    edits,
                )
            )
        wanted = recognised.exemption_id if recognised else exemption_id(citation)
        if wanted != exemption:
            problems.append(
                Problem(
                    where,
                    f"{exemption} should be named {wanted} (derived from its citation)",
                    "LX103",
                    _rename_edits(root, exemption, wanted, list(surveys)),
                )
            )
    return problems


_DATE = re.compile(r"date\((\d+),(\d+),(\d+)\)")


def _number(text: str) -> int | None:
    return int(text) if re.fullmatch(r"-?\d+", text.replace(" ", "")) else None


def _amount_problems(surveys: dict[Path, Survey]) -> list[Problem]:
    problems: list[Problem] = []
    for name in ("amount", "amount_as_of"):
        for path, fact in _by_name(surveys, name, 4):
            exemption, kind, day, value = fact.arguments
            where = _where(path, fact.line)
            match = _DATE.fullmatch(day.replace(" ", ""))
            try:
                valid = match is not None and dt.date(*(int(g) for g in match.groups())) is not None
            except ValueError:
                valid = False
            if not valid:
                problems.append(Problem(where, f"{name} {kind} of {exemption}: bad date {day}", "LX202"))
            dollars = _number(value)
            if dollars is not None and dollars < 0:
                problems.append(
                    Problem(where, f"{name} {kind} of {exemption} is negative ({dollars})", "LX203")
                )
    for name, arity in (("item_count", 2), ("joint_item_count", 2), ("item_class_limit", 3)):
        for path, fact in _by_name(surveys, name, arity):
            count = _number(fact.arguments[-1])
            if count is not None and count < 1:
                problems.append(
                    Problem(
                        _where(path, fact.line),
                        f"{name} of {fact.arguments[0]} is {count}; it must be at least 1",
                        "LX204",
                    )
                )
    return problems


def _vocabulary_problems(surveys: dict[Path, Survey]) -> list[Problem]:
    problems: list[Problem] = []
    for path, found in surveys.items():
        for word in found.words:
            allowed = DOMAINS[word.domain]
            if word.word in allowed:
                continue
            close = _did_you_mean(word.word, allowed)
            hint = f"; did you mean `{close}`?" if close else ""
            edits = (Edit(path, word.line, word.word, close),) if close else ()
            code = "LX205" if word.domain == "amount kind" else "LX302"
            problems.append(
                Problem(_where(path, word.line), f"unknown {word.domain} `{word.word}`{hint}", code, edits)
            )
    return problems


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
            close = _did_you_mean(undefined[1], defined)
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


def _grounded_problems(
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
        shown = {_where(t) for t in targets}
        problems = [p for p in problems if p.location.rsplit(":", 1)[0] in shown]
    if not symbols:
        return problems
    more, _ = _ground(files, "\n".join(_catalogue_facts(entries, _alternative_readings())) + _SHOW)
    rows: dict[str, set[str]] = {}
    for symbol in [*symbols, *(s for s in more if s.name == "lint_reached")]:
        rows.setdefault(symbol.name, set()).add(decode_arguments(symbol)[0])
    for path, fact in _by_name(surveys, "exemption", 2):
        exemption, where = fact.arguments[0], _where(path, fact.line)
        if exemption not in rows.get("lint_limited", set()):
            problems.append(
                Problem(where, f"{exemption} has no limit amount and is not declared unlimited/1", "LX201")
            )
        if exemption not in rows.get("lint_reached", set()):
            problems.append(
                Problem(where, f"no catalogue asset qualifies for {exemption} (unreachable rule?)", "LX303")
            )
    return problems


# -- the whole lint ---------------------------------------------------------------------------------------


def lint(
    paths: Iterable[Path],
    *,
    rules: str | None = None,
    catalogue: Path | None = None,
    select: list[str] | None = None,
    ignore: list[str] | None = None,
) -> list[Problem]:
    """Every problem found in the files under `paths` (checked together with all statutes), in file order."""
    root = rules_root(rules)
    targets = _files(paths)
    statutes_dir = (root / "statutes").resolve()
    everything = sorted({*statute_files(root), *targets})
    surveys_all = {p: s for p in everything if (s := survey(p)) is not None}
    surveys = {p: surveys_all[p] for p in targets if p in surveys_all}
    defined = frozenset().union(
        *(s.heads for s in surveys_all.values()),
        *(s.heads for p in case_encoding_files(root) if (s := survey(p)) is not None),
    )

    problems: list[Problem] = []
    for path in targets:
        lines = path.read_text(encoding="utf-8").splitlines()
        problems += _header_problems(path, lines) + _placeholder_problems(path, lines)
        if path.is_relative_to(statutes_dir) or not path.is_relative_to(root.resolve()):
            problems += _uncited_rule_problems(path, lines)
    problems += _exemption_problems(root, surveys, surveys_all)
    values = _amount_problems(surveys)
    problems += values + _vocabulary_problems(surveys)
    if any(selected(code, select, ignore) for code in GROUNDED_CODES):
        problems += _grounded_problems(root, targets, surveys, defined, catalogue, bool(values))
    kept = [p for p in problems if selected(p.code, select, ignore)]
    return sorted(dict.fromkeys(kept), key=_order)


def _order(problem: Problem) -> tuple:
    file, _, line = problem.location.rpartition(":")
    return (file, int(line), problem.code) if line.isdigit() else (problem.location, 0, problem.code)
