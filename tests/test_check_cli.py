"""`lexsym check`: verdicts with citations, exit codes scripts can rely on, hostile input handled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from lexsym._util.errors import InputError
from lexsym.check.answer_file import check_answer_file, load_answer_file

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "data" / "examples"


def check(*args: str):
    return subprocess.run(
        [sys.executable, "-m", "lexsym", "check", *args], capture_output=True, text=True, timeout=120
    )


def test_shipped_valid_answer_exits_zero():
    result = check(str(EXAMPLES / "valid-answer.json"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "OE: valid and optimal" in result.stdout


def test_shipped_invalid_answer_exits_one_and_names_the_rules():
    result = check(str(EXAMPLES / "invalid-answer.json"))
    assert result.returncode == 1
    assert "not_eligible" in result.stdout and "11 U.S.C. § 522(d)(4)" in result.stdout
    assert "item_count_exceeded" in result.stdout
    assert "missing jurisdiction Washington" in result.stdout


def test_json_output_is_machine_readable():
    result = check(str(EXAMPLES / "invalid-answer.json"), "--json")
    report = json.loads(result.stdout)
    oe = next(v for v in report["verdicts"] if v["task"] == "OE")
    assert not oe["correct"] and {v["name"] for v in oe["violations"]} >= {"not_eligible", "exceeds_value"}


def _write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "case.json").write_text((EXAMPLES / "case.json").read_text())
    path = tmp_path / "answer.json"
    path.write_text(text)
    return path


def test_hostile_files_exit_two_with_one_line(tmp_path):
    for text in [
        "",
        "[]",
        '{"answers": 5}',
        '{"case_file": "case.json", "answers": {"ZZ": []}}',
        '{"case_file": "case.json", "answers": {"OE": ',
        '{"case_file": "nope.json", "answers": {"AE": []}}',
        '{"answers": {"AE": ["Oregon"]}}',
        "\x00\x01",
    ]:
        result = check(str(_write(tmp_path, text)))
        assert result.returncode == 2, (text, result.stdout, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr, text


def test_unparseable_answer_is_wrong_not_a_crash(tmp_path):
    path = _write(
        tmp_path, json.dumps({"case_file": "case.json", "answers": {"OE": "I am not sure, sorry."}})
    )
    result = check(str(path))
    assert result.returncode == 1 and "unparseable" in result.stdout


def test_classification_and_valuation_differences(tmp_path):
    answer = {
        "case_file": "case.json",
        "answers": {
            "EC": {
                "prescribed CPAP machine": ["11 U.S.C. § 522(d)(9)"],
                "leather sectional sofa": ["11 usc 522(d)(3)"],
            },
            "EV": {"prescribed CPAP machine": [{"citation": "11 U.S.C. § 522(d)(9)", "claim_value": "$800"}]},
        },
    }
    report = check_answer_file(*load_answer_file(_write(tmp_path, json.dumps(answer))))
    ec, ev = report.verdicts
    assert any("missing 11 U.S.C. § 522(d)(5)" in d for d in ec.differences)
    assert any("no answer for asset" in d for d in ec.differences)
    assert any("can protect $900, not $800" in d for d in ev.differences)


@settings(max_examples=80, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=20),
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
        ),
        max_leaves=12,
    )
)
def test_random_answers_never_crash(value):
    data = {
        "case_file": "case.json",
        "answers": {"AE": value, "EC": value, "EV": value, "NA": value, "OE": value},
    }
    path = _write(Path(__import__("tempfile").mkdtemp()), json.dumps(data))
    try:
        answer, case = load_answer_file(path)
    except InputError as error:
        assert "\n" not in str(error) and str(path) in str(error)  # one line, naming the file
        return
    report = check_answer_file(answer, case)
    assert [v.task.value for v in report.verdicts] == ["AE", "EC", "EV", "NA", "OE"]
    for verdict in report.verdicts:
        if not verdict.parsed:  # an unreadable answer is wrong, and says why
            assert not verdict.correct and verdict.error and "\n" not in verdict.error
        elif verdict.correct:  # a right answer carries no differences and breaks no rule
            assert not verdict.differences and not verdict.violations
