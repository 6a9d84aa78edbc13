"""docs/testing.md's worked examples run as written: a guide whose code does not run teaches nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "testing.md"
EXAMPLES = re.findall(r"```python\n(.*?)\n```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_its_three_examples():
    assert len(EXAMPLES) == 3


@pytest.mark.parametrize("number", range(len(EXAMPLES)))
def test_an_example_runs(number):
    exec(compile(EXAMPLES[number], f"{GUIDE}:example {number + 1}", "exec"), {"__name__": "guide"})
