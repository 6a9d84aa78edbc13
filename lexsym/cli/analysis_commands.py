"""`lexsym export`: results leave lexsym as CSV, parquet or JSONL, one row per (run, sample, repeat)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer


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
