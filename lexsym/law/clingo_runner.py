"""Clingo in one place: building controls, routing clingo's messages, and turning them into typed errors.

Two kinds of run:
- `solve_stratified`: the deterministic first pass (tasks AE, EC, EV). The program has one answer set.
- `optimise_lpx`: the allocation under clingo-lpx, reporting the objective and whether it is proven.

clingo-lpx's `--objective` must be given as a command-line option (its Python `configure` call parses it
as a Boolean), so the optimisation runs through `clingo_main` with a small Application.
"""

from __future__ import annotations

import logging
import re
import signal
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import clingo
from clingo import ast
from clingo.application import Application, clingo_main

from lexsym._util.errors import RuleError, SolveError
from lexsym.law.grounding_limits import LargeRange, grounding_limit_error, large_ranges
from lexsym.law.rule_text import rule_text

if TYPE_CHECKING:
    from lexsym.law.case_tagging import Tagging

log = logging.getLogger("lexsym.clingo")

_LOCATION = re.compile(
    r"^(?P<file>[^\n]*?):(?P<line>\d+):(?P<col>\d+)(?:-\d+(?::\d+)?)?: (?P<rest>.*)$", re.S
)
FATAL_CODES = {
    clingo.MessageCode.AtomUndefined,
    clingo.MessageCode.OperationUndefined,
    clingo.MessageCode.VariableUnbounded,
    clingo.MessageCode.GlobalVariable,
    clingo.MessageCode.FileIncluded,
}
FACTS_NAME = "<case facts>"


def display_path(path: str) -> str:
    if path in ("<string>", "<block>"):
        return FACTS_NAME
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


@dataclass
class MessageLog:
    """Collects clingo's messages; the first fatal one becomes the RuleError."""

    messages: list[tuple[clingo.MessageCode, str]] = field(default_factory=list)

    def __call__(self, code: clingo.MessageCode, message: str) -> None:
        log.debug("clingo %s: %s", code, message)
        self.messages.append((code, message))

    def error(self, default: str) -> RuleError:
        """The most useful error: a located clingo error or a fatal info message, as one line."""
        ranked = [m for c, m in self.messages if "error" in m] or [
            m for c, m in self.messages if c in FATAL_CODES
        ]
        return located_error(ranked[0] if ranked else default)

    def raise_if_fatal(self) -> None:
        for code, message in self.messages:
            if code in FATAL_CODES:
                raise located_error(message)


def located_error(message: str) -> RuleError:
    first, _, rest = message.strip().partition("\n")
    match = _LOCATION.match(first)
    detail = " ".join(part.strip() for part in rest.splitlines() if part.strip())
    if not match:
        return RuleError(f"clingo: {first}{': ' + detail if detail else ''}")
    path = display_path(match["file"])
    text = match["rest"].removeprefix("error: ").removeprefix("info: ").rstrip(":")
    if detail:
        text = f"{text}: {detail}"
    return RuleError(f"{path}:{match['line']}: {text}", file=path, line=int(match["line"]))


_PARSED: dict[tuple[str, int, int], list[ast.AST]] = {}
_LARGE_RANGES: dict[tuple[str, int, int], list[LargeRange]] = {}


def _stamp(path: Path) -> tuple[str, int, int]:
    """What identifies a version of a rule file; a RuleError naming it when it is missing (a rules folder
    without encodings/allocate.lp gave a traceback, then "no feasible schedule")."""
    try:
        stat = path.stat()
    except OSError as error:
        raise RuleError(
            f"{path}: cannot read the rule file ({error.strerror or error})", file=str(path)
        ) from None
    return str(path), stat.st_mtime_ns, stat.st_size


def _parse(path: Path, log_: MessageLog) -> tuple[str, int, int]:
    """Parse a rule file into the caches (once per process, and again whenever the file changes); its key."""
    key = _stamp(path)
    if key not in _PARSED:
        statements: list[ast.AST] = []

        def keep(statement: ast.AST) -> None:
            if statement.ast_type != ast.ASTType.Comment:  # nothing to ground, and half the statements
                statements.append(statement)

        text, bom = rule_text(path)  # refuses, by file and line, what could abort clingo
        try:
            if bom:  # parsed from the text without its mark, then located in the file again
                ast.parse_string(
                    text, lambda s: keep(_located_in(s, str(path))), logger=log_, message_limit=100
                )
            else:
                ast.parse_files([str(path)], keep, logger=log_, message_limit=100)
        except RuntimeError:
            raise log_.error(f"{path}: cannot parse") from None
        _PARSED[key] = statements
        _LARGE_RANGES[key] = large_ranges(statements)
    return key


