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
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="A run directory written by `lexsym run`.")],
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge", help="A judge model id (as `lexsym run --model` takes); repeat for an ensemble."
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="A YAML file whose `judge:` section holds these options; flags given here win."),
    ] = None,
    judge_option: Annotated[
        list[str] | None,
        typer.Option(
            "--judge-option",
            "-J",
            help="A backend option for every judge but the local lexsym: ones, as key=value (YAML value); "
            "repeat. E.g. -J reasoning_effort=low -J timeout=120 -J drop_params=true.",
        ),
    ] = None,
    judge_api_base: Annotated[
        list[str] | None,
        typer.Option(
            help="MODEL=URL: the endpoint of one judge (mix a local judge with a hosted one); repeat."
        ),
    ] = None,
    ensemble: Annotated[
        str, typer.Option(help="How judges combine: min (LEXam's choice), mean or median.")
    ] = "min",
    partial: Annotated[
        bool, typer.Option("--partial", help="Combine the judges that gave a grade when another failed.")
    ] = False,
    temperature: Annotated[float, typer.Option(help="Judge temperature (pinned; part of the record).")] = 0.0,
    seed: Annotated[
        int | None, typer.Option(help="Judge sampling seed (pinned; not sent where a provider has none).")
    ] = 0,
    max_tokens: Annotated[int | None, typer.Option(help="Judge completion token limit.")] = None,
    retries: Annotated[int, typer.Option(help="Re-asks after a reply that does not parse.")] = 2,
    concurrency: Annotated[int, typer.Option(help="Judgements in flight at once.")] = 8,
    rpm: Annotated[float, typer.Option(help="Requests per minute per judge model; 0: no limit.")] = 0.0,
    cost_budget: Annotated[
        float | None, typer.Option(help="Judge dollars for this invocation; then no new judgement starts.")
    ] = None,
    fail_fast: Annotated[
        int | None, typer.Option(help="Stop after N judgements have failed (exit 1).")
    ] = None,
    max_failure_rate: Annotated[
        float | None,
        typer.Option(
            help="Exit 1 when more than this share of judgements failed (default: only when all did)."
        ),
    ] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write the cache.")] = False,
    cache_dir: Annotated[Path | None, typer.Option(help="Cache directory (default: the user cache).")] = None,
    api_base: Annotated[
        str | None,
        typer.Option(help="Base URL of an OpenAI-compatible server, for every judge without its own."),
    ] = None,
    max_attempts: Annotated[int, typer.Option(help="Calls per request at most, on transient errors.")] = 6,
    retry_base: Annotated[float, typer.Option(help="Backoff base, seconds (full jitter).")] = 1.0,
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds one judge request may take (enforced whatever the backend does)."),
    ] = None,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="Also judge again pairs whose judge call failed for good.")
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print judged.json instead of the table.")
    ] = False,
) -> None:
    """Judge every open answer of a run with each judge; write judgements.jsonl, judge.json, judged.json.

    Exit codes: 0 done; 1 the judging failed (every judgement failed, more than --max-failure-rate did,
    or --fail-fast stopped it); 2 bad input."""
    from lexsym.cli.config_file import apply_config
    from lexsym.judges.report import render_judged
    from lexsym.judges.session import judge_run
    from lexsym.judges.settings import JudgeOptions
    from lexsym.runner.limits import RetryPolicy

    values = apply_config(ctx, config, section="judge")
    if not values["judge"]:
        fail("give at least one --judge MODEL (on the command line or in --config)")
    try:
        retry = RetryPolicy(
            base=values["retry_base"], max_attempts=values["max_attempts"], timeout=values["timeout"]
        )
    except ValueError as error:
        fail(str(error))
    options = JudgeOptions(
        judges=judge_specs(values),
        ensemble=values["ensemble"],
        partial=values["partial"],
        retries=values["retries"],
        concurrency=values["concurrency"],
        rpm=values["rpm"],
        cache=not values["no_cache"],
        cache_dir=values["cache_dir"],
        cost_budget=values["cost_budget"],
        retry=retry,
        retry_errors=values["retry_errors"],
        fail_fast=values["fail_fast"],
        max_failure_rate=values["max_failure_rate"],
    )
    result = judge_run(run_dir, options)
    _summarise_judging(result, run_dir)
    if values["json_output"]:
        sys.stdout.write(result.report.model_dump_json(indent=2) + "\n")
    else:
        render_judged(result.report)
    if result.header.get("failed"):
        raise typer.Exit(1)


