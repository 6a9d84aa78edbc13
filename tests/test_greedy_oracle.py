"""The greedy allocation (the baseline model's answer) is valid under every limit of the contract and
never beats the optimum. It once ignored per-debtor exclusions and item classes, so a baseline answer
could claim under two exemptions one debtor may not combine (found by docs/testing.md's first example)."""

from __future__ import annotations

from collections import defaultdict

from hypothesis import given, settings

from lexsym.law.allocation import AllocationProblem
from lexsym.law.allocator import allocate, split_exists
from lexsym.oracles.greedy import greedy_allocation
from lexsym.testing import allocation_problems


def _totals(amounts: dict[tuple[str, str, str], int]) -> dict[tuple[str, str], int]:
    totals: dict[tuple[str, str], int] = defaultdict(int)
    for (_claimant, asset, exemption), dollars in amounts.items():
        totals[(asset, exemption)] += dollars
    return dict(totals)


@settings(max_examples=60, deadline=None)
@given(allocation_problems(max_assets=4, max_exemptions=3))
def test_the_greedy_schedule_is_valid_and_never_beats_the_optimum(problem):
    amounts = greedy_allocation(problem)
    assert split_exists(problem, _totals(amounts))
    assert sum(amounts.values()) <= allocate(problem).protected


def test_a_debtor_never_combines_exemptions_the_law_keeps_apart():
    problem = AllocationProblem(
        claimants=["debtor"],
        asset_values={"a": 1, "b": 1},
        interests={("debtor", "a"): 1, ("debtor", "b"): 1},
        eligible={("a", "ex_2"), ("b", "ex_1")},
        draws={("ex_1", "debtor"): "household", ("ex_2", "debtor"): "household"},
        pool_limits={("ex_2", "household"): 1},
        claimant_exclusions={("ex_1", "ex_2"), ("ex_2", "ex_1")},
    )
    amounts = greedy_allocation(problem)
    assert len({exemption for (_, _, exemption) in amounts}) == 1 and sum(amounts.values()) == 1


def test_an_item_class_limit_is_kept():
    problem = AllocationProblem(
        claimants=["debtor"],
        asset_values={"rifle": 500, "shotgun": 400},
        interests={("debtor", "rifle"): 500, ("debtor", "shotgun"): 400},
        eligible={("rifle", "guns"), ("shotgun", "guns")},
        draws={("guns", "debtor"): "debtor"},
        class_limits={("guns", "debtor", "long_gun"): 1},
        class_members={("rifle", "guns", "long_gun"), ("shotgun", "guns", "long_gun")},
    )
    assert greedy_allocation(problem) == {("debtor", "rifle", "guns"): 500}
