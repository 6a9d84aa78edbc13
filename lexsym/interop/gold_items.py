"""The answers the gold diff compares, gathered from OpenExempt's files: from its published datasets (one
answer per task: the solution of the dataset's terminal task) or from a replay export (all five answers
per case, with branch-and-bound diagnostics)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lexsym._util.errors import InputError
from lexsym.interop.gold_diff import GoldItem
from lexsym.interop.openexempt import JURISDICTION_IDS, case_from_openexempt, place_id
from lexsym.interop.openexempt_regold import Regolded
from lexsym.law.case import Case
from lexsym.law.gold import gold_answers
from lexsym.law.solution import Solution
from lexsym.law.vocabulary import JURISDICTION_NAMES
from lexsym.law.whatif import ExemptionTable


def _values(case: Case) -> dict[str, int]:
    return {asset.description.strip().casefold(): asset.value for asset in case.assets}


def their_allowable(state: str | None, opt_out: dict[str, bool] | None) -> frozenset[str] | None:
    """OpenExempt's allowable jurisdictions for a gold state: the state, and Federal unless the state's
    statute file says it opted out (`opt_out`, from its statute files; None: not known)."""
    if state is None or opt_out is None or state not in opt_out:
        return None
    names = {JURISDICTION_NAMES[state].casefold()}
    if not opt_out[state]:
        names.add("federal")
    return frozenset(names)


def item_from_task(item: Regolded, dataset: str, opt_out: dict[str, bool] | None = None) -> GoldItem:
    """The gold-diff item of one re-golded OpenExempt task (`opt_out`: OpenExempt's opt-out flags by
    state id, from its statute files, to know which jurisdictions its answer covers)."""
    task = item.task
    try:
        gold_state = place_id(task.state)
    except InputError:
        gold_state = None
    return GoldItem(
        uid=task.uid,
        dataset=dataset,
        task=task.task.value,
        theirs=task.solution,
        gold_state=gold_state,
        solution=item.solution,
        ours=item.gold,
        married=item.case.filing.value == "joint",
        asset_values=_values(item.case),
        their_allowable=their_allowable(gold_state, opt_out),
    )


def is_replay_record(record: Any) -> bool:
    """Whether `record` is a case of a replay export (reshaped case with all five gold answers)."""
    return isinstance(record, dict) and "gold" in record and "domicile_history" in record


def _bnb_failures(record: dict[str, Any]) -> dict[str, str]:
    failures = {}
    allowable = set(record.get("allowable_jurisdictions_gold") or [])
    for name, result in (record.get("all_jurisdictions") or {}).items():
        if name not in allowable:
            continue
        if result.get("bnb_timed_out"):
            failures[name] = "timed_out"
        elif result.get("bnb_suboptimal"):
            failures[name] = "suboptimal"
    return failures


def items_from_replay(
    record: dict[str, Any],
    table: ExemptionTable | None,
    source: str,
    readings: dict[str, str] | None = None,
    solution: Solution | None = None,
) -> Iterator[GoldItem]:
    """The five gold-diff items of one replay-export case, solved once (under `table`, or lexsym's
    statutes), unless its `solution` is given."""
    from lexsym.law.solver import solve

    case = case_from_openexempt(record, source=source, readings=readings)
    solution = solution or solve(case, tables=[table] if table is not None else [])
    ours = gold_answers(case, solution)
    gold = record.get("gold") or {}
    theirs = {
        "AE": record.get("ae_gold_string", ", ".join(record.get("allowable_jurisdictions_gold") or [])),
        "EC": gold.get("EC"),
        "EV": gold.get("EV"),
        "NA": gold.get("NA"),
        "OE": (gold.get("OE") or {}).get("schedule"),
    }
    state = record.get("state_jurisdiction_gold")
    failures = _bnb_failures(record)
    for task, answer in theirs.items():
        yield GoldItem(
            uid=f"{case.id}/{task}",
            dataset="replay",
            task=task,
            theirs=answer,
            gold_state=place_id(state) if state else None,
            solution=solution,
            ours=ours,
            married=bool(record["married"]),
            asset_values=_values(case),
            bnb_failures={
                n: f for n, f in failures.items() if task in ("NA", "OE") and n in JURISDICTION_IDS
            },
            their_allowable=frozenset(n.casefold() for n in record.get("allowable_jurisdictions_gold") or []),
        )
