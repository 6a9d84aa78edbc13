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

from lexsym.console import table_console
from lexsym.errors import LexsymError
from lexsym.judges.commands import judge_app

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
    tasks: Annotated[
        Path, typer.Argument(help="A tasks.jsonl written by `lexsym generate`, or a run directory.")
    ],
    predictions: Annotated[
        Path | None,
        typer.Argument(
            help='Model predictions (JSONL): "id" and the raw text in "output", "completion", "prediction", '
            '"response" or "text", or a parsed "answer". Not given with a run directory.'
        ),
    ] = None,
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
    if (tasks / "run.json").is_file():
        if predictions is not None:
            _fail("a run directory holds its own predictions: give only the directory", 2)
        _score_run_dir(tasks, json_output=json_output, out=out, seed=seed, resamples=resamples, by=by)
        return
    if predictions is None:
        _fail("give the predictions file (or a run directory instead of the tasks file)", 2)
    report = run(tasks, predictions, seed=seed, resamples=resamples, workers=workers)
    if out is not None or json_output:
        text = report.model_dump_json(indent=2)
        if out is not None:
            from lexsym.atomic import write_atomic

            write_atomic(out, text + "\n")
        if json_output:
            sys.stdout.write(text + "\n")
    if not json_output:
        console = table_console()
        render_report(report, console, by=by)


def _score_run_dir(
    run_dir: Path, *, json_output: bool, out: Path | None, seed: int, resamples: int, by: str
) -> None:
    """A run directory's scores: the exact ones (scores.json) and the judged ones, recomputed from the
    judgements with this seed (judge calls are never repeated for a table)."""
    from lexsym.judges.scores import rescore_run
    from lexsym.scoring import ScoreReport, render_report

    exact = None
    if (run_dir / "scores.json").is_file():
        try:
            exact = ScoreReport.model_validate_json((run_dir / "scores.json").read_text(encoding="utf-8"))
        except ValueError as error:
            _fail(f"{run_dir / 'scores.json'}: unreadable ({str(error).splitlines()[0]})", 2)
    judged = rescore_run(run_dir, seed=seed, resamples=resamples)
    if exact is None and judged is None:
        _fail(f"{run_dir}: no scores yet: run `lexsym run` to the end, or `lexsym judge {run_dir}`", 2)
    payload = {
        "scores": None if exact is None else json.loads(exact.model_dump_json()),
        "judged": None if judged is None else json.loads(judged.model_dump_json(exclude={"samples"})),
    }
    if out is not None:
        from lexsym.atomic import write_atomic

        write_atomic(out, json.dumps(payload, indent=2) + "\n")
    if json_output:
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
        return

    from lexsym.judges.report import render_judged

    console = table_console()
    if exact is not None:
        render_report(exact, console, by=by)
    if judged is not None:
        render_judged(judged, console)


