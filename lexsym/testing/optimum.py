"""The optimum non-exempt total of cases, fast: the oracle for properties that need only the optimal value.

`lexsym.solve` answers all five tasks: allowable jurisdictions, classification, valuation, a schedule with
a justification for every claim. A property such as "more value never means less non-exempt" needs one
number per case. This path runs pass 1 for one jurisdiction (grounded together for a batch of cases) and
then the exact MILP (HiGHS) on the allocation contract, or lexsym's allocator where highspy is missing;
`benchmarks/property_oracles.py` measures it against `lexsym.solve` side by side. The number is the one
`lexsym.solve(case).result(jurisdiction).non_exempt_total` gives (a test holds them equal).
"""

from __future__ import annotations

from collections.abc import Sequence

from lexsym._util.errors import LexsymError
from lexsym.law.allocation import AllocationProblem
from lexsym.law.amount_notes import raise_on_missing_amounts
from lexsym.law.case import Case
from lexsym.law.first_pass import FirstPass, first_pass_many
from lexsym.law.rules import rules_root
from lexsym.law.systems import system_constant


def _milp_available() -> bool:
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


def _least_non_exempt(problem: AllocationProblem, method: str) -> int:
    if method == "milp":
        from lexsym.oracles.milp import solve_milp

        return solve_milp(problem).non_exempt
    from lexsym.law.allocator import allocate

    allocation = allocate(problem)
    if not allocation.proven:
        raise LexsymError("the allocator stopped before proving its schedule optimal")
    return allocation.non_exempt


def optimal_non_exempt_many(
    cases: Sequence[Case], jurisdiction: str = "US", *, rules: str | None = None, method: str = "auto"
) -> list[int]:
    """The least non-exempt total of each case under `jurisdiction` (US, or a state's USPS code), in order.

    method: "milp" (HiGHS, needs highspy), "allocator" (clingo-lpx, as `lexsym.solve` uses), or "auto"
    (the MILP when highspy is installed). Raises the first case's error, as `lexsym.solve` would (a
    missing amount, a rule defect)."""
    if method not in ("auto", "milp", "allocator"):
        raise ValueError(f"method must be auto, milp or allocator, not {method!r}")
    chosen = ("milp" if _milp_available() else "allocator") if method == "auto" else method
    root = rules_root(rules)
    code = jurisdiction.upper()
    constant = system_constant(code)
    totals = []
    for case, result in zip(cases, first_pass_many(cases, root, jurisdictions=[code]), strict=True):
        if isinstance(result, LexsymError):
            raise result
        first: FirstPass = result[1]
        raise_on_missing_amounts(first, [code], case.petition_date)
        totals.append(_least_non_exempt(AllocationProblem.from_rows(first.rows, constant), chosen))
    return totals


def optimal_non_exempt(
    case: Case, jurisdiction: str = "US", *, rules: str | None = None, method: str = "auto"
) -> int:
    """`optimal_non_exempt_many` for one case."""
    return optimal_non_exempt_many([case], jurisdiction, rules=rules, method=method)[0]
