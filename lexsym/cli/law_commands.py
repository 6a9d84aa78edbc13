"""`lexsym solve`, `explain`, `lint` and `schema`: the verbs over the logic program and its file formats."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer


class SchemaName(str, Enum):
    case = "case"
    solution = "solution"
    table = "table"
    answer = "answer"
    sample = "sample"
    run = "run"


def solve(
    case_file: Annotated[Path, typer.Argument(help="A case JSON file (see `lexsym schema case`).")],
    json_output: Annotated[bool, typer.Option("--json", help="Print the Solution as JSON.")] = False,
    out: Annotated[
        Path | None, typer.Option(help="Write the Solution JSON to this file (atomically).")
    ] = None,
    table: Annotated[
        list[Path] | None, typer.Option(help="A what-if exemption table (JSON/YAML); may repeat.")
    ] = None,
    all_jurisdictions: Annotated[
        bool, typer.Option("--all-jurisdictions", help="Also solve jurisdictions that are not allowable.")
    ] = False,
    details: Annotated[bool, typer.Option(help="Show EC and EV for every jurisdiction.")] = False,
    rules: Annotated[Path | None, typer.Option(help="Directory with statutes/ and encodings/.")] = None,
    time_limit: Annotated[int, typer.Option(help="Seconds per optimisation; 0 for none.")] = 0,
) -> None:
    """Solve tasks AE, EC, EV, NA and OE for one case."""
    from lexsym.interop.input_files import load_any_case as load_case
    from lexsym.interop.input_files import load_any_table as load_table
    from lexsym.law.solver import solve as solve_case

    case = load_case(case_file)
    tables = [load_table(path) for path in table or []]
    solution = solve_case(
        case,
        tables=tables,
        all_jurisdictions=all_jurisdictions,
        rules=str(rules) if rules else None,
        time_limit=time_limit,
    )
    text = solution.model_dump_json(indent=2)
    if out is not None:
        from lexsym._util.atomic import write_atomic

        write_atomic(out, text + "\n")
    if json_output:
        sys.stdout.write(text + "\n")
    elif out is None or sys.stdout.isatty():
        from rich.console import Console

        from lexsym.cli.solution_tables import render_solution

        render_solution(solution, Console(), details=details)


def explain(
    case_file: Annotated[Path, typer.Argument(help="A case JSON file.")],
    asset: Annotated[str, typer.Option("--asset", help="The id of the asset to explain.")],
    json_output: Annotated[bool, typer.Option("--json", help="Print the explanation as JSON.")] = False,
    table: Annotated[
        list[Path] | None, typer.Option(help="A what-if exemption table (JSON/YAML); may repeat.")
    ] = None,
    rules: Annotated[Path | None, typer.Option(help="Directory with statutes/ and encodings/.")] = None,
) -> None:
    """Show, for each jurisdiction, why each exemption applies to an asset or not."""
    from lexsym.interop.input_files import load_any_case as load_case
    from lexsym.interop.input_files import load_any_table as load_table
    from lexsym.law.explain import explain as explain_asset

    explanation = explain_asset(
        load_case(case_file),
        asset,
        tables=[load_table(path) for path in table or []],
        rules=str(rules) if rules else None,
    )
    if json_output:
        sys.stdout.write(explanation.model_dump_json(indent=2) + "\n")
        return
    from rich.console import Console

    from lexsym.cli.solution_tables import render_explanation

    render_explanation(explanation, Console())


def lint(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Statute files or directories (default: statutes/).")
    ] = None,
    rules: Annotated[Path | None, typer.Option(help="Directory with statutes/ and encodings/.")] = None,
) -> None:
    """Check statute files: header, citations, dated amounts, defined predicates, reachable exemptions."""
    from lexsym.law.lint import lint as lint_files
    from lexsym.law.rules import rules_root

    targets = paths or [rules_root(str(rules) if rules else None) / "statutes"]
    problems = lint_files(targets, rules=str(rules) if rules else None)
    for problem in problems:
        sys.stdout.write(f"{problem}\n")
    if problems:
        sys.stderr.write(f"lexsym lint: {len(problems)} problem(s)\n")
        raise typer.Exit(1)
    sys.stdout.write(f"lexsym lint: {len(targets)} path(s) clean\n")


def schema(name: Annotated[SchemaName, typer.Argument(help="Which schema to print.")]) -> None:
    """Print the JSON Schema of a file format (sample: a row of the results table `lexsym export` writes;
    run: a run directory's run.json)."""
    if name is SchemaName.sample:
        from lexsym.analysis.columns import row_schema

        sys.stdout.write(json.dumps(row_schema(), indent=2) + "\n")
        return
    if name is SchemaName.run:
        from lexsym.runner.run_records import RunHeader as model
    elif name is SchemaName.case:
        from lexsym.law.case import Case as model
    elif name is SchemaName.solution:
        from lexsym.law.solution import Solution as model
    elif name is SchemaName.answer:
        from lexsym.check.answer_file import AnswerFile as model
    else:
        from lexsym.law.whatif import ExemptionTable as model
    sys.stdout.write(json.dumps(model.model_json_schema(), indent=2) + "\n")
