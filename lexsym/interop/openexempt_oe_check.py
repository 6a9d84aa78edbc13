"""Whether OpenExempt's evaluator can take lexsym's OE gold: replayed under its rules, and never beaten.

OpenExempt's evaluator checks an OE target before scoring: it infers the jurisdiction from the first
claim's citation (the first of its jurisdictions, in its own order, whose statute file lists it), requires
that jurisdiction to be allowable for the case's state (the state alone if its file says it opted out,
else the state and federal), and allocates every claim from the statute file's pools; a claim it cannot
allocate in full stops the whole evaluation. It also stops when a prediction leaves less non-exempt than
the target, which a prediction can wherever the statute files are looser than lexsym's rules (see
`openexempt_statute_files`): the least non-exempt value OpenExempt's rules allow is computed with lexsym's
own solver under a what-if table of the exported figures, whose semantics are OpenExempt's. A target that
fails either check cannot be exported as OE gold.

The allocation rules restated (OpenExempt's semantics, not its code): each exemption has one pool for the
case holding its married or single limit (null: no cap). An item-counted exemption gives that many item
claims of limit / count each; a claim takes one item claim, and more while some remain and the claim is
not yet covered. Each take is capped by the per-item limit. When a pool runs dry, an exemption with a
fallback may take up to its fallback limit from the base exemption's pool. Claiming an exemption bars its
mutual exclusion for the rest of the case. Citations are matched after lower-casing (and a space after §).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lexsym.interop.openexempt_statute_files import NATIVE_JURISDICTIONS


def normal_citation(citation: str) -> str:
    """A citation as OpenExempt compares answers: a space after each §, trimmed, lower case."""
    return re.sub(r"§(?!\s)", "§ ", citation).strip().lower()


@dataclass
class _Pool:
    remaining: float | None
    items: int | None
    per_claim: float | None
    per_item: float | None
    fallback: tuple[str | None, float | None]
    excludes: str | None


class _Pools:
    """The pools of one jurisdiction's statute file for one case (single or married figures)."""

    def __init__(self, document: dict[str, Any], married: bool):
        kind = "married" if married else "single"
        self.pools: dict[str, _Pool] = {}
        self.barred: set[str] = set()
        for entry in document["statutes"]:
            if "single_limit" not in entry:
                continue
            limit = entry.get(f"{kind}_limit")
            count = entry.get(f"{kind}_item_claim_count")
            base = entry.get("fallback_relationship")
            exclusion = entry.get("mutual_exclusion")
            self.pools[entry["citation"].strip().lower()] = _Pool(
                remaining=limit,
                items=count,
                per_claim=limit / count if count else None,
                per_item=entry.get("per_item_limit"),
                fallback=(base.strip().lower() if base else None, entry.get(f"{kind}_fallback_limit")),
                excludes=exclusion.strip().lower() if exclusion else None,
            )

    def _take(self, citation: str, amount: float) -> float:
        pool = self.pools[citation]
        if pool.remaining is None:
            return amount
        if pool.remaining >= amount:
            pool.remaining -= amount
            return amount
        available = pool.remaining
        if available > 0:
            pool.remaining = 0
        return available

    def _allocate_once(self, citation: str, amount: float) -> float:
        if citation in self.barred:
            return 0
        pool = self.pools[citation]
        cap = None
        if pool.items is not None:
            if pool.items < 1:
                return 0
            pool.items -= 1
            cap = pool.per_claim
        most = amount if cap is None else min(cap, amount)
        most = most if pool.per_item is None else min(pool.per_item, most)
        taken = self._take(citation, most)
        base, balance = pool.fallback
        if taken < most and base is not None:
            extra = self._take(base, min(balance, most - taken))
            if extra > 0:
                pool.fallback = (base, balance - extra)
                taken += extra
        return taken

    def allocate(self, citation: str, amount: float) -> float:
        """What a claim of `amount` under `citation` gets, taking item claims while any remain."""
        taken = self._allocate_once(citation, amount)
        pool = self.pools[citation]
        while amount - taken > 0 and pool.items is not None and pool.items > 0:
            taken += self._allocate_once(citation, amount - taken)
        return taken

    def claimed(self, citation: str) -> None:
        exclusion = self.pools[citation].excludes
        if exclusion:
            self.barred.add(exclusion)


def detected_jurisdiction(target: dict[str, list[dict]], citations: dict[str, Sequence[str]]) -> str | None:
    """The jurisdiction OpenExempt reads off a schedule: the first claim's, in `citations`' order."""
    for claims in target.values():
        for claim in claims:
            for jurisdiction, cited in citations.items():
                if claim["citation"] in cited:
                    return jurisdiction
    return None


def replay_problem(
    target: dict[str, list[dict]],
    case: dict[str, Any],
    documents: dict[str, dict[str, Any]],
    allowable: Sequence[str],
) -> str | None:
    """Why OpenExempt's evaluator would refuse `target` as the OE gold of `case`, or None if it takes it.

    documents: statute file documents keyed by OpenExempt jurisdiction value, in its order; allowable:
    the jurisdiction values OpenExempt allows for the case's state.
    """
    if not target:
        return None
    citations = {
        value: [e["citation"] for e in document["statutes"] if "single_limit" in e]
        for value, document in documents.items()
    }
    jurisdiction = detected_jurisdiction(target, citations)
    if jurisdiction not in allowable:
        return f"the schedule reads as {jurisdiction}, not allowable for {case['state_jurisdiction']}"
    pools = _Pools(documents[jurisdiction], married=bool(case["joint_debtor"]))
    assets = {asset["description"]: asset for asset in case["assets"]}
    for description, claims in target.items():
        if description not in assets:
            return f"asset {description!r} is not in the case"
        listed = [c for c in assets[description]["applicable_exemptions"] if c in citations[jurisdiction]]
        for claim in claims:
            if claim["citation"] not in listed:
                return f"{claim['citation']} is not listed for {description!r}"
            key = normal_citation(claim["citation"])
            if key not in pools.pools:
                return f"{claim['citation']} is not matched after OpenExempt's normalisation"
            taken = pools.allocate(key, claim["claim_value"])
            if taken != claim["claim_value"]:
                return (
                    f"{claim['citation']} on {description!r}: {claim['claim_value']} claimed, only {taken:g} "
                    "allocable under OpenExempt's pools"
                )
            pools.claimed(key)
    return None


