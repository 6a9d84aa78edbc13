"""A mutation sweep of the encodings and Python modules that judge answers (check.lp, domicile.lp, the OE
and EV metrics, the answer parsers): change one thing at a time in a copy of the repository, run the tests
that reach the changed file, and print the kill rate per file and per operator.

    python tools/mutation_sweep_code.py [--sample 0] [--seed 18] [--only check.lp] [--list]
        [--tests-at HEAD] [--results runs.jsonl]      # the sweep, with the test files as committed
    python tools/mutation_sweep_code.py --pick PATH#N,... --tests tests/test_checker.py   # survivors again
    python tools/mutation_sweep_code.py --summary runs.jsonl [after.jsonl]               # the tables

tools/mutation_sweep.py does the same for the statute files against their named cases. Here a mutant is
killed when `pytest -x` on the file's test list fails, or runs past the timeout (a hang, counted apart).
Survivors are printed with file, line, operator and the changed line, so that each can be read: some are
equivalent (no input can tell them from the original), the others want a test.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

TESTS: dict[str, tuple[str, ...]] = {
    # Fast files first: with -x most mutants die in the first seconds; survivors pay for the whole list.
    "encodings/check.lp": ("tests/test_checker.py", "tests/test_openexempt_metrics.py"),
    "encodings/domicile.lp": (
        "tests/test_domicile.py",
        "tests/test_readings.py",
        "tests/statutes/*/jurisdiction.yaml",
        "tests/statutes/federal/522d_jurisdiction.yaml",
        "tests/test_domicile_prolog.py",
    ),
    "lexsym/scoring/metrics.py": (
        "tests/test_metrics.py",
        "tests/test_openexempt_metrics.py",
        "tests/test_answer_formats.py",
        "tests/test_score.py",
    ),
    "lexsym/answers/*.py": ("tests/test_answers.py", "tests/test_answer_formats.py"),
}
"""The tests that reach each swept file (found with grep), kept to those that run in under a minute.
Left out as too slow for every mutant: tests/test_casebank.py (it solves all 1,700 blind cases), and for
check.lp tests/test_check_cli.py, tests/test_check_batch.py (the command-line wrappers) and
tests/test_checker_properties.py (35 s a surviving mutant; in the 2026-12 sweep it ran on the first 30
check.lp mutants and killed none that test_checker.py let through)."""
DESELECT = {"encodings/domicile.lp": "not test_prolog_agrees_with_asp_at_length"}
"""The long Prolog agreement run (3,000 histories of up to 80 periods, 17 s) is left to the full suite; the
200 short and 100 joint histories of the other two agreement tests stay."""


@dataclass(frozen=True)
class Mutant:
    path: str  # relative to the repository
    operator: str
    line: int
    before: str  # the changed line, as it was
    text: str  # the whole mutated file
    number: int = 0  # its place in the file's list of mutants: path#number names it for --pick

    @property
    def name(self) -> str:
        return f"{self.path}#{self.number}"

    @property
    def after(self) -> str:
        """The changed line as the mutant has it."""
        lines = self.text.splitlines()
        return lines[self.line - 1].strip() if self.line <= len(lines) else ""


# ----- ASP encodings ------------------------------------------------------------------------------------


def without_comments(text: str) -> str:
    """The program with every comment blanked, `%* ... *%` blocks included (the `%*! name` doc blocks
    hold prose such as "From <= D < To" that must not be mutated); newlines are kept, so lines still match."""
    out, i, in_string = [], 0, False
    while i < len(text):
        char = text[i]
        if in_string:
            if char == "\\":
                out.append(text[i : i + 2])
                i += 2
                continue
            in_string = char != '"'
        elif char == '"':
            in_string = True
        elif text.startswith("%*", i):
            end = text.find("*%", i + 2)
            end = len(text) if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        elif char == "%":
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            out.append(" " * (end - i))
            i = end
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _statements(code: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every statement: text up to a '.' at bracket depth 0 that is not part of '..'."""
    depth, start, in_string = 0, 0, False
    for i, char in enumerate(code):
        if in_string:
            in_string = char != '"' or code[i - 1] == "\\"
        elif char == '"':
            in_string = True
        elif char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char == "." and depth == 0 and "." not in (code[i - 1], code[i + 1 : i + 2]):
            yield start, i
            start = i + 1


