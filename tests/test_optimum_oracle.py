"""`lexsym.testing.optimal_non_exempt`: the fast oracle gives exactly the number `lexsym.solve` gives."""

from __future__ import annotations

import random

import pytest

import lexsym
from lexsym._util.errors import LexsymError
from lexsym.testing import optimal_non_exempt, optimal_non_exempt_many, random_federal_case


@pytest.mark.parametrize("method", ["milp", "allocator"])
@pytest.mark.parametrize(("jurisdiction", "state"), [("US", "OR"), ("AZ", "AZ"), ("WI", "WI"), ("IL", "IL")])
def test_the_fast_path_agrees_with_solve_case_by_case(method, jurisdiction, state):
    rng = random.Random(f"{jurisdiction}-{method}")
    cases = [random_federal_case(rng, max_assets=6, state=state) for _ in range(12)]
    fast = optimal_non_exempt_many(cases, jurisdiction, method=method)
    slow = [
        lexsym.solve(case, jurisdictions=[jurisdiction]).result(jurisdiction).non_exempt_total
        for case in cases
    ]
    assert fast == slow
    assert len(set(fast)) > 1  # the cases differ: not a constant that agrees by accident
    assert optimal_non_exempt(cases[0], jurisdiction, method=method) == slow[0]


def test_a_large_case_outside_a_batch_and_a_bad_method():
    case = random_federal_case(random.Random(7), min_assets=12, max_assets=12, joint=True)
    assert optimal_non_exempt(case) == lexsym.solve(case).result("US").non_exempt_total
    with pytest.raises(ValueError, match="method must be auto, milp or allocator"):
        optimal_non_exempt(case, method="fast")


def test_a_case_the_solver_refuses_is_refused_here_too():
    case = random_federal_case(random.Random(3), max_assets=2)
    early = case.model_copy(update={"petition_date": case.petition_date.replace(year=2001)})
    with pytest.raises(LexsymError) as solved:
        lexsym.solve(early)
    with pytest.raises(LexsymError) as fast:
        optimal_non_exempt(early)
    assert str(fast.value) == str(solved.value)


def test_the_benchmark_prints_its_table_and_agrees():
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "property_oracles.py"
    done = subprocess.run(
        [sys.executable, str(script), "--cases", "3", "--sizes", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()[1:3]
    assert header.split()[:2] == ["assets", "lexsym.solve"] and row.split()[0] == "2" and row.endswith("x")
