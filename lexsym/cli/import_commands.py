"""`lexsym import`: other tools' benchmarks brought into lexsym, re-golded by the logic program."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

import_app = typer.Typer(help="Bring other tools' benchmarks into lexsym.", no_args_is_help=True)


@import_app.command("openexempt")
def import_openexempt(
    source: Annotated[
        Path,
        typer.Argument(
            help="OpenExempt's files: a suite folder (or a tree of them), one dataset folder (config.json, "
            "test.jsonl, shared.json, cases.jsonl, dev*.jsonl), or a replay export's cases.jsonl."
        ),
    ],
    out: Annotated[Path, typer.Option(help="Output folder: OUT/<table>/<suite>/tasks.jsonl and gold_diff.*")],
    table: Annotated[
        list[str] | None,
        typer.Option(
            help="Statutes the gold rests on: openexempt (its parameters, from its statute files) or lexsym "
            "(ours); may repeat. Default: both when OpenExempt's statute files are found, else lexsym."
        ),
    ] = None,
    statutes: Annotated[
        Path | None,
        typer.Option(
            help="OpenExempt's data/statutes folder (default: the statute_directory its configs name)."
        ),
    ] = None,
    workers: Annotated[int, typer.Option(help="Processes to use (0: one per core).")] = 0,
    json_output: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Re-gold OpenExempt's benchmark: lexsym task sets, and a report of every changed gold with its cause."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    from lexsym.generate.openexempt_import import import_openexempt as run

    with Progress(
        "solving",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        disable=json_output or not sys.stderr.isatty(),
    ) as bar:
        job = bar.add_task("cases", total=None)
        summary = run(
            source,
            out,
            tables=table or [],
            statutes=statutes,
            workers=workers,
            progress=lambda done, total: bar.update(job, completed=done, total=total),
        )
    if json_output:
        sys.stdout.write(json.dumps(summary, indent=2, sort_keys=True) + "\n")
        return
    for name, entry in summary["tables"].items():
        sets = (
            ", ".join(f"{suite} ({count})" for suite, count in entry["task_sets"].items())
            or "none (no prompts)"
        )
        sys.stdout.write(f"statutes: {name}\n  task sets: {sets}\n  gold changed (of compared):\n")
        for task, compared in entry["compared"].items():
            changed = entry["changed"].get(task, 0)
            causes = ", ".join(f"{c} {n}" for c, n in entry["by_cause"].get(task, {}).items())
            sys.stdout.write(
                f"    {task}: {changed} of {compared}" + (f" ({causes})" if causes else "") + "\n"
            )
        sys.stdout.write(f"  report: {out / name / 'gold_diff.md'}\n")
