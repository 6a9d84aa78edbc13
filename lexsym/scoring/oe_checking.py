"""OE answers checked by the logic program: each distinct case is solved once and all of its OE answers are
checked in one grounding, cases spread over worker processes (solving dominates a scoring run's time).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.jsonl import LineError
from lexsym._util.parallel import Executor, map_in_order
from lexsym.scoring import metrics
from lexsym.scoring.task_scorers import Row, oe_scores

log = logging.getLogger("lexsym.scoring")


def _oe_claims(value: Any) -> tuple[str | None, list[tuple[str, str, object]]]:
    """An OEAnswer as the checker takes it; an unreadable amount goes in as written, for the checker to
    name (bad_amount)."""
    claims = [
        (
            str(asset),
            str(claim.citation),
            claim.claim_value if claim.claim_value is not None else claim.raw_value,
        )
        for asset, listed in value.schedule.items()
        for claim in listed
    ]
    jurisdiction = value.jurisdiction if isinstance(value.jurisdiction, str) else None
    return jurisdiction, claims  # the checker maps any name it does not know to a constant of its own


UNREADABLE = "X_unreadable"
"""The jurisdiction of a schedule that could not be read: a constant that is never allowable."""


def _empty_schedule_jurisdiction(jurisdiction: str | None, claims: list, solution: Any) -> str | None:
    """An empty schedule that names no jurisdiction (OpenExempt's answer format has no field for it) claims
    nothing under any system: it is checked under the optimal jurisdiction, where it is valid, and optimal
    exactly when nothing can be exempted. A schedule with claims still has to say, or show, its law."""
    if jurisdiction is None and not claims:
        return solution.optimal.jurisdiction
    return jurisdiction


@dataclass
class _CaseJob:
    """One case and the OE schedules answered for it: the unit of work, sent to a worker process."""

    case_id: str
    case: dict[str, Any]
    schedules: list[tuple[str | None, list[tuple[str, str, object]]]]
    table: dict[str, Any] | None = None  # the what-if table the task set's gold rests on


@dataclass
class _CaseResult:
    case_id: str
    outcomes: list[metrics.ScheduleOutcome | None]  # None: the checker failed on that schedule
    error: str | None = None  # the case itself does not solve
    notes: list[str] = field(default_factory=list)


def _check_cases(jobs: list[_CaseJob]) -> list[_CaseResult]:
    """`_check_case` for a run of jobs: the cases that share a table are solved together, then their
    schedules checked together (lexsym.law.solver.solve_cases, lexsym.check.checker.check_schedules_many)."""
    from lexsym.check.checker import check_schedules_many
    from lexsym.law.case import Case
    from lexsym.law.solver import solve_cases
    from lexsym.law.whatif import ExemptionTable

    solved: dict[int, Any] = {}
    checked: dict[int, Any] = {}
    by_table: dict[str, list[int]] = defaultdict(list)
    for index, job in enumerate(jobs):
        by_table[repr(job.table)].append(index)
    for members in by_table.values():
        try:
            table = jobs[members[0]].table
            tables = [ExemptionTable.model_validate(table)] if table is not None else []
            cases = {i: Case.model_validate(jobs[i].case) for i in members}
            solved.update(zip(members, solve_cases(list(cases.values()), tables=tables), strict=True))
            ready = [i for i in members if not isinstance(solved[i], Exception)]
            items = [(cases[i], _schedules(jobs[i], solved[i]), solved[i]) for i in ready]
            checked.update(zip(ready, check_schedules_many(items, tables=tables), strict=True))
        except Exception:  # each job of the group is then solved and checked on its own
            continue
    return [_check_case(job, solved.get(index), checked.get(index)) for index, job in enumerate(jobs)]


def _schedules(job: _CaseJob, solution: Any) -> list[Any]:
    from lexsym.check.checker import ClaimedSchedule

    return [
        ClaimedSchedule(_empty_schedule_jurisdiction(jurisdiction, claims, solution), claims)
        for jurisdiction, claims in job.schedules
    ]


def _check_case(job: _CaseJob, solution: Any = None, checked: Any = None) -> _CaseResult:
    """Solve the case once and check all its schedules in one `check_schedules` call, unless the
    `solution` and the `checked` verdicts (or the errors that stopped them) are given. Never raises: a
    case that does not solve is an error for the task file; a checker failure on the batch is retried
    schedule by schedule, and a schedule the checker still fails on is reported (outcome None)."""
    from lexsym.check.checker import check_schedules
    from lexsym.law.case import Case
    from lexsym.law.solver import solve
    from lexsym.law.whatif import ExemptionTable

    try:
        case = Case.model_validate(job.case)
        tables = [ExemptionTable.model_validate(job.table)] if job.table is not None else []
        if isinstance(solution, Exception):
            raise solution
        solution = solution or solve(case, tables=tables)
    except Exception as error:
        return _CaseResult(job.case_id, [], f"{error.__class__.__name__}: {error}")
    schedules = _schedules(job, solution)
    notes: list[str] = []
    try:
        if isinstance(checked, Exception):
            raise checked
        verdicts: list[Any] = checked or check_schedules(case, schedules, tables=tables, solution=solution)
    except Exception as error:
        notes.append(
            f"case {job.case_id}: checking its {len(schedules)} schedules together failed "
            f"({error.__class__.__name__}: {error}); checked one by one"
        )
        verdicts = []
        for number, schedule in enumerate(schedules):
            try:
                verdicts.append(check_schedules(case, [schedule], tables=tables, solution=solution)[0])
            except Exception as single:
                notes.append(f"case {job.case_id}, schedule {number}: {single.__class__.__name__}: {single}")
                verdicts.append(None)
    outcomes = [
        None
        if verdict is None
        else metrics.ScheduleOutcome(
            valid=verdict.valid,
            non_exempt=verdict.non_exempt,
            optimal_non_exempt=verdict.optimal_non_exempt,
            gap=verdict.gap,
            gap_percent=verdict.gap_percent,
            beats_optimum=verdict.beats_optimum,
            violations=tuple(v.name for v in verdict.violations),
        )
        for verdict in verdicts
    ]
    return _CaseResult(job.case_id, outcomes, None, notes)


def score_oe(
    rows: list[Row],
    errors: list[LineError],
    warnings: list[str],
    tasks_path: Path,
    workers: int,
    executor: Executor | str = Executor.local,
) -> None:
    """Check every parsed OE answer: one solve and one `check_schedules` call per case, cases spread over
    `workers` local processes or a Ray cluster (`executor`; solving dominates the time of a scoring run)."""
    by_case: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_case[row.task.case_id or f"line {row.task.line}"].append(row)
    jobs = []
    for case_id, members in by_case.items():
        schedules = []
        for row in members:
            try:
                schedules.append(_oe_claims(row.value))
            except Exception as error:  # a parsed value of an unexpected shape
                row.error = f"cannot read the parsed schedule: {error.__class__.__name__}: {error}"
                warnings.append(f"{row.task.id}: {row.error}")
                schedules.append((UNREADABLE, []))
        jobs.append(_CaseJob(case_id, members[0].task.case or {}, schedules, members[0].task.table))
    for result in _run_jobs(jobs, workers, executor):
        members = by_case[result.case_id]
        warnings.extend(result.notes)
        if result.error is not None:
            # The task's own case does not solve: the task is broken, not the answers. Leave them unscored.
            message = (
                f"case {result.case_id} does not solve; its {len(members)} OE answer(s) are not scored: "
                f"{result.error}"
            )
            errors.append(LineError(file=str(tasks_path), line=members[0].task.line, message=message))
            for row in members:
                row.scores = {}
            continue
        for row, outcome in zip(members, result.outcomes, strict=True):
            if outcome is None:
                row.error = "the checker failed on this schedule; counted as invalid (checker_error)"
                outcome = metrics.ScheduleOutcome(False, 0, 0, 0, 0.0, False, ("checker_error",))
            result_score = metrics.oe_score(outcome)
            row.scores = oe_scores(result_score)
            row.violations = list(result_score.violations)
            row.beats_optimum = result_score.beats_optimum
            if result_score.beats_optimum:
                message = (
                    f"SOLVER BUG: the OE answer to task {row.task.id} (case {result.case_id}) is valid and "
                    f"leaves ${outcome.non_exempt:,} non-exempt, less than the proven optimum "
                    f"${outcome.optimal_non_exempt:,}: the checker, the rules or the solver are wrong; "
                    "please report it (the answer is not credited)"
                )
                log.error(message)
                warnings.append(message)


def _run_jobs(jobs: list[_CaseJob], workers: int, executor: Executor | str) -> Iterator[_CaseResult]:
    """Results of `_check_case` for every job, in job order, in this process, a fork pool or on Ray. Jobs
    go to the runs of cases grounded together sorted by where the debtors lived, since only cases that
    need the same statutes share a grounding."""
    from lexsym.law.solver import CASES_PER_GROUNDING

    order = sorted(range(len(jobs)), key=lambda index: (_places(jobs[index]), index))
    runs = [order[i : i + CASES_PER_GROUNDING] for i in range(0, len(order), CASES_PER_GROUNDING)]
    batches = [[jobs[i] for i in run] for run in runs]
    checked = map_in_order(_check_cases, batches, workers=workers, executor=executor, chunk_size=1)
    results: dict[int, _CaseResult] = {}
    for run, run_results in zip(runs, checked, strict=True):
        results.update(zip(run, run_results, strict=True))
    return (results[index] for index in range(len(jobs)))


def _places(job: _CaseJob) -> tuple[str, ...]:
    """Where the debtors lived 730 days before the petition, which usually decides the statutes a case
    needs (a key for grouping cases, nothing more: any value is safe)."""
    petition = str(job.case.get("petition_date") or "")
    try:
        day = (dt.date.fromisoformat(petition) - dt.timedelta(days=730)).isoformat()
    except ValueError:
        return ()
    places = set()
    for periods in (job.case.get("domicile"), job.case.get("spouse_domicile")):
        for period in periods if isinstance(periods, list) else []:
            if isinstance(period, dict) and str(period.get("start")) <= day < str(period.get("end") or "9"):
                places.add(str(period.get("state")))
    return tuple(sorted(places))