def order_for_detection(
    target: dict[str, list[dict]], jurisdiction: str, citations: dict[str, Sequence[str]]
) -> dict[str, list[dict]]:
    """The schedule with an asset whose first claim names `jurisdiction` unambiguously put first, so that
    OpenExempt infers the right jurisdiction (11 U.S.C. § 522(b)(3)(C) is listed in every state's file)."""

    def reads_right(item: tuple[str, list[dict]]) -> bool:
        claims = item[1]
        return bool(claims) and detected_jurisdiction({"": claims[:1]}, citations) == jurisdiction

    items = list(target.items())
    first = next((item for item in items if reads_right(item)), None)
    if first is None:
        return target
    return dict([first, *(item for item in items if item is not first)])


FEDERAL = "FEDERAL"


def openexempt_allowable(state: str, opted_out: dict[str, bool]) -> list[str]:
    """The jurisdictions OpenExempt allows for a case's state: the state alone if its file says it opted
    out, else federal and the state (`opted_out` is keyed by lexsym's state ids)."""
    codes = {value: code for code, value in NATIVE_JURISDICTIONS.items()}
    if state != FEDERAL and opted_out.get(codes.get(state, ""), False):
        return [state]
    return list(dict.fromkeys([FEDERAL, state]))


def fit_oe_gold(
    target: dict[str, list[dict]],
    case: dict[str, Any],
    documents: dict[str, dict[str, Any]],
    opted_out: dict[str, bool],
    allowable_names: Sequence[str],
    gold: dict[str, Any],
    losses: list[str],
    least: Callable[[list[str]], int],
) -> tuple[str | None, dict[str, list[dict]]]:
    """(why OpenExempt's evaluator cannot take the OE gold, or None; the schedule ordered for it).

    An opt-out lexsym reads as reaching only the debtors it names may leave the federal exemptions open
    where OpenExempt's file closes them; when federal is the optimum there, the case's state_jurisdiction
    is written as FEDERAL (which OpenExempt reads as "federal allowed"), and the change is recorded.
    `least(allowed)`: the least non-exempt value OpenExempt's rules allow under those jurisdictions.
    """
    values = [FEDERAL if name == "Federal" else name.upper() for name in allowable_names]
    best = FEDERAL if gold.get("jurisdiction") == "Federal" else str(gold.get("jurisdiction", "")).upper()
    allowed = openexempt_allowable(case["state_jurisdiction"], opted_out)
    if best == FEDERAL and FEDERAL not in allowed and FEDERAL in values:
        losses.append(
            f"state_jurisdiction: written as FEDERAL, not {case['state_jurisdiction']}, since lexsym allows "
            "the federal exemptions (the opt-out reaches only the debtors it names) and they are optimal; "
            "OpenExempt then counts claims under the state's exemptions as invalid"
        )
        case["state_jurisdiction"] = FEDERAL
        allowed = [FEDERAL]
    elif sorted(set(values)) != sorted(allowed):
        losses.append(
            f"allowable jurisdictions differ: lexsym {', '.join(sorted(set(values)))}; OpenExempt "
            f"{', '.join(sorted(allowed))} (it applies an opt-out to every debtor the state's law governs)"
        )
    citations = {
        value: [e["citation"] for e in document["statutes"] if "single_limit" in e]
        for value, document in documents.items()
    }
    target = order_for_detection(target, best, citations)
    problem = replay_problem(target, case, documents, allowed)
    if problem is None:
        floor = least(allowed)
        if floor < gold["non_exempt_total"]:
            problem = (
                f"OpenExempt's looser rules allow a schedule leaving ${floor:,} non-exempt, below lexsym's "
                f"optimum ${gold['non_exempt_total']:,}; a prediction reaching it would stop its evaluator"
            )
    return problem, target


def least_non_exempt(case: dict[str, Any], native: dict[str, Any], table: Any, allowed: Sequence[str]) -> int:
    """The least non-exempt value of `native` (the export of lexsym's `case`, its JSON form) under
    OpenExempt's rules: lexsym's solver under `table` (a what-if table of the exported statute files), over
    the jurisdictions `allowed` (OpenExempt's values), with each asset's citations as the case lists them."""
    from lexsym.interop.openexempt import OPENEXEMPT_READINGS
    from lexsym.law.case import parse_case
    from lexsym.law.solver import solve

    data = {
        "id": case.get("id", "case"),
        "petition_date": case["petition_date"],
        "filing": "joint" if native["joint_debtor"] else "single",
        "domicile": case["domicile"],
        "readings": OPENEXEMPT_READINGS,
        "assets": [
            {
                "id": f"a{number}",
                "description": asset["description"],
                "value": asset["dollar_value"],
                "applicable_exemptions": asset["applicable_exemptions"],
            }
            for number, asset in enumerate(native["assets"], start=1)
        ],
    }
    codes = [code for code, value in NATIVE_JURISDICTIONS.items() if value in allowed]
    solution = solve(parse_case(data, source=f"case {data['id']}"), tables=[table], jurisdictions=codes)
    return min(result.non_exempt_total for result in solution.jurisdictions if result.jurisdiction in codes)
