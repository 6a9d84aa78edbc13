"""`lexsym export hf`: a Hugging Face dataset folder, ready to push to the Hub as it is.

The folder:

- `data/<suite>/<split>-00000-of-00001.parquet`: the compact rows (`lexsym.publish.compact_records`),
  one config per suite, its splits as lexsym generated them (dev, test);
- `contexts/shared-00000-of-00001.parquet`: the shared prompt texts, stored once (the `contexts` config);
- `tables/<suite>.json`: the what-if table a suite's gold rests on, for suites that have one;
- `README.md`: the dataset card (`lexsym.publish.hf_card`): configs, features, license, how the gold was
  computed, the rules digest and seeds, how to rebuild a prompt, the citation;
- `export.json`: what wrote it, from which task files.

The `all` config (the default, what `load_dataset(DIR)` gives) holds every suite.
Parquet files are zstd-compressed; every file is written atomically and the folder replaced as a whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym._version import __version__
from lexsym.publish.compact_records import ROW_COLUMNS, SHARED_COLUMNS, SharedTexts, compact_rows
from lexsym.publish.hf_card import CardFacts, dataset_card
from lexsym.publish.hf_layout import RESERVED, SHARED_FILE, data_file, table_file
from lexsym.publish.output_folder import write_folder
from lexsym.publish.parquet_tables import require_pyarrow, write_table
from lexsym.publish.task_sources import read_sources

KIND = "hf"


@dataclass
class HfExport:
    """What a Hugging Face export wrote: rows by suite and split, shared texts, bytes on disk."""

    out: Path
    rows: dict[str, dict[str, int]] = field(default_factory=dict)  # suite -> split -> rows
    shared_texts: int = 0
    bytes_written: int = 0
    prompt_chars: int = 0  # the full prompts' characters, as a naive export would store them
    stored_prompt_chars: int = 0  # what the rows and the shared table hold of them
    warnings: list[str] = field(default_factory=list)


def _prompt_chars(record: dict[str, Any]) -> int:
    prompt = record["prompt"]
    return len(prompt["user"]) + len(prompt.get("system") or "")


def export_hf(
    tasks_dir: str | Path, out: str | Path, *, license: str = "mit", pretty_name: str | None = None
) -> HfExport:
    """Write the dataset folder `out` for the task sets under `tasks_dir` (module docstring). InputError
    (exit 2) for unreadable task files, a suite named like a reserved config, or pyarrow missing."""
    require_pyarrow()
    sources = read_sources(tasks_dir)
    for source in sources:
        if source.name in RESERVED:
            raise InputError(
                f"{source.path}: a suite may not be named {source.name!r} (a config of the export)"
            )
    result = HfExport(Path(out))
    shared = SharedTexts()
    splits: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for source in sources:
        result.warnings += source.warnings
        by_split: dict[str, list[dict[str, Any]]] = {}
        for row in compact_rows(source.records, source.name, shared):
            by_split.setdefault(row["split"], []).append(row)
        splits[source.name] = by_split
        result.rows[source.name] = {split: len(rows) for split, rows in by_split.items()}
        result.prompt_chars += sum(_prompt_chars(record) for record in source.records)
        result.stored_prompt_chars += sum(
            len(row["user_head"]) + len(row["user_tail"]) for rows in by_split.values() for row in rows
        )
    result.shared_texts = len(shared)
    result.stored_prompt_chars += sum(len(text) for text in shared.values())

    def fill(folder: Path) -> None:
        sizes = {
            suite: {
                split: write_table(folder / data_file(suite, split), rows, ROW_COLUMNS)
                for split, rows in by_split.items()
            }
            for suite, by_split in splits.items()
        }
        shared_size = write_table(folder / SHARED_FILE, shared.rows(), SHARED_COLUMNS)
        for source in sources:
            if source.table is not None:
                write_atomic(folder / table_file(source.name), json.dumps(source.table, indent=2) + "\n")
        facts = CardFacts(sources, sizes, shared_size, license, pretty_name)
        write_atomic(folder / "README.md", dataset_card(facts))

    provenance = {
        "lexsym_version": __version__,
        "suites": [{"name": s.name, "path": str(s.path), "tasks_sha256": s.sha256} for s in sources],
    }
    written = write_folder(out, KIND, [s.path for s in sources], provenance, fill)
    result.bytes_written = sum(p.stat().st_size for p in written.rglob("*") if p.is_file())
    return result
