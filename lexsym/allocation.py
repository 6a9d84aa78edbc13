"""The allocation contract: everything the optimiser needs for one jurisdiction, as plain Python data.

`encodings/parameters.lp` derives it from the statutes; `encodings/allocate.lp` (clingo-lpx) and the
independent MILP in `lexsym.milp` both read it. Keeping it as a dataclass lets property tests generate
contracts directly, far beyond what the statutes produce, and lets the MILP never look at ASP.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import clingo

from lexsym.facts import asp_string

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
    sublimits: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (exemption, scope, group)
    sublimit_members: set[tuple[str, str, str]] = field(default_factory=set)  # (asset, exemption, group)
    exclusions: set[tuple[str, str]] = field(default_factory=set)  # stated both ways

    @property
    def total_value(self) -> int:
        return sum(self.asset_values.values())

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
        lines += [f"sublimit({e},{s},{g},{v})." for (e, s, g), v in sorted(self.sublimits.items())]
        lines += [f"sublimit_member({a(k)},{e},{g})." for k, e, g in sorted(self.sublimit_members)]
        lines += [f"excluded_pair({e1},{e2})." for e1, e2 in sorted(self.exclusions)]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_symbols(cls, symbols: Iterable[clingo.Symbol], jurisdiction: str) -> AllocationProblem:
        """Read the contract of jurisdiction `jurisdiction` from the first pass's shown atoms."""
        problem = cls(claimants=[], asset_values={}, interests={}, eligible=set(), draws={})
        for symbol in symbols:
            args = symbol.arguments
            name = symbol.name
            if name == "claimant":
                problem.claimants.append(str(args[0]))
            elif name == "asset_value":
                problem.asset_values[args[0].string] = args[1].number
            elif name == "interest":
                problem.interests[(str(args[0]), args[1].string)] = args[2].number
            elif not args or str(args[0]) != jurisdiction:
                continue
            else:
                _read_keyed(problem, name, args[1:])
        problem.claimants.sort(key=lambda c: (c != "debtor", c))
        return problem


def _read_keyed(problem: AllocationProblem, name: str, args: list[clingo.Symbol]) -> None:
    s = [str(x) for x in args]
    if name == "eligible_by":
        problem.eligible.add((args[0].string, s[1]))
    elif name == "draws":
        problem.draws[(s[0], s[1])] = s[2]
    elif name == "pool_limit":
        problem.pool_limits[(s[0], s[1])] = args[2].number
    elif name == "pool_items":
        problem.pool_items[(s[0], s[1])] = args[2].number
    elif name == "claim_cap":
        problem.claim_caps[(s[0], s[1])] = args[2].number
    elif name == "claims_per_item":
        problem.claims_per_item[(s[0], s[1])] = args[2].number
    elif name == "item_cap":
        problem.item_caps[(args[0].string, s[1], s[2])] = args[3].number
    elif name == "asset_cap":
        problem.asset_caps[(args[0].string, s[1])] = args[2].number
    elif name == "fallback":
        problem.fallbacks[(s[0], s[1])] = (s[2], args[3].number)
    elif name == "sublimit":
        problem.sublimits[(s[0], s[1], s[2])] = args[3].number
    elif name == "sublimit_member":
        problem.sublimit_members.add((args[0].string, s[1], s[2]))
    elif name == "excluded_pair":
        problem.exclusions.add((s[0], s[1]))
