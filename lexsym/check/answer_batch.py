"""`lexsym check ANSWERS.jsonl`: many answer records judged in one process or one pool, as a batch.

A batch pays the per-process costs once (clingo, the rule files, each task file's index) instead of once
per command, like `lexsym solve --batch`. A record that cannot be read or checked is an outcome with its
error, never the end of the batch; verdicts come back in input order whatever the number of workers, and
an output file is resumed after a kill (`lexsym._util.resumable_output`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError, LexsymError
from lexsym._util.parallel import Executor, map_in_order
from lexsym._util.resumable_output import append_record, complete_lines
from lexsym.check.answer_file import AnswerFile, CheckReport, TaskCases, answer_from_record, check_answer_file
from lexsym.law.case import Case


@dataclass(frozen=True)
class CheckOutcome:
    """One record of a batch: its report, or the one-line error that stopped it."""

    line: int
    case_id: str | None
    report: CheckReport | None
    error: str | None = None

    def record(self) -> dict[str, Any]:
        """The outcome as a line of the verdicts file."""
        if self.report is None:
            return {"line": self.line, "case_id": self.case_id, "error": self.error}
        return {
            "line": self.line,
            "case_id": self.case_id,
            "all_correct": self.report.all_correct,
            "report": self.report.model_dump(mode="json"),
        }


@dataclass
class BatchCounts:
    """What a batch found: answers all correct, answers with a wrong task, lines not checked, resumed."""

    correct: int = 0
    wrong: int = 0
    failed: int = 0
    resumed: int = 0
    errors: list[str] = field(default_factory=list)

    def add(self, outcome: CheckOutcome) -> None:
        if outcome.report is None:
            self.failed += 1
            self.errors.append(outcome.error or "")
        elif outcome.report.all_correct:
            self.correct += 1
        else:
            self.wrong += 1

    @property
    def checked(self) -> int:
        return self.correct + self.wrong


def read_answers(path: Path, case_override: Path | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, (answer, case) or its error message) for every non-blank line of a JSONL file of
    answer records; `case_file` and `task.tasks` are relative to the file's folder."""
    from lexsym._util.jsonl import LineError, read_jsonl

    errors: list[LineError] = []
    tasks = TaskCases()
    for number, data in read_jsonl(path, errors):
        while errors:  # lines before this one that were not JSON
            error = errors.pop(0)
            yield error.line, str(error)
        try:
            yield number, answer_from_record(data, path.parent, f"{path}:{number}", case_override, tasks)
        except LexsymError as error:
            yield number, str(error)
    for error in errors:
        yield error.line, str(error)


def _check_one(item: tuple[int, tuple[AnswerFile, Case] | str]) -> CheckOutcome:
    """Never raises: the error of a record is its outcome."""
    line, read = item
    if isinstance(read, str):
        return CheckOutcome(line, None, None, read)
    answer, case = read
    try:
        return CheckOutcome(line, case.id, check_answer_file(answer, case))
    except LexsymError as error:
        return CheckOutcome(line, case.id, None, str(error))
    except Exception as error:  # an internal error on one answer must not lose the others
        return CheckOutcome(line, case.id, None, f"internal error: {error.__class__.__name__}: {error}")


def check_answers(
    path: Path,
    out: Path | None = None,
    *,
    case_override: Path | None = None,
    workers: int = 1,
    executor: Executor | str = Executor.local,
    on_outcome: Callable[[CheckOutcome], None] | None = None,
) -> BatchCounts:
    """Check every answer record of `path`, in input order. With `out`, each outcome is appended to it as
    a line (`{"line", "case_id", "all_correct", "report"}` or `{"line", "case_id", "error"}`); an existing
    `out` is resumed after its complete lines. `on_outcome` sees each new outcome as it is written."""
    path = Path(path)
    if out is not None and Path(out).resolve() == path.resolve():
        raise InputError(f"{out}: the verdicts file cannot be the answers file")
    pending = list(read_answers(path, case_override))
    done = complete_lines(Path(out)) if out is not None else 0
    if done > len(pending):
        raise InputError(f"{out}: holds {done} lines, more than the {len(pending)} answers of {path}")
    counts = BatchCounts(resumed=done)
    outcomes = map_in_order(_check_one, pending[done:], workers=workers, executor=executor)
    if out is not None:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
    with Path(out).open("ab") if out is not None else nullcontext() as handle:
        for outcome in outcomes:
            if handle is not None:
                append_record(handle, outcome.record())
            counts.add(outcome)
            if on_outcome:
                on_outcome(outcome)
    return counts