def parsed_file(path: Path, log_: MessageLog) -> list[ast.AST]:
    """The statements of a rule file; a GroundingLimit (at its line) for a range too large to ground."""
    key = _parse(path, log_)
    if _LARGE_RANGES[key]:
        raise grounding_limit_error(display_path(str(path)), _LARGE_RANGES[key][0])
    return _PARSED[key]


def large_ranges_in(path: Path) -> list[LargeRange]:
    """The ranges of a rule file too large to ground (what `lexsym lint` reports as LX005)."""
    return _LARGE_RANGES[_parse(path, MessageLog())]


def _located_in(statement: ast.AST, filename: str) -> ast.AST:
    """`statement` with every location naming `filename` (parse_string names "<string>")."""
    pending = [statement]
    while pending:
        node = pending.pop()
        location = getattr(node, "location", None)
        if isinstance(location, ast.Location):
            begin, end = location.begin, location.end
            node.location = ast.Location(
                ast.Position(filename, begin.line, begin.column), ast.Position(filename, end.line, end.column)
            )
        for key in node.child_keys:
            value = getattr(node, key)
            if isinstance(value, ast.AST):
                pending.append(value)
            elif isinstance(value, (list, tuple, ast.ASTSequence)):
                pending.extend(v for v in value if isinstance(v, ast.AST))
    return statement


def _add_files(builder: ast.ProgramBuilder, files: Iterable[Path], log_: MessageLog) -> None:
    for path in files:
        for statement in parsed_file(Path(path), log_):
            builder.add(statement)


def load_program(control: clingo.Control, files: Iterable[Path], program: str, log_: MessageLog) -> None:
    try:
        with ast.ProgramBuilder(control) as builder:
            _add_files(builder, files, log_)
        control.add("base", [], program)
        control.ground([("base", [])])
    except RuntimeError:
        raise _with_fact(log_.error("grounding failed"), program) from None
    log_.raise_if_fatal()


def _with_fact(error: RuleError, program: str) -> RuleError:
    """An error in the case's facts (line N of the program text built from the case) with the fact itself,
    which names the asset or residence it came from."""
    lines = program.splitlines()
    if error.file != FACTS_NAME or not error.line or error.line > len(lines):
        return error
    fact = lines[error.line - 1].strip()
    return RuleError(f"{error} (the case fact {fact[:160]})", file=error.file, line=error.line)


_TAGGINGS: dict[tuple[tuple[tuple[str, int, int], ...], frozenset[str], frozenset[str]], Tagging] = {}


def _tagging(universe: Sequence[Path], names: set[str], shared: set[str], log_: MessageLog) -> Tagging:
    """How batches over the rule files `universe`, with case facts defining `names` and facts shared by
    every case defining `shared`, are rewritten (lexsym.law.case_tagging): one rewriting per version of
    those files and set of shared predicates, and another only for case facts of predicates the rules
    also define."""
    from lexsym.law.case_tagging import Tagging

    stamps = tuple(_stamp(path) for path in universe)
    common = frozenset(shared)
    if (stamps, frozenset(), common) not in _TAGGINGS:
        statements = (s for path in universe for s in parsed_file(path, log_))
        _TAGGINGS[(stamps, frozenset(), common)] = Tagging(statements, shared=common)
    extra = frozenset(_TAGGINGS[(stamps, frozenset(), common)].unserved(names))
    if (stamps, extra, common) not in _TAGGINGS:
        statements = (s for path in universe for s in parsed_file(path, log_))
        _TAGGINGS[(stamps, extra, common)] = Tagging(statements, extra, common)
    return _TAGGINGS[(stamps, extra, common)]


MIN_TOGETHER = 2
"""Fewer programs than this are solved one by one."""


def solve_stratified_together(
    files: Sequence[Path], programs: Sequence[str], universe: Sequence[Path], shared: str = ""
) -> list[list[clingo.Symbol]] | None:
    """`solve_stratified(files, program)` for every program, in one grounding (lexsym.law.case_tagging):
    the shown atoms of each, `shared` (facts, such as a what-if table's) being part of every program.
    `universe` is every rule file of the rules directory (`files` among them).
    None when the batch cannot be solved together (too few programs, a statement the rewriting does not
    cover, a clingo message, not exactly one answer set): the caller then solves the programs one by
    one, so that any error is reported for its own case."""
    paths = [Path(path) for path in files]
    if len(programs) < MIN_TOGETHER or not set(paths) <= set(map(Path, universe)):
        return None
    from lexsym.law.case_tagging import NotTaggable, parse_case_facts

    log_ = MessageLog()
    try:
        cases = [parse_case_facts(text) for text in programs]
        common = parse_case_facts(shared)
        names = {name for facts in cases for name, _ in facts}
        tagging = _tagging([Path(path) for path in universe], names, {name for name, _ in common}, log_)
        if tagging.unserved(names) or tagging.shared & tagging.dependent:
            return None
        control = clingo.Control(["--models=2", "--warn=all"], logger=log_, message_limit=100)
        with ast.ProgramBuilder(control) as builder:
            for path in paths:
                for statement in tagging.rewritten(_stamp(path), parsed_file(path, log_)):
                    builder.add(statement)
        control.add("base", [], "".join(tagging.case_facts(facts, n) for n, facts in enumerate(cases)))
        control.add("base", [], shared)
        control.ground([("base", [])])
    except (NotTaggable, RuntimeError, RuleError):
        return None
    if any(code in FATAL_CODES or "error" in message for code, message in log_.messages):
        return None
    models: list[list[clingo.Symbol]] = []
    control.solve(on_model=lambda model: models.append(model.symbols(shown=True)))
    if len(models) != 1:
        return None
    return tagging.split(models[0], len(programs))


