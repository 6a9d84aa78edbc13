"""Generators of allocation contracts, for differential tests of the allocator and benchmarks.

OpenExempt's cases give each asset at most two exemptions, one household pool each: a greedy allocator
passes them. These generators go further, into the shapes where greedy and branch-and-bound heuristics
go wrong: several exemptions competing for one asset, joint debtors with split interests, per-debtor and
household pools side by side, item-counted pools, per-item caps, fallbacks, sub-limits, caps from findings
of need, mutual exclusions (for the case and per claimant), item classes, unlimited pools and worthless
assets.

Each generator is written once against `lexsym.testing.choices.Choices`, so the same code backs a
hypothesis strategy (shrinkable, for tests) and a seeded `random.Random` function (repeatable, for
benchmarks). Whole federal-statute cases are `lexsym.testing.federal_cases`.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from lexsym.law.allocation import AllocationProblem
from lexsym.testing.choices import Choices, DrawnChoices, SeededChoices

HOUSEHOLD = "household"


def allocation_problems(
    *,
    min_assets: int = 1,
    max_assets: int = 6,
    max_exemptions: int = 5,
    joint: bool | None = None,
    max_value: int = 300_000,
) -> st.SearchStrategy[AllocationProblem]:
    """Allocation contracts well beyond OpenExempt's, for testing an allocator against an oracle.

    min_assets, max_assets: how many assets (each may be worth $0).
    max_exemptions: how many exemptions compete; each asset is eligible for any subset of them.
    joint: True for debtor and spouse, False for the debtor alone, None for either.
    max_value: the most one asset is worth, in dollars (limits are drawn on the same scale).
    """
    _check_sizes(min_assets, max_assets, max_exemptions)

    @st.composite
    def build(draw: Any) -> AllocationProblem:
        return _problem(
            DrawnChoices(draw),
            min_assets=min_assets,
            max_assets=max_assets,
            max_exemptions=max_exemptions,
            joint=joint,
            max_value=max_value,
        )

    return build()


def random_allocation_problem(
    rng: random.Random,
    *,
    min_assets: int = 1,
    max_assets: int = 6,
    max_exemptions: int = 5,
    joint: bool | None = None,
    max_value: int = 300_000,
) -> AllocationProblem:
    """One contract from `rng`, drawn as `allocation_problems` draws them: for seeded benchmarks."""
    _check_sizes(min_assets, max_assets, max_exemptions)
    return _problem(
        SeededChoices(rng),
        min_assets=min_assets,
        max_assets=max_assets,
        max_exemptions=max_exemptions,
        joint=joint,
        max_value=max_value,
    )


def _check_sizes(min_assets: int, max_assets: int, max_exemptions: int) -> None:
    if not 0 <= min_assets <= max_assets:
        raise ValueError("need 0 <= min_assets <= max_assets")
    if max_exemptions < 1:
        raise ValueError("need max_exemptions >= 1")


def _dollars(choose: Choices, max_value: int) -> int:
    """A dollar figure on one of three scales, so that limits and values meet often."""
    scale = choose.integer(0, 2)
    return choose.integer(0, (5_000, 50_000, max_value)[scale])


def _problem(
    choose: Choices,
    *,
    min_assets: int,
    max_assets: int,
    max_exemptions: int,
    joint: bool | None,
    max_value: int,
) -> AllocationProblem:
    is_joint = choose.chance(50) if joint is None else joint
    claimants = ["debtor", "spouse"] if is_joint else ["debtor"]
    assets = [f"asset_{i}" for i in range(1, choose.integer(min_assets, max_assets) + 1)]
    exemptions = [f"ex_{i}" for i in range(1, choose.integer(1, max_exemptions) + 1)]

    values: dict[str, int] = {}
    interests: dict[tuple[str, str], int] = {}
    for asset in assets:
        value = 0 if choose.chance(10) else choose.integer(1, max_value if choose.chance(50) else 5_000)
        values[asset] = value
        owner = choose.pick(["debtor", "spouse", "joint", "split"]) if is_joint else "debtor"
        if owner in ("debtor", "spouse"):
            interests[(owner, asset)] = value
        elif owner == "joint":  # half each, the odd dollar to the debtor (encodings/interests.lp)
            interests[("debtor", asset)] = (value + 1) // 2
            interests[("spouse", asset)] = value // 2
        else:  # unequal shares that still add up to the value
            share = choose.integer(0, value)
            interests[("debtor", asset)] = share
            interests[("spouse", asset)] = value - share

    density = choose.pick([30, 60, 90])
    eligible = {(a, e) for a in assets for e in exemptions if choose.chance(density)}
    problem = AllocationProblem(
        claimants=claimants, asset_values=values, interests=interests, eligible=eligible, draws={}
    )

    scopes: dict[str, list[str]] = {}
    for exemption in exemptions:
        per_claimant = choose.chance(50)
        for claimant in claimants:
            if claimant != "debtor" and choose.chance(5):
                continue  # this exemption is the debtor's alone
            problem.draws[(exemption, claimant)] = claimant if per_claimant else HOUSEHOLD
        scopes[exemption] = sorted(set(s for (e, _), s in problem.draws.items() if e == exemption))
        _limits(choose, problem, exemption, scopes[exemption], max_value)

    for exemption in exemptions:
        _fallback(choose, problem, exemption, scopes, exemptions, max_value)
    _groups(choose, problem, exemptions, max_value)
    for exemption in exemptions:
        if choose.chance(8):
            problem.solo.add(exemption)
    for asset, exemption in sorted(eligible):
        if choose.chance(10):
            problem.asset_caps[(asset, exemption)] = choose.integer(0, max(values[asset], 1))
    for first in exemptions:
        for second in exemptions:
            if first < second and choose.chance(10):
                problem.exclusions |= {(first, second), (second, first)}
            elif first < second and choose.chance(8):
                problem.claimant_exclusions |= {(first, second), (second, first)}
    for exemption in exemptions:
        if choose.chance(15):
            _item_classes(choose, problem, exemption, scopes[exemption])
    return problem


def _item_classes(choose: Choices, problem: AllocationProblem, exemption: str, scopes: list[str]) -> None:
    """One or two item classes on `exemption` ("one rifle or shotgun and one pistol"): each eligible asset in
    none, one or both; each pool may claim in at most 1 or 2 assets of each class. Some classes weigh their
    members instead (Texas homestead acres): 0 to 5 units each, 2 to 8 units per pool."""
    classes = ["class_a", "class_b"][: choose.integer(1, 2)]
    weighted = {item_class for item_class in classes if choose.chance(25)}
    for asset, e in sorted(problem.eligible):
        if e != exemption:
            continue
        for item_class in classes:
            if choose.chance(60):
                problem.class_members.add((asset, exemption, item_class))
                if item_class in weighted:
                    problem.class_weights[(asset, exemption, item_class)] = choose.integer(0, 5)
    for scope in scopes:
        for item_class in classes:
            most = choose.integer(2, 8) if item_class in weighted else choose.integer(1, 2)
            problem.class_limits[(exemption, scope, item_class)] = most


def _limits(
    choose: Choices, problem: AllocationProblem, exemption: str, scopes: list[str], max_value: int
) -> None:
    """Pool limits, item counts and per-item caps of one exemption's pools."""
    if choose.chance(20):
        return  # unlimited, as § 522(d)(12) or (d)(10)(A)
    limit = _dollars(choose, max_value)
    same_for_each = choose.chance(80)  # statutes give each debtor the same figure
    items = choose.integer(1, 3) if choose.chance(35) else 0
    per_item = 1 if choose.chance(50) else choose.integer(2, 4)
    item_cap = _dollars(choose, max_value) if choose.chance(25) else None
    for scope in scopes:
        pool = (exemption, scope)
        if not same_for_each:
            limit = _dollars(choose, max_value)
        problem.pool_limits[pool] = limit
        if items:
            problem.pool_items[pool] = items
            problem.claims_per_item[pool] = per_item
            problem.claim_caps[pool] = limit // items
        if item_cap is not None:
            for asset, e in sorted(problem.eligible):
                if e == exemption and choose.chance(80):
                    problem.item_caps[(asset, exemption, scope)] = item_cap


