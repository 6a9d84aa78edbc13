"""`lexsym check`: an answer file (a case plus answers to some of the five tasks) judged against the logic
program. OE schedules go through the checker (named violations, gap to the optimum); AE..NA answers are
compared with the gold answers, difference by difference.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lexsym._util.errors import InputError
from lexsym._util.json_file import parse_json
from lexsym._util.jsonl import jsonl_lines
from lexsym.check.checker import ClaimedSchedule, check_schedules
from lexsym.law.case import Case, describe_validation_error, load_json
from lexsym.law.citations import citation_key
from lexsym.law.first_pass import statute_citations
from lexsym.law.gold import gold_answers, jurisdiction_name
from lexsym.law.rules import rules_root
from lexsym.law.solver import solve
from lexsym.law.tasks import Task

TOLERANCE = 0.05


class TaskRef(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: str = Field(
        description="A tasks.jsonl written by `lexsym generate` (relative to the answer file)."
    )
    id: str


class AnswerFile(BaseModel):
    """A case and answers to one or more tasks. Each answer is either JSON in the task's answer format or
    a model's raw output (text ending in "FINAL ANSWER: ...")."""

    model_config = ConfigDict(extra="forbid")

    case: Case | None = None
    case_file: str | None = Field(default=None, description="A case JSON file (relative to the answer file).")
    task: TaskRef | None = Field(default=None, description="Take the case from a generated task instead.")
    answers: dict[Task, Any] = Field(min_length=1)


class TaskVerdict(BaseModel):
    task: Task
    parsed: bool
    correct: bool
    error: str | None = None
    differences: list[str] = Field(default_factory=list)
    violations: list[dict[str, Any]] = Field(default_factory=list)
    jurisdiction: str | None = None
    protected: int | None = None
    optimal_protected: int | None = None
    gap: int | None = None
    gap_percent: float | None = None


class CheckReport(BaseModel):
    case_id: str
    verdicts: list[TaskVerdict]

    @property
    def all_correct(self) -> bool:
        return all(v.correct for v in self.verdicts)


def load_answer_file(path: Path, case_override: Path | None = None) -> tuple[AnswerFile, Case]:
    """The answer file and the case it refers to (`case_override` wins)."""
    return answer_from_record(load_json(path), path.parent, str(path), case_override)


def answer_from_record(
    data: Any,
    base: Path,
    source: str,
    case_override: Path | None = None,
    tasks: TaskCases | None = None,
) -> tuple[AnswerFile, Case]:
    """An answer record (the JSON of an answer file) and its case. `base` is the folder `case_file` and
    `task.tasks` are relative to; `source` names the record in errors; `tasks` looks cases up in task
    files (one index per file, for batches)."""
    from lexsym.law.case import load_case

    try:
        answer = AnswerFile.model_validate(data)
    except ValidationError as error:
        raise InputError(f"{source}: {describe_validation_error(error)}") from None
    if case_override is not None:
        return answer, load_case(case_override)
    if answer.case is not None:
        return answer, answer.case
    if answer.case_file:
        return answer, load_case(base / answer.case_file)
    if answer.task is not None:
        return answer, (tasks or TaskCases()).case(base / answer.task.tasks, answer.task.id)
    raise InputError(f"{source}: give the case (case, case_file or task), or --case")


class TaskCases:
    """Cases of generated tasks by id, each task file read once however many answers refer to it."""

    def __init__(self) -> None:
        self._files: dict[Path, dict[str, tuple[int, Any]]] = {}

    def case(self, tasks: Path, task_id: str) -> Case:
        from lexsym.law.case import parse_case

        if tasks not in self._files:
            self._files[tasks] = self._index(tasks)
        if task_id not in self._files[tasks]:
            raise InputError(f"{tasks}: no task with id {task_id!r}")
        number, record = self._files[tasks][task_id]
        return parse_case(record.get("case"), source=f"{tasks}:{number}: case")

    @staticmethod
    def _index(tasks: Path) -> dict[str, tuple[int, Any]]:
        index: dict[str, tuple[int, Any]] = {}
        for number, line in enumerate(_lines(tasks), 1):
            record = parse_json(line, f"{tasks}:{number}", line_numbers=False)
            if isinstance(record, dict) and isinstance(record.get("id"), str):
                index.setdefault(record["id"], (number, record))
        return index


