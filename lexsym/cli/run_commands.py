"""`lexsym run`, `report` and `cache`: running a model over a task set, comparing runs, the response cache."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from lexsym._util.console import table_console
from lexsym.cli.common import check_numbers, check_rows, fail

RUN_NUMBER_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 10.0),
    "top_p": (0.0, 1.0),
    "rpm": (0.0, 1e9),
    "time_budget": (0.0, 1e9),
    "cost_budget": (0.0, 1e12),
    "max_failure_rate": (0.0, 1.0),
    "retry_base": (0.0, 86_400.0),
    "retry_cap": (0.0, 86_400.0),
    "timeout": (0.001, 86_400.0),
}
"""Numeric options of `lexsym run` and the range each must lie in (NaN and infinity never do): a NaN
temperature was stored as null and the run could never be resumed (issue 19, item 11)."""


def run(
    ctx: typer.Context,
    model: Annotated[
        str | None,
        typer.Option(
            help="Model id: litellm:<provider>/<model>, vllm:<model>, lexsym:oracle, lexsym:baseline."
        ),
    ] = None,
    tasks: Annotated[
        Path | None, typer.Option(help="A task directory from `lexsym generate`, or its tasks.jsonl.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="The run directory: created, or resumed when it holds this run.")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="A YAML file of these options (keys: the option names); flags given here win."),
    ] = None,
    model_option: Annotated[
        list[str] | None,
        typer.Option(
            "--model-option",
            "-M",
            help="A backend option as key=value (YAML value); repeat. vLLM: tensor_parallel_size, "
            "max_model_len, gpu_memory_utilization, dtype, revision, chat_template_kwargs={...}; litellm: "
            "reasoning_effort, timeout, api_key_env, drop_params, extra_headers={...}.",
        ),
    ] = None,
    concurrency: Annotated[
        int | None, typer.Option(help="Samples in flight at once (default: 8; all of them for vllm:).")
    ] = None,
    rpm: Annotated[float, typer.Option(help="Requests per minute at most (paced); 0: no limit.")] = 0.0,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int | None, typer.Option(help="Completion token limit.")] = None,
    seed: Annotated[int | None, typer.Option(help="Sampling seed, for backends that take one.")] = None,
    top_p: Annotated[float | None, typer.Option(help="Nucleus sampling mass.")] = None,
    repeats: Annotated[int, typer.Option(help="Samples per task (epochs); repeat 0 is the headline.")] = 1,
    filters: Annotated[
        list[str] | None,
        typer.Option(
            "--filter",
            help="Tasks to run: an id substring or glob, or task=OE, variant=..., split=test, suite=..., "
            "dataset=...; may repeat (same key: any; different keys: all).",
        ),
    ] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(
            help="A condition on task metadata: asset_count=2, married=false, asset_count>=3, "
            "context.setting=statutes; may repeat (all must hold)."
        ),
    ] = None,
    sample_id: Annotated[
        list[str] | None, typer.Option("--sample-id", help="Run only this task id; may repeat.")
    ] = None,
    limit: Annotated[
        int | None, typer.Option(help="At most N tasks, stratified by dataset (deterministic).")
    ] = None,
    time_budget: Annotated[
        float | None,
        typer.Option(help="Seconds for this invocation; then no new sample starts (in-flight ones finish)."),
    ] = None,
    cost_budget: Annotated[
        float | None,
        typer.Option(help="Dollars for this invocation; then no new sample starts (in-flight ones finish)."),
    ] = None,
    fail_fast: Annotated[
        int | None, typer.Option(help="Stop after N samples have failed for good (exit 1).")
    ] = None,
    max_failure_rate: Annotated[
        float | None,
        typer.Option(help="Exit 1 when more than this share of samples failed (default: only when all did)."),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache.")] = False,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Cache directory (default $LEXSYM_CACHE_DIR or ~/.cache/lexsym).")
    ] = None,
    api_base: Annotated[
        list[str] | None,
        typer.Option(
            help="Base URL of an OpenAI-compatible server. Repeat it (or separate URLs by commas) for a "
            "pool of servers of the same model: requests go to the least busy, around any that is down."
        ),
    ] = None,
    retry_base: Annotated[float, typer.Option(help="Backoff base, seconds (full jitter).")] = 1.0,
    retry_cap: Annotated[float, typer.Option(help="Backoff cap, seconds.")] = 60.0,
    max_attempts: Annotated[int, typer.Option(help="Calls per sample at most, on transient errors.")] = 6,
    timeout: Annotated[
        float | None,
        typer.Option(
            help="Seconds one request may take (enforced whatever the backend does; litellm also gets it). "
            "A sample then ends within timeout x max-attempts plus the backoff pauses."
        ),
    ] = None,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="Also retry samples recorded as permanently failed.")
    ] = False,
    score_run: Annotated[bool, typer.Option("--score/--no-score", help="Score the run at the end.")] = True,
    by: Annotated[str, typer.Option(help="Rows of the score table: task, variant or suite.")] = "task",
    json_output: Annotated[bool, typer.Option("--json", help="Print run.json instead of the table.")] = False,
) -> None:
    """Run a model over a task set into a run directory (resumable); score it at the end.

    Exit codes: 0 done; 1 the run failed (every sample failed, more than --max-failure-rate did, or
    --fail-fast stopped it); 2 bad input; 130 interrupted."""
    from lexsym.cli.config_file import apply_config, merged_pairs, write_config
    from lexsym.models import GenerationParams
    from lexsym.models.options import parse_options
    from lexsym.models.redaction import redact_options
    from lexsym.runner.limits import RetryPolicy
    from lexsym.runner.run import run_tasks
    from lexsym.runner.run_options import RunOptions

    values = apply_config(ctx, config)
    missing = [f"--{name}" for name in ("model", "tasks", "out") if values[name] is None]
    if missing:
        fail(f"give {', '.join(missing)} (on the command line or in --config)")
    check_rows(values["by"])
    check_numbers(values, RUN_NUMBER_RANGES)
    pairs = merged_pairs(values["model_option"])
    model_options = parse_options(pairs, "-M")
    try:
        retry = RetryPolicy(
            base=values["retry_base"],
            cap=values["retry_cap"],
            max_attempts=values["max_attempts"],
            timeout=values["timeout"],
        )
    except ValueError as error:
        fail(str(error), 2)
    options = RunOptions(
        concurrency=values["concurrency"],
        rpm=values["rpm"],
        repeats=values["repeats"],
        filters=tuple(values["filters"] or ()),
        where=tuple(values["where"] or ()),
        sample_ids=tuple(values["sample_id"] or ()),
        limit=values["limit"],
        fail_fast=values["fail_fast"],
        max_failure_rate=values["max_failure_rate"],
        time_budget=values["time_budget"],
        cost_budget=values["cost_budget"],
        cache=not values["no_cache"],
        cache_dir=values["cache_dir"],
        retry=retry,
        retry_errors=values["retry_errors"],
        score=values["score_run"],
    )
    params = GenerationParams(
        temperature=values["temperature"],
        max_tokens=values["max_tokens"],
        seed=values["seed"],
        top_p=values["top_p"],
    )
    out = Path(values["out"])
    result = run_tasks(
        values["model"],
        values["tasks"],
        out,
        params=params,
        options=options,
        model_options={
            "api_base": _endpoints(values["api_base"]),
            # litellm takes the request timeout too (its own default is 600 s); every backend is held to it
            **({"timeout": values["timeout"]} if _takes_timeout(values["model"], values["timeout"]) else {}),
            **model_options,
        },
    )
    recorded = {k: v for k, v in values.items() if k != "model_option"}
    recorded["model_options"] = redact_options(model_options)  # no credential in a file left behind
    write_config(out / "config.yaml", recorded)
    _summarise_run(result, out)
    header = result.header
    if values["json_output"]:
        sys.stdout.write(header.model_dump_json(indent=2) + "\n")
    elif result.report is not None:
        from lexsym.scoring import render_report

        console = table_console()
        render_report(result.report, console, by=values["by"])
        over_repeats = (header.scores or {}).get("over_repeats")
        if over_repeats:
            from lexsym.runner.repeats import render_repeats

            render_repeats(over_repeats, console)
    if header.stop_reason == "interrupted":
        raise typer.Exit(130)
    if header.failed:
        raise typer.Exit(1)


def _takes_timeout(model: str, timeout: float | None) -> bool:
    return timeout is not None and model.startswith("litellm:")


def _endpoints(api_bases: list[str] | None) -> str | list[str] | None:
    """`--api-base` as the backend takes it: one URL as a string (as a run always recorded it), several as
    a list (an endpoint pool)."""
    if not api_bases:
        return None
    return api_bases[0] if len(api_bases) == 1 else list(api_bases)


def _summarise_run(result: Any, out: Path) -> None:
    """The run's outcome on stderr: state, counts, what was not sent, and why it failed if it did."""
    from lexsym.runner.failures import summary_lines

    header = result.header
    totals = header.totals
    if header.failed:
        state = f"FAILED: {header.failed}"
    elif header.status == "complete":
        state = "complete"
    else:
        state = f"stopped: {header.stop_reason}"
    lines = [
        f"lexsym run: {state}; {totals.planned - totals.remaining} of {totals.planned} samples recorded "
        f"({result.recorded} this session; {totals.failed} failed, {totals.cached} cached), "
        f"tokens {totals.tokens_in:,}/{totals.tokens_out:,}, ${totals.cost:.4f}, in {out}"
    ]
    for name, why in header.params_dropped.items():
        lines.append(f"lexsym run: {name} was not sent: {why} (run.json: params_dropped)")
    if header.failure_reasons:
        lines.append("lexsym run: failures by reason:")
        lines.extend(summary_lines(header.failure_reasons))
    if header.status != "complete":
        lines.append("lexsym run: re-run the same command to resume")
    elif header.scores is None:
        from lexsym.runner.tasksets import load_task_set

        if any(record["task"] == "OPEN" for record in load_task_set(header.tasks.path).records):
            lines.append(f"lexsym run: open answers are scored by a judge: lexsym judge {out} --judge MODEL")
    sys.stderr.write("".join(line + "\n" for line in lines))