def judge_specs(values: dict[str, Any]) -> tuple[Any, ...]:
    """The pinned judges of the command's (and config file's) options: -J options and --api-base go to
    every judge that is not a local lexsym: one; --judge-api-base MODEL=URL to that judge alone."""
    from lexsym.cli.config_file import merged_pairs
    from lexsym.judges.settings import JudgeSpec
    from lexsym.models.options import parse_options, parse_scoped

    shared = parse_options(merged_pairs(values["judge_option"]), "-J")
    if values["api_base"]:
        shared.setdefault("api_base", values["api_base"])
    endpoints = parse_scoped(merged_pairs(values["judge_api_base"]), "--judge-api-base")
    unknown = sorted(set(endpoints) - set(values["judge"]))
    if unknown:
        fail(f"--judge-api-base {unknown[0]}: not one of the --judge models")
    specs = []
    for model in values["judge"]:
        options = {} if model.startswith("lexsym:") else dict(shared)
        if model in endpoints:
            options["api_base"] = endpoints[model]
        specs.append(
            JudgeSpec(
                model,
                temperature=values["temperature"],
                seed=values["seed"],
                max_tokens=values["max_tokens"],
                options=tuple(sorted(options.items())),
            )
        )
    return tuple(specs)


def _summarise_judging(result: Any, run_dir: Path) -> None:
    """The session's outcome on stderr: state, cost, settings not sent, and why it failed if it did."""
    from lexsym.runner.failures import summary_lines

    header = result.header
    totals = result.report.cost_totals
    state = f"FAILED: {header['failed']}" if header.get("failed") else header.get("status")
    lines = [
        f"lexsym judge: {state}; {result.judged} judgement(s) this session; judge cost "
        f"${totals.get('cost', 0.0):.4f} (answering model ${result.report.answering_cost or 0.0:.4f}), "
        f"in {run_dir}"
    ]
    for described in header.get("judges", []):
        for name, why in (described.get("params_dropped") or {}).items():
            lines.append(f"lexsym judge: {described['model']}: {name} was not sent: {why} (judge.json)")
    if header.get("failure_reasons"):
        lines.append("lexsym judge: failures by reason:")
        lines.extend(summary_lines(header["failure_reasons"]))
    sys.stderr.write("".join(line + "\n" for line in lines))


@judge_app.command("validate")
def judge_validate_command(
    labels: Annotated[
        Path,
        typer.Argument(
            help="Ratings as CSV or JSONL with item, rater, score and kind (human or llm, per rater). Scores "
            "are all numbers or all category labels (e.g. model_a, model_b, tie)."
        ),
    ],
    judge: Annotated[
        list[str] | None,
        typer.Option(
            "--judge",
            help="An llm rater to test; repeat to test several (default: every llm rater, from the file and "
            "--run).",
        ),
    ] = None,
    run: Annotated[
        Path | None,
        typer.Option(
            help="A judged run: its judges and ensemble join as llm raters (item = task id); never as humans."
        ),
    ] = None,
    run_scale: Annotated[float, typer.Option(help="Multiply the run's 0-1 grades by this (e.g. 10).")] = 1.0,
    epsilon: Annotated[float, typer.Option(help="The alt-test's margin ε (0.2 for experts).")] = 0.2,
    alpha: Annotated[float, typer.Option(help="False discovery rate of the BY correction.")] = 0.05,
    metric: Annotated[
        str, typer.Option(help="Alignment: accuracy (numbers or labels), neg_rmse or neg_mae (numbers).")
    ] = "accuracy",
    min_items: Annotated[int, typer.Option(help="Items an annotator needs to be tested.")] = 30,
    json_output: Annotated[bool, typer.Option("--json", help="Print the results as JSON.")] = False,
) -> None:
    """The Alternative Annotator Test (ω, ρ, pass at ω ≥ 0.5) of each judge against the raters marked human
    (only they form the annotator pool), and agreement between raters (Pearson, QWK and MAE for numbers)."""
    from lexsym.judges.labels import ratings_from_run, read_ratings
    from lexsym.judges.report import render_validation, validate_judges

    ratings = read_ratings(labels)
    if run is not None:
        ratings.add(ratings_from_run(run, scale=run_scale))
    judges = list(judge or ratings.llms)
    if not judges:
        fail(f"{labels}: no llm rater to test: name one with --judge, mark one llm, or give a judged --run")
    try:
        result = validate_judges(
            ratings, judges, epsilon=epsilon, alpha=alpha, metric=metric, min_items=min_items
        )
    except ValueError as error:
        fail(f"{labels}: {error}")
    if json_output:
        import json

        from lexsym._util.finite import finite

        undefined: list[str] = []
        document = finite(json.loads(json.dumps(result, default=str)), undefined)
        if undefined and isinstance(
            document, dict
        ):  # e.g. a correlation of raters whose grades never vary: no number, said where
            document = {
                **document,
                "undefined": {
                    path: "not a number (the statistic is undefined here, e.g. raters with no variance)"
                    for path in undefined
                },
            }
        sys.stdout.write(json.dumps(document, indent=2, allow_nan=False) + "\n")
    else:
        render_validation(result)