def _split_top(code: str, start: int, end: int, separators: str) -> list[tuple[int, int]]:
    """Spans of code[start:end] split at `separators` found at bracket depth 0, whitespace trimmed."""
    spans, depth, begin = [], 0, start
    for i in range(start, end + 1):
        char = code[i] if i < end else separators[0]
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        elif char in separators and depth == 0:
            piece = code[begin:i]
            stripped = piece.strip()
            if stripped:
                offset = begin + len(piece) - len(piece.lstrip())
                spans.append((offset, offset + len(stripped)))
            begin = i + 1
    return spans


COMPARISON = re.compile(r"(?<![<>!=:])(<=|>=|!=|<|>|=)(?!=)")
FLIP = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "=": "!=", "!=": "="}
INTEGER = re.compile(r"(?<![\w/])\d+(?![\w])")


def asp_mutants(path: str, text: str) -> Iterator[Mutant]:
    """Drop one body literal (or one condition of an aggregate element), flip one comparison, move one
    integer by ±1; in rules only (not in #show or #defined directives, whose numbers are arities)."""
    code = without_comments(text)
    lines = text.splitlines()

    def mutant(operator: str, begin: int, end: int, replacement: str) -> Mutant:
        line = code.count("\n", 0, begin) + 1
        return Mutant(path, operator, line, lines[line - 1].strip(), text[:begin] + replacement + text[end:])

    for start, end in _statements(code):
        neck = code.find(":-", start, end)
        if neck < 0 or code[start:end].lstrip().startswith("#"):
            continue
        for begin, finish in _split_top(code, neck + 2, end, ",;"):
            yield mutant("drop a body literal", begin, finish, "#true")
            brace = code.find("{", begin, finish)
            if brace >= 0 and code.find(":", brace, finish) >= 0:
                colon = code.find(":", brace, finish)
                close = code.rfind("}", begin, finish)
                conditions = _split_top(code, colon + 1, close, ",")
                if len(conditions) > 1:
                    for c_begin, c_end in conditions:
                        yield mutant("drop an aggregate condition", c_begin, c_end, "#true")
        for match in COMPARISON.finditer(code, start, end):
            if match.start() >= neck + 2 or code[match.start()] != "=":
                yield mutant("comparison", match.start(), match.end(), FLIP[match.group(1)])
        for match in INTEGER.finditer(code, start, end):
            value = int(match.group())
            for delta in (1, -1):
                yield mutant("integer ±1", match.start(), match.end(), str(value + delta))


def asp_problem(text: str) -> str | None:
    """'unsafe' or 'invalid' when clingo refuses the file on its own (grounded with no facts), else None."""
    import clingo

    messages: list[str] = []
    control = clingo.Control(["--warn=none"], logger=lambda _code, message: messages.append(message))
    try:
        control.add("base", [], text)
        control.ground([("base", [])])
    except RuntimeError:
        return "unsafe" if any("unsafe" in m for m in messages) else "invalid"
    return None


# ----- Python modules -----------------------------------------------------------------------------------

