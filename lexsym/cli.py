"""The `lexsym` command: one verb per job, rich tables for people, `--json` for machines.

Exit codes: 0 ok; 1 the answer is wrong or a rule is broken (checking verbs); 2 bad input or a rule file
clingo refuses; 3 an internal error. Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from lexsym.errors import LexsymError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Bankruptcy exemption law as a logic program: solve cases, check answers, evaluate models.",
)


def _fail(message: str, code: int) -> NoReturn:
    sys.stderr.write(f"lexsym: error: {message}\n")
    sys.exit(code)


class SchemaName(str, Enum):
    case = "case"
    solution = "solution"
    table = "table"
    answer = "answer"


@app.command()
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
    from lexsym.case import load_case
    from lexsym.solver import solve as solve_case
    from lexsym.whatif import load_table

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
        from lexsym.atomic import write_atomic

        write_atomic(out, text + "\n")
    if json_output:
        sys.stdout.write(text + "\n")
    elif out is None or sys.stdout.isatty():
        from rich.console import Console

        from lexsym.report import render_solution

        render_solution(solution, Console(), details=details)


@app.command()
def check(
    answer_file: Annotated[Path, typer.Argument(help="An answer file (see `lexsym schema answer`).")],
    case: Annotated[Path | None, typer.Option(help="The case, if the answer file does not carry it.")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the verdicts as JSON.")] = False,
) -> None:
    """Judge answers against the logic program: exit 0 all correct, 1 wrong or suboptimal, 2 bad input."""
    from lexsym.answer_check import check_answer_file, load_answer_file

    answer, loaded = load_answer_file(answer_file, case)
    report = check_answer_file(answer, loaded)
    if json_output:
        sys.stdout.write(report.model_dump_json(indent=2) + "\n")
    else:
        for verdict in report.verdicts:
            status = "correct" if verdict.correct else ("unparseable" if not verdict.parsed else "WRONG")
            if verdict.task.value == "OE" and verdict.parsed:
                status = (
                    "valid and optimal"
                    if verdict.correct
                    else ("INVALID" if verdict.violations else "valid but NOT optimal")
                )
            sys.stdout.write(f"{verdict.task.value}: {status}\n")
            if verdict.error:
                sys.stdout.write(f"  format: {verdict.error}\n")
            for violation in verdict.violations:
                sys.stdout.write(f"  - {violation['name']}: {violation['message']}\n")
            for difference in verdict.differences:
                sys.stdout.write(f"  - {difference}\n")
            if (
                verdict.task.value == "OE"
                and verdict.parsed
                and verdict.protected is not None
                and verdict.gap is not None
            ):
                sys.stdout.write(
                    f"  protects ${verdict.protected:,} of the optimum ${verdict.optimal_protected:,} "
                    f"(gap ${verdict.gap:,}, {verdict.gap_percent:.1f}%)\n"
                )
    raise typer.Exit(0 if report.all_correct else 1)


@app.command()
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
    from lexsym.case import load_case
    from lexsym.explain import explain as explain_asset
    from lexsym.whatif import load_table

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

    from lexsym.report import render_explanation

    render_explanation(explanation, Console())


@app.command()
def lint(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Statute files or directories (default: statutes/).")
    ] = None,
    rules: Annotated[Path | None, typer.Option(help="Directory with statutes/ and encodings/.")] = None,
) -> None:
    """Check statute files: header, citations, dated amounts, defined predicates, reachable exemptions."""
    from lexsym.lint import lint as lint_files
    from lexsym.rules import rules_root

    targets = paths or [rules_root(str(rules) if rules else None) / "statutes"]
    problems = lint_files(targets, rules=str(rules) if rules else None)
    for problem in problems:
        sys.stdout.write(f"{problem}\n")
    if problems:
        sys.stderr.write(f"lexsym lint: {len(problems)} problem(s)\n")
        raise typer.Exit(1)
    sys.stdout.write(f"lexsym lint: {len(targets)} path(s) clean\n")


@app.command()
def generate(
    out: Annotated[Path, typer.Option(help="Output directory.")],
    suite: Annotated[
        str | None, typer.Option(help="A suite name (data/suites) or a suite YAML file.")
    ] = None,
    config: Annotated[Path | None, typer.Option(help="A single-dataset config (YAML/JSON).")] = None,
    all_suites: Annotated[
        bool, typer.Option("--all-suites", help="Every suite: the whole benchmark.")
    ] = False,
    seed: Annotated[int | None, typer.Option(help="Override the seed of every dataset.")] = None,
    workers: Annotated[int, typer.Option(help="Processes to use (0: one per core).")] = 0,
) -> None:
    """Generate tasks with gold answers from the logic program: tasks.jsonl and manifest.json."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from lexsym.generate.config import load_config
    from lexsym.generate.pipeline import generate as run
    from lexsym.generate.suites import SUITE_NAMES, Dataset, load_suite

    chosen = [bool(suite), config is not None, all_suites]
    if sum(chosen) != 1:
        _fail("give exactly one of --suite, --config, --all-suites", 2)
    if all_suites:
        datasets = [d for name in SUITE_NAMES for d in load_suite(name, seed=seed)]
    elif suite:
        datasets = load_suite(suite, seed=seed)
    else:
        loaded = load_config(config)
        if seed is not None:
            loaded = loaded.model_copy(update={"seed": seed})
        datasets = [Dataset(suite="custom", name=loaded.name, config=loaded)]
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        disable=not sys.stderr.isatty(),
    ) as bar:
        task = bar.add_task("cases", total=None)
        manifest = run(
            datasets,
            out,
            workers=workers or None,
            per_suite=all_suites,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
    sys.stdout.write(f"lexsym generate: {manifest['tasks']} tasks written to {out}\n")


@app.command()
def score(
    tasks: Annotated[Path, typer.Argument(help="A tasks.jsonl written by `lexsym generate`.")],
    predictions: Annotated[
        Path,
        typer.Argument(
            help='Model predictions (JSONL): "id" and the raw text in "output", "completion", "prediction", '
            '"response" or "text", or a parsed "answer".'
        ),
    ],
    json_output: Annotated[bool, typer.Option("--json", help="Print the ScoreReport as JSON.")] = False,
    out: Annotated[
        Path | None, typer.Option(help="Write the ScoreReport JSON to this file (atomically).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap standard errors.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
    by: Annotated[str, typer.Option(help="Rows of the table: task, variant or suite.")] = "task",
    workers: Annotated[int, typer.Option(help="Processes checking OE cases (0: one per core).")] = 0,
) -> None:
    """Score predictions: per-task precision, recall, F1 (± bootstrap SE), MARE, format and OE validity."""
    from lexsym.scoring import render_report
    from lexsym.scoring import score as run

    if by not in ("task", "variant", "suite"):
        _fail(f"--by must be task, variant or suite, not {by!r}", 2)
    if resamples < 2:
        _fail("--resamples must be at least 2", 2)
    report = run(tasks, predictions, seed=seed, resamples=resamples, workers=workers)
    if out is not None or json_output:
        text = report.model_dump_json(indent=2)
        if out is not None:
            from lexsym.atomic import write_atomic

            write_atomic(out, text + "\n")
        if json_output:
            sys.stdout.write(text + "\n")
    if not json_output:
        from rich.console import Console

        console = Console()
        if not console.is_terminal:
            console.width = max(console.width, 110)  # a piped table keeps every column readable
        render_report(report, console, by=by)


@app.command()
def schema(name: Annotated[SchemaName, typer.Argument(help="Which schema to print.")]) -> None:
    """Print the JSON Schema of a file format."""
    if name is SchemaName.case:
        from lexsym.case import Case as model
    elif name is SchemaName.solution:
        from lexsym.solution import Solution as model
    elif name is SchemaName.answer:
        from lexsym.answer_check import AnswerFile as model
    else:
        from lexsym.whatif import ExemptionTable as model
    sys.stdout.write(json.dumps(model.model_json_schema(), indent=2) + "\n")


def main() -> None:
    """Entry point: run the app, turning lexsym's errors into one line and an exit code."""
    try:
        app()
    except LexsymError as error:
        _fail(str(error), error.exit_code)
    except KeyboardInterrupt:
        _fail("interrupted", 130)
    except Exception as error:
        if os.environ.get("LEXSYM_DEBUG"):
            raise
        _fail(f"internal error: {error.__class__.__name__}: {error} (set LEXSYM_DEBUG=1 for a traceback)", 3)
