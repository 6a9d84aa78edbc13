"""Parquet files of text columns, as both exports write and read them: zstd-compressed (the rows repeat
much of each other's facts, cases and gold), written atomically, every column a nullable string."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic_with
from lexsym._util.errors import InputError

PYARROW_HINT = "pip install 'lexsym[hf]' (or 'lexsym[lmeval]')"


@dataclass(frozen=True)
class TableSize:
    """One written table: rows, bytes in Arrow (what `datasets` calls num_bytes), bytes of its file."""

    rows: int
    num_bytes: int
    file_bytes: int


def require_pyarrow() -> None:
    """InputError (exit 2) naming the extra to install when pyarrow is missing."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise InputError(f"writing parquet needs pyarrow: {PYARROW_HINT}") from None


def write_table(path: Path, rows: list[dict[str, Any]], columns: Iterable[str]) -> TableSize:
    """Write `rows` (dicts of strings or None) with `columns`, in that order, to `path`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([pa.field(name, pa.string(), nullable=True) for name in columns])
    table = pa.Table.from_pylist(rows, schema=schema)
    write_atomic_with(path, lambda temporary: pq.write_table(table, temporary, compression="zstd"))
    return TableSize(len(rows), table.nbytes, path.stat().st_size)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a table `write_table` wrote; InputError naming the file when it cannot be read."""
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path).to_pylist()
    except (OSError, ValueError) as error:
        raise InputError(f"{path}: cannot read this parquet file ({error})") from None
