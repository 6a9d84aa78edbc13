"""Scoring a file of model predictions against a generated tasks.jsonl: parse, align, score, aggregate.

The metric definitions live in `lexsym.metrics`; this module turns records into the plain values those
functions take. It reads hostile input without crashing: every bad line (not JSON, truncated, wrong
types, duplicate id) becomes a counted error naming file:line, a task without a usable prediction is a
format failure, and predictions for unknown ids are listed. OE answers are checked by the logic program:
each distinct case is solved once and all of its OE answers are checked in one grounding.

Aggregates are kept per task, per (task, variant) and per (task, suite): mixing tasks in one number would
average unlike quantities (a MARE of EV claims with one of NA totals), so a suite is reported task by task.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
from collections import defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, Field

from lexsym import metrics
from lexsym._version import __version__
from lexsym.citations import citation_key
from lexsym.errors import InputError
from lexsym.vocabulary import JURISDICTION_NAMES

log = logging.getLogger("lexsym.scoring")

TASKS = ("AE", "EC", "EV", "NA", "OE")
#: Exam tasks (`lexsym exam convert`) scored here too: MCQ, by accuracy. OPEN tasks need a judge.
EXAM_TASKS = ("MCQ",)
#: Fields that may hold a model's raw output, in the order they are looked for.
TEXT_FIELDS = ("output", "completion", "prediction", "response", "text")
#: Metrics every sample has (format failures included), in table order.
RATE_METRICS = ("format", "precision", "recall", "f1")
OE_RATES = ("valid", "optimal", "within_tolerance")
#: Metrics defined for some samples only (matched amounts, valid schedules).
PARTIAL_METRICS = ("mare", "gap_percent")


class LineError(BaseModel):
    """A line of an input file that could not be used, and why."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class MetricSummary(BaseModel):
    """A metric's mean over the samples where it is defined, its bootstrap standard error, and that n."""

    mean: float | None
    se: float | None
    n: int


class GroupScore(BaseModel):
    """Aggregates of one group of samples: one task, alone or within one variant or suite."""

    task: str
    variant: str | None = None
    suite: str | None = None
    n: int
    metrics: dict[str, MetricSummary]
    violations: dict[str, int] = Field(default_factory=dict, description="OE: answers breaking each rule.")
    beats_optimum: int = Field(0, description="OE: valid answers better than the proven optimum (bugs).")


class SampleRow(BaseModel):
    """One task's outcome: whether a prediction came and parsed, its scores, and OE violations."""

    id: str
    task: str
    variant: str
    suite: str
    case_id: str | None = None
    predicted: bool
    parsed: bool
    error: str | None = None
    scores: dict[str, float | None]
    violations: list[str] = Field(default_factory=list)
    beats_optimum: bool = False


class ScoreReport(BaseModel):
    """Everything `lexsym score` found: counts, problems, aggregates and per-sample rows."""

    lexsym_version: str = __version__
    tasks_path: str
    predictions_path: str
    seed: int
    resamples: int
    tasks: int = Field(description="Usable task records.")
    predictions: int = Field(description="Usable prediction records (unknown ids included).")
    scored: int = Field(
        description="Samples scored: every usable task, missing predictions included, except OE tasks whose "
        "case does not solve."
    )
    missing: list[str] = Field(description="Task ids without a usable prediction (format failures).")
    unknown: list[str] = Field(description="Prediction ids that match no task.")
    errors: list[LineError] = Field(description="Lines that could not be used, and cases not scorable.")
    warnings: list[str] = Field(default_factory=list)
    by_task: list[GroupScore]
    by_variant: list[GroupScore]
    by_suite: list[GroupScore]
    samples: list[SampleRow]


@dataclass
class _Task:
    line: int
    id: str
    task: str
    variant: str
    suite: str
    case_id: str | None
    gold: Any
    case: dict[str, Any] | None
    record: dict[str, Any] | None = None  # MCQ: the whole record (labels, options, metadata)


@dataclass
class _Prediction:
    line: int
    text: str


@dataclass
class _Row:
    task: _Task
    predicted: bool
    parsed: bool
    error: str | None
    value: Any = None
    scores: dict[str, float | None] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)
    beats_optimum: bool = False


