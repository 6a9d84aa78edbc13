"""A greedy allocation: the naive floor the baseline model answers with, and a yardstick for the optimum.

Assets are taken from the most valuable down; each takes what its exemptions still have room for, in
citation order, respecting every limit of the contract (per-debtor exclusions and item classes included)
except the fallback (never used, so the schedule stays valid but leaves value on the table). It never
searches, so it is fast and often suboptimal.
"""

from __future__ import annotations

from collections import defaultdict

from lexsym.law.allocation import AllocationProblem


def greedy_allocation(problem: AllocationProblem) -> dict[tuple[str, str, str], int]:
    """(claimant, asset, exemption) -> dollars, a valid but usually suboptimal schedule."""
    pool_left = dict(problem.pool_limits)
    items_left = dict(problem.pool_items)
    item_room: dict[tuple[str, tuple[str, str]], int] = {}  # (asset, pool) -> what its item claim has left
    group_left = dict(problem.group_limits)
    used_exemptions: set[str] = set()
    used_by: dict[str, set[str]] = defaultdict(set)  # claimant -> exemptions they claimed under
    class_assets: dict[tuple[str, str, str], set[str]] = defaultdict(set)  # (exemption, scope, class)
    amounts: dict[tuple[str, str, str], int] = defaultdict(int)
    for asset in sorted(problem.asset_values, key=lambda a: (-problem.asset_values[a], a)):
        value_left = problem.asset_values[asset]
        interest_left = {c: problem.interests.get((c, asset), 0) for c in problem.claimants}
        claimed_here: set[str] = set()
        for a, exemption in sorted(problem.eligible, key=lambda pair: pair[1]):
            if a != asset or value_left <= 0:
                continue
            if any((exemption, other) in problem.exclusions for other in used_exemptions):
                continue
            if (exemption in problem.solo and claimed_here) or (claimed_here & problem.solo):
                continue
            asset_cap = problem.asset_caps.get((asset, exemption))
            for claimant in problem.claimants:
                scope = problem.draws.get((exemption, claimant))
                if scope is None or interest_left[claimant] <= 0:
                    continue
                if any((exemption, other) in problem.claimant_exclusions for other in used_by[claimant]):
                    continue
                pool = (exemption, scope)
                classes = _classes(problem, asset, exemption, scope)
                if any(
                    asset not in class_assets[key] and _units(problem, class_assets[key] | {asset}, key) > n
                    for key, n in classes
                ):
                    continue
                room = min(value_left, interest_left[claimant])
                if pool in pool_left:
                    room = min(room, pool_left[pool])
                if pool in items_left:
                    # One item claim per asset and pool, shared by the claimants drawing on the pool.
                    if (asset, pool) not in item_room and items_left[pool] <= 0:
                        continue
                    claim_cap = problem.claim_caps.get(pool, problem.asset_values[asset])
                    room = min(room, item_room.get((asset, pool), claim_cap))
                cap = problem.item_caps.get((asset, exemption, scope))
                if cap is not None:
                    room = min(
                        room,
                        cap
                        - sum(
                            v
                            for (c, x, e), v in amounts.items()
                            if x == asset and e == exemption and problem.draws.get((e, c)) == scope
                        ),
                    )
                if asset_cap is not None:
                    room = min(
                        room,
                        asset_cap
                        - sum(v for (c, x, e), v in amounts.items() if x == asset and e == exemption),
                    )
                for key in problem.groups_capping(claimant, asset, exemption):
                    room = min(room, group_left[key])
                if room <= 0:
                    continue
                amounts[(claimant, asset, exemption)] += room
                value_left -= room
                interest_left[claimant] -= room
                claimed_here.add(exemption)
                used_exemptions.add(exemption)
                used_by[claimant].add(exemption)
                for key, _ in classes:
                    class_assets[key].add(asset)
                if pool in pool_left:
                    pool_left[pool] -= room
                if pool in items_left:
                    if (asset, pool) not in item_room:
                        items_left[pool] -= 1
                        item_room[(asset, pool)] = problem.claim_caps.get(pool, problem.asset_values[asset])
                    item_room[(asset, pool)] -= room
                for key in problem.groups_capping(claimant, asset, exemption):
                    group_left[key] -= room
    return dict(amounts)


def _units(problem: AllocationProblem, assets: set[str], key: tuple[str, str, str]) -> int:
    """The units of class `key` (exemption, scope, class) that claims on `assets` spend."""
    exemption, _scope, item_class = key
    return sum(problem.class_weight(asset, exemption, item_class) for asset in assets)


def _classes(problem: AllocationProblem, asset: str, exemption: str, scope: str) -> list[tuple[tuple, int]]:
    """The item classes that limit how many assets the pool (exemption, scope) claims, with their limits."""
    return [
        ((exemption, scope, k), n)
        for (e, s, k), n in problem.class_limits.items()
        if e == exemption and s == scope and (asset, exemption, k) in problem.class_members
    ]