@dataclass
class LpxResult:
    """What one optimisation returned."""

    objective: Fraction | None
    proven: bool
    symbols: list[clingo.Symbol]
    values: dict[clingo.Symbol, Fraction]
    models: int
    seconds: float


class _LpxApplication(Application):
    program_name = "lexsym-allocate"

    def __init__(self, encoding: Path, program: str, log_: MessageLog) -> None:
        from clingolpx import ClingoLPXTheory

        self._theory = ClingoLPXTheory()
        self._encoding = encoding
        self._program = program
        self._log = log_
        self.message_limit = 100
        self.error: RuleError | None = None
        self.best: tuple[Fraction | None, list[clingo.Symbol], dict[clingo.Symbol, Fraction]] | None = None
        self.models = 0
        self.exhausted = False

    def logger(self, code: clingo.MessageCode, message: str) -> None:
        self._log(code, message)

    def register_options(self, options) -> None:
        self._theory.register_options(options)

    def validate_options(self) -> bool:
        self._theory.validate_options()
        return True

    def main(self, control: clingo.Control, files: Sequence[str]) -> None:
        self._theory.register(control)
        try:
            with ast.ProgramBuilder(control) as builder:
                # clingo-lpx 1.3's rewrite_ast is the identity, so parsed statements go in as they are.
                _add_files(builder, [self._encoding], self._log)
            control.add("base", [], self._program)
            control.ground([("base", [])])
            self._log.raise_if_fatal()
        except RuntimeError:
            self.error = self._log.error("grounding the allocation failed")
            return
        except RuleError as error:
            self.error = error
            return
        self._theory.prepare(control)
        result = control.solve(on_model=self._on_model, on_statistics=self._theory.on_statistics)
        self.exhausted = bool(result.exhausted)

    def _on_model(self, model: clingo.Model) -> None:
        self._theory.on_model(model)
        objective: Fraction | None = None
        values: dict[clingo.Symbol, Fraction] = {}
        for symbol in model.symbols(theory=True):
            if symbol.match("__lpx", 2):
                values[symbol.arguments[0]] = Fraction(symbol.arguments[1].string)
            elif symbol.match("__lpx_objective", 2):
                objective = Fraction(symbol.arguments[0].string)
        self.models += 1
        self.best = (objective, model.symbols(shown=True), values)


@contextmanager
def _signal_handlers_kept() -> Iterator[None]:
    """Put back this process's SIGINT and SIGTERM handlers after `clingo_main`, which installs its own at
    the C level and leaves them behind: a worker that had solved a case then died of a segmentation fault
    when a pool sent it SIGTERM, instead of exiting."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set, and are only run, in the main thread
        return
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in saved.items():
            if handler is not None:
                signal.signal(number, handler)


def optimise_lpx(encoding: Path, program: str, *, time_limit: int = 0) -> LpxResult:
    """Maximise the encoding's `&maximize` objective; `proven` is true when the search was exhausted."""
    log_ = MessageLog()
    app = _LpxApplication(encoding, program, log_)
    arguments = [
        "--objective=global,1",
        "--store=partial",
        "--models=0",
        "--outf=3",
        "--warn=all",
        f"--time-limit={time_limit}",
    ]
    started = time.perf_counter()
    with _signal_handlers_kept():
        clingo_main(app, arguments)
    seconds = time.perf_counter() - started
    if app.error is not None:
        raise app.error
    if app.best is None:
        raise SolveError("the allocation has no feasible schedule (the contract facts are inconsistent)")
    objective, symbols, values = app.best
    return LpxResult(
        objective=objective,
        proven=app.exhausted,
        symbols=symbols,
        values=values,
        models=app.models,
        seconds=seconds,
    )
