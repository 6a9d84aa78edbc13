"""`lexsym eval-set FILE`: several models over several task sets (and judges) into one tree, one report."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer


def eval_set(
    config: Annotated[
        Path,
        typer.Argument(
            help="The eval-set file (YAML): out, tasks, models, shared run options, optional judges."
        ),
    ],
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Go on in a tree begun under another version of the file (or in a folder that is not one).",
        ),
    ] = False,
    json_output: Annotated[
        bool, typer.Option("--json", help="Print report.json instead of the tables.")
    ] = False,
) -> None:
    """Run every model over every task set into OUT/<task set>/<model>/, judge the runs with open
    questions, and end with one report (OUT/report.md, OUT/report.json). Re-run the same command to
    resume: finished runs are skipped, the others resume where they stopped.

    Exit codes: 0 every run complete; 1 a run (or its judging) failed or did not finish; 2 bad input (a
    bad file, a tree begun under another file, a run that could not start); 130 interrupted."""
    import json

    from lexsym._util.console import table_console
    from lexsym.evalset.report import render_report
    from lexsym.evalset.session import run_eval_set

    result = run_eval_set(config, force=force)
    if json_output:
        sys.stdout.write(json.dumps(result.report, indent=2) + "\n")
    else:
        render_report(result.report, table_console())
    out = result.out
    sys.stderr.write(
        f"lexsym eval-set: {len(result.state['runs'])} runs ({len(result.skipped)} already done), report in "
        f"{out / 'report.md'}\n"
    )
    if result.failures:
        sys.stderr.write("lexsym eval-set: failed:\n" + "".join(f"  {line}\n" for line in result.failures))
        raise typer.Exit(2 if result.errored else 1)