def _read_jsonl(path: Path, errors: list[LineError]) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) for every non-blank line that parses; the others become errors."""
    name = str(path)
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as error:
        raise InputError(f"{name}: cannot read: {error.strerror or error}") from None
    with stream:
        number = 0
        while True:
            try:
                raw = stream.readline()
            except OSError as error:
                raise InputError(f"{name}:{number + 1}: cannot read: {error.strerror or error}") from None
            if not raw:
                return
            number += 1
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                errors.append(LineError(file=name, line=number, message=f"not UTF-8 ({error.reason})"))
                continue
            if not text.strip():
                continue
            try:
                yield number, json.loads(text)
            except (ValueError, RecursionError) as error:
                complete = text.endswith("\n")
                what = "invalid JSON" if complete else "invalid JSON (truncated last line?)"
                errors.append(LineError(file=name, line=number, message=f"{what}: {error}"))


def _load_tasks(path: Path, errors: list[LineError]) -> list[_Task]:
    tasks: list[_Task] = []
    seen: dict[str, int] = {}
    for number, record in _read_jsonl(path, errors):
        problem = _task_problem(record)
        if problem:
            errors.append(LineError(file=str(path), line=number, message=problem))
            continue
        if record["id"] in seen:
            message = f"duplicate task id {record['id']!r} (first at line {seen[record['id']]})"
            errors.append(LineError(file=str(path), line=number, message=message))
            continue
        seen[record["id"]] = number
        meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
        case = record.get("case") if isinstance(record.get("case"), dict) else None
        case_id = meta.get("case_id") if isinstance(meta.get("case_id"), str) else None
        if case_id is None and case is not None and isinstance(case.get("id"), str):
            case_id = case["id"]
        tasks.append(
            _Task(
                line=number,
                id=record["id"],
                task=record["task"],
                variant=str(record.get("variant") or record["task"]),
                suite=str(meta.get("suite") or "-"),
                case_id=case_id,
                gold=record["gold"],
                case=case,
                record=record if record["task"] == "MCQ" else None,
            )
        )
    if not tasks:
        first = next((e for e in errors if e.file == str(path)), None)
        raise InputError(str(first) if first else f"{path}: no task records")
    return tasks


def _task_problem(record: Any) -> str | None:
    """Why a task record cannot be scored, or None. The gold is checked here, so scoring can trust it."""
    if not isinstance(record, dict):
        return f"a task record must be a JSON object, not {type(record).__name__}"
    if not isinstance(record.get("id"), str) or not record["id"]:
        return "a task record needs a string id"
    if record.get("task") == "MCQ":
        from lexsym.exams.mcq import mcq_task_problem

        return mcq_task_problem(record)
    if record.get("task") == "OPEN":
        return f"task {record['id']!r}: OPEN tasks are graded by a judge, not by `lexsym score`"
    if record.get("task") not in TASKS:
        return f"task {record['id']!r}: unknown task {record.get('task')!r}"
    try:
        _GOLD_CHECKS[record["task"]](record.get("gold"))
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        return f"task {record['id']!r}: gold is not a {record['task']} answer ({error})"
    if record["task"] == "OE" and not isinstance(record.get("case"), dict):
        return f"task {record['id']!r}: an OE task needs its case"
    return None


def _number(value: Any) -> float | None:
    """A finite number from an amount (int, float, or numeric string like "$1,200"), else None. Gold
    amounts are checked with it when tasks are read, so scoring never meets an unreadable gold amount."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.replace(",", "").replace("$", "").strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _check_list_of_str(value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError("expected a list of strings")


def _check_ec(gold: Any) -> None:
    if not isinstance(gold, dict):
        raise TypeError("expected an object")
    for citations in gold.values():
        _check_list_of_str(citations)


def _check_claims(claims: Any) -> None:
    if not isinstance(claims, list):
        raise TypeError("expected a list of claims")
    for claim in claims:
        if not isinstance(claim.get("citation"), str) or _number(claim.get("claim_value")) is None:
            raise ValueError("a claim needs a citation and a claim_value")


def _check_ev(gold: Any) -> None:
    if not isinstance(gold, dict):
        raise TypeError("expected an object")
    for claims in gold.values():
        _check_claims(claims)


def _check_na(gold: Any) -> None:
    if not isinstance(gold, dict) or any(_number(v) is None for v in gold.values()):
        raise TypeError("expected an object of amounts")


def _check_oe(gold: Any) -> None:
    if not isinstance(gold, dict) or not isinstance(gold.get("schedule"), dict):
        raise TypeError("expected an object with a schedule")
    for claims in gold["schedule"].values():
        _check_claims(claims)


