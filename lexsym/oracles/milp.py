"""The independent MILP oracle for the allocation contract, solved with HiGHS.

It is written from the prose semantics of `AllocationProblem` (the fields' meanings in
`encodings/parameters.lp`), never by translating `encodings/allocate.lp`: the two share nothing but the
contract, so when they agree on the least non-exempt value on thousands of generated contracts, a bug
would have to be made twice, in two formalisms, to slip through.

The model, in dollars:
- x[c,a,e] >= 0 for each eligible (a,e) and claimant c with an interest in a who draws from a pool of e;
- each claimant's claims on an asset stay within their interest, all claims within the asset's value;
- a pool (e,s) with a limit takes at most limit + f[e,s], where the fallback f[e,s] <= F takes only what
  the base pool (b,s) leaves unused;
- item-counted pools spend integer item claims u[a,e,s] (each worth at most the claim cap, at most
  claims_per_item on one asset, at most K in all);
- per-item caps, caps on one asset under one exemption, per-claimant caps on groups of claims;
- no-stacking exemptions: an asset claimed under one takes no other claim (binary w[a,e]);
- mutual exclusions through binary z[e]; per-claimant exclusions through binary z[c,e];
- item classes: binary y[a,e,s] says pool (e,s) claims in asset a; at most N assets (or units: acres) of a
  class per pool;
- maximise the dollars claimed.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from lexsym._util.errors import SolveError
from lexsym.law.allocation import AllocationProblem

INTEGRALITY_TOLERANCE = 1e-6
"""How far the optimum may sit from a whole dollar before the oracle refuses it."""


@dataclass
class MilpResult:
    """The MILP optimum: dollars protected and left non-exempt, and one optimal schedule."""

    protected: int
    non_exempt: int
    amounts: dict[tuple[str, str, str], int] = field(default_factory=dict)  # (claimant, asset, exemption)
    seconds: float = 0.0


class _Model:
    """Columns and rows collected in plain Python, then handed to HiGHS in one call."""

    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.cost: list[float] = []
        self.integer: list[int] = []
        self.row_lower: list[float] = []
        self.row_upper: list[float] = []
        self.rows: list[dict[int, float]] = []

    def column(self, lower: float, upper: float, *, cost: float = 0.0, integer: bool = False) -> int:
        self.lower.append(lower)
        self.upper.append(upper)
        self.cost.append(cost)
        self.integer.append(1 if integer else 0)
        return len(self.lower) - 1

    def at_most(self, terms: dict[int, float], bound: float) -> None:
        """sum(coef * column) <= bound; an empty row is dropped (it is 0 <= bound, always true here)."""
        if terms:
            self.rows.append(terms)
            self.row_lower.append(-math.inf)
            self.row_upper.append(bound)


def solve_milp(problem: AllocationProblem) -> MilpResult:
    """Maximise the dollars protected under `problem`: the independent oracle for `lexsym.law.allocator`.

    Written from the contract's prose semantics (see the module docstring), not from allocate.lp. The
    optimum is re-solved as an LP with the integer choices fixed at their rounded values, so the reported
    schedule does not carry HiGHS's integrality tolerance into the dollar amounts.
    """
    try:
        import highspy
    except ImportError:
        raise SolveError("the MILP oracle needs highspy (pip install 'lexsym[dev]')") from None

    started = time.perf_counter()
    model, claims = _build(problem)
    if not claims:
        return MilpResult(0, problem.total_value, {}, time.perf_counter() - started)
    highs = _new_highs(highspy)
    _pass(highspy, highs, model)
    _run(highspy, highs, "MILP")
    values = list(highs.getSolution().col_value)
    milp_objective = highs.getInfo().objective_function_value

    integer_columns = [j for j, flag in enumerate(model.integer) if flag]
    if integer_columns:
        for j in integer_columns:
            fixed = float(round(values[j]))
            model.lower[j] = model.upper[j] = fixed
            model.integer[j] = 0
        highs = _new_highs(highspy)
        _pass(highspy, highs, model)
        _run(highspy, highs, "LP with the item claims and exclusions fixed")
        values = list(highs.getSolution().col_value)

    objective = highs.getInfo().objective_function_value
    if abs(objective - milp_objective) > 0.5:
        raise SolveError(
            f"rounding the MILP's item claims moved its optimum {milp_objective!r} to {objective!r}"
        )
    protected = round(objective)
    if abs(objective - protected) > INTEGRALITY_TOLERANCE:
        raise SolveError(f"the MILP optimum {objective!r} is not a whole number of dollars")
    amounts = {key: round(values[j]) for key, j in claims.items() if round(values[j]) != 0}
    if sum(amounts.values()) != protected:
        raise SolveError(f"the MILP schedule sums to {sum(amounts.values())}, not its objective {protected}")
    return MilpResult(
        protected=protected,
        non_exempt=problem.total_value - protected,
        amounts=dict(sorted(amounts.items())),
        seconds=time.perf_counter() - started,
    )


def _build(problem: AllocationProblem) -> tuple[_Model, dict[tuple[str, str, str], int]]:
    """The MILP of the contract; returns it with the column of each claim x[c,a,e]."""
    p = problem
    model = _Model()
    x: dict[tuple[str, str, str], int] = {}
    scope_of: dict[tuple[str, str, str], str] = {}
    for asset, exemption in sorted(p.eligible):
        for claimant in p.claimants:
            scope = p.draws.get((exemption, claimant))
            interest = p.interests.get((claimant, asset), 0)
            if scope is None or interest <= 0:
                continue
            key = (claimant, asset, exemption)
            x[key] = model.column(0.0, float(interest), cost=1.0)
            scope_of[key] = scope

    by_claimant_asset: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    by_asset: dict[str, dict[int, float]] = defaultdict(dict)
    by_pool: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    by_pool_asset: dict[tuple[str, str, str], dict[int, float]] = defaultdict(dict)  # (a, e, s)
    by_asset_exemption: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    by_exemption: dict[str, dict[int, float]] = defaultdict(dict)
    for (claimant, asset, exemption), j in x.items():
        scope = scope_of[(claimant, asset, exemption)]
        by_claimant_asset[(claimant, asset)][j] = 1.0
        by_asset[asset][j] = 1.0
        by_pool[(exemption, scope)][j] = 1.0
        by_pool_asset[(asset, exemption, scope)][j] = 1.0
        by_asset_exemption[(asset, exemption)][j] = 1.0
        by_exemption[exemption][j] = 1.0

    # Interests and asset values.
    for (claimant, asset), terms in by_claimant_asset.items():
        model.at_most(terms, p.interests[(claimant, asset)])
    for asset, terms in by_asset.items():
        model.at_most(terms, p.asset_values.get(asset, 0))

    # Pool limits, each raised by what it takes from its fallback's base pool.
    for pool, terms in by_pool.items():
        if pool not in p.pool_limits:
            continue
        row = dict(terms)
        if pool in p.fallbacks:
            base, dollars = p.fallbacks[pool]
            f = model.column(0.0, float(dollars))
            row[f] = -1.0
            base_pool = (base, pool[1])
            if base_pool in p.pool_limits:
                model.at_most({f: 1.0, **by_pool.get(base_pool, {})}, p.pool_limits[base_pool])
        model.at_most(row, p.pool_limits[pool])

    # Item-counted pools: u item claims on each asset, each worth at most the claim cap.
    for pool, count in p.pool_items.items():
        exemption, scope = pool
        per_item = min(count, p.claims_per_item.get(pool, count))
        total: dict[int, float] = {}
        for (asset, e, s), terms in by_pool_asset.items():
            if (e, s) != pool:
                continue
            u = model.column(0.0, float(per_item), integer=True)
            total[u] = 1.0
            # Without a claim cap an item claim is worth up to the whole asset: it still spends an item.
            worth = p.claim_caps.get(pool, p.asset_values[asset])
            model.at_most({**terms, u: -float(worth)}, 0.0)
        model.at_most(total, count)

    # Per-item caps, per pool.
    for (asset, exemption, scope), cap in p.item_caps.items():
        model.at_most(by_pool_asset.get((asset, exemption, scope), {}), cap)

    # Caps on one asset under one exemption, whoever claims.
    for (asset, exemption), cap in p.asset_caps.items():
        model.at_most(by_asset_exemption.get((asset, exemption), {}), cap)

    # Group caps: one claimant's (or the household's) claims on the group's (asset, exemption) pairs.
    for key, limit in p.group_limits.items():
        terms = {
            j: 1.0 for (c, asset, exemption), j in x.items() if key in p.groups_capping(c, asset, exemption)
        }
        model.at_most(terms, limit)

    # No stacking: if an asset takes a claim under a solo exemption, it takes no other claim.
    for exemption in sorted(p.solo):
        for asset in sorted({a for (_, a, e) in x if e == exemption}):
            own = by_asset_exemption.get((asset, exemption), {})
            others = {j: 1.0 for j in by_asset.get(asset, {}) if j not in own}
            if not others:
                continue
            value = float(p.asset_values.get(asset, 0))
            w = model.column(0.0, 1.0, integer=True)
            model.at_most({**own, w: -value}, 0.0)
            model.at_most({**others, w: value}, value)

    # Mutual exclusions: an exemption claims nothing unless its switch z is on; two excluded ones
    # cannot both be on.
    switch: dict[str, int] = {}
    for exemption in sorted({e for pair in p.exclusions for e in pair}):
        z = model.column(0.0, 1.0, integer=True)
        switch[exemption] = z
        for j in by_exemption.get(exemption, {}):
            model.at_most({j: 1.0, z: -model.upper[j]}, 0.0)
    for first, second in sorted(p.exclusions):
        if first < second or (second, first) not in p.exclusions:
            model.at_most({switch[first]: 1.0, switch[second]: 1.0}, 1.0)

    # Per-claimant exclusions: the same, with one switch per claimant and exemption.
    own_switch: dict[tuple[str, str], int] = {}
    for exemption in sorted({e for pair in p.claimant_exclusions for e in pair}):
        for claimant in p.claimants:
            columns = [j for (c, _a, e), j in x.items() if c == claimant and e == exemption]
            if not columns:
                continue
            z = model.column(0.0, 1.0, integer=True)
            own_switch[(claimant, exemption)] = z
            for j in columns:
                model.at_most({j: 1.0, z: -model.upper[j]}, 0.0)
    for first, second in sorted(p.claimant_exclusions):
        for claimant in p.claimants:
            if (claimant, first) in own_switch and (claimant, second) in own_switch and first < second:
                model.at_most({own_switch[(claimant, first)]: 1.0, own_switch[(claimant, second)]: 1.0}, 1.0)

    # Item classes: a pool claims in at most N assets of each class it counts.
    for (exemption, scope, item_class), limit in sorted(p.class_limits.items()):
        picks: dict[int, float] = {}
        for asset in sorted({a for (a, e, k) in p.class_members if e == exemption and k == item_class}):
            terms = by_pool_asset.get((asset, exemption, scope), {})
            if not terms:
                continue
            y = model.column(0.0, 1.0, integer=True)
            picks[y] = float(p.class_weight(asset, exemption, item_class))
            model.at_most({**terms, y: -float(p.asset_values.get(asset, 0))}, 0.0)
        model.at_most(picks, limit)
    return model, x


_banner_silenced = False


def _new_highs(highspy: Any) -> Any:
    """A silent HiGHS instance. HiGHS 1.16 prints its banner from the first constructor call, before any
    option can be set, so that one call runs with the process's standard output pointed at /dev/null."""
    global _banner_silenced
    if _banner_silenced:
        highs = highspy.Highs()
    else:
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with open(os.devnull, "w") as devnull:
                os.dup2(devnull.fileno(), 1)
                highs = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _banner_silenced = True
    highs.setOptionValue("output_flag", False)
    # Prove the optimum exactly: the default relative gap (1e-4) would accept a schedule dozens of
    # dollars short on a large estate.
    highs.setOptionValue("mip_rel_gap", 0.0)
    highs.setOptionValue("mip_abs_gap", 0.0)
    # Item claims worth up to a few hundred thousand dollars each: an item claim 1e-6 short of whole
    # would already move the optimum by a fraction of a dollar.
    highs.setOptionValue("mip_feasibility_tolerance", 1e-9)
    return highs


