"""What every verb of the `lexsym` command shares: the one-line error and the checks of shared options."""

from __future__ import annotations

import sys
from typing import NoReturn

ROWS = ("task", "variant", "suite")
"""What a score table's rows may be (`--by`) without a task set to look fields up in (`lexsym run`)."""


MAX_MESSAGE = 2000
"""Characters of an error shown: a message quoting a hostile value whole ran to megabytes (issue 19)."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `lexsym: error: message` on stderr, on one line of at most MAX_MESSAGE characters, and exit
    with `code` (2: bad input)."""
    message = " ".join(message.splitlines())
    if len(message) > MAX_MESSAGE:
        message = f"{message[:MAX_MESSAGE]}… ({len(message) - MAX_MESSAGE:,} more characters)"
    sys.stderr.write(f"lexsym: error: {message}\n")
    sys.exit(code)


def check_rows(by: str) -> None:
    """Refuse a `--by` that is not a row kind of the score table."""
    if by not in ROWS:
        fail(f"--by must be task, variant or suite, not {by!r}", 2)


def check_numbers(values: dict, ranges: dict[str, tuple[float, float]]) -> None:
    """Refuse a numeric option that is NaN, infinite or out of its range, naming the option (exit 2)."""
    import math

    for name, (low, high) in ranges.items():
        value = values.get(name)
        if value is None:
            continue
        if not math.isfinite(value) or not low <= value <= high:
            option = "--" + name.replace("_", "-")
            fail(f"{option} must be a number from {low:g} to {high:g}, not {value!r}", 2)


def by_fields(by: str, rows: tuple[str, ...] = ROWS) -> tuple[str, ...]:
    """The fields of a `--by FIELD[,FIELD]` that slices (`lexsym.scoring.slices`), or () for one of the
    table's own `rows` alone (a score table's: task, variant, suite). Whether the task set has the fields
    is checked where it is read."""
    from lexsym._util.errors import InputError
    from lexsym.scoring.slices import parse_fields

    try:
        fields = parse_fields(by)
    except InputError as error:
        fail(str(error), 2)
    return () if len(fields) == 1 and fields[0] in rows else fields