_GOLD_CHECKS = {"AE": _check_list_of_str, "EC": _check_ec, "EV": _check_ev, "NA": _check_na, "OE": _check_oe}


def _load_predictions(path: Path, errors: list[LineError]) -> dict[str, _Prediction]:
    """Usable predictions by id; unusable lines are added to `errors`."""
    found: dict[str, _Prediction] = {}
    name = str(path)
    for number, record in _read_jsonl(path, errors):
        text, problem = _prediction_text(record)
        if problem:
            errors.append(LineError(file=name, line=number, message=problem))
            continue
        identifier = record["id"]
        if identifier in found:
            message = (
                f"duplicate prediction for {identifier!r} (the one at line {found[identifier].line} is used)"
            )
            errors.append(LineError(file=name, line=number, message=message))
            continue
        found[identifier] = _Prediction(number, text)
    return found


def _prediction_text(record: Any) -> tuple[str, str | None]:
    """The raw text of a prediction record (an "answer" object becomes text after a FINAL ANSWER marker)."""
    if not isinstance(record, dict):
        return "", f"a prediction must be a JSON object, not {type(record).__name__}"
    identifier = record.get("id")
    if not isinstance(identifier, str) or not identifier:
        return "", "a prediction needs a string id"
    for name in TEXT_FIELDS:
        if name in record:
            value = record[name]
            if value is None:
                return "", None  # the model gave nothing: a format failure, not a broken line
            if not isinstance(value, str):
                return "", f"prediction {identifier!r}: {name!r} must be a string, not {type(value).__name__}"
            return value, None
    if "answer" in record:
        answer = record["answer"]
        if isinstance(answer, str):
            return answer, None
        try:
            return "FINAL ANSWER: " + json.dumps(answer, ensure_ascii=False), None
        except (TypeError, ValueError) as error:  # pragma: no cover - JSON from json.loads always dumps
            return "", f"prediction {identifier!r}: answer cannot be serialised ({error})"
    fields = ", ".join((*TEXT_FIELDS, "answer"))
    return "", f"prediction {identifier!r}: no output field (one of {fields})"


class _Scorer:
    """Scores parsed answers of one task type against their gold; holds what every sample shares."""

    def __init__(self) -> None:
        from lexsym.rules import rules_root
        from lexsym.solver import _statute_citations

        self.known = tuple(_statute_citations(rules_root()))
        self._citations: dict[str, str] = {}

    def citation(self, text: Any) -> str:
        """The comparison key of the known citation `text` denotes. Memoised: `normalize_citation` scans
        every known citation (about a millisecond when none matches), and answers repeat a few citations."""
        from lexsym.answers import normalize_citation

        text = str(text)
        key = self._citations.get(text)
        if key is None:
            key = self._citations[text] = citation_key(normalize_citation(text, self.known))
        return key

    def by_gold_asset(self, predicted: Mapping[str, Any], gold: Mapping[str, Any]) -> dict[str, Any]:
        """Predicted entries re-keyed by the gold asset description each one aligns with (one to one)."""
        from lexsym.answers import align_assets

        keys = [str(k) for k in predicted]
        mapping = align_assets(keys, list(gold))
        return {mapping[k]: v for k, v in zip(keys, predicted.values(), strict=True) if k in mapping}

    def ae(self, value: Any, gold: list[str]) -> metrics.SampleScore:
        from lexsym.answers import jurisdiction_code

        predicted = {jurisdiction_code(v) for v in value}
        return metrics.SampleScore(metrics.set_prf(predicted, {jurisdiction_code(g) for g in gold}))

    def ec(self, value: Any, gold: dict[str, list[str]]) -> metrics.SampleScore:
        keyed = self.by_gold_asset(value, gold)
        predicted = {asset: {self.citation(c) for c in citations} for asset, citations in keyed.items()}
        expected = {asset: {citation_key(c) for c in citations} for asset, citations in gold.items()}
        return metrics.asset_mean_prf(predicted, expected)

    def ev(self, value: Any, gold: dict[str, list[dict[str, Any]]]) -> metrics.SampleScore:
        keyed = self.by_gold_asset(value, gold)
        predicted = {
            asset: [(self.citation(c.citation), _number(c.claim_value)) for c in claims]
            for asset, claims in keyed.items()
        }
        expected = {
            asset: [(citation_key(c["citation"]), _number(c["claim_value"]) or 0.0) for c in claims]
            for asset, claims in gold.items()
        }
        return metrics.asset_mean_amounts(predicted, expected)

    def na(self, value: Any, gold: dict[str, Any]) -> metrics.SampleScore:
        from lexsym.answers import jurisdiction_code

        predicted: dict[str, float | None] = {}
        for key, amount in value.items():
            predicted.setdefault(jurisdiction_code(key), _number(amount))
        expected = {jurisdiction_code(k): _number(v) or 0.0 for k, v in gold.items()}
        return metrics.non_exempt_score(predicted, expected)


