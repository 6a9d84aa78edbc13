"""`lexsym solve`, `explain`, `test` and `schema`: the verbs over the logic program and its file formats."""

from __future__ import annotations

import json
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from lexsym._util.parallel import Executor


class SchemaName(str, Enum):
    case = "case"
    solution = "solution"
    table = "table"
    answer = "answer"
    sample = "sample"
    run = "run"


def solve(
    case_file: Annotated[
        Path | None, typer.Argument(help="A case JSON file (see `lexsym schema case`); not with --batch.")
    ] = None,
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
    batch: Annotated[
        Path | None,
        typer.Option(
            help="A JSONL file of cases (lexsym's or OpenExempt's records), solved in one process into --out "
            "(JSONL: line, id, solution or error); an existing --out is resumed."
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(help="--batch: processes to use (0: one per core), --executor local.")
    ] = 1,
    executor: Annotated[
        Executor,
        typer.Option(
            help="--batch: where cases are solved: local processes, or a Ray cluster (RAY_ADDRESS)."
        ),
    ] = Executor.local,
) -> None:
    """Solve tasks AE, EC, EV, NA and OE for one case, or for every case of a --batch file."""
    from lexsym.interop.input_files import load_any_case as load_case
    from lexsym.interop.input_files import load_any_table as load_table
    from lexsym.law.solver import solve as solve_case

    tables = [load_table(path) for path in table or []]
    if batch is not None or case_file is None:
        options = {
            "tables": tables,
            "all_jurisdictions": all_jurisdictions,
            "time_limit": time_limit,
            "executor": executor,
        }
        _solve_batch(case_file, batch, out, rules, workers, json_output, options)
        return
    case = load_case(case_file)
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


def _solve_batch(
    case_file: Path | None,
    batch: Path | None,
    out: Path | None,
    rules: Path | None,
    workers: int,
    json_output: bool,
    options: dict,
) -> None:
    """`lexsym solve --batch CASES --out SOLUTIONS`: exit 0 when every case solved, 1 when some failed (their
    errors are in SOLUTIONS), 2 on bad input."""
    import os

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from lexsym.cli.common import fail
    from lexsym.interop.input_files import parse_any_case
    from lexsym.law.batch import solve_file

    if case_file is not None:
        fail("give a case file or --batch, not both", 2)
    if batch is None or out is None:
        fail("give a case file, or --batch CASES.jsonl with --out SOLUTIONS.jsonl", 2)

    def parse(record: object, source: str):
        return parse_any_case(record, source, default_id=f"line-{source.rsplit(':', 1)[-1]}")

    hidden = json_output or not sys.stderr.isatty()
    columns = ("solving", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, transient=True, disable=hidden) as bar:
        job = bar.add_task("cases", total=None)
        counts = solve_file(
            batch,
            out,
            parse=parse,
            progress=lambda done: bar.advance(job, done),
            rules=str(rules) if rules else None,
            workers=workers or os.cpu_count() or 1,
            **options,
        )
    if json_output:
        sys.stdout.write(json.dumps(counts) + "\n")
    resumed = f", {counts['resumed']} already in {out}" if counts["resumed"] else ""
    sys.stderr.write(f"lexsym solve: {counts['solved']} solved, {counts['failed']} failed{resumed}\n")
    if counts["failed"]:
        sys.exit(1)


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


def test(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="YAML statute test files or folders (default: tests/statutes/ here)."),
    ] = None,
    rules: Annotated[Path | None, typer.Option(help="Directory with statutes/ and encodings/.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="One JSON line per case.")] = False,
) -> None:
    """Run named statute tests (YAML cases with expected answers): exit 0 all pass, 1 a case fails, 2 a
    test file or case is malformed."""
    from lexsym.cli.common import fail
    from lexsym.law.statute_tests import run_tests

    targets = paths or [Path("tests") / "statutes"]
    if not paths and not targets[0].is_dir():
        fail("give statute test files or folders (no tests/statutes/ here)", 2)
    counts = {"pass": 0, "fail": 0, "error": 0}
    for outcome in run_tests(targets, rules=str(rules) if rules else None):
        counts[outcome.status] += 1
        if json_output:
            sys.stdout.write(json.dumps(outcome.record(), ensure_ascii=False) + "\n")
        elif outcome.error:
            sys.stdout.write(f"ERROR {outcome.error}\n")
        elif outcome.failures:
            sys.stdout.write(f"FAIL  {outcome.case.where}: {outcome.case.name}\n")
            for failure in outcome.failures:
                sys.stdout.write(f"        {failure}\n")
        else:
            sys.stdout.write(f"pass  {outcome.case.where}: {outcome.case.name}\n")
    total = sum(counts.values())
    sys.stderr.write(
        f"lexsym test: {total} cases: {counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['error']} malformed\n"
    )
    if total == 0:
        fail(f"no statute test cases under {', '.join(map(str, targets))}", 2)
    raise typer.Exit(2 if counts["error"] else 1 if counts["fail"] else 0)


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
