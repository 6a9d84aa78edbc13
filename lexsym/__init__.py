"""lexsym: U.S. bankruptcy exemption law as an answer set program, with an LLM test bench around it.

The public API is small: read a case, solve it, and read the Solution. Everything else lives in modules
named for what they hold.
"""

from lexsym._version import __version__
from lexsym.case import Case, load_case, parse_case
from lexsym.solution import Solution
from lexsym.solver import solve
from lexsym.whatif import ExemptionTable, load_table

__all__ = [
    "Case",
    "ExemptionTable",
    "Solution",
    "__version__",
    "load_case",
    "load_table",
    "parse_case",
    "solve",
]
