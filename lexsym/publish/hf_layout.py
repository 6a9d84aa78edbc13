"""Where things lie in a Hugging Face export folder, and the `configs` the dataset card declares for them.

One config per suite, `all` (the default: every suite) and `contexts` (the shared prompt texts). Paths
follow the Hub's naming of one-shard splits, so the Hub's viewer and `load_dataset` find them unaided.
"""

from __future__ import annotations

from typing import Any

ALL_CONFIG = "all"
SHARED_CONFIG = "contexts"
SHARED_SPLIT = "shared"
SHARED_FILE = f"contexts/{SHARED_SPLIT}-00000-of-00001.parquet"
RESERVED = (ALL_CONFIG, SHARED_CONFIG)


def data_file(suite: str, split: str) -> str:
    """Where a suite's split lies in the folder."""
    return f"data/{suite}/{split}-00000-of-00001.parquet"


def table_file(suite: str) -> str:
    """Where the what-if table a suite's gold rests on lies (`lexsym schema table`), when it has one."""
    return f"tables/{suite}.json"


def split_order(splits: list[str]) -> list[str]:
    """dev, then test, then any other split by name."""
    known = {"dev": 0, "test": 1}
    return sorted(splits, key=lambda split: (known.get(split, 2), split))


def configs(rows: dict[str, dict[str, int]]) -> list[dict[str, Any]]:
    """The card's `configs`: `all` (default), each suite, then `contexts`; `rows` is suite -> split -> n."""
    every = split_order(list({split for splits in rows.values() for split in splits}))
    found = [
        {
            "config_name": ALL_CONFIG,
            "default": True,
            "data_files": [
                {"split": split, "path": [data_file(suite, split) for suite in rows if split in rows[suite]]}
                for split in every
            ],
        }
    ]
    for suite, splits in rows.items():
        found.append(
            {
                "config_name": suite,
                "data_files": [
                    {"split": split, "path": data_file(suite, split)} for split in split_order(list(splits))
                ],
            }
        )
    found.append({"config_name": SHARED_CONFIG, "data_files": [{"split": SHARED_SPLIT, "path": SHARED_FILE}]})
    return found
