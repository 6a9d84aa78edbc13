"""`lexsym judge`: judge a run's open answers (`lexsym judge RUN_DIR --judge M ...`) and validate judges
against expert labels (`lexsym judge validate LABELS --judge NAME`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from lexsym.cli.common import fail


class _RunByDefault(TyperGroup):
    """`lexsym judge RUN_DIR ...` means `lexsym judge run RUN_DIR ...`: the everyday use needs no verb."""

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args.insert(0, "run")
        return super().resolve_command(ctx, args)


judge_app = typer.Typer(
    cls=_RunByDefault,
    no_args_is_help=True,
    help="LLM judges for open answers: `lexsym judge RUN_DIR --judge M`, `lexsym judge validate LABELS`.",
)


@judge_app.command("run")
def judge_run_command(
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `lexsym run`.")],
    judge: Annotated[
        list[str],
        typer.Option(
            "--judge", help="A judge model id (as `lexsym run --model` takes); repeat for an ensemble."
        ),
    ],
    ensemble: Annotated[
        str, typer.Option(help="How judges combine: min (LEXam's choice), mean or median.")
    ] = "min",
    partial: Annotated[
        bool, typer.Option("--partial", help="Combine the judges that gave a grade when another failed.")
    ] = False,
    temperature: Annotated[float, typer.Option(help="Judge temperature (pinned; part of the record).")] = 0.0,
    seed: Annotated[int | None, typer.Option(help="Judge sampling seed (pinned).")] = 0,
    max_tokens: Annotated[int | None, typer.Option(help="Judge completion token limit.")] = None,
    retries: Annotated[int, typer.Option(help="Re-asks after a reply that does not parse.")] = 2,
    concurrency: Annotated[int, typer.Option(help="Judgements in flight at once.")] = 8,
    rpm: Annotated[float, typer.Option(help="Requests per minute per judge model; 0: no limit.")] = 0.0,
    cost_budget: Annotated[
        float | None, typer.Option(help="Judge dollars for this invocation; then no new judgement starts.")
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache.")] = False,
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory (default: the user cache).")] = None,
    api_base: Annotated[
        str | None, typer.Option(help="Base URL of an OpenAI-compatible judge server.")
    ] = None,
    max_attempts: Annotated[int, typer.Option(help="Calls per request at most, on transient errors.")] = 6,
    retry_base: Annotated[float, typer.Option(help="Backoff base, seconds (full jitter).")] = 1.0,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="Also judge again pairs whose judge call failed for good.")
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print judged.json instead of the table.")
    ] = False,
) -> None:
    """Judge every open answer of a run with each judge; write judgements.jsonl, judge.json, judged.json."""
    from lexsym.judges.report import render_judged
    from lexsym.judges.session import judge_run
    from lexsym.judges.settings import JudgeOptions, JudgeSpec
    from lexsym.runner.limits import RetryPolicy

    try:
        retry = RetryPolicy(base=retry_base, max_attempts=max_attempts)
    except ValueError as error:
        fail(str(error))
    options = JudgeOptions(
        judges=tuple(JudgeSpec(m, temperature=temperature, seed=seed, max_tokens=max_tokens) for m in judge),
        ensemble=ensemble,
        partial=partial,
        retries=retries,
        concurrency=concurrency,
        rpm=rpm,
        cache=not no_cache,
        cache_dir=cache_dir,
        cost_budget=cost_budget,
        retry=retry,
        retry_errors=retry_errors,
    )
    model_options = {"api_base": api_base} if api_base else None
    result = judge_run(run_dir, options, model_options=model_options)
    totals = result.report.cost_totals
    state = result.header.get("status")
    sys.stderr.write(
        f"lexsym judge: {state}; {result.judged} judgement(s) this session; judge cost "
        f"${totals.get('cost', 0.0):.4f} (answering model ${result.report.answering_cost or 0.0:.4f}), "
        f"in {run_dir}\n"
    )
    if json_output:
        sys.stdout.write(result.report.model_dump_json(indent=2) + "\n")
    else:
        render_judged(result.report)


@judge_app.command("validate")
def judge_validate_command(
    labels: Annotated[Path, typer.Argument(help="Ratings as CSV or JSONL with item, rater and score.")],
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge", help="A rater that is an LLM judge; repeat to test several (default: from --run)."
        ),
    ] = None,
    run: Annotated[
        Path | None,
        typer.Option(help="A judged run: its judges and ensemble join as raters (item = task id)."),
    ] = None,
    run_scale: Annotated[float, typer.Option(help="Multiply the run's 0-1 grades by this (e.g. 10).")] = 1.0,
    epsilon: Annotated[float, typer.Option(help="The alt-test's margin ε (0.2 for experts).")] = 0.2,
    alpha: Annotated[float, typer.Option(help="False discovery rate of the BY correction.")] = 0.05,
    metric: Annotated[str, typer.Option(help="Alignment: accuracy, neg_rmse or neg_mae.")] = "accuracy",
    min_items: Annotated[int, typer.Option(help="Items an annotator needs to be tested.")] = 30,
    json_output: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """The Alternative Annotator Test (ω, ρ, pass at ω ≥ 0.5) and Pearson, QWK and MAE between raters."""
    from lexsym._util.errors import InputError
    from lexsym.judges.labels import ratings_from_run, read_ratings
    from lexsym.judges.report import render_validation, validate_judges

    ratings = read_ratings(labels)
    judges = list(judge or [])
    if run is not None:
        for rater, scores in ratings_from_run(run).items():
            if rater in ratings:
                raise InputError(f"{labels}: rater {rater!r} is also a judge of {run}")
            ratings[rater] = {item: score * run_scale for item, score in scores.items()}
            if not judge:
                judges.append(rater)
    if not judges:
        fail("name the judge rater(s) with --judge, or give a judged run with --run")
    unknown = [name for name in judges if name not in ratings]
    if unknown:
        fail(f"{labels}: no ratings by judge {', '.join(map(repr, unknown))}")
    try:
        result = validate_judges(
            ratings, judges, epsilon=epsilon, alpha=alpha, metric=metric, min_items=min_items
        )
    except ValueError as error:
        fail(f"{labels}: {error}")
    if json_output:
        import json

        sys.stdout.write(json.dumps(result, indent=2, default=str) + "\n")
    else:
        render_validation(result)