def report(
    runs: Annotated[list[Path], typer.Argument(help="Run directories written by `lexsym run`.")],
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown table.")] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print the table as JSON.")] = False,
    by: Annotated[
        str,
        typer.Option(
            help="Rows per task (task), or per task and value of any task field (metadata paths like "
            "asset_count or context.setting, variant, split, dataset, solved_steps; a list joined by ',', a "
            "missing value '–'), comma-separated for their cross product (JSON: by_fields)."
        ),
    ] = "task",
    figures: Annotated[
        Path | None,
        typer.Option(
            help="Also write figures here: F1 by asset count, domicile count, solved steps and "
            "obfuscation; MCQ accuracy by choices, course, language, area; judge grades (PNG, SVG, and the "
            "CSV behind each)."
        ),
    ] = None,
) -> None:
    """Compare runs side by side: per task F1, OE validity and optimality, judged grades, cost.

    Warns (stderr, and `warnings` in the JSON) when the runs are over different task sets or selections,
    and when a run is unfinished."""
    from lexsym.cli.common import by_fields
    from lexsym.reports.compare import comparison, render_comparison

    table = comparison(list(runs), by=by_fields(by, rows=("task",)))
    for warning in table["warnings"]:
        sys.stderr.write(f"lexsym report: warning: {warning}\n")
    if figures is not None:
        from lexsym.reports.figures import write_figures

        written = write_figures(list(runs), figures)
        names = sorted({path.stem for path in written})
        sys.stderr.write(
            f"lexsym report: {len(names)} figure(s) in {figures}: {', '.join(names) or 'none'}\n"
        )
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