def _prf_scores(score: metrics.SampleScore, with_mare: bool) -> dict[str, float | None]:
    scores: dict[str, float | None] = {
        "precision": score.prf.precision,
        "recall": score.prf.recall,
        "f1": score.prf.f1,
    }
    if with_mare:
        scores["mare"] = score.mare
    return scores


def _oe_scores(score: metrics.OEScore) -> dict[str, float | None]:
    return {
        "precision": score.prf.precision,
        "recall": score.prf.recall,
        "f1": score.prf.f1,
        "valid": float(score.valid),
        "optimal": float(score.correct),
        "within_tolerance": float(score.within_tolerance),
        "gap_percent": score.gap_percent,
        "mare": score.mare,
    }


def _empty_scores(task: str) -> dict[str, float | None]:
    """Scores of an answer that did not come or did not parse: wrong on every rate, no MARE or gap."""
    if task == "OE":
        return _oe_scores(metrics.oe_score(None))
    if task == "MCQ":
        return _mcq_scores(False)
    return _prf_scores(metrics.SampleScore(metrics.ZERO), task in ("EV", "NA"))


def _parse(task: str, text: str) -> tuple[bool, Any, str | None]:
    from lexsym.answers import parse_answer
    from lexsym.generate.config import Task

    try:
        parsed = parse_answer(Task(task), text)
    except Exception as error:  # a parser defect must not stop a run: report it, count a format failure
        return False, None, f"parser failed: {error.__class__.__name__}: {error}"
    if not parsed.ok:
        return False, None, parsed.error or "answer does not parse"
    return True, parsed.value, None


def score(
    tasks_path: str | Path,
    predictions_path: str | Path,
    *,
    seed: int = metrics.SEED,
    resamples: int = metrics.RESAMPLES,
    workers: int = 0,
) -> ScoreReport:
    """Score the predictions in `predictions_path` against the tasks in `tasks_path`.

    Predictions are JSONL, one object per line with an "id" and the model's raw text in one of
    "output", "completion", "prediction", "response" or "text", or an already-parsed "answer" object.
    Raises InputError (exit code 2) only when a file cannot be read, or holds lines but none usable.
    OE cases are solved and checked in `workers` processes (0: one per core; 1: in this process); the
    report does not depend on the number.
    """
    tasks_path, predictions_path = Path(tasks_path), Path(predictions_path)
    errors: list[LineError] = []
    warnings: list[str] = []
    tasks = _load_tasks(tasks_path, errors)
    predictions = _load_predictions(predictions_path, errors)
    first = next((e for e in errors if e.file == str(predictions_path)), None)
    if first is not None and not predictions:  # lines, but not one usable: the wrong file, or not JSONL
        raise InputError(str(first))
    known_ids = {t.id for t in tasks}
    unknown = [identifier for identifier in predictions if identifier not in known_ids]
    scorer = _Scorer()
    rows: list[_Row] = []
    missing: list[str] = []
    for task in tasks:
        prediction = predictions.get(task.id)
        if prediction is None:
            missing.append(task.id)
            rows.append(_Row(task, False, False, "no prediction", scores=_empty_scores(task.task)))
            continue
        if task.task == "MCQ":
            rows.append(_mcq_row(task, prediction.text))
            continue
        ok, value, error = _parse(task.task, prediction.text)
        row = _Row(task, True, ok, error, value=value, scores=_empty_scores(task.task))
        if ok and task.task != "OE":
            try:
                score_of = getattr(scorer, task.task.lower())(value, task.gold)
                row.scores = _prf_scores(score_of, task.task in ("EV", "NA"))
            except Exception as failure:  # a parsed value of an unexpected shape: wrong, and reported
                row.error = f"cannot score the parsed answer: {failure.__class__.__name__}: {failure}"
                warnings.append(f"{task.id}: {row.error}")
        rows.append(row)
    oe_rows = [r for r in rows if r.task.task == "OE" and r.parsed]
    _score_oe(oe_rows, errors, warnings, tasks_path, workers if workers > 0 else (os.cpu_count() or 1))
    report_rows = [r for r in rows if r.scores]
    return ScoreReport(
        tasks_path=str(tasks_path),
        predictions_path=str(predictions_path),
        seed=seed,
        resamples=resamples,
        tasks=len(tasks),
        predictions=len(predictions),
        scored=len(report_rows),
        missing=missing,
        unknown=unknown,
        errors=errors,
        warnings=warnings,
        by_task=_groups(report_rows, lambda r: (r.task.task, None, None), seed, resamples),
        by_variant=_groups(report_rows, lambda r: (r.task.task, r.task.variant, None), seed, resamples),
        by_suite=_groups(report_rows, lambda r: (r.task.task, None, r.task.suite), seed, resamples),
        samples=[
            SampleRow(
                id=r.task.id,
                task=r.task.task,
                variant=r.task.variant,
                suite=r.task.suite,
                case_id=r.task.case_id,
                predicted=r.predicted,
                parsed=r.parsed,
                error=r.error,
                scores={"format": float(r.parsed), **r.scores},
                violations=r.violations,
                beats_optimum=r.beats_optimum,
            )
            for r in report_rows
        ],
    )


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
    return _checkable_jurisdiction(jurisdiction), claims


