"""The statute tests a page shows, run through the `lexsym test` runner (one code path), grouped by the
statute file each test file names.

A test file names its statute with `statute: statutes/xx/file.lp`; one that does not is matched by the
house layout (`<tests>/<xx>/<stem>.yaml` tests `statutes/<xx>/<stem>.lp`), and failing that it is shown
with its jurisdiction's other tests rather than dropped.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from lexsym._util.errors import LexsymError
from lexsym.law.statute_tests import CaseOutcome, read_test_file, run_case, statute_test_files


@dataclass
class TestFileStatus:
    """One YAML test file: where it is and the outcome of each of its cases (None when not run)."""

    path: Path
    outcomes: list[CaseOutcome] = field(default_factory=list)
    ran: bool = True
    error: str | None = None  # the file is not a test file at all

    def count(self, status: str) -> int:
        return sum(outcome.status == status for outcome in self.outcomes)


def _named_statute(path: Path) -> str | None:
    import yaml

    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
    statute = document.get("statute") if isinstance(document, dict) else None
    return statute if isinstance(statute, str) else None


def statute_of(test_file: Path, tests: Path, root: Path) -> Path | None:
    """The statute file (under `root`) that `test_file` tests, or None when neither its `statute:` key nor
    the layout names an existing one."""
    named = _named_statute(test_file)
    if named:
        candidate = (root / named).resolve()
        return candidate if candidate.is_file() else None
    try:
        relative = test_file.resolve().relative_to(tests.resolve())
    except ValueError:
        return None
    candidate = (root / "statutes" / relative).with_suffix(".lp").resolve()
    return candidate if candidate.is_file() else None


def collect_tests(tests: Path | None, root: Path, *, run: bool) -> dict[Path | str, list[TestFileStatus]]:
    """Test files under `tests` keyed by the resolved statute file they test; those matching no file are
    keyed by their folder's name (a jurisdiction's directory, e.g. "az"). With `run`, each case is run
    against the rules in `root`; without, the cases are only read (and malformed ones still reported)."""
    found: dict[Path | str, list[TestFileStatus]] = defaultdict(list)
    if tests is None or not tests.is_dir():
        return found
    for path in statute_test_files([tests]):
        status = TestFileStatus(path, ran=run)
        try:
            for item in read_test_file(path):
                if isinstance(item, CaseOutcome):
                    status.outcomes.append(item)
                elif run:
                    status.outcomes.append(run_case(item, rules=str(root)))
                else:
                    status.outcomes.append(CaseOutcome(item))
        except LexsymError as error:  # a file that is not a test file at all: shown, not fatal
            status.error = str(error)
        key: Path | str = statute_of(path, tests, root) or path.parent.name
        found[key].append(status)
    return found
