"""A pytest plugin that collects lexsym's YAML statute tests, so `pytest` runs them beside a project's own
tests with the `lexsym test` runner (`lexsym.law.statute_tests`): one code path, one verdict per case.

Installed with lexsym (entry point `pytest11: lexsym`), it collects nothing until asked, so other YAML files
stay untouched. Ask in the ini file or on the command line:

    [tool.pytest.ini_options]
    lexsym_statute_tests = ["tests/statutes"]     # folders whose *.yaml files are statute tests

    pytest --lexsym-statutes my_tests/ [--lexsym-rules DIR]

Each case is one test item, named by its `name:`; a failure reports expected against got, a malformed
case (a misspelt key) is an error naming its file:line, and a file that is not a test file fails to
collect with that one line. Loading the plugin imports nothing heavy: pytest loads it in every run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lexsym", "lexsym statute tests")
    group.addoption(
        "--lexsym-statutes",
        action="append",
        default=[],
        metavar="DIR",
        help="collect the YAML statute tests (as `lexsym test` runs them) under DIR; may repeat",
    )
    group.addoption(
        "--lexsym-rules",
        default=None,
        metavar="DIR",
        help="solve statute tests under the rules in DIR (statutes/ and encodings/); default as lexsym's",
    )
    parser.addini(
        "lexsym_statute_tests", type="paths", help="folders whose YAML files are lexsym statute tests"
    )


def statute_test_roots(config: pytest.Config) -> list[Path]:
    """The folders (or files) whose YAML files this run collects as statute tests."""
    given = [Path(path).resolve() for path in config.getoption("lexsym_statutes")]
    return given + [Path(path).resolve() for path in config.getini("lexsym_statute_tests")]


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in (".yaml", ".yml"):
        return None
    resolved = file_path.resolve()
    if any(resolved == root or root in resolved.parents for root in statute_test_roots(parent.config)):
        return StatuteTestFile.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A root that is not there is a mistake, not an empty pass: say so instead of collecting nothing."""
    for root in statute_test_roots(config):
        if not root.exists():
            raise pytest.UsageError(f"lexsym statute tests: {root}: no such file or folder")


class StatuteTestFile(pytest.File):
    """One YAML statute test file; its cases are the items."""

    def collect(self):
        from lexsym._util.errors import LexsymError
        from lexsym.law.statute_tests import CaseOutcome, read_test_file

        try:
            for item in read_test_file(self.path):
                case = item.case if isinstance(item, CaseOutcome) else item
                yield StatuteCaseItem.from_parent(self, name=case.name, item=item)
        except LexsymError as error:
            raise self.CollectError(str(error)) from None


class StatuteCaseFailure(Exception):
    """A case that failed (expected against got) or is malformed; its lines are the report."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class StatuteCaseItem(pytest.Item):
    """One named case, run by the `lexsym test` runner."""

    def __init__(self, *, item: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.item = item

    def runtest(self) -> None:
        from lexsym.law.statute_tests import CaseOutcome, run_case

        rules = self.config.getoption("lexsym_rules")
        outcome = self.item if isinstance(self.item, CaseOutcome) else run_case(self.item, rules=rules)
        if outcome.error:
            raise StatuteCaseFailure([f"malformed: {outcome.error}"])
        if outcome.failures:
            raise StatuteCaseFailure([f"{outcome.case.where}: {outcome.case.name}", *outcome.failures])

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, StatuteCaseFailure):
            return "\n".join(excinfo.value.lines)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        case = self.item.case if hasattr(self.item, "case") else self.item
        return self.path, case.line - 1, f"{case.where}: {case.name}"
