"""Solving a program that must have exactly one answer set (the statute facts, the Prolog cross-check's
input), and, when it has none or several, naming the first rule file whose addition does it: the error
"the rules gave no answer set" named nothing (issue 19, item 9)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import clingo

from lexsym._util.errors import RuleError, SolveError
from lexsym.law.clingo_runner import MessageLog, display_path, load_program


def solve_stratified(files: Sequence[Path], program: str) -> list[clingo.Symbol]:
    """Ground and solve a program that has exactly one answer set; return its shown atoms."""
    log_ = MessageLog()
    control = clingo.Control(["--models=2", "--warn=all"], logger=log_, message_limit=100)
    load_program(control, files, program, log_)
    models: list[list[clingo.Symbol]] = []
    control.solve(on_model=lambda model: models.append(model.symbols(shown=True)))
    if len(models) != 1:
        found = "no answer set" if not models else "several answer sets"
        culprit = _first_file_giving(files, program, len(models))
        where = f" once {culprit} is added" if culprit else ""
        raise SolveError(
            f"the rules gave {found}{where}; expected exactly one (a constraint that always fires, or a "
            "non-stratified rule?)"
        )
    return models[0]


def _first_file_giving(files: Sequence[Path], program: str, count: int) -> str | None:
    """The first rule file whose addition, in order, makes the program have `count` (0 or 2) answer sets:
    where to look. Only run when that already happened, so the cost (a grounding per file) is paid by a
    broken rule file alone."""
    for end in range(1, len(files) + 1):
        log_ = MessageLog()
        control = clingo.Control(["--models=2"], logger=log_, message_limit=0)
        try:
            load_program(control, files[:end], program, log_)
        except RuleError:
            return None
        with control.solve(yield_=True) as handle:
            found = sum(1 for _ in handle)
        if (count == 0 and not found) or (count > 1 and found > 1):
            return display_path(str(files[end - 1]))
    return None
