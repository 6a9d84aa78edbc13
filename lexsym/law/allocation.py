"""The allocation contract: everything the optimiser needs for one jurisdiction, as plain Python data.

`encodings/parameters.lp` derives it from the statutes; `encodings/allocate.lp` (clingo-lpx) and the
independent MILP in `lexsym.oracles.milp` both read it. Keeping it as a dataclass lets property tests generate
contracts directly, far beyond what the statutes produce, and lets the MILP never look at ASP.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import clingo

from lexsym.law.facts import asp_string

Pool = tuple[str, str]
"""(exemption id, pool scope): the scope is a claimant (debtor, spouse) or household."""


@dataclass
class AllocationProblem:
    """Claims, pools and limits for one case in one jurisdiction. Missing keys mean "no such limit"."""

    claimants: list[str]
    asset_values: dict[str, int]
    interests: dict[tuple[str, str], int]  # (claimant, asset) -> dollars
    eligible: set[tuple[str, str]]  # (asset, exemption)
    draws: dict[tuple[str, str], str]  # (exemption, claimant) -> pool scope
    pool_limits: dict[Pool, int] = field(default_factory=dict)
    pool_items: dict[Pool, int] = field(default_factory=dict)
    claim_caps: dict[Pool, int] = field(default_factory=dict)
    claims_per_item: dict[Pool, int] = field(default_factory=dict)
    item_caps: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (asset, exemption, scope)
    asset_caps: dict[tuple[str, str], int] = field(default_factory=dict)  # (asset, exemption)
    fallbacks: dict[Pool, tuple[str, int]] = field(default_factory=dict)  # pool -> (base exemption, dollars)
    group_limits: dict[tuple[str, str], int] = field(default_factory=dict)  # (group, claimant|household) -> $
    group_members: set[tuple[str, str, str]] = field(default_factory=set)  # (asset, exemption, group)
    exclusions: set[tuple[str, str]] = field(default_factory=set)  # stated both ways
    claimant_exclusions: set[tuple[str, str]] = field(default_factory=set)  # per claimant, both ways
    class_limits: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (exemption, scope, class)
    class_members: set[tuple[str, str, str]] = field(default_factory=set)  # (asset, exemption, class)
    class_weights: dict[tuple[str, str, str], int] = field(
        default_factory=dict
    )  # member -> units (default 1)
    solo: set[str] = field(default_factory=set)  # exemptions that may not share an asset with another

    @property
    def total_value(self) -> int:
        return sum(self.asset_values.values())

    def groups_capping(self, claimant: str, asset: str, exemption: str) -> list[tuple[str, str]]:
        """The group caps a claim by `claimant` on `asset` under `exemption` counts against: the claimant's
        own, and a household cap shared by every claimant (Tex. Prop. Code § 42.001(a))."""
        return [
            (group, scope)
            for group, scope in self.group_limits
            if scope in (claimant, "household") and (asset, exemption, group) in self.group_members
        ]

    def class_weight(self, asset: str, exemption: str, item_class: str) -> int:
        """How many of the class's units a claim on `asset` spends: 1 (an item), or its weight (acres)."""
        return self.class_weights.get((asset, exemption, item_class), 1)

    def claim_options(self) -> list[tuple[str, str, str, str]]:
        """Every (claimant, asset, exemption, pool) a claim can be made on, in a stable order."""
        options = []
        for asset, exemption in sorted(self.eligible):
            for claimant in self.claimants:
                scope = self.draws.get((exemption, claimant))
                if scope is not None and self.interests.get((claimant, asset), 0) > 0:
                    options.append((claimant, asset, exemption, scope))
        return options

    def to_facts(self) -> str:
        """The contract as the facts `encodings/allocate.lp` reads (jurisdiction argument dropped)."""
        a = asp_string
        lines = [f"claimant({c})." for c in self.claimants]
        lines += [f"asset_value({a(k)},{v})." for k, v in sorted(self.asset_values.items())]
        lines += [f"interest({c},{a(k)},{v})." for (c, k), v in sorted(self.interests.items())]
        lines += [f"eligible({a(k)},{e})." for k, e in sorted(self.eligible)]
        lines += [f"draws({e},{c},{s})." for (e, c), s in sorted(self.draws.items())]
        lines += [f"pool_limit({e},{s},{v})." for (e, s), v in sorted(self.pool_limits.items())]
        lines += [f"pool_items({e},{s},{v})." for (e, s), v in sorted(self.pool_items.items())]
        lines += [f"claim_cap({e},{s},{v})." for (e, s), v in sorted(self.claim_caps.items())]
        lines += [f"claims_per_item({e},{s},{v})." for (e, s), v in sorted(self.claims_per_item.items())]
        lines += [f"item_cap({a(k)},{e},{s},{v})." for (k, e, s), v in sorted(self.item_caps.items())]
        lines += [f"asset_cap({a(k)},{e},{v})." for (k, e), v in sorted(self.asset_caps.items())]
        lines += [f"fallback({e},{s},{b},{v})." for (e, s), (b, v) in sorted(self.fallbacks.items())]
        lines += [f"group_limit({g},{c},{v})." for (g, c), v in sorted(self.group_limits.items())]
        lines += [f"group_member({a(k)},{e},{g})." for k, e, g in sorted(self.group_members)]
        lines += [f"excluded_pair({e1},{e2})." for e1, e2 in sorted(self.exclusions)]
        lines += [f"claimant_excluded_pair({e1},{e2})." for e1, e2 in sorted(self.claimant_exclusions)]
        lines += [f"class_limit({e},{s},{k},{v})." for (e, s, k), v in sorted(self.class_limits.items())]
        lines += [f"class_member({a(x)},{e},{k})." for x, e, k in sorted(self.class_members)]
        lines += [f"class_weight({a(x)},{e},{k},{w})." for (x, e, k), w in sorted(self.class_weights.items())]
        lines += [f"solo({e})." for e in sorted(self.solo)]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_symbols(cls, symbols: Iterable[clingo.Symbol], jurisdiction: str) -> AllocationProblem:
        """Read the contract of jurisdiction `jurisdiction` from the first pass's shown atoms."""
        rows: dict[str, list[tuple]] = {}
        for symbol in symbols:
            rows.setdefault(symbol.name, []).append(decode_arguments(symbol))
        return cls.from_rows(rows, jurisdiction)

    @classmethod
    def from_rows(cls, rows: Mapping[str, list[tuple]], jurisdiction: str) -> AllocationProblem:
        """Read the contract from decoded atoms: predicate name -> argument tuples (see decode_arguments)."""
        problem = cls(claimants=[], asset_values={}, interests={}, eligible=set(), draws={})
        problem.claimants = sorted((c for (c,) in rows.get("claimant", [])), key=lambda c: (c != "debtor", c))
        problem.asset_values = {a: v for a, v in rows.get("asset_value", [])}

        def mine(name: str):
            return (row[1:] for row in rows.get(name, []) if row[0] == jurisdiction)

        # What each claimant may claim in each asset under this jurisdiction (claim_room/4); a contract
        # from rows without it (older callers) falls back to the ownership interests.
        room = {(c, a): v for c, a, v in mine("claim_room")}
        problem.interests = room or {(c, a): v for c, a, v in rows.get("interest", [])}

        problem.eligible = {(a, e) for a, e, _basis in mine("eligible_by")}
        problem.draws = {(e, c): s for e, c, s in mine("draws")}
        problem.pool_limits = {(e, s): v for e, s, v in mine("pool_limit")}
        problem.pool_items = {(e, s): v for e, s, v in mine("pool_items")}
        problem.claim_caps = {(e, s): v for e, s, v in mine("claim_cap")}
        problem.claims_per_item = {(e, s): v for e, s, v in mine("claims_per_item")}
        problem.item_caps = {(a, e, s): v for a, e, s, v in mine("item_cap")}
        problem.asset_caps = {(a, e): v for a, e, v in mine("asset_cap")}
        problem.fallbacks = {(e, s): (b, v) for e, s, b, v in mine("fallback")}
        problem.group_limits = {(g, c): v for g, c, v in mine("group_limit")}
        problem.group_members = {(a, e, g) for a, e, g in mine("group_member")}
        problem.exclusions = {(e1, e2) for e1, e2 in mine("excluded_pair")}
        problem.claimant_exclusions = {(e1, e2) for e1, e2 in mine("claimant_excluded_pair")}
        problem.class_limits = {(e, s, k): v for e, s, k, v in mine("class_limit")}
        problem.class_members = {(a, e, k) for a, e, k in mine("class_member")}
        problem.class_weights = {(a, e, k): w for a, e, k, w in mine("class_weight")}
        problem.solo = {e for (e,) in mine("solo")}
        return problem


def decode_arguments(symbol: clingo.Symbol) -> tuple:
    """An atom's arguments as Python values: numbers as int, strings as str, other terms as their text."""
    decoded = []
    for argument in symbol.arguments:
        kind = argument.type
        if kind is clingo.SymbolType.Number:
            decoded.append(argument.number)
        elif kind is clingo.SymbolType.String:
            decoded.append(argument.string)
        else:
            decoded.append(str(argument))
    return tuple(decoded)