def _checkable_jurisdiction(jurisdiction: str | None) -> str | None:
    """A jurisdiction the checker can take. It writes the id into its ASP facts as a bare constant, so an
    unknown name such as "New Zealand" or "U.K." is a syntax error that fails the whole case's batch. Any
    name that is not a known id becomes a constant that is one (and is not allowable either)."""
    if jurisdiction is None or jurisdiction.upper() in JURISDICTION_NAMES:
        return jurisdiction
    return "X_" + re.sub(r"[^A-Za-z0-9_]", "_", jurisdiction)


@dataclass
class _CaseJob:
    """One case and the OE schedules answered for it: the unit of work, sent to a worker process."""

    case_id: str
    case: dict[str, Any]
    schedules: list[tuple[str | None, list[tuple[str, str, object]]]]


@dataclass
class _CaseResult:
    case_id: str
    outcomes: list[metrics.ScheduleOutcome | None]  # None: the checker failed on that schedule
    error: str | None = None  # the case itself does not solve
    notes: list[str] = field(default_factory=list)


def _check_case(job: _CaseJob) -> _CaseResult:
    """Solve the case once and check all its schedules in one `check_schedules` call. Never raises: a
    case that does not solve is an error for the task file; a checker failure on the batch is retried
    schedule by schedule, and a schedule the checker still fails on is reported (outcome None)."""
    from lexsym.case import Case
    from lexsym.checker import ClaimedSchedule, check_schedules
    from lexsym.solver import solve

    try:
        case = Case.model_validate(job.case)
        solution = solve(case)
    except Exception as error:
        return _CaseResult(job.case_id, [], f"{error.__class__.__name__}: {error}")
    schedules = [ClaimedSchedule(jurisdiction, claims) for jurisdiction, claims in job.schedules]
    notes: list[str] = []
    try:
        verdicts: list[Any] = check_schedules(case, schedules, solution=solution)
    except Exception as error:
        notes.append(
            f"case {job.case_id}: checking its {len(schedules)} schedules together failed "
            f"({error.__class__.__name__}: {error}); checked one by one"
        )
        verdicts = []
        for number, schedule in enumerate(schedules):
            try:
                verdicts.append(check_schedules(case, [schedule], solution=solution)[0])
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


def _score_oe(
    rows: list[_Row], errors: list[LineError], warnings: list[str], tasks_path: Path, workers: int
) -> None:
    """Check every parsed OE answer: one solve and one `check_schedules` call per case, cases spread over
    `workers` processes (solving dominates the time of a scoring run)."""
    by_case: dict[str, list[_Row]] = defaultdict(list)
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
                schedules.append((None, []))
        jobs.append(_CaseJob(case_id, members[0].task.case or {}, schedules))
    for result in _run_jobs(jobs, workers):
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
            row.scores = _oe_scores(result_score)
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


