"""OpenExempt tasks re-golded by the logic program: each becomes a lexsym task record (without a prompt)
whose gold is ours, under OpenExempt's statute parameters or under lexsym's own statutes.

Under OpenExempt's parameters (`--table openexempt`) a case is solved with OpenExempt's readings (every
opt-out binds every debtor, no residency limits), so the only changes left are where OpenExempt computes
its own law wrongly. Under lexsym's statutes a case is solved with lexsym's default readings and current
figures, and the asset lists OpenExempt attached to each asset still decide classification.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from lexsym._util.errors import InputError
from lexsym.interop.openexempt import OPENEXEMPT_READINGS, place_id
from lexsym.interop.openexempt_dataset import OpenExemptTask
from lexsym.interop.openexempt_native import case_from_native
from lexsym.law.case import Case
from lexsym.law.gold import gold_answers
from lexsym.law.solution import Solution
from lexsym.law.tasks import Task
from lexsym.law.whatif import ExemptionTable

TABLES = ("openexempt", "lexsym")
"""The statutes a re-golding runs under: OpenExempt's parameters (read from its statute files) or ours."""


@dataclass(frozen=True)
class Regolded:
    """One OpenExempt task, its case as lexsym reads it, the solution and our gold for all five tasks."""

    task: OpenExemptTask
    case: Case
    solution: Solution
    gold: dict[str, Any]


def regold(task: OpenExemptTask, table: ExemptionTable | None) -> Regolded:
    """Solve the task's case: under `table` (OpenExempt's parameters) with OpenExempt's readings, or under
    lexsym's statutes (None) with lexsym's default readings."""
    from lexsym.law.solver import solve

    readings = OPENEXEMPT_READINGS if table is not None else {}
    case = case_from_native(task.case, case_id=task.uid, source=task.source, readings=readings)
    solution = solve(case, tables=[table] if table is not None else [])
    return Regolded(task, case, solution, gold_answers(case, solution))


def task_record(item: Regolded, dataset: str, suite: str, table_name: str) -> dict[str, Any]:
    """The lexsym task record of `item` (everything `lexsym score` reads; the prompt is added by import)."""
    task = item.task
    case, solution = item.case, item.solution
    return {
        "id": task.uid,
        "task": task.task.value,
        "variant": task.task.value,
        "split": task.split,
        "gold": item.gold[task.task.value],
        "solved_steps": {t.value: item.gold[t.value] for t in Task if t.number < task.start_task.number},
        "reference": item.gold,
        "metadata": {
            "suite": suite,
            "dataset": dataset,
            "case_id": task.uid,
            "married": case.filing.value == "joint",
            "asset_count": len(case.assets),
            "domicile_count": len(case.domicile),
            "rule_path": solution.allowable.rule_path,
            "governing_state": solution.allowable.applicable_state,
            "petition_date": case.petition_date.isoformat(),
            "rules_digest": solution.rules_digest,
            "readings": solution.readings,
            "warnings": solution.warnings,
            "table": table_name,
            "openexempt": {
                "uid": task.uid,
                "start_task_id": task.start_task.number,
                "terminal_task_id": task.task.number,
                "gold_state": _state(task.state),
                "solution": task.solution,
            },
        },
        "case": json.loads(case.model_dump_json()),
    }


def _state(name: str) -> str | None:
    try:
        return place_id(name)
    except InputError:
        return None
