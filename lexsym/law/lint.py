"""`lexsym lint`: the checks a statute file must pass before it is trusted with a case.

It is the single checker of the house conventions; the test suite calls it rather than keeping its own.
Each problem is one line, `file:line: CODE message`; the codes, their reasons and their fixes are in
lexsym/law/lint_codes.py and docs/lint.md. Checks that read the syntax tree run first and need no solving;
the ones that need the catalogue grounded (undefined atoms, limits, reachability) run only when selected.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from pathlib import Path

from lexsym._util.errors import InputError, LexsymError
from lexsym.law.citation_formats import formats_for, recognise
from lexsym.law.citations import exemption_id
from lexsym.law.lint_codes import selected
from lexsym.law.lint_grounded import grounded_problems
from lexsym.law.lint_problem import Edit, Problem, by_name, did_you_mean, locate
from lexsym.law.rule_text import rule_text
from lexsym.law.rules import case_encoding_files, rules_root, statute_files
from lexsym.law.scaffold import PLACEHOLDERS
from lexsym.law.statute_survey import DOMAINS, Survey, survey
from lexsym.law.vocabulary import JURISDICTION_NAMES

GROUNDED_CODES = ("LX201", "LX301", "LX303")
"""The codes that need the statutes grounded with the catalogue (a second or two); the rest read files."""

CLASSIFICATION_RULES = ("qualifies(", "in_group(", "group_extra(", "no_stacking(")
KNOWN_JURISDICTIONS = frozenset(code.lower() for code in JURISDICTION_NAMES)


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


# -- text checks ------------------------------------------------------------------------------------------


def _range_problems(path: Path) -> list[Problem]:
    """LX005 for every range whose grounding could exhaust memory (`solve` refuses the file)."""
    from lexsym.law.clingo_runner import large_ranges_in

    try:
        found = large_ranges_in(path)
    except LexsymError:  # a syntax error: clingo's own message reports it
        return []
    return [
        Problem(
            locate(path, each.line),
            f"the range {each.low}..{each.high} has {each.size:,} values; grounding it could exhaust memory",
            "LX005",
        )
        for each in found
    ]


def _header_problems(path: Path, lines: list[str]) -> list[Problem]:
    head = "\n".join(lines[:60])
    problems = []
    if not (lines and lines[0].startswith("%# ")):
        problems.append(
            Problem(locate(path, 1), "the file must open with a '%# <citation>: <title>' line", "LX001")
        )
    if "Source:" not in head:
        problems.append(Problem(locate(path, 1), "the header has no 'Source:' line", "LX002"))
    if "Output:" not in head:
        problems.append(Problem(locate(path, 1), "the header has no 'Output:' line", "LX003"))
    return problems


_PLACEHOLDER = re.compile(r"\b(" + "|".join(sorted(PLACEHOLDERS, key=len, reverse=True)) + r")\b")


def _placeholder_problems(path: Path, lines: list[str]) -> list[Problem]:
    problems = []
    for number, line in enumerate(lines, 1):
        found = sorted(set(_PLACEHOLDER.findall(line)))
        if found:
            names = ", ".join(found)
            problems.append(
                Problem(locate(path, number), f"placeholder {names} from `lexsym new`: fill it in", "LX004")
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
                    locate(path, index + 1), f"no citation in the comment above this {rule} rule", "LX106"
                )
            )
    return problems


# -- fact checks (from the syntax tree) -------------------------------------------------------------------


def _unquote(text: str) -> str:
    return text[1:-1].replace('\\"', '"').replace("\\\\", "\\") if text.startswith('"') else text


def _rename_edits(root: Path, old: str, new: str, targets: list[Path]) -> tuple[Edit, ...]:
    pattern = re.compile(rf"\b{re.escape(old)}\b")
    files = sorted({*statute_files(root), *targets})
    return tuple(Edit(p, None, old, new) for p in files if pattern.search(rule_text(p)[0]))


def _exemption_problems(
    root: Path, surveys: dict[Path, Survey], everything: dict[Path, Survey]
) -> list[Problem]:
    problems: list[Problem] = []
    citations = {f.arguments[0]: (p, f) for p, f in by_name(everything, "citation", 2)}
    titled = {f.arguments[0] for _, f in by_name(everything, "exemption_title", 2)}
    paraphrased = {f.arguments[0] for _, f in by_name(everything, "statute_text", 2)}
    for path, fact in by_name(surveys, "exemption", 2):
        exemption, jurisdiction = fact.arguments
        where = locate(path, fact.line)
        if jurisdiction not in KNOWN_JURISDICTIONS:
            close = did_you_mean(jurisdiction, KNOWN_JURISDICTIONS)
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
                    locate(cited_in, cited.line),
                    f"citation {citation!r} does not follow {jurisdiction}'s canonical form {forms}",
                    "LX102",
                )
            )
        elif recognised is not None and recognised.canonical != citation:
            edits = (Edit(cited_in, cited.line, citation, recognised.canonical),)
            if rule_text(path)[0].startswith(f"%# {citation}"):
                edits += (Edit(path, 1, citation, recognised.canonical),)
            problems.append(
                Problem(
                    locate(cited_in, cited.line),
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
        for path, fact in by_name(surveys, name, 4):
            exemption, kind, day, value = fact.arguments
            where = locate(path, fact.line)
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
        for path, fact in by_name(surveys, name, arity):
            count = _number(fact.arguments[-1])
            if count is not None and count < 1:
                problems.append(
                    Problem(
                        locate(path, fact.line),
                        f"{name} of {fact.arguments[0]} is {count}; it must be at least 1",
                        "LX204",
                    )
                )
    return problems


def _source_problems(surveys: dict[Path, Survey], surveys_all: dict[Path, Survey]) -> list[Problem]:
    """LX206: an amount_source/3 whose literal date no amount/4 or amount_as_of/4 of its exemption has (as a
    fact, or as the head of a rule that gives the amount a case decides: New York's county groups)."""
    conditional = [
        fact for found in surveys_all.values() for fact in found.conditional if len(fact.arguments) == 4
    ]
    dated = {
        (fact.arguments[0], fact.arguments[2].replace(" ", ""))
        for name in ("amount", "amount_as_of")
        for fact in [*(f for _path, f in by_name(surveys_all, name, 4)), *conditional]
        if fact.name == name
    }
    problems = []
    for path, fact in by_name(surveys, "amount_source", 3):
        exemption, day = fact.arguments[0], fact.arguments[1].replace(" ", "")
        if _DATE.fullmatch(day) and (exemption, day) not in dated:
            days = sorted(d for e, d in dated if e == exemption)
            known = f"; its amounts are dated {', '.join(days)}" if days else "; it has no dated amount"
            message = f"amount_source of {exemption} is dated {day}{known}"
            problems.append(Problem(locate(path, fact.line), message, "LX206"))
    return problems


_READING = re.compile(r"\breading\(\s*([a-z][A-Za-z0-9_]*)\s*,\s*([a-z][A-Za-z0-9_]*)\s*\)")


def _reading_problems(path: Path, lines: list[str]) -> list[Problem]:
    """LX304: a reading(Name, Option) in a rule (comments aside) that lexsym/law/readings.py lacks."""
    from lexsym.law.readings import BY_NAME

    problems = []
    for number, line in enumerate(lines, 1):
        for match in _READING.finditer(line.split("%", 1)[0]):
            name, option = match.groups()
            reading = BY_NAME.get(name)
            word, choices = (name, BY_NAME) if reading is None else (option, reading.options)
            if reading is not None and option in reading.options:
                continue
            close = did_you_mean(word, choices)
            what = f"reading `{name}`" if reading is None else f"option `{option}` of reading `{name}`"
            hint = f"; did you mean `{close}`?" if close else f" (known: {', '.join(sorted(choices))})"
            edits = (Edit(path, number, word, close),) if close else ()
            problems.append(Problem(locate(path, number), f"unknown {what}{hint}", "LX304", edits))
    return problems


def _vocabulary_problems(surveys: dict[Path, Survey]) -> list[Problem]:
    problems: list[Problem] = []
    for path, found in surveys.items():
        for word in found.words:
            allowed = DOMAINS[word.domain]
            if word.word in allowed:
                continue
            close = did_you_mean(word.word, allowed)
            hint = f"; did you mean `{close}`?" if close else ""
            edits = (Edit(path, word.line, word.word, close),) if close else ()
            code = "LX205" if word.domain == "amount kind" else "LX302"
            problems.append(
                Problem(locate(path, word.line), f"unknown {word.domain} `{word.word}`{hint}", code, edits)
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
        lines = rule_text(path)[0].splitlines()
        problems += _header_problems(path, lines) + _placeholder_problems(path, lines)
        problems += _reading_problems(path, lines) + _range_problems(path)
        if path.is_relative_to(statutes_dir) or not path.is_relative_to(root.resolve()):
            problems += _uncited_rule_problems(path, lines)
    problems += _exemption_problems(root, surveys, surveys_all)
    values = _amount_problems(surveys)
    problems += values + _source_problems(surveys, surveys_all) + _vocabulary_problems(surveys)
    if any(selected(code, select, ignore) for code in GROUNDED_CODES):
        problems += grounded_problems(root, targets, surveys, defined, catalogue, bool(values))
    kept = [p for p in problems if selected(p.code, select, ignore)]
    return sorted(dict.fromkeys(kept), key=_order)


def _order(problem: Problem) -> tuple:
    file, _, line = problem.location.rpartition(":")
    return (file, int(line), problem.code) if line.isdigit() else (problem.location, 0, problem.code)