def _fallback(
    choose: Choices,
    problem: AllocationProblem,
    exemption: str,
    scopes: dict[str, list[str]],
    exemptions: list[str],
    max_value: int,
) -> None:
    """Let the exemption's limited pools take up to F of an earlier exemption's unused limit, as
    § 522(d)(5) takes from (d)(1). The base pool must exist, with a limit, for each scope."""
    own = scopes[exemption]
    if not own or any((exemption, s) not in problem.pool_limits for s in own) or not choose.chance(30):
        return
    bases = [b for b in exemptions if b < exemption and all((b, s) in problem.pool_limits for s in own)]
    if not bases:
        return
    base = choose.pick(bases)
    dollars = _dollars(choose, max_value)
    for scope in own:
        problem.fallbacks[(exemption, scope)] = (base, dollars)


def _groups(choose: Choices, problem: AllocationProblem, exemptions: list[str], max_value: int) -> None:
    """Group caps of the shapes the statutes use: claims under one exemption on some of its assets (the
    § 522(n) IRA cap) or every claim on some assets (the § 522(p) homestead cap), one cap per claimant;
    or one household cap over whole household pools (the Tex. Prop. Code § 42.001(a) aggregate) or over
    every claim on some assets. Each shape keeps the constraint matrix a network's, so optima stay whole."""
    for number in range(choose.integer(0, 2) if choose.chance(30) else 0):
        group = f"grp_{number + 1}"
        shared = sorted({e for (e, _), scope in problem.draws.items() if scope == "household"})
        if shared and choose.chance(25):
            chosen = {e for e in shared if choose.chance(50)}
            members = {(a, e, group) for a, e in sorted(problem.eligible) if e in chosen}
            if members:
                problem.group_members |= members
                problem.group_limits[(group, "household")] = _dollars(choose, max_value)
            continue
        if choose.chance(50):
            exemption = choose.pick(exemptions)
            members = {
                (a, e, group) for a, e in sorted(problem.eligible) if e == exemption and choose.chance(60)
            }
            assets_shape = False
        else:
            assets = {a for a in problem.asset_values if choose.chance(40)}
            members = {(a, e, group) for a, e in sorted(problem.eligible) if a in assets}
            assets_shape = True
        if not members:
            continue
        problem.group_members |= members
        limit = _dollars(choose, max_value)
        if assets_shape and choose.chance(20):
            problem.group_limits[(group, "household")] = limit
            continue
        for claimant in problem.claimants:
            problem.group_limits[(group, claimant)] = (
                limit if choose.chance(80) else _dollars(choose, max_value)
            )