def _pass(highspy: Any, highs: Any, model: _Model) -> None:
    import numpy as np

    lp = highspy.HighsLp()
    lp.num_col_ = len(model.cost)
    lp.num_row_ = len(model.rows)
    lp.col_cost_ = np.array(model.cost, dtype=np.float64)
    lp.col_lower_ = np.array(model.lower, dtype=np.float64)
    lp.col_upper_ = np.array(model.upper, dtype=np.float64)
    lp.row_lower_ = np.array([-highs.inf if v == -math.inf else v for v in model.row_lower], dtype=np.float64)
    lp.row_upper_ = np.array(model.row_upper, dtype=np.float64)
    lp.sense_ = highspy.ObjSense.kMaximize
    starts, index, value = [0], [], []
    for row in model.rows:
        for j, coefficient in sorted(row.items()):
            index.append(j)
            value.append(coefficient)
        starts.append(len(index))
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.num_col_ = lp.num_col_
    lp.a_matrix_.num_row_ = lp.num_row_
    lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(value, dtype=np.float64)
    if any(model.integer):
        lp.integrality_ = [
            highspy.HighsVarType.kInteger if flag else highspy.HighsVarType.kContinuous
            for flag in model.integer
        ]
    highs.passModel(lp)


def _run(highspy: Any, highs: Any, what: str) -> None:
    highs.run()
    status = highs.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise SolveError(f"HiGHS did not prove the {what} optimal: {highs.modelStatusToString(status)}")