def _run_jobs(jobs: list[_CaseJob], workers: int) -> Iterator[_CaseResult]:
    """Results of `_check_case` for every job, in job order, in this process or a fork pool."""
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_check_case, jobs)
        return
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(min(workers, len(jobs)))
    try:
        yield from pool.imap(_check_case, jobs, chunksize=4)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _groups(rows: list[_Row], key, seed: int, resamples: int) -> list[GroupScore]:
    grouped: dict[tuple[str, str | None, str | None], list[_Row]] = defaultdict(list)
    for row in rows:
        grouped[key(row)].append(row)
    order = {task: i for i, task in enumerate((*TASKS, *EXAM_TASKS))}
    return [
        _aggregate(task, variant, suite, members, seed, resamples)
        for (task, variant, suite), members in sorted(
            grouped.items(), key=lambda item: (order[item[0][0]], item[0][1] or "", item[0][2] or "")
        )
    ]


def _aggregate(
    task: str, variant: str | None, suite: str | None, rows: list[_Row], seed: int, resamples: int
) -> GroupScore:
    """Means and bootstrap SEs. Metrics every sample has share one draw of resampled rows; metrics defined
    for some samples only are resampled among those samples."""
    full = [*RATE_METRICS, *(OE_RATES if task == "OE" else ()), *(("accuracy",) if task == "MCQ" else ())]
    values = np.array(
        [[float(r.parsed), *(float(r.scores[m] or 0.0) for m in full[1:])] for r in rows], dtype=float
    )
    ses = metrics.bootstrap_ses(values, resamples=resamples, seed=seed)
    summary = {
        name: MetricSummary(mean=float(values[:, i].mean()), se=ses[i], n=len(rows))
        for i, name in enumerate(full)
    }
    for name in PARTIAL_METRICS:
        if not any(name in r.scores for r in rows):
            continue
        defined = [r.scores[name] for r in rows if r.scores.get(name) is not None]
        summary[name] = MetricSummary(
            mean=metrics.mean_defined(defined),
            se=metrics.bootstrap_se(defined, resamples=resamples, seed=seed),
            n=len(defined),
        )
    if task == "MCQ":
        summary.update(_mcq_summaries(rows, seed, resamples))
    violations = metrics.ViolationCounts()
    for row in rows:
        violations.add(row.violations)
    return GroupScore(
        task=task,
        variant=variant,
        suite=suite,
        n=len(rows),
        metrics=summary,
        violations=dict(sorted(violations.counts.items())),
        beats_optimum=sum(r.beats_optimum for r in rows),
    )


def _percent(summary: MetricSummary | None) -> str:
    if summary is None or summary.mean is None:
        return "–"
    return f"{100 * summary.mean:.1f}"


def _plain(summary: MetricSummary | None, spec: str = ".3f") -> str:
    return "–" if summary is None or summary.mean is None else format(summary.mean, spec)


def _with_se(summary: MetricSummary | None) -> str:
    if summary is None or summary.mean is None:
        return "–"
    se = f" ± {summary.se:.3f}" if summary.se is not None else ""
    return f"{summary.mean:.3f}{se}"