@app.command()
def run(
    model: Annotated[
        str,
        typer.Option(
            help="Model id: litellm:<provider>/<model>, vllm:<model>, lexsym:oracle, lexsym:baseline."
        ),
    ],
    tasks: Annotated[Path, typer.Option(help="A task directory from `lexsym generate`, or its tasks.jsonl.")],
    out: Annotated[Path, typer.Option(help="The run directory: created, or resumed when it holds this run.")],
    concurrency: Annotated[int, typer.Option(help="Samples in flight at once.")] = 8,
    rpm: Annotated[float, typer.Option(help="Requests per minute at most (paced); 0: no limit.")] = 0.0,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int | None, typer.Option(help="Completion token limit.")] = None,
    seed: Annotated[int | None, typer.Option(help="Sampling seed, for backends that take one.")] = None,
    repeats: Annotated[int, typer.Option(help="Samples per task (epochs); repeat 0 is the headline.")] = 1,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            help="Tasks to run: an id substring or glob, or task=OE, variant=..., split=test, suite=..., "
            "dataset=...; may repeat (same key: any; different keys: all).",
        ),
    ] = None,
    time_budget: Annotated[
        float | None,
        typer.Option(help="Seconds for this invocation; then no new sample starts (in-flight ones finish)."),
    ] = None,
    cost_budget: Annotated[
        float | None,
        typer.Option(help="Dollars for this invocation; then no new sample starts (in-flight ones finish)."),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache.")] = False,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Cache directory (default $LEXSYM_CACHE_DIR or ~/.cache/lexsym).")
    ] = None,
    api_base: Annotated[str | None, typer.Option(help="Base URL of an OpenAI-compatible server.")] = None,
    retry_base: Annotated[float, typer.Option(help="Backoff base, seconds (full jitter).")] = 1.0,
    retry_cap: Annotated[float, typer.Option(help="Backoff cap, seconds.")] = 60.0,
    max_attempts: Annotated[int, typer.Option(help="Calls per sample at most, on transient errors.")] = 6,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="Also retry samples recorded as permanently failed.")
    ] = False,
    score_run: Annotated[bool, typer.Option("--score/--no-score", help="Score the run at the end.")] = True,
    by: Annotated[str, typer.Option(help="Rows of the score table: task, variant or suite.")] = "task",
    json_output: Annotated[bool, typer.Option("--json", help="Print run.json instead of the table.")] = False,
) -> None:
    """Run a model over a task set into a run directory (resumable); score it at the end."""
    from lexsym.models import GenerationParams
    from lexsym.runner.limits import RetryPolicy
    from lexsym.runner.run import RunOptions, run_tasks

    if by not in ("task", "variant", "suite"):
        _fail(f"--by must be task, variant or suite, not {by!r}", 2)
    try:
        retry = RetryPolicy(base=retry_base, cap=retry_cap, max_attempts=max_attempts)
    except ValueError as error:
        _fail(str(error), 2)
    options = RunOptions(
        concurrency=concurrency,
        rpm=rpm,
        repeats=repeats,
        filters=tuple(filters or ()),
        time_budget=time_budget,
        cost_budget=cost_budget,
        cache=not no_cache,
        cache_dir=cache_dir,
        retry=retry,
        retry_errors=retry_errors,
        score=score_run,
    )
    params = GenerationParams(temperature=temperature, max_tokens=max_tokens, seed=seed)
    result = run_tasks(
        model, tasks, out, params=params, options=options, model_options={"api_base": api_base}
    )
    header = result.header
    totals = header.totals
    state = "complete" if header.status == "complete" else f"stopped: {header.stop_reason}"
    sys.stderr.write(
        f"lexsym run: {state}; {totals.planned - totals.remaining} of {totals.planned} samples recorded "
        f"({result.recorded} this session; {totals.failed} failed, {totals.cached} cached), "
        f"tokens {totals.tokens_in:,}/{totals.tokens_out:,}, ${totals.cost:.4f}, in {out}\n"
    )
    if header.status != "complete":
        sys.stderr.write("lexsym run: re-run the same command to resume\n")
    elif header.scores is None:
        from lexsym.runner.tasksets import load_task_set

        if any(record["task"] == "OPEN" for record in load_task_set(header.tasks.path).records):
            sys.stderr.write(
                f"lexsym run: open answers are scored by a judge: lexsym judge {out} --judge MODEL\n"
            )
    if json_output:
        sys.stdout.write(header.model_dump_json(indent=2) + "\n")
    elif result.report is not None:
        from lexsym.scoring import render_report

        console = table_console()
        render_report(result.report, console, by=by)
    if header.stop_reason == "interrupted":
        raise typer.Exit(130)


@app.command()
def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories written by `lexsym run`.")],
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
) -> None:
    """Compare runs side by side: per task F1, OE validity and optimality, judged grades, cost."""
    from lexsym.compare import comparison, render_comparison

    table = comparison(list(runs))
    if json_output:
        sys.stdout.write(json.dumps(table, indent=2) + "\n")
        return

    console = table_console()
    render_comparison(table, console, markdown=markdown)


