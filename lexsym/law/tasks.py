"""The five tasks the law answers for a case (OpenExempt's AE, EC, EV, NA, OE), in pipeline order."""

from __future__ import annotations

from enum import Enum
from typing import Any


class Task(str, Enum):
    """The five tasks of the pipeline, in order (OpenExempt's task ids 1..5)."""

    AE = "AE"
    EC = "EC"
    EV = "EV"
    NA = "NA"
    OE = "OE"

    @property
    def number(self) -> int:
        return list(Task).index(self) + 1

    @classmethod
    def parse(cls, value: Any) -> Task:
        if isinstance(value, Task):
            return value
        if isinstance(value, int) or (isinstance(value, str) and value.isdigit()):
            number = int(value)
            if not 1 <= number <= 5:
                raise ValueError(f"task number {number} is not 1..5")
            return list(Task)[number - 1]
        return cls(str(value).upper())
