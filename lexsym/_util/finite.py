"""JSON has no word for NaN or infinity: numbers that are undefined are written as null, and said where.

A statistic can be undefined for a reason (a correlation of raters whose grades never vary); writing NaN
would make the file unreadable by any strict JSON reader, so every writer of numbers passes through here.
"""

from __future__ import annotations

import math
from typing import Any


def finite(value: Any, undefined: list[str] | None = None, path: str = "") -> Any:
    """`value` with every NaN and infinity as None; the JSON path of each is appended to `undefined`."""
    if isinstance(value, float) and not math.isfinite(value):
        if undefined is not None:
            undefined.append(path or "$")
        return None
    if isinstance(value, dict):
        return {
            key: finite(item, undefined, f"{path}.{key}" if path else str(key)) for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [finite(item, undefined, f"{path}[{index}]") for index, item in enumerate(value)]
    return value
