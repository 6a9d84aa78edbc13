"""What one property-test example costs under each oracle: prints medians per case, side by side.

Why: issue 16 found a shrinking hypothesis run of the monotonicity property (docs/testing.md, example 3)
slow, each example costing two full solves. `lexsym.testing.optimal_non_exempt` answers only the optimum
value: pass 1 for one jurisdiction, then the MILP (HiGHS) or lexsym's allocator on the contract. This
measures, on the same seeded cases and interleaved case by case (the oracles take turns going first):

- `lexsym.solve` (all five tasks), warm;
- `optimal_non_exempt(case, method="milp")` and `method="allocator"`, one case at a time;
- `optimal_non_exempt_many(cases)`, the batch's wall time divided by its cases.

    python3 benchmarks/property_oracles.py [--cases 40] [--sizes 2 4 8]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import lexsym
from lexsym.testing import optimal_non_exempt, optimal_non_exempt_many, random_federal_case

ORACLES = {
    "lexsym.solve": lambda case: lexsym.solve(case, jurisdictions=["US"]).result("US").non_exempt_total,
    "fast, MILP": lambda case: optimal_non_exempt(case, method="milp"),
    "fast, allocator": lambda case: optimal_non_exempt(case, method="allocator"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40, help="cases per size (default 40)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2, 4, 8], help="asset counts")
    options = parser.parse_args()
    names = [*ORACLES, "fast batch, MILP"]
    print(f"median ms per case over {options.cases} seeded federal cases (lower is better)")
    print(f"{'assets':>6}  " + "  ".join(f"{name:>17}" for name in names) + "  solve / fast MILP")
    for size in options.sizes:
        rng = random.Random(size)
        cases = [random_federal_case(rng, min_assets=size, max_assets=size) for _ in range(options.cases)]
        for oracle in ORACLES.values():  # warm: clingo loads the rules once per process
            oracle(cases[0])
        times: dict[str, list[float]] = {name: [] for name in ORACLES}
        for index, case in enumerate(cases):
            order = list(ORACLES)
            order = order[index % len(order) :] + order[: index % len(order)]
            answers = set()
            for name in order:
                started = time.perf_counter()
                answers.add(ORACLES[name](case))
                times[name].append(time.perf_counter() - started)
            if len(answers) != 1:
                raise SystemExit(f"{case.id}: the oracles disagree: {sorted(answers)}")
        started = time.perf_counter()
        batch = optimal_non_exempt_many(cases, method="milp")
        per_case = (time.perf_counter() - started) / len(cases)
        if batch != [ORACLES["fast, MILP"](case) for case in cases]:
            raise SystemExit(f"size {size}: the batch disagrees with case-by-case answers")
        medians = [statistics.median(times[name]) * 1000 for name in ORACLES] + [per_case * 1000]
        ratio = medians[0] / medians[1]
        print(f"{size:>6}  " + "  ".join(f"{m:>17.2f}" for m in medians) + f"  {ratio:>16.1f}x")


if __name__ == "__main__":
    main()
