"""Where the project's data (catalogue, people, templates, suites) lives: in the wheel, or in the checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError


@cache
def data_dir(name: str) -> Path:
    """`data/<name>` of the checkout, or the copy the wheel ships as `lexsym/_data/<name>`."""
    package = Path(__file__).resolve().parents[1]  # lexsym/, whose _data/ the wheel ships
    for candidate in (package / "_data" / name, package.parent / "data" / name):
        if candidate.is_dir():
            return candidate
    raise InputError(f"cannot find the data directory data/{name}")


def read_data_yaml(name: str, filename: str) -> Any:
    import yaml

    path = data_dir(name) / filename
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise InputError(f"{path}: cannot read ({error.__class__.__name__})") from None