def _lines(path: Path) -> list[str]:
    try:
        return jsonl_lines(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None


def check_answer_file(answer: AnswerFile, case: Case) -> CheckReport:
    """Verdicts for every task answered."""
    from lexsym.answers import align_assets, normalize_citation, parse_answer

    solution = solve(case)
    gold = gold_answers(case, solution)
    known = sorted(
        {m.citation for r in solution.jurisdictions for ms in r.classification.values() for m in ms}
        | {c.citation for c in solution.optimal.schedule}
    )

    known = sorted(set(known) | set(statute_citations(rules_root())))
    verdicts = []
    for task in Task:
        if task not in answer.answers:
            continue
        raw = answer.answers[task]
        text = raw if isinstance(raw, str) else "FINAL ANSWER: " + json.dumps(raw)
        parsed = parse_answer(task, text)
        if not parsed.ok:
            verdicts.append(TaskVerdict(task=task, parsed=False, correct=False, error=parsed.error))
            continue
        if task is Task.OE:
            verdicts.append(_check_oe(case, solution, parsed.value))
            continue
        differences = _DIFFERENCES[task](
            parsed.value, gold[task.value], case, known, align_assets, normalize_citation
        )
        verdicts.append(TaskVerdict(task=task, parsed=True, correct=not differences, differences=differences))
    return CheckReport(case_id=case.id, verdicts=verdicts)


def _check_oe(case: Case, solution, answer) -> TaskVerdict:
    verdict = check_schedules(case, [ClaimedSchedule.from_answer(answer)], solution=solution)[0]
    optimum = solution.total_value - solution.optimal.non_exempt_total
    differences = []
    if verdict.beats_optimum:
        differences.append(
            f"LOUD: this valid schedule protects more than the proven optimum "
            f"({verdict.protected:,} > {optimum:,}); please report it: the rules or the solver are wrong"
        )
    elif verdict.valid and verdict.gap:
        differences.append(
            f"valid but not optimal: protects ${verdict.protected:,} against the optimum ${optimum:,} "
            f"(${verdict.gap:,} or {verdict.gap_percent:.1f}% short)"
        )
    return TaskVerdict(
        task=Task.OE,
        parsed=True,
        correct=verdict.valid and verdict.gap == 0,
        differences=differences,
        violations=[
            {"name": v.name, "citation": v.citation, "message": v.message} for v in verdict.violations
        ],
        jurisdiction=verdict.jurisdiction,
        protected=verdict.protected,
        optimal_protected=optimum,
        gap=verdict.gap if verdict.valid else None,
        gap_percent=verdict.gap_percent if verdict.valid else None,
    )


def _jurisdictions(value, gold, *_args) -> list[str]:
    wanted = {jurisdiction_name(code) for code in value}
    missing = [name for name in gold if name not in wanted]
    extra = sorted(wanted - set(gold))
    return [f"missing jurisdiction {name}" for name in missing] + [f"not allowable: {name}" for name in extra]


def _by_asset(value: dict, gold: dict, align) -> tuple[dict[str, Any], list[str]]:
    """Predicted entries keyed by gold asset description, and the differences alignment found."""
    mapping = align(list(value), list(gold))
    notes = [f"unknown asset '{key}'" for key in value if key not in mapping]
    notes += [f"no answer for asset '{asset}'" for asset in gold if asset not in mapping.values()]
    return {mapping[key]: entries for key, entries in value.items() if key in mapping}, notes


def _classification(value, gold, case, known, align, normalize) -> list[str]:
    keyed, notes = _by_asset(value, gold, align)
    for asset, citations in keyed.items():
        predicted = {normalize(c, known) for c in citations}
        expected = set(gold[asset])
        notes += [f"'{asset}': missing {c}" for c in sorted(expected - predicted)]
        notes += [f"'{asset}': {c} does not apply" for c in sorted(predicted - expected)]
    return notes


def _relative_error(predicted: float, expected: float) -> float:
    """OpenExempt's tolerance measure: |predicted / (expected + 1) - 1|, 0 when equal."""
    return 0.0 if predicted == expected else abs(predicted / (expected + 1) - 1)


def _valuation(value, gold, case, known, align, normalize) -> list[str]:
    keyed, notes = _by_asset(value, gold, align)
    for asset, claims in keyed.items():
        expected = {citation_key(c["citation"]): c for c in gold[asset]}
        seen = set()
        for claim in claims:
            key = citation_key(normalize(claim.citation, known))
            seen.add(key)
            if key not in expected:
                notes.append(f"'{asset}': {claim.citation} does not apply")
            elif claim.claim_value != expected[key]["claim_value"]:
                notes.append(
                    f"'{asset}': {expected[key]['citation']} can protect ${expected[key]['claim_value']:,}, "
                    f"not {claim.raw_value}"
                )
        notes += [f"'{asset}': missing {c['citation']}" for k, c in expected.items() if k not in seen]
    return notes


def _non_exempt(value, gold, *_args) -> list[str]:
    named = {jurisdiction_name(code): amount for code, amount in value.items()}
    notes = [f"missing jurisdiction {name}" for name in gold if name not in named]
    for name, amount in named.items():
        if name not in gold:
            notes.append(f"not allowable: {name}")
        elif amount != gold[name]:
            notes.append(f"{name}: least non-exempt value is ${gold[name]:,}, not {amount}")
    return notes


_DIFFERENCES = {Task.AE: _jurisdictions, Task.EC: _classification, Task.EV: _valuation, Task.NA: _non_exempt}
