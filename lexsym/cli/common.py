"""What every verb of the `lexsym` command shares: the one-line error and the checks of shared options."""

from __future__ import annotations

import sys
from typing import NoReturn

ROWS = ("task", "variant", "suite")
"""What a score table's rows may be (`--by`)."""


def fail(message: str, code: int = 2) -> NoReturn:
    """Print `lexsym: error: message` on stderr and exit with `code` (2: bad input)."""
    sys.stderr.write(f"lexsym: error: {message}\n")
    sys.exit(code)


def check_rows(by: str) -> None:
    """Refuse a `--by` that is not a row kind of the score table."""
    if by not in ROWS:
        fail(f"--by must be task, variant or suite, not {by!r}", 2)
