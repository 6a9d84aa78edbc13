"""`lexsym lint`: the convention checker, with ruff's habits (codes, --select/--ignore, --fix, --explain)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from lexsym._util.errors import InputError

FIX_ROUNDS = 3
"""A fix can reveal another (a canonical citation derives a new id); lint again up to this many times."""


def _explain(code: str) -> None:
    from lexsym.law.lint_codes import CODES

    found = CODES.get(code.upper())
    if found is None:
        raise InputError(f"--explain: unknown code {code!r}; known codes: {', '.join(CODES)}")
    fix = {"safe": "fixed by --fix", "unsafe": "fixed by --unsafe-fixes"}.get(found.fix, "no automatic fix")
    sys.stdout.write(f"{found.code} ({found.name}): {found.summary}\n\n{found.rationale}\n\nFix: {fix}.\n")


def lint(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Statute files or directories (default: statutes/).")
    ] = None,
    rules: Annotated[Path | None, typer.Option(help="Directory with statutes/ and encodings/.")] = None,
    select: Annotated[
        list[str] | None, typer.Option(help="Report only these codes or prefixes (LX2); may repeat.")
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option(help="Do not report these codes or prefixes; may repeat.")
    ] = None,
    fix: Annotated[
        bool, typer.Option("--fix", help="Apply the safe fixes (citations, ids), then lint again.")
    ] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="With --fix, also apply did-you-mean spellings.")
    ] = False,
    explain: Annotated[str | None, typer.Option(help="Print why a code exists and how it is fixed.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON object per problem.")] = False,
) -> None:
    """Check statute files: header, citations, ids, jurisdictions, amounts, vocabulary, reachability.
    Exit 0 clean, 1 problems, 2 bad input. Codes: docs/lint.md or --explain CODE."""
    if explain:
        _explain(explain)
        return
    from lexsym.law.lint import lint as lint_files
    from lexsym.law.lint_codes import unknown_selectors
    from lexsym.law.lint_fix import apply_fixes, fixable
    from lexsym.law.rules import rules_root

    unknown = unknown_selectors([*(select or []), *(ignore or [])])
    if unknown:
        raise InputError(f"--select/--ignore: unknown code {unknown[0]!r} (codes start LX0, LX1, LX2, LX3)")
    targets = paths or [rules_root(str(rules) if rules else None) / "statutes"]

    def run():
        return lint_files(targets, rules=str(rules) if rules else None, select=select, ignore=ignore)

    problems = run()
    fixed = 0
    for _ in range(FIX_ROUNDS if fix else 0):
        if not apply_fixes(problems, unsafe=unsafe_fixes):
            break
        fixed += sum(fixable(p, unsafe=unsafe_fixes) for p in problems)
        problems = run()
    for problem in problems:
        if json_output:
            record = {"location": problem.location, "code": problem.code, "message": problem.message}
            record["fixable"] = fixable(problem, unsafe=True)
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        else:
            marker = (
                " [*]"
                if fixable(problem, unsafe=False)
                else (" [**]" if fixable(problem, unsafe=True) else "")
            )
            sys.stdout.write(f"{problem}{marker}\n")
    if fixed:
        sys.stderr.write(f"lexsym lint: fixed {fixed} problem(s)\n")
    if problems:
        safe = sum(fixable(p, unsafe=False) for p in problems)
        unsafe = sum(fixable(p, unsafe=True) for p in problems) - safe
        hints = []
        if safe:
            hints.append(f"{safe} fixable with --fix [*]")
        if unsafe:
            hints.append(f"{unsafe} more with --fix --unsafe-fixes [**]")
        tail = f" ({'; '.join(hints)})" if hints else ""
        sys.stderr.write(f"lexsym lint: {len(problems)} problem(s){tail}\n")
        raise typer.Exit(1)
    if not json_output:
        sys.stdout.write(f"lexsym lint: {len(targets)} path(s) clean\n")