PY_FLIP = {
    ast.Lt: ("<", "<="),
    ast.LtE: ("<=", "<"),
    ast.Gt: (">", ">="),
    ast.GtE: (">=", ">"),
    ast.Eq: ("==", "!="),
    ast.NotEq: ("!=", "=="),
    ast.In: ("in", "not in"),
    ast.NotIn: ("not in", "in"),
    ast.Is: ("is", "is not"),
    ast.IsNot: ("is not", "is"),
}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def python_mutants(path: str, text: str) -> Iterator[Mutant]:
    """Token edits located by the AST (so comments, strings and formatting stay as they are): flip a
    comparison, swap and/or, drop a `not`, move a number by ±1, return None instead of a value, and
    skip an `if` whose body only returns, raises or continues (its test replaced by False)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def char_offset(line: int, byte_column: int) -> int:
        # ast columns count UTF-8 bytes; the file holds non-ASCII text (§, ε), so convert.
        line_bytes = lines[line - 1].encode("utf-8")[:byte_column]
        return starts[line - 1] + len(line_bytes.decode("utf-8"))

    def begin_of(node: ast.AST) -> int:
        return char_offset(node.lineno, node.col_offset)

    def end_of(node: ast.AST) -> int:
        return char_offset(node.end_lineno, node.end_col_offset)

    def mutant(operator: str, begin: int, end: int, replacement: str) -> Mutant:
        line = text.count("\n", 0, begin) + 1
        return Mutant(path, operator, line, lines[line - 1].strip(), text[:begin] + replacement + text[end:])

    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            previous = node.left
            for op, right in zip(node.ops, node.comparators, strict=True):
                old, new = PY_FLIP[type(op)]
                gap_start, gap_end = end_of(previous), begin_of(right)
                pattern = r"\bnot\s+in\b" if old == "not in" else r"\bis\s+not\b" if old == "is not" else None
                pattern = pattern or (rf"\b{old}\b" if old.isalpha() else re.escape(old))
                found = re.compile(pattern).search(text, gap_start, gap_end)
                if found:
                    yield mutant("comparison", found.start(), found.end(), new)
                previous = right
        elif isinstance(node, ast.BoolOp):
            old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
            mutated, shift = text, 0
            for left, right in zip(node.values, node.values[1:], strict=False):
                found = re.compile(rf"\b{old}\b").search(text, end_of(left), begin_of(right))
                if found:
                    at = found.start() + shift
                    mutated = mutated[:at] + new + mutated[at + len(old) :]
                    shift += len(new) - len(old)
            if mutated != text:
                line = text.count("\n", 0, begin_of(node)) + 1
                yield Mutant(path, "and/or swap", line, lines[line - 1].strip(), mutated)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            found = re.compile(r"not\b\s*").match(text, begin_of(node))
            if found:
                yield mutant("drop not", found.start(), found.end(), "")
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float) and id(node) not in skip:
            for delta in (1, -1):
                yield mutant("number ±1", begin_of(node), end_of(node), repr(node.value + delta))
        elif isinstance(node, ast.Return) and node.value is not None:
            value = node.value
            if not (isinstance(value, ast.Constant) and value.value is None):
                yield mutant("return None", begin_of(value), end_of(value), "None")
        elif (
            isinstance(node, ast.If)
            and not node.orelse
            and len(node.body) == 1
            and isinstance(node.body[0], (ast.Return, ast.Raise, ast.Continue, ast.Break))
        ):
            yield mutant("skip early exit", begin_of(node.test), end_of(node.test), "False")


# ----- running ------------------------------------------------------------------------------------------


def swept_files() -> dict[str, str]:
    """Each swept file (relative path) with the pattern of TESTS that names its test list."""
    return {
        path.relative_to(REPO).as_posix(): pattern for pattern in TESTS for path in sorted(REPO.glob(pattern))
    }


def mutants_of(path: str) -> list[Mutant]:
    """Every distinct mutant of one file, numbered in a fixed order (the order the generators yield)."""
    text = (REPO / path).read_text(encoding="utf-8")
    made = asp_mutants(path, text) if path.endswith(".lp") else python_mutants(path, text)
    unique, seen = [], {text}
    for mutant in made:
        if mutant.text not in seen:  # two operators can give the same program; run it once
            seen.add(mutant.text)
            unique.append(replace(mutant, number=len(unique)))
    return unique


def copy_repository(into: Path) -> Path:
    """A copy of the working tree without .git, .venv and caches: mutants are written there, never here."""
    skip = {".git", ".venv", ".hypothesis", ".ruff_cache", "__pycache__", ".pytest_cache", ".mypy_cache"}
    copy = into / "repo"
    shutil.copytree(REPO, copy, ignore=lambda _dir, names: [n for n in names if n in skip])
    return copy


def tests_at(copy: Path, revision: str) -> None:
    """Put the test files of every list back as they were at `revision` (read with `git show`, nothing in
    the checkout changes), and remove those it did not have: the "before" rates of a sweep whose new tests
    are already written."""
    for pattern in TESTS.values():
        for test in pattern:
            for path in sorted(copy.glob(test)):
                relative = path.relative_to(copy).as_posix()
                shown = subprocess.run(
                    ["git", "show", f"{revision}:{relative}"], cwd=REPO, capture_output=True, text=True
                )
                if shown.returncode == 0:
                    path.write_text(shown.stdout, encoding="utf-8")
                else:
                    path.unlink()


def run_tests(copy: Path, pattern: str, timeout: float) -> tuple[str, float, str]:
    """'passed', 'failed' or 'timeout' for the test list of `pattern` run in the copy, the seconds taken,
    and the first failure line of pytest's summary."""
    tests = [str(p.relative_to(copy)) for t in TESTS[pattern] for p in sorted(copy.glob(t))]
    command = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]
    command += tests + (["-k", DESELECT[pattern]] if pattern in DESELECT else [])
    environment = {
        **os.environ,
        "PYTHONPATH": str(copy),  # the copy's lexsym, not the editable install's
        "LEXSYM_RULES": str(copy),  # the copy's statutes/ and encodings/
        "PYTHONDONTWRITEBYTECODE": "1",  # a stale .pyc of an equal-sized mutant must never be read
    }
    shutil.rmtree(copy / ".hypothesis", ignore_errors=True)  # no example saved by one mutant helps the next
    began = time.monotonic()
    try:
        done = subprocess.run(
            command, cwd=copy, env=environment, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - began, ""
    failure = next((line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))), "")
    return ("passed" if done.returncode == 0 else "failed"), time.monotonic() - began, failure