def render_report(report: ScoreReport, console: Any, *, by: str = "task") -> None:
    """Print `report` for people: one rich table (per task, or per task within each variant or suite), then
    what went wrong with the inputs. `console` is a rich Console. Only F1 shows its standard error, to keep
    the table narrow; every SE is in the JSON report. "valid%" and "optimal%" are OE's."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    groups = {"task": report.by_task, "variant": report.by_variant, "suite": report.by_suite}[by]
    title = Text(f"Scores of {report.predictions_path}")  # a Text: brackets in a path are not markup
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    if by != "task":
        longest = max((len(g.variant if by == "variant" else g.suite or "") for g in groups), default=0)
        table.add_column(by.capitalize(), min_width=max(longest, len(by)), no_wrap=True)
    table.add_column("Task", min_width=4, no_wrap=True)
    for header in ("n", "format%", "P", "R", "F1 ± SE", "MARE", "valid%", "optimal%"):
        table.add_column(header, justify="right", no_wrap=True)
    for group in groups:
        m = group.metrics
        cells = [
            str(group.n),
            _percent(m.get("format")),
            _plain(m.get("precision")),
            _plain(m.get("recall")),
            _with_se(m.get("f1")),
            _plain(m.get("mare"), ".3g"),
            _percent(m.get("valid")),
            _percent(m.get("optimal")),
        ]
        label = {"task": [], "variant": [group.variant or ""], "suite": [group.suite or ""]}[by]
        table.add_row(
            *(Text(text) for text in (*label, group.task)), *cells
        )  # names from the file: no markup
    console.print(table)
    oe = next((g for g in report.by_task if g.task == "OE"), None)
    if oe is not None and oe.violations:
        broken = ", ".join(
            f"{name} {count}" for name, count in sorted(oe.violations.items(), key=lambda i: -i[1])
        )
        console.print(f"OE answers breaking each rule: {broken}")
    if oe is not None and oe.beats_optimum:
        console.print(f"[bold red]{oe.beats_optimum} OE answer(s) beat the proven optimum: a solver bug[/]")
    for group in (g for g in report.by_task if g.task == "MCQ"):
        console.print(_mcq_line(group), markup=False, highlight=False, soft_wrap=True)
    console.print(
        f"{report.tasks} tasks, {report.predictions} predictions; {len(report.missing)} tasks without a "
        f"prediction (scored as format failures), {len(report.unknown)} predictions for unknown ids, "
        f"{len(report.errors)} unusable lines"
    )
    for error in report.errors[:5]:
        console.print(f"  {error}", markup=False, highlight=False, soft_wrap=True)
    if len(report.errors) > 5:
        console.print(f"  … and {len(report.errors) - 5} more (see --json)")
    for warning in report.warnings:
        style = "bold red" if warning.startswith("SOLVER BUG") else "yellow"
        console.print(warning, style=style, markup=False, highlight=False, soft_wrap=True)


# --- MCQ exam tasks (lexsym exam convert) -------------------------------------------------------------------
# Kept apart from AE..OE: an MCQ answer is one option label, read by `lexsym.exams.mcq.extract_choice`. For a
# single-answer question precision, recall and F1 all equal correctness, so the table's F1 ± SE column shows
# accuracy ± bootstrap SE; "format" is the share of outputs an option could be read from (extraction failures
# are counted apart, and count as wrong). `lexsym exam score` gives the full MCQ report.


def _mcq_scores(correct: bool) -> dict[str, float | None]:
    value = float(correct)
    return {"precision": value, "recall": value, "f1": value, "accuracy": value}


def _mcq_row(task: _Task, text: str) -> _Row:
    from lexsym.exams.mcq import extract_choice

    reference = (task.record or {}).get("reference") or {}
    extraction = extract_choice(text, reference.get("labels") or [], options=reference.get("options"))
    return _Row(
        task,
        True,
        extraction.ok,
        extraction.error,
        value=extraction.label,
        scores=_mcq_scores(extraction.label == task.gold),
    )


def _mcq_summaries(rows: list[_Row], seed: int, resamples: int) -> dict[str, MetricSummary]:
    """Accuracy's clustered SE (by course; n counts courses) and accuracy among the extracted answers."""
    from lexsym.exams.mcq import cluster_key, clustered_se

    correct = [float(r.scores.get("accuracy") or 0.0) for r in rows]
    clusters = [cluster_key(r.task.record or {"id": r.task.id}, "course") for r in rows]
    extracted = [float(r.scores.get("accuracy") or 0.0) for r in rows if r.parsed]
    return {
        "accuracy_clustered": MetricSummary(
            mean=float(np.mean(correct)) if correct else None,
            se=clustered_se(correct, clusters),
            n=len(set(clusters)),
        ),
        "accuracy_extracted": MetricSummary(
            mean=metrics.mean_defined(extracted),
            se=metrics.bootstrap_se(extracted, resamples=resamples, seed=seed),
            n=len(extracted),
        ),
    }


def _mcq_line(group: GroupScore) -> str:
    m = group.metrics
    accuracy, clustered = m["accuracy"], m.get("accuracy_clustered")
    failures = round(group.n * (1 - (m["format"].mean or 0.0)))
    by_course = (
        f", ± {100 * clustered.se:.1f} clustered by course ({clustered.n} courses)"
        if clustered is not None and clustered.se is not None
        else ""
    )
    se = f" ± {100 * accuracy.se:.1f}" if accuracy.se is not None else ""
    return (
        f"MCQ accuracy {_percent(accuracy)}%{se} (bootstrap SE){by_course}; "
        f"{failures} of {group.n} outputs without a readable option (counted wrong)"
    )
