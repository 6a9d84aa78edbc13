"""One answer scored exactly as `lexsym score` scores it, for a scorer that sees one sample at a time.

`lexsym.scoring.score` reads two files and scores every task; its per-sample path is the loop in
`scoring/score_file.py`: `parse_prediction` then a `TaskScorer` method for AE..NA, `mcq_row` for MCQ, and
`score_oe` (solve the case, run the checker) for OE. This module runs that same path on one answer text at
a time, calling the same functions on the `TaskRecord`s that `scoring.inputs.load_tasks` reads from the
same task file (with whatever it attaches, such as a what-if table the gold rests on), so a sample's value
is the `scores` of the `SampleRow` that `lexsym score` writes for that answer
(`tests/test_inspect_integration.py` holds them equal). Nothing of the scoring is restated here.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.jsonl import LineError
from lexsym.scoring.inputs import TaskRecord, load_tasks, task_problem
from lexsym.scoring.oe_checking import score_oe
from lexsym.scoring.task_scorers import Row, TaskScorer, answer_row

log = logging.getLogger("lexsym.inspect")

SOLVER_LOCK = threading.Lock()
"""Held while lexsym solves or checks a case for a scorer. inspect scores samples concurrently, and the
scorers run lexsym off the event loop (solving an OE case takes tens of milliseconds, seconds on large
estates, and must not stall other samples' model calls); but the allocation pass runs clingo-lpx through
`clingo_main`, which keeps process-wide state: two at once in two threads abort the process. One lock
for every lexsym scorer in the process makes the solving sequential and the event loop free."""


@dataclass
class AnswerScore:
    """What `lexsym score` says of one answer; `scores` is empty when the task cannot be scored at all (a
    broken record, or an OE case that does not solve), and `problem` says why."""

    task: str
    scores: dict[str, float | None]
    parsed: bool
    error: str | None
    value: Any = None
    violations: list[str] = field(default_factory=list)
    beats_optimum: bool = False
    problem: str | None = None
    warnings: list[str] = field(default_factory=list)
    table: bool = False  # the gold rests on a what-if table beside the tasks, not on lexsym's statutes


class AnswerScorer:
    """Scores answers one at a time; holds the `TaskScorer` (its known citations and memoised citation
    keys) that every answer shares, as `lexsym score` holds one for a whole file.

    Call it holding `SOLVER_LOCK` when other threads may solve too (see there)."""

    def __init__(self, tasks_file: str | Path) -> None:
        self.source = Path(tasks_file)
        self._scorer: TaskScorer | None = None
        self._tasks: dict[str, TaskRecord] | None = None
        self._unusable = ""

    def task(self, task_id: str) -> TaskRecord | None:
        """The task as `lexsym score` reads it, or None when `load_tasks` could not use its line."""
        if self._tasks is None:
            errors: list[LineError] = []
            try:
                self._tasks = {task.id: task for task in load_tasks(self.source, errors)}
            except InputError as error:  # not one usable record
                self._tasks, self._unusable = {}, str(error)
        return self._tasks.get(task_id)

    def __call__(self, record: dict[str, Any], text: str) -> AnswerScore:
        kind = str(record.get("task"))
        task = self.task(record["id"])
        if task is None:
            problem = task_problem(record) or self._unusable or "`lexsym score` cannot use this task record"
            return AnswerScore(kind, {}, False, None, problem=problem)
        if self._scorer is None:
            self._scorer = TaskScorer()
        warnings: list[str] = []
        row = answer_row(task, text, self._scorer, warnings)
        if task.task == "OE" and row.parsed:
            errors: list[LineError] = []
            score_oe([row], errors, warnings, self.source, 1)
            if not row.scores:  # the task's own case does not solve: not the answer's fault, not scored
                outcome = _outcome(row)
                outcome.problem = errors[0].message if errors else "the case does not solve"
                return outcome
        for warning in warnings:
            log.warning("%s", warning)
        outcome = _outcome(row)
        outcome.warnings = warnings
        outcome.table = getattr(task, "table", None) is not None
        return outcome


def _outcome(row: Row) -> AnswerScore:
    scores = {"format": float(row.parsed), **row.scores} if row.scores else {}
    return AnswerScore(
        task=row.task.task,
        scores=scores,
        parsed=row.parsed,
        error=row.error,
        value=row.value,
        violations=list(row.violations),
        beats_optimum=row.beats_optimum,
    )
