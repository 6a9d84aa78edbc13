"""Many cases solved in one process or one pool: `lexsym.solve_many()` and `lexsym solve --batch`.

A batch pays the per-process costs once (loading clingo, parsing the rule files, finding and hashing the
statutes) instead of once per command, and spreads cases over worker processes. A case that fails is an
outcome with its error, never the end of the batch. Outcomes come back in input order whatever the number
of workers, so a solutions file is the same byte for byte however it was made, and resuming a killed
batch appends exactly the lines an uninterrupted one would have written.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError, LexsymError
from lexsym._util.parallel import Executor, map_in_order
from lexsym._util.resumable_output import append_record, complete_lines
from lexsym.law.case import Case, parse_case
from lexsym.law.solution import Solution
from lexsym.law.whatif import ExemptionTable


@dataclass(frozen=True)
class SolveOutcome:
    """One case of a batch: its solution, or the one-line error that stopped it."""

    index: int
    case_id: str | None  # None: the case could not be read
    solution: Solution | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.solution is not None


@dataclass(frozen=True)
class _Options:
    tables: tuple[ExemptionTable, ...]
    all_jurisdictions: bool
    rules: str | None
    time_limit: int


def _solve_one(item: tuple[int, str | None, Case | str, _Options]) -> SolveOutcome:
    """Never raises: the error of a case is its outcome (a bad case, a rule defect, a failed proof)."""
    from lexsym.law.solver import solve

    index, case_id, case, options = item
    if isinstance(case, str):  # the case could not be read: its error travels in its place
        return SolveOutcome(index, case_id, None, case)
    try:
        solution = solve(
            case,
            tables=options.tables,
            all_jurisdictions=options.all_jurisdictions,
            rules=options.rules,
            time_limit=options.time_limit,
        )
    except LexsymError as error:
        return SolveOutcome(index, case_id, None, str(error))
    except Exception as error:  # an internal error on one case must not lose the others
        return SolveOutcome(index, case_id, None, f"internal error: {error.__class__.__name__}: {error}")
    return SolveOutcome(index, case_id, solution)


def _solve_chunk(items: list[tuple[int, str | None, Case | str, _Options]]) -> list[SolveOutcome]:
    """Outcomes of a run of cases that share options, solved together; never raises."""
    from lexsym.law.solver import solve_cases

    options = items[0][3]
    readable = [(index, case_id, case) for index, case_id, case, _ in items if isinstance(case, Case)]
    try:
        solved = solve_cases(
            [case for _, _, case in readable],
            tables=options.tables,
            all_jurisdictions=options.all_jurisdictions,
            rules=options.rules,
            time_limit=options.time_limit,
        )
    except Exception:  # an internal error: solve them one by one, so it is reported for its own case
        return [_solve_one(item) for item in items]
    outcomes = {
        index: SolveOutcome(index, case_id, None, str(result))
        if isinstance(result, LexsymError)
        else SolveOutcome(index, case_id, result)
        for (index, case_id, _), result in zip(readable, solved, strict=True)
    }
    return [outcomes.get(item[0]) or _solve_one(item) for item in items]


def _runs(items: Iterable, size: int) -> Iterator[list]:
    iterator = iter(items)
    while run := list(itertools.islice(iterator, size)):
        yield run


def solve_many(
    cases: Iterable[Case | str],
    *,
    tables: Sequence[ExemptionTable] = (),
    all_jurisdictions: bool = False,
    rules: str | None = None,
    time_limit: int = 0,
    workers: int = 1,
    executor: Executor | str = Executor.local,
    start: int = 0,
) -> Iterator[SolveOutcome]:
    """Solve every case, outcomes streamed in input order (a case given as a string is an error message
    for a case that could not be read). `workers` > 1 spreads cases over that many local processes, and
    `executor` "ray" over a Ray cluster (`lexsym._util.parallel`); a worker that dies raises `WorkerDied`
    rather than hang; an executor that cannot run raises here, before any case. `start` numbers the first
    case (for resumed batches)."""
    from lexsym.law.solver import CASES_PER_GROUNDING

    options = _Options(tuple(tables), all_jurisdictions, rules, time_limit)
    items = (
        (start + number, case.id if isinstance(case, Case) else None, case, options)
        for number, case in enumerate(cases)
    )
    chunks = map_in_order(
        _solve_chunk, _runs(items, CASES_PER_GROUNDING), workers=workers, executor=executor, chunk_size=1
    )
    return (outcome for chunk in chunks for outcome in chunk)


def read_cases(
    path: Path, parse: Callable[[Any, str], Case] | None = None
) -> Iterator[tuple[int, Case | str]]:
    """(line number, case or its error) for every non-blank line of a JSONL file of cases. `parse(record,
    source)` reads one record (default: a lexsym case); a line that is not JSON or not a case is an error
    naming file:line, and the batch goes on."""
    from lexsym._util.jsonl import LineError, read_jsonl

    parse = parse or (lambda record, source: parse_case(record, source=source))
    errors: list[LineError] = []
    for number, record in read_jsonl(path, errors):
        while errors:  # lines before this one that were not JSON
            error = errors.pop(0)
            yield error.line, str(error)
        try:
            yield number, parse(record, f"{path}:{number}")
        except LexsymError as error:
            yield number, str(error)
    for error in errors:
        yield error.line, str(error)


def solve_file(
    cases_path: Path,
    out: Path,
    *,
    parse: Callable[[Any, str], Case] | None = None,
    progress: Callable[[int], None] | None = None,
    **options: Any,
) -> dict[str, int]:
    """Solve a JSONL file of cases into a JSONL file of outcomes (`{"line", "id", "solution"}` or
    `{"line", "id", "error"}`), one line per case in input order. An existing `out` is resumed: its
    complete lines are kept and solving goes on after them. Returns counts: solved, failed, resumed."""
    cases_path, out = Path(cases_path), Path(out)
    if cases_path.resolve() == out.resolve():
        raise InputError(f"{out}: the solutions file cannot be the cases file")
    done = complete_lines(out)
    pending = list(read_cases(cases_path, parse))
    if done > len(pending):
        raise InputError(f"{out}: holds {done} lines, more than the {len(pending)} cases of {cases_path}")
    lines = [number for number, _ in pending[done:]]
    counts = {"solved": 0, "failed": 0, "resumed": done}
    outcomes = solve_many((case for _, case in pending[done:]), start=done, **options)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("ab") as handle:
        for line, outcome in zip(lines, outcomes, strict=True):
            record: dict[str, Any] = {"line": line, "id": outcome.case_id}
            if outcome.ok:
                record["solution"] = json.loads(outcome.solution.model_dump_json())
                counts["solved"] += 1
            else:
                record["error"] = outcome.error
                counts["failed"] += 1
            append_record(handle, record)
            if progress:
                progress(1)
    return counts
