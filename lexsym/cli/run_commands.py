"""`lexsym run`, `report` and `cache`: running a model over a task set, comparing runs, the response cache."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from lexsym._util.console import table_console
from lexsym.cli.common import check_rows, fail


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
    from lexsym.runner.run import run_tasks
    from lexsym.runner.run_options import RunOptions

    check_rows(by)
    try:
        retry = RetryPolicy(base=retry_base, cap=retry_cap, max_attempts=max_attempts)
    except ValueError as error:
        fail(str(error), 2)
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


def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories written by `lexsym run`.")],
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
) -> None:
    """Compare runs side by side: per task F1, OE validity and optimality, judged grades, cost."""
    from lexsym.reports.compare import comparison, render_comparison

    table = comparison(list(runs))
    if json_output:
        sys.stdout.write(json.dumps(table, indent=2) + "\n")
        return

    console = table_console()
    render_comparison(table, console, markdown=markdown)


cache_app = typer.Typer(no_args_is_help=True, help="The response cache of `lexsym run` (SQLite).")


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
