"""Where OpenExempt's published gold differs from the logic program's, task by task, and why.

Each OpenExempt answer is compared with ours in OpenExempt's own terms (its metrics' normalisation: names
and citations case-folded, claims of zero dropped, OE by the value it leaves non-exempt). Every change gets
one cause from CAUSES, decided from the solution's own record (rule path, day counts, proofs), never from
the size of the difference alone.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from lexsym.law.citations import citation_key
from lexsym.law.gold import jurisdiction_name
from lexsym.law.solution import Solution

CAUSES: dict[str, str] = {
    "fewest_days_180": "OpenExempt's 180-day step takes the place with the fewest days, where § 522(b)(3)(A) "
    "takes the place of the longer portion of the 180 days",
    "opt_out_reading": "the governing state opted out, but under lexsym's reading of § 522(b)(2) its opt-out "
    "does not bind a debtor who no longer lives there (reading nonresident_opt_out; OpenExempt applies every "
    "opt-out to every debtor)",
    "domicile": "the allowable jurisdictions differ for another reason (domicile reading)",
    "follows_ae": "the allowable jurisdictions differ, so the answer covers other exemption systems",
    "ev_one_item_claim": "OpenExempt's EV counts one item claim for married filers, while its own schedule "
    "stacks both spouses' claims on one item",
    "bnb_suboptimal": "OpenExempt's branch-and-bound stopped short of the optimum (lexsym proves a lower "
    "non-exempt total under the same parameters)",
    "bnb_timed_out": "OpenExempt's branch-and-bound timed out and gave no answer",
    "statutes": "lexsym's statutes differ from OpenExempt's parameters (amounts, indexing, conditions)",
    "classification": "lexsym's statutes classify the asset differently",
    "other": "not explained by the causes above",
}


@dataclass(frozen=True)
class GoldItem:
    """One OpenExempt answer and what the logic program says for the same case."""

    uid: str
    dataset: str
    task: str
    theirs: Any
    gold_state: str | None
    solution: Solution
    ours: dict[str, Any]
    married: bool
    asset_values: dict[str, int]
    bnb_failures: dict[str, str] = field(default_factory=dict)  # jurisdiction name -> timed_out | suboptimal
    their_allowable: frozenset[str] | None = None  # OpenExempt's allowable jurisdictions (names), if known


@dataclass
class GoldChange:
    uid: str
    dataset: str
    task: str
    cause: str
    theirs: Any
    ours: Any
    detail: str = ""


def _names(value: Any) -> set[str]:
    items = value.split(",") if isinstance(value, str) else list(value or [])
    return {str(item).strip().casefold() for item in items if str(item).strip()}


def _ec(value: Any) -> dict[str, set[str]]:
    return {
        str(asset).strip().casefold(): {citation_key(c) for c in citations}
        for asset, citations in (value or {}).items()
        if citations
    }


def _claims(value: Any) -> dict[str, dict[str, float]]:
    result: dict[str, dict[str, float]] = {}
    for asset, claims in (value or {}).items():
        found = defaultdict(float)
        for claim in claims or []:
            if claim.get("claim_value"):
                found[citation_key(claim["citation"])] += float(claim["claim_value"])
        if found:
            result[str(asset).strip().casefold()] = dict(found)
    return result


def _na(value: Any) -> dict[str, float | None]:
    return {str(k).strip().casefold(): (None if v is None else float(v)) for k, v in (value or {}).items()}


def _left_non_exempt(schedule: Any, values: dict[str, int]) -> float:
    claimed = _claims(schedule)
    return sum(max(0.0, value - sum(claimed.get(asset, {}).values())) for asset, value in values.items())


def _ae_cause(item: GoldItem) -> tuple[str, str]:
    allowable = item.solution.allowable
    days = allowable.days_180
    if (
        allowable.rule_path == "180_longer"
        and item.gold_state
        and days
        and days.get(item.gold_state) == min(days.values())
    ):
        return "fewest_days_180", f"180-day counts {days}; OpenExempt's state {item.gold_state}"
    detail = f"rule path {allowable.rule_path}, 730-day counts {allowable.days_730}"
    if allowable.opted_out and any(d.opt_out_binds is False for d in allowable.by_debtor):
        return "opt_out_reading", detail + f"; reading {item.solution.readings.get('nonresident_opt_out')}"
    return "domicile", detail


def _ev_cause(item: GoldItem, theirs: dict, ours: dict, table: str) -> tuple[str, str]:
    differing = [
        (asset, citation, theirs.get(asset, {}).get(citation), ours.get(asset, {}).get(citation))
        for asset in set(theirs) | set(ours)
        for citation in set(theirs.get(asset, {})) | set(ours.get(asset, {}))
        if theirs.get(asset, {}).get(citation) != ours.get(asset, {}).get(citation)
    ]
    detail = "; ".join(f"{a} {c}: theirs {t}, ours {o}" for a, c, t, o in differing[:4])
    if item.married and all(t is not None and o is not None and o > t for _, _, t, o in differing):
        return "ev_one_item_claim", detail
    if table == "lexsym":
        return "statutes", detail
    return "other", detail


def _total_cause(item: GoldItem, theirs_total: float | None, ours_total: float, table: str) -> str:
    if theirs_total is None:
        return "bnb_timed_out"
    if table == "openexempt" and theirs_total > ours_total:
        return "bnb_suboptimal"
    return "statutes" if table == "lexsym" else "other"


def compare(item: GoldItem, table: str) -> GoldChange | None:
    """The change between OpenExempt's answer and ours for one task, with its cause, or None if the same
    answer under OpenExempt's metrics. `table` names the statutes ours were computed under."""
    task, ours = item.task, item.ours

    def change(cause: str, theirs: Any, mine: Any, detail: str = "") -> GoldChange:
        return GoldChange(item.uid, item.dataset, task, cause, theirs, mine, detail)

    allowable_differs = (
        item.gold_state is not None and item.solution.allowable.applicable_state != item.gold_state
    ) or (item.their_allowable is not None and set(item.their_allowable) != _names(ours["AE"]))
    if task == "AE":
        if _names(item.theirs) == _names(ours["AE"]):
            return None
        cause, detail = _ae_cause(item)
        return change(cause, item.theirs, ", ".join(ours["AE"]), detail)
    if task == "EC":
        theirs, mine = _ec(item.theirs), _ec(ours["EC"])
        if theirs == mine:
            return None
        cause = "follows_ae" if allowable_differs else ("classification" if table == "lexsym" else "other")
        return change(cause, item.theirs, ours["EC"])
    if task == "EV":
        theirs, mine = _claims(item.theirs), _claims(ours["EV"])
        if theirs == mine:
            return None
        if allowable_differs:
            return change("follows_ae", item.theirs, ours["EV"])
        cause, detail = _ev_cause(item, theirs, mine, table)
        return change(cause, item.theirs, ours["EV"], detail)
    if task == "NA":
        theirs, mine = _na(item.theirs), _na(ours["NA"])
        if theirs == mine:
            return None
        if allowable_differs or set(theirs) != set(mine):
            return change("follows_ae", item.theirs, ours["NA"])
        failed = next((item.bnb_failures[n] for n in item.bnb_failures if n.casefold() in theirs), None)
        name = next(n for n in theirs if theirs[n] != mine[n])
        cause = f"bnb_{failed}" if failed else _total_cause(item, theirs[name], mine[name], table)
        return change(cause, item.theirs, ours["NA"], f"{name}: theirs {theirs[name]}, ours {mine[name]}")
    theirs_total = _left_non_exempt(item.theirs, item.asset_values) if item.theirs is not None else None
    ours_total = float(ours["OE"]["non_exempt_total"])
    if theirs_total == ours_total:
        return None
    if allowable_differs:
        cause = "follows_ae"
    elif item.bnb_failures:
        cause = "bnb_" + next(iter(item.bnb_failures.values()))
    else:
        cause = _total_cause(item, theirs_total, ours_total, table)
    best = jurisdiction_name(item.solution.optimal.jurisdiction)
    detail = f"non-exempt: theirs {theirs_total}, ours {ours_total} ({best})"
    return change(cause, item.theirs, ours["OE"], detail)