cache_app = typer.Typer(no_args_is_help=True, help="The response cache of `lexsym run` (SQLite).")
app.add_typer(cache_app, name="cache")


@cache_app.command("stats")
def cache_stats(
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory (default: the user cache).")] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print the stats as JSON.")] = False,
) -> None:
    """Entries, size on disk and entries per model."""
    from lexsym.runner.cache import cache_stats as stats_of

    stats = stats_of(cache_dir)
    if json_output:
        sys.stdout.write(stats.model_dump_json(indent=2) + "\n")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    if not stats.exists:
        console.print(Text(f"no cache at {stats.path}"))
        return
    table = Table(title=Text(f"{stats.path}: {stats.entries:,} entries, {stats.size_bytes / 1e6:.1f} MB"))
    table.add_column("Model", no_wrap=True)
    table.add_column("Entries", justify="right")
    for name, count in stats.by_model.items():
        table.add_row(Text(name), f"{count:,}")
    console.print(table)


@cache_app.command("clear")
def cache_clear(
    model: Annotated[str | None, typer.Option(help="Only this model's entries (default: all).")] = None,
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory (default: the user cache).")] = None,
) -> None:
    """Delete cached responses: all of them, or one model's."""
    from lexsym.runner.cache import cache_path, clear_cache

    removed = clear_cache(cache_dir, model=model)
    which = f" of {model}" if model else ""
    sys.stdout.write(f"lexsym cache: removed {removed:,} entries{which} from {cache_path(cache_dir)}\n")


app.add_typer(judge_app, name="judge")


exam_app = typer.Typer(
    no_args_is_help=True, help="Law-exam datasets (LEXam, KCL): convert to task records, score MCQs."
)
app.add_typer(exam_app, name="exam")


class ExamFormatName(str, Enum):
    lexam_mcq = "lexam-mcq"
    lexam_open = "lexam-open"
    kcl_essay = "kcl-essay"
    kcl_mcqa = "kcl-mcqa"


class LabelStyle(str, Enum):
    letters = "letters"
    numbers = "numbers"


class ContextSetting(str, Enum):
    none = "none"
    precedents = "precedents"


@exam_app.command("convert")
def exam_convert(
    source: Annotated[
        str,
        typer.Argument(
            help="A .jsonl, .csv or .xlsx file, a saved `datasets` directory, or "
            "hf:OWNER/NAME[:CONFIG][@REVISION]."
        ),
    ],
    format_: Annotated[ExamFormatName, typer.Option("--format", help="The dataset's format.")],
    out: Annotated[Path, typer.Option(help="Output directory: tasks.jsonl and manifest.json.")],
    shuffle_seed: Annotated[
        int | None, typer.Option(help="Shuffle MCQ options with this seed (the permutation is recorded).")
    ] = None,
    labels: Annotated[LabelStyle, typer.Option(help="MCQ option labels: A, B, ... or 1, 2, ...")] = (
        LabelStyle.letters
    ),
    context: Annotated[
        ContextSetting, typer.Option(help="KCL: put the supporting precedents into the prompt.")
    ] = ContextSetting.none,
    max_context_chars: Annotated[
        int | None, typer.Option(help="Precedent characters per question at most (fair-share cut).")
    ] = None,
    split: Annotated[str, typer.Option(help="The split to read (Hugging Face) and to record.")] = "test",
    name: Annotated[
        str | None, typer.Option(help="Dataset name, the id prefix (default: the format).")
    ] = None,
    sheet: Annotated[str | None, typer.Option(help="XLSX: the sheet to read (default: the first).")] = None,
    cache_dir: Annotated[
        str | None, typer.Option(help="Hugging Face: the `datasets` cache directory.")
    ] = None,
    skip_invalid: Annotated[
        bool,
        typer.Option("--skip-invalid", help="Skip invalid rows (listed in the manifest) instead of failing."),
    ] = False,
) -> None:
    """Convert exam items into task records (MCQ or OPEN), the layout `lexsym generate` writes."""
    from lexsym.exams.datasets import ExamFormat, load_exam
    from lexsym.exams.tasks import ConvertOptions, convert

    options = ConvertOptions(
        name=name,
        split=split,
        shuffle_seed=shuffle_seed,
        labels=labels.value,
        context=context.value,
        max_context_chars=max_context_chars,
    )
    options.check(ExamFormat(format_.value))  # bad settings fail before the source is read
    loaded = load_exam(
        source, format_.value, split=split, sheet=sheet, cache_dir=cache_dir, strict=not skip_invalid
    )
    manifest = convert(loaded, out, options)
    skipped = f", {len(loaded.errors)} invalid rows skipped" if loaded.errors else ""
    sys.stdout.write(f"lexsym exam convert: {manifest['tasks']} tasks written to {out}{skipped}\n")


