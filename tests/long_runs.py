"""How many examples the long property runs draw: a tenth in the default test run (so CI always runs a
bounded sample of each), every one with LEXSYM_LONG_RUNS=full (with HYPOTHESIS_PROFILE=dated, a new but
reproducible draw each day)."""

from __future__ import annotations

import os

FULL = os.environ.get("LEXSYM_LONG_RUNS", "").lower() == "full"


def long_run(examples: int) -> int:
    """`examples` in a full run, a tenth of them (at least 10) otherwise."""
    return examples if FULL else max(10, examples // 10)
