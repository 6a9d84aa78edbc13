"""lexsym: U.S. bankruptcy exemption law as an answer set program, with an LLM test bench around it.

The public API is small: read a case, solve it, and read the Solution. Names are imported on first use,
so `lexsym check` and `lexsym solve` start without loading what they do not need.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from lexsym._version import __version__

if TYPE_CHECKING:
    from lexsym.law.batch import solve_many
    from lexsym.law.case import Case, load_case, parse_case
    from lexsym.law.solution import Solution
    from lexsym.law.solver import solve
    from lexsym.law.whatif import ExemptionTable, load_table

_EXPORTS = {
    "Case": "lexsym.law.case",
    "load_case": "lexsym.law.case",
    "parse_case": "lexsym.law.case",
    "Solution": "lexsym.law.solution",
    "solve": "lexsym.law.solver",
    "solve_many": "lexsym.law.batch",
    "ExemptionTable": "lexsym.law.whatif",
    "load_table": "lexsym.law.whatif",
}

__all__ = [
    "Case",
    "ExemptionTable",
    "Solution",
    "__version__",
    "load_case",
    "load_table",
    "parse_case",
    "solve",
    "solve_many",
]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'lexsym' has no attribute {name!r}")
