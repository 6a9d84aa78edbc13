"""Many cases solved in one process or one pool: `lexsym.solve_many()` and `lexsym solve --batch`.

A batch pays the per-process costs once (loading clingo, parsing the rule files, finding and hashing the
statutes) instead of once per command, and spreads cases over worker processes. A case that fails is an
outcome with its error, never the end of the batch. Outcomes come back in input order whatever the number
of workers, so a solutions file is the same byte for byte however it was made, and resuming a killed
batch appends exactly the lines an uninterrupted one would have written.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError, LexsymError
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


def solve_many(
    cases: Iterable[Case | str],
    *,
    tables: Sequence[ExemptionTable] = (),
    all_jurisdictions: bool = False,
    rules: str | None = None,
    time_limit: int = 0,
    workers: int = 1,
    start: int = 0,
) -> Iterator[SolveOutcome]:
    """Solve every case, yielding outcomes in input order (a case given as a string is an error message
    for a case that could not be read). `workers` > 1 spreads cases over that many processes; a worker
    that dies makes the pool raise rather than hang (`BrokenProcessPool`). `start` numbers the first
    case (for resumed batches)."""
    options = _Options(tuple(tables), all_jurisdictions, rules, time_limit)
    items = (
        (start + number, case.id if isinstance(case, Case) else None, case, options)
        for number, case in enumerate(cases)
    )
    if workers <= 1:
        yield from map(_solve_one, items)
        return
    import multiprocessing

    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        yield from pool.map(_solve_one, items, chunksize=4)


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


def _done_lines(out: Path) -> int:
    """How many complete lines a previous run left in `out`; a torn last line (a kill mid-write) is cut."""
    if not out.exists():
        return 0
    data = out.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with out.open("r+b") as handle:
            handle.truncate(len(complete))
    return complete.count(b"\n")


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
    done = _done_lines(out)
    pending = list(read_cases(cases_path, parse))
    if done > len(pending):
        raise InputError(f"{out}: holds {done} lines, more than the {len(pending)} cases of {cases_path}")
    lines = [number for number, _ in pending[done:]]
    counts = {"solved": 0, "failed": 0, "resumed": done}
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("ab") as handle:
        outcomes = solve_many((case for _, case in pending[done:]), start=done, **options)
        for line, outcome in zip(lines, outcomes, strict=True):
            record: dict[str, Any] = {"line": line, "id": outcome.case_id}
            if outcome.ok:
                record["solution"] = json.loads(outcome.solution.model_dump_json())
                counts["solved"] += 1
            else:
                record["error"] = outcome.error
                counts["failed"] += 1
            handle.write((json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode())
            handle.flush()
            os.fsync(handle.fileno())
            if progress:
                progress(1)
    return counts
