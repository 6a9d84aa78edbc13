"""The named statute cases of tests/statutes/**/*.yaml, run by `lexsym test`'s own runner
(`lexsym.law.statute_tests`): one code path for the project's tests and a legal engineer's."""

from __future__ import annotations

from pathlib import Path

import pytest

from lexsym.law.statute_tests import CaseOutcome, read_test_file, run_case, statute_test_files

STATUTE_TESTS = Path(__file__).parent / "statutes"


def _cases():
    for path in statute_test_files([STATUTE_TESTS]):
        for item in read_test_file(path):
            case = item.case if isinstance(item, CaseOutcome) else item
            yield pytest.param(item, id=f"{path.relative_to(STATUTE_TESTS)}::{case.name}")


@pytest.mark.parametrize("item", list(_cases()))
def test_statute_case(item):
    outcome = item if isinstance(item, CaseOutcome) else run_case(item)
    assert outcome.error is None, outcome.error
    assert not outcome.failures, "\n".join([outcome.case.where, *outcome.failures])
