"""Cases grounded together (`lexsym.law.case_tagging`) give exactly what each case gives alone.

The batch path is only a speed-up: every solution, check verdict and error must be the one the single-case
path gives, byte for byte, across states, joint filings, what-if tables and cases that fail."""

from __future__ import annotations

import random

import pytest

from lexsym.check.checker import ClaimedSchedule, check_schedules, check_schedules_many
from lexsym.generate.sampling import sample_scenario
from lexsym.generate.suites import load_suite
from lexsym.law.case import Case
from lexsym.law.case_tagging import NotTaggable, parse_case_facts
from lexsym.law.solver import solve, solve_cases
from lexsym.law.whatif import parse_table
from lexsym.testing import random_federal_case

D2 = "11 U.S.C. § 522(d)(2)"


def _suite_cases(name: str, count: int) -> list[Case]:
    datasets = load_suite(name)
    return [sample_scenario(datasets[i % len(datasets)].config, i).case for i in range(count)]


def _federal_cases(seed: int, count: int) -> list[Case]:
    rng = random.Random(seed)
    states = ["OR", "AZ", "IL", "PA", "WI"]
    return [
        random_federal_case(rng, min_assets=1, max_assets=6, joint=i % 2 == 0, state=states[i % 5])
        for i in range(count)
    ]


def _dumped(results: list) -> list[str]:
    return [
        r.model_dump_json() if not isinstance(r, Exception) else f"{type(r).__name__}: {r}" for r in results
    ]


@pytest.mark.parametrize(
    "cases",
    [
        pytest.param(lambda: _federal_cases(20261202, 24), id="federal-and-five-states"),
        pytest.param(lambda: _suite_cases("basic", 12) + _suite_cases("obfuscation", 12), id="suites"),
    ],
)
def test_solutions_are_byte_identical_to_solving_one_by_one(cases):
    cases = cases()
    assert _dumped(solve_cases(cases)) == _dumped([solve(case) for case in cases])
    assert _dumped(solve_cases(cases, all_jurisdictions=True)) == _dumped(
        [solve(case, all_jurisdictions=True) for case in cases]
    )


def test_a_table_and_a_failing_case_keep_their_own_results():
    table = parse_table(
        {
            "name": "lower (d)(2)",
            "exemptions": [
                {
                    "citation": D2,
                    "jurisdiction": "US",
                    "single": {"limit": 1000, "item_count": 1},
                    "joint": {"limit": 2000, "item_count": 2},
                }
            ],
        }
    )
    cases = _federal_cases(7, 6)
    broken = cases[2].model_copy(
        update={"assets": [cases[2].assets[0].model_copy(update={"applicable_exemptions": ["no such law"]})]}
    )
    cases[2] = broken
    together = solve_cases(cases, tables=[table])
    alone = []
    for case in cases:
        try:
            alone.append(solve(case, tables=[table]))
        except Exception as error:
            alone.append(error)
    assert _dumped(together) == _dumped(alone)
    assert isinstance(together[2], Exception) and "no such law" in str(together[2])


def test_checking_many_cases_gives_each_case_s_own_verdicts():
    cases = _federal_cases(11, 12)
    items = []
    for case, solution in zip(cases, solve_cases(cases), strict=True):
        best = solution.optimal
        claims = [(c.asset_id, c.citation, c.amount) for c in best.schedule]
        schedules = [
            ClaimedSchedule(best.jurisdiction, claims),
            ClaimedSchedule(best.jurisdiction, [(a, c, v * 2 + 1) for a, c, v in claims]),
            ClaimedSchedule(None, claims[:-1]),
            ClaimedSchedule("AZ", claims),
        ]
        items.append((case, schedules, solution))
    alone = [repr(check_schedules(case, schedules, solution=solution)) for case, schedules, solution in items]
    assert [repr(v) for v in check_schedules_many(items)] == alone


def test_case_facts_are_read_as_one_plain_fact_per_line():
    facts = parse_case_facts('asset("a). b(2).").\nfiling(joint).\nchecking.\nvalue("x",1..3).\n')
    assert facts == [
        ("asset", '("a). b(2).").'),
        ("filing", "(joint)."),
        ("checking", "."),
        ("value", '("x",1..3).'),
    ]
    for program in ["a(1). b(2).", "a(X) :- b(X).", "a(1)", "#const n=1.", "a(1;2).", "a(1) % note"]:
        with pytest.raises(NotTaggable):
            parse_case_facts(program)


def test_a_normal_batch_is_grounded_together_and_split_back_exactly():
    from lexsym.law.clingo_runner import solve_stratified_together
    from lexsym.law.first_pass import case_program
    from lexsym.law.rules import case_encoding_files, rules_root, statute_files, stratified_files
    from lexsym.law.stratified import solve_stratified

    root = rules_root()
    files = [*statute_files(root, ["US", "OR"]), *case_encoding_files(root)]
    programs = [case_program(case) for case in _federal_cases(3, 8) if case.domicile[0].state == "OR"]
    programs += [case_program(case) for case in _federal_cases(4, 3)][:1]
    together = solve_stratified_together(files, programs, stratified_files(root))
    assert together is not None, "the batch fell back to one-by-one solving"
    for program, shown in zip(programs, together, strict=True):
        assert sorted(map(str, shown)) == sorted(map(str, solve_stratified(files, program)))
    assert solve_stratified_together(files, programs[:1], stratified_files(root)) is None  # one: alone