def _table(results: list[dict]) -> list[str]:
    """Kill rates per file and per operator (ASP and Python operators apart), as a markdown table."""
    killed, timeouts, total = Counter(), Counter(), Counter()
    for result in results:
        kind = "asp" if result["path"].endswith(".lp") else "py"
        for key in (result["path"], f"{kind}: {result['operator']}"):
            total[key] += 1
            killed[key] += result["outcome"] != "passed"
            timeouts[key] += result["outcome"] == "timeout"
    rows = ["| file or operator | killed | of | rate | of which hangs |", "|---|---:|---:|---:|---:|"]
    for key in sorted(total, key=lambda k: (": " in k, k)):
        rows.append(
            f"| {key} | {killed[key]} | {total[key]} | {killed[key] / total[key]:.0%} | {timeouts[key]} |"
        )
    everything = len(results)
    dead = sum(r["outcome"] != "passed" for r in results)
    rows.append(f"| all | {dead} | {everything} | {dead / max(everything, 1):.0%} | |")
    return rows


def _survivor_line(r: dict) -> str:
    return f"survived: {r['name']} {r['path']}:{r['line']} [{r['operator']}] {r['before']}  =>  {r['after']}"


def summary(paths: list[str]) -> None:
    """The table and survivors of saved results; a later line for the same mutant replaces an earlier one
    (so a rerun of the survivors against new tests gives the "after" rates)."""
    latest: dict[str, dict] = {}
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            result = json.loads(line)
            latest[result["name"]] = result
    results = list(latest.values())
    print("\n".join(_table(results)))
    for r in sorted(results, key=lambda r: (r["path"], r["line"], r["name"])):
        if r["outcome"] == "passed":
            print(_survivor_line(r))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sample", type=int, default=0, help="mutants to run per group of files (0: all)")
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--only", default="", help="sweep only files whose path contains this")
    parser.add_argument("--pick", default="", help="run only these mutants: path#number,path#number")
    parser.add_argument("--exclude", default="", help="leave out these mutants (already run)")
    parser.add_argument("--list", action="store_true", help="print the mutants and run nothing")
    parser.add_argument("--timeout-factor", type=float, default=3.0, help="per-mutant timeout: x baseline")
    parser.add_argument("--results", help="append one JSON line per mutant run to this file")
    parser.add_argument("--tests-at", help="run the test files as they were at this git revision")
    parser.add_argument(
        "--tests", nargs="+", help="run these test files instead of each file's list (the survivors' rerun)"
    )
    parser.add_argument("--summary", nargs="+", help="print the table of saved results and run nothing")
    options = parser.parse_args()
    if options.tests:
        for pattern in TESTS:
            TESTS[pattern] = tuple(options.tests)
    if options.summary:
        summary(options.summary)
        return 0
    picked = set(filter(None, options.pick.split(",")))
    excluded = set(filter(None, options.exclude.split(",")))
    groups: dict[str, list[Mutant]] = {}
    unsafe, invalid = Counter(), Counter()
    for path, pattern in swept_files().items():
        if options.only not in path:
            continue
        for mutant in mutants_of(path):
            if (picked and mutant.name not in picked) or mutant.name in excluded:
                continue
            problem = asp_problem(mutant.text) if path.endswith(".lp") else None
            if problem == "unsafe":
                unsafe[path] += 1  # dropping a literal left a variable unbound: not a program
            elif problem:
                invalid[path] += 1
            else:
                groups.setdefault(pattern, []).append(mutant)
    print(f"unsafe mutants left out: {dict(unsafe)}; invalid: {dict(invalid)}")
    if options.list:
        for mutants in groups.values():
            for m in mutants:
                print(f"{m.name} {m.path}:{m.line} [{m.operator}] {m.before}  =>  {m.after}")
        print({pattern: len(mutants) for pattern, mutants in groups.items()})
        return 0
    results: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="mutation-sweep-") as work:
        copy = copy_repository(Path(work))
        if options.tests_at:
            tests_at(copy, options.tests_at)
        for pattern, mutants in groups.items():
            outcome, seconds, failure = run_tests(copy, pattern, timeout=1800)
            if outcome != "passed":
                print(f"{pattern}: the tests fail on the unmutated copy ({outcome}: {failure}); skipped")
                continue
            timeout = max(60.0, options.timeout_factor * seconds)
            random.Random(options.seed).shuffle(mutants)
            chosen = mutants if options.sample == 0 or picked else mutants[: options.sample]
            print(f"{pattern}: baseline {seconds:.0f}s, {len(chosen)} of {len(mutants)} mutants", flush=True)
            for count, m in enumerate(chosen, 1):
                target = copy / m.path
                original = target.read_text(encoding="utf-8")
                target.write_text(m.text, encoding="utf-8")
                try:
                    outcome, seconds, failure = run_tests(copy, pattern, timeout)
                finally:
                    target.write_text(original, encoding="utf-8")
                result = {
                    "name": m.name,
                    "path": m.path,
                    "line": m.line,
                    "operator": m.operator,
                    "outcome": outcome,
                    "seconds": round(seconds, 1),
                    "failure": failure,
                    "before": m.before,
                    "after": m.after,
                }
                results.append(result)
                if options.results:
                    with open(options.results, "a", encoding="utf-8") as out:
                        out.write(json.dumps(result, ensure_ascii=False) + "\n")
                where = f"{m.name} {m.path}:{m.line} [{m.operator}]"
                print(f"  [{count}/{len(chosen)}] {outcome:7} {seconds:5.1f}s {where} {failure}", flush=True)
    print("\n".join(["", *_table(results), ""]))
    for r in results:
        if r["outcome"] == "passed":
            print(_survivor_line(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
