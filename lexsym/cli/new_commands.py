"""`lexsym new statute CITATION --jurisdiction XX` and `lexsym new jurisdiction XX`: files to fill in."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

new_app = typer.Typer(help="Start a statute or a jurisdiction from the house layout.", no_args_is_help=True)

RulesOption = Annotated[
    Path | None, typer.Option(help="Directory with statutes/ and encodings/ (default: the working tree).")
]
TestsOption = Annotated[
    Path | None, typer.Option(help="Folder of statute tests (default: tests/statutes/ beside the rules).")
]


def _places(rules: Path | None, tests: Path | None) -> tuple[Path, Path]:
    from lexsym.law.rules import rules_root

    root = rules_root(str(rules) if rules else None)
    return root, tests or root / "tests" / "statutes"


def _report(paths: list[Path]) -> None:
    for path in paths:
        sys.stdout.write(f"wrote {path}\n")
    sys.stdout.write("fill in the capitalised placeholders, then: lexsym lint, lexsym test\n")


@new_app.command("statute")
def statute(
    citation: Annotated[str, typer.Argument(help='The citation, e.g. "Ohio Rev. Code § 2329.66(A)(2)".')],
    jurisdiction: Annotated[str, typer.Option(help="The state's USPS code, e.g. OH.")],
    rules: RulesOption = None,
    tests: TestsOption = None,
) -> None:
    """Write statutes/<xx>/<id>.lp (header, sections, dated amount) and a YAML test file beside it."""
    from lexsym.law.scaffold import new_statute

    root, folder = _places(rules, tests)
    _report(new_statute(root, citation, jurisdiction, folder))


@new_app.command("jurisdiction")
def jurisdiction(
    code: Annotated[str, typer.Argument(help="The state's USPS code, e.g. OH.")],
    rules: RulesOption = None,
    tests: TestsOption = None,
) -> None:
    """Write statutes/<xx>/jurisdiction.lp and its YAML test file."""
    from lexsym.law.scaffold import new_jurisdiction

    root, folder = _places(rules, tests)
    _report(new_jurisdiction(root, code, folder))
