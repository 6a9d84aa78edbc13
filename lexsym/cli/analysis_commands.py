"""`lexsym export`: results leave lexsym as CSV, parquet or JSONL, one row per (run, sample, repeat); and, as
subcommands, benchmarks for other harnesses (`lexsym export lm-eval`, `lexsym export hf`: `publish_commands`;
`lexsym export openexempt`: `openexempt_export_commands`).

`lexsym export RUN... --out FILE` is the results table as it always was: arguments that do not start with a
subcommand's name go to `lexsym export runs`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from lexsym.cli import openexempt_export_commands, publish_commands


class _RunsByDefault(TyperGroup):
    """A group whose arguments go to its `runs` command unless they start with a subcommand or --help."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] != "--help":
            args = ["runs", *args]
        return super().parse_args(ctx, args)


def export(
    runs: Annotated[list[Path], typer.Argument(help="Run directories written by `lexsym run`.")],
    out: Annotated[Path, typer.Option(help="The file to write (its suffix gives the format by default).")],
    fmt: Annotated[
        str | None, typer.Option("--format", help="csv, parquet or jsonl (default: from --out's suffix).")
    ] = None,
) -> None:
    """Write the runs' results table: model, task, metadata, scores, tokens, cost (`lexsym schema sample`)."""
    from lexsym.analysis import export_table, load_table

    table = load_table(runs)
    path = export_table(table, out, fmt)
    sys.stderr.write(
        f"lexsym export: {len(table.rows):,} rows x {len(table.columns)} columns from {len(runs)} run(s) "
        f"to {path}\n"
    )


export_app = typer.Typer(
    cls=_RunsByDefault,
    no_args_is_help=True,
    help="Write the results table of runs, or publish a task set for lm-eval, Hugging Face or OpenExempt.\n\n"
    "`lexsym export RUN... --out FILE` is `lexsym export runs RUN... --out FILE`, as before.",
)
export_app.command("runs")(export)
export_app.command("lm-eval")(publish_commands.lm_eval)
export_app.command("hf")(publish_commands.hf)
export_app.command("openexempt")(openexempt_export_commands.export_openexempt_command)
