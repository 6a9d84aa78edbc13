"""`lexsym check` on a JSONL file of many answers: verdicts in input order, bad lines recorded and not
fatal, the same bytes with one worker or two, and a killed run resumed to the same file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.check.answer_batch import check_answers
from lexsym.check.answer_file import check_answer_file, load_answer_file

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "data" / "examples"


def _answers(tmp_path: Path) -> Path:
    """Six records: the two shipped answers (one right, one wrong), a line that is not JSON, a record with
    an unknown task, one whose case file is missing, and the right answer again."""
    (tmp_path / "case.json").write_text((EXAMPLES / "case.json").read_text())
    valid = json.loads((EXAMPLES / "valid-answer.json").read_text())
    invalid = json.loads((EXAMPLES / "invalid-answer.json").read_text())
    lines = [
        json.dumps(valid),
        json.dumps(invalid),
        '{"case_file": "case.json", "answers": ',
        json.dumps({"case_file": "case.json", "answers": {"ZZ": []}}),
        json.dumps({"case_file": "missing.json", "answers": {"AE": ["Federal"]}}),
        "",
        json.dumps(valid),
    ]
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_each_line_gets_the_verdict_of_the_single_file_check(tmp_path):
    path = _answers(tmp_path)
    out = tmp_path / "verdicts.jsonl"
    counts = check_answers(path, out)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3, 4, 5, 7]
    assert (counts.correct, counts.wrong, counts.failed) == (2, 1, 3)
    single = check_answer_file(*load_answer_file(EXAMPLES / "invalid-answer.json"))
    assert records[1]["report"] == single.model_dump(mode="json")
    assert records[0]["all_correct"] is True and records[1]["all_correct"] is False
    assert "invalid JSON" in records[2]["error"] and records[2]["error"].startswith(f"{path}:3")
    assert f"{path}:4" in records[3]["error"] and "ZZ" in records[3]["error"]
    assert "missing.json" in records[4]["error"] and "no such file" in records[4]["error"]


def test_two_workers_write_the_same_bytes_and_a_killed_run_resumes(tmp_path):
    path = _answers(tmp_path)
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    check_answers(path, one)
    check_answers(path, two, workers=2)
    assert one.read_bytes() == two.read_bytes()
    resumed = tmp_path / "resumed.jsonl"
    lines = one.read_bytes().splitlines(keepends=True)
    resumed.write_bytes(b"".join(lines[:2]) + lines[2][:15])  # a kill in the middle of line 3
    counts = check_answers(path, resumed)
    assert counts.resumed == 2 and counts.checked + counts.failed == 4
    assert resumed.read_bytes() == one.read_bytes()


def test_answers_naming_generated_tasks_read_each_task_file_once(tmp_path):
    case = json.loads((EXAMPLES / "case.json").read_text())
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "\n".join(json.dumps({"id": f"t-{n}", "case": {**case, "id": f"case-{n}"}}) for n in range(3)) + "\n"
    )
    valid = json.loads((EXAMPLES / "valid-answer.json").read_text())
    del valid["case_file"]
    answers = tmp_path / "answers.jsonl"
    records = [{**valid, "task": {"tasks": "tasks.jsonl", "id": f"t-{n}"}} for n in (2, 0, 9)]
    answers.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    seen = []
    counts = check_answers(answers, on_outcome=seen.append)
    assert [o.case_id for o in seen] == ["case-2", "case-0", None]
    assert counts.correct == 2 and "no task with id 't-9'" in seen[2].error


def test_the_output_cannot_be_the_input_or_longer_than_it(tmp_path):
    path = _answers(tmp_path)
    with pytest.raises(InputError, match="cannot be the answers file"):
        check_answers(path, path)
    longer = tmp_path / "longer.jsonl"
    longer.write_text("{}\n" * 7)
    with pytest.raises(InputError, match="more than the 6 answers"):
        check_answers(path, longer)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", "check", *args], capture_output=True, text=True, timeout=300
    )


def test_the_command_prints_a_line_per_answer_and_exits_one_when_any_is_wrong(tmp_path):
    path = _answers(tmp_path)
    result = _cli(str(path))
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 6 and lines[0].startswith("line 1 (") and "OE correct" in lines[0]
    assert "OE WRONG" in lines[1] and lines[2].startswith("line 3: error: ")
    assert "6 answers: 2 all correct, 1 with a wrong task, 3 not checked" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_command_writes_verdicts_resumes_and_exits_zero_when_all_are_right(tmp_path):
    (tmp_path / "case.json").write_text((EXAMPLES / "case.json").read_text())
    valid = (EXAMPLES / "valid-answer.json").read_text().replace("\n", " ")
    answers = tmp_path / "answers.jsonl"
    answers.write_text((valid + "\n") * 3)
    out = tmp_path / "verdicts.jsonl"
    first = _cli(str(answers), "--out", str(out), "--workers", "2")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "" and len(out.read_text().splitlines()) == 3
    again = _cli(str(answers), "--out", str(out))
    assert again.returncode == 0 and "(3 resumed)" in again.stderr
    assert len(out.read_text().splitlines()) == 3


def test_a_file_where_no_answer_can_be_read_exits_two(tmp_path):
    path = tmp_path / "answers.jsonl"
    path.write_text("not json\n{}\n")
    result = _cli(str(path))
    assert result.returncode == 2
    assert "no answer could be checked" in result.stderr and f"{path}:1" in result.stderr
    assert _cli(str(tmp_path / "answer.json"), "--out", str(tmp_path / "v.jsonl")).returncode == 2
