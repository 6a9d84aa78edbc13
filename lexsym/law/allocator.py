"""Optimal allocation of one jurisdiction's contract with clingo-lpx (tasks NA and OE).

A thin layer over `encodings/allocate.lp`: it runs the optimiser, checks the answer is in whole dollars
(it must be: with the discrete choices fixed the constraints are a network flow), and returns plain data.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from lexsym._util.errors import SolveError
from lexsym.law.allocation import AllocationProblem
from lexsym.law.clingo_runner import LpxResult, optimise_lpx
from lexsym.law.rules import allocation_encoding, rules_root


@dataclass
class Allocation:
    """An optimal schedule: dollars per (claimant, asset, exemption), and fallback use per pool."""

    protected: int
    non_exempt: int
    proven: bool
    amounts: dict[tuple[str, str, str], int] = field(default_factory=dict)
    fallback_used: dict[tuple[str, str], int] = field(default_factory=dict)
    seconds: float = 0.0


def split_exists(
    problem: AllocationProblem, totals: dict[tuple[str, str], int], *, root: Path | None = None
) -> bool:
    """Whether the claimants can divide these claim totals ((asset, exemption) -> dollars) between them so
    that every limit of the contract holds (the checker's last question in joint cases)."""
    from lexsym.law.facts import asp_string

    fixed = "".join(f"fixed_claim({asp_string(a)},{e},{v}).\n" for (a, e), v in sorted(totals.items()))
    if not problem.claim_options():
        return not any(totals.values())
    root = root or rules_root()
    try:
        optimise_lpx(allocation_encoding(root), problem.to_facts() + fixed)
    except SolveError:
        return False
    return True


def allocate(problem: AllocationProblem, *, root: Path | None = None, time_limit: int = 0) -> Allocation:
    """Find a schedule protecting the most value; `proven` says the optimum was proven."""
    if not problem.claim_options():
        return Allocation(protected=0, non_exempt=problem.total_value, proven=True)
    root = root or rules_root()
    result = optimise_lpx(allocation_encoding(root), problem.to_facts(), time_limit=time_limit)
    if any(value.denominator != 1 for value in result.values.values()):
        result = _whole_dollar_vertex(root, problem, result)
    amounts: dict[tuple[str, str, str], int] = {}
    fallback_used: dict[tuple[str, str], int] = defaultdict(int)
    for variable, value in result.values.items():
        if value.denominator != 1:
            raise SolveError(f"the optimiser returned a fractional amount {variable}={value}")
        if value == 0:
            continue
        if variable.match("x", 3):
            claimant, asset, exemption = variable.arguments
            amounts[(str(claimant), asset.string, str(exemption))] = int(value)
        elif variable.match("f", 2):
            exemption, scope = variable.arguments
            fallback_used[(str(exemption), str(scope))] = int(value)
    protected = sum(amounts.values())
    if result.objective is not None and protected != result.objective:
        raise SolveError(f"schedule total {protected} differs from the objective {result.objective}")
    return Allocation(
        protected=protected,
        non_exempt=problem.total_value - protected,
        proven=result.proven,
        amounts=dict(sorted(amounts.items())),
        fallback_used=dict(fallback_used),
        seconds=result.seconds,
    )


_CHOICES = (("slot", 4), ("use", 1), ("cuse", 2), ("pick", 3), ("solo_used", 2))


def _whole_dollar_vertex(root: Path, problem: AllocationProblem, found: LpxResult) -> LpxResult:
    """The same schedule structure re-solved on its own: the amounts of the best model are an LP optimum
    under the search's last bound ("at least one dollar more than the previous model"), and where that row
    is tight the LP may return a fractional vertex. With the discrete choices pinned and no earlier bound,
    the constraints are a network flow again (allocate.lp's design note) and the optimum is in whole
    dollars, with the same objective."""
    chosen = {str(symbol) for symbol in found.symbols if any(symbol.match(n, a) for n, a in _CHOICES)}
    pins = [f"pinned({atom})." for atom in sorted(chosen)]
    for name, arity in _CHOICES:
        args = ",".join(f"X{i}" for i in range(arity))
        pins.append(f":- {name}({args}), not pinned({name}({args})).")
        pins.append(f":- pinned({name}({args})), not {name}({args}).")
    pins.append("#defined pinned/1.")
    again = optimise_lpx(allocation_encoding(root), problem.to_facts() + "\n".join(pins) + "\n")
    if again.objective != found.objective:
        raise SolveError(f"re-solving the optimal schedule gave {again.objective}, not {found.objective}")
    return again