@exam_app.command("score")
def exam_score(
    tasks: Annotated[Path, typer.Argument(help="A tasks.jsonl with MCQ records.")],
    predictions: Annotated[Path, typer.Argument(help="Model predictions (JSONL), as `lexsym score` reads.")],
    cluster_by: Annotated[
        str, typer.Option(help="Cluster SEs by this metadata field, or 'exam' (course and year).")
    ] = "course",
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap standard errors.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 1000,
    json_output: Annotated[bool, typer.Option("--json", help="Print the evaluation as JSON.")] = False,
    out: Annotated[Path | None, typer.Option(help="Write the evaluation JSON to this file.")] = None,
) -> None:
    """MCQ accuracy with bootstrap and clustered SEs, extraction failures apart, and position bias."""
    from lexsym.exams.mcq import evaluate, evaluation_json, render_evaluation

    if resamples < 2:
        _fail("--resamples must be at least 2", 2)
    report = evaluate(tasks, predictions, cluster_by=cluster_by, seed=seed, resamples=resamples)
    text = evaluation_json(report)
    if out is not None:
        from lexsym.atomic import write_atomic

        write_atomic(out, text + "\n")
    if json_output:
        sys.stdout.write(text + "\n")
        return

    console = table_console()
    render_evaluation(report, console)


@exam_app.command("build")
def exam_build(
    statements: Annotated[
        Path,
        typer.Argument(
            help='JSONL: {"id", "stem", "statements": [{"text", "correct"}], "negated", "language", ...}.'
        ),
    ],
    out: Annotated[Path, typer.Option(help="Output JSONL in LEXam's 4/8/16/32-choice shape.")],
    k: Annotated[list[int] | None, typer.Option("--k", help="Choice counts (default 4 8 16 32).")] = None,
    seed: Annotated[int, typer.Option(help="Seed of distractors and option order.")] = 0,
    nested: Annotated[
        bool, typer.Option("--nested", help="Each version's distractors include the smaller versions' ones.")
    ] = False,
) -> None:
    """Build k-choice questions from numbered true/false statements, as LEXam does."""
    from lexsym.exams.statements import build_statement_file

    count = build_statement_file(statements, out, ks=tuple(k or (4, 8, 16, 32)), seed=seed, nested=nested)
    sys.stdout.write(f"lexsym exam build: {count} questions written to {out}\n")


@exam_app.command("fingerprint")
def exam_fingerprint(
    source: Annotated[str, typer.Argument(help="A file, a saved `datasets` directory, or hf:OWNER/NAME...")],
    split: Annotated[str, typer.Option(help="Hugging Face: the split.")] = "test",
    cache_dir: Annotated[
        str | None, typer.Option(help="Hugging Face: the `datasets` cache directory.")
    ] = None,
) -> None:
    """Print what pins a source (sha256 or revision) as JSON, for run headers."""
    from lexsym.exams.datasets import source_fingerprint

    sys.stdout.write(
        json.dumps(source_fingerprint(source, split=split, cache_dir=cache_dir), indent=2) + "\n"
    )


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
