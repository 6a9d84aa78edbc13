"""`lexsym doc [STATUTES] --out SITE`: the literate statute view, one static page per jurisdiction."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from typing import Annotated

import typer

from lexsym._util.errors import InputError


def _root(statutes: Path | None, rules: Path | None) -> Path:
    """The rules directory: the parent of a given statutes/ folder (it must hold encodings/ too), else the
    rules every other command uses (--rules, $LEXSYM_RULES, the working tree, the installed ones)."""
    from lexsym.law.rules import rules_root

    if statutes is None:
        return rules_root(str(rules) if rules else None)
    if not statutes.is_dir():
        raise InputError(f"{statutes}: no such folder")
    root = statutes.resolve().parent
    if statutes.resolve().name != "statutes" or not (root / "encodings").is_dir():
        raise InputError(f"{statutes}: give a statutes/ folder that has an encodings/ folder beside it")
    if rules is not None and rules.resolve() != root:
        raise InputError(f"--rules {rules} and {statutes} name different rules; give one of them")
    return root


def _date(text: str | None) -> dt.date:
    if text is None:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"--as-of: {text!r} is not a date (YYYY-MM-DD)") from None


def doc(
    statutes: Annotated[
        Path | None, typer.Argument(help="The statutes/ folder to render (default: the rules in use).")
    ] = None,
    out: Annotated[Path, typer.Option(help="Folder to write the pages into (created if missing).")] = Path(
        "site"
    ),
    tests: Annotated[
        Path | None,
        typer.Option(help="Folder of YAML statute tests (default: tests/statutes/ beside the rules)."),
    ] = None,
    run: Annotated[
        bool, typer.Option("--run/--no-run", help="Run the tests (default) or only list them.")
    ] = True,
    as_of: Annotated[
        str | None, typer.Option(help="Show the amounts in force on this date (default: today).")
    ] = None,
    rules: Annotated[Path | None, typer.Option(help="Directory with statutes/ and encodings/.")] = None,
) -> None:
    """Render statutes as static HTML: per jurisdiction, the statute text beside its rules, the dated
    amounts, departures, reading choices and the tests with their status. Exit 0 when written, 2 bad
    input; a failing test is shown on its page and counted here (`lexsym test` is the gate)."""
    from lexsym.law.rules import rules_digest
    from lexsym.literate.site import write_site

    root = _root(statutes, rules)
    if tests is not None and not tests.is_dir():
        raise InputError(f"--tests {tests}: no such folder")
    folder = tests or (root / "tests" / "statutes")
    if tests is None and not folder.is_dir():
        sys.stderr.write(f"lexsym doc: no {folder}; the pages list no tests (--tests names a folder)\n")
    day = _date(as_of)
    written, counts = write_site(
        root, out, as_of=day, tests=folder if folder.is_dir() else None, run_tests=run
    )
    sys.stdout.write(f"wrote {written[0]} and {len(written) - 1} jurisdiction pages\n")
    tally = (
        f"{counts['pass']} passed, {counts['fail']} failed, {counts['error']} malformed"
        if run
        else f"{counts['cases']} listed, not run"
    )
    sys.stderr.write(f"lexsym doc: rules {root} (digest {rules_digest(root)}); tests: {tally}\n")