def gold_diff(items: list[GoldItem], table: str) -> dict[str, Any]:
    """The report over `items`: every change with its cause, counts per task and cause, and the cases whose
    AE changed split by whether their OE total changed too."""
    changes = [found for item in items if (found := compare(item, table)) is not None]
    by_task: dict[str, Counter] = defaultdict(Counter)
    for found in changes:
        by_task[found.task][found.cause] += 1
    compared = Counter(item.task for item in items)
    return {
        "table": table,
        "compared": dict(sorted(compared.items())),
        "changed": {task: sum(counts.values()) for task, counts in sorted(by_task.items())},
        "by_cause": {task: dict(sorted(counts.items())) for task, counts in sorted(by_task.items())},
        "causes": {cause: CAUSES[cause] for cause in sorted({c.cause for c in changes})},
        "changes": [asdict(found) for found in changes],
    }


def markdown(report: dict[str, Any]) -> str:
    """The report as a Markdown page: the table of counts, the causes, then every change."""
    lines = [
        f"# Gold differences: OpenExempt's published gold vs lexsym (statutes: {report['table']})",
        "",
        "| task | compared | changed | by cause |",
        "|---|---:|---:|---|",
    ]
    for task, count in report["compared"].items():
        causes = ", ".join(f"{c} {n}" for c, n in report["by_cause"].get(task, {}).items()) or "–"
        lines.append(f"| {task} | {count} | {report['changed'].get(task, 0)} | {causes} |")
    lines += ["", "## Causes", ""]
    lines += [f"- **{cause}**: {text}" for cause, text in report["causes"].items()]
    lines += ["", "## Changes", "", "| task | uid | cause | detail |", "|---|---|---|---|"]
    for found in report["changes"]:
        detail = (found["detail"] or "").replace("|", "\\|")
        lines.append(f"| {found['task']} | {found['uid']} | {found['cause']} | {detail} |")
    return "\n".join(lines) + "\n"
