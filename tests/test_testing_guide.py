"""docs/testing.md's worked examples run as written: a guide whose code does not run teaches nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "testing.md"
EXAMPLES = re.findall(r"```python\n(.*?)\n```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_its_three_examples():
    assert len(EXAMPLES) == 3


def _run(number: int) -> dict:
    namespace = {"__name__": "guide"}
    exec(compile(EXAMPLES[number], f"{GUIDE}:example {number + 1}", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("number", [0, 2])
def test_an_example_runs(number):
    _run(number)


def _edited_copy(where: Path, edit) -> str:
    shutil.copytree(REPO / "statutes", where / "statutes")
    shutil.copytree(REPO / "encodings", where / "encodings")
    wildcard = where / "statutes" / "federal" / "522d5_wildcard.lp"
    wildcard.write_text(edit(wildcard.read_text(encoding="utf-8")), encoding="utf-8")
    return str(where)


def test_gold_changes_finds_an_amount_edit_and_ignores_a_comment(tmp_path):
    gold_changes = _run(1)["gold_changes"]
    raised = re.compile(r"(amount\(usc11_522_d_5, limit, date\(\d+,\d+,\d+\), )(\d+)\)")
    amounts = _edited_copy(
        tmp_path / "amounts", lambda text: raised.sub(lambda m: f"{m[1]}{int(m[2]) + 1000})", text)
    )
    comment = _edited_copy(tmp_path / "comment", lambda text: text + "\n% a comment changes nothing\n")
    assert gold_changes(str(REPO), amounts) != []
    assert gold_changes(str(REPO), comment) == []
