"""Writing the results table as CSV, parquet or JSONL, atomically (a killed export leaves no half file).

CSV writes a missing value as an empty cell and booleans as true/false; JSONL keeps JSON types (null,
true); parquet keeps the column types (nullable Int64, boolean, string, float64) and needs pyarrow.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from lexsym._util.atomic import write_atomic, write_atomic_with
from lexsym._util.errors import InputError
from lexsym.analysis.table import ResultsTable

FORMATS = ("csv", "parquet", "jsonl")


def _csv_cell(value: object) -> object:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def export_table(table: ResultsTable, path: str | Path, fmt: str | None = None) -> Path:
    """Write `table` to `path` in `fmt` (default: from the file's suffix). Returns the path."""
    path = Path(path)
    fmt = (fmt or path.suffix.lstrip(".")).lower()
    if fmt not in FORMATS:
        raise InputError(f"{path}: unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if fmt == "jsonl":
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in table.rows)
        write_atomic(path, text)
    elif fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(table.columns)
        names = table.columns
        writer.writerows([_csv_cell(row.get(name)) for name in names] for row in table.rows)
        write_atomic(path, buffer.getvalue())
    else:
        try:
            import pyarrow  # noqa: F401  (pandas needs it for parquet; say so before building the frame)
        except ImportError:
            raise InputError("parquet needs pyarrow: pip install 'lexsym[analysis]'") from None
        frame = table.to_pandas()
        write_atomic_with(path, lambda temporary: frame.to_parquet(temporary, index=False))
    return path
