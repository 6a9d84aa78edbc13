"""Named tests for the hostile inputs of the reliability audit (issue 19): each is refused with its file,
line or field and exit 2, or read correctly; none gives a traceback, a hang or a wrong answer."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym._util.errors import InputError, LexsymError
from lexsym._util.jsonl import jsonl_lines
from lexsym._util.safe_yaml import load_yaml
from lexsym.generate.suites import suite_datasets
from lexsym.law.case import parse_case
from lexsym.runner.tasksets import load_task_set

CASE = {
    "petition_date": "2025-06-02",
    "filing": "single",
    "domicile": [{"state": "OR", "start": "2010-01-01"}],
    "assets": [
        {"id": "car", "description": "a blue car", "kind": "motor_vehicle", "value": 9000},
        {"id": "van", "description": "a white van", "kind": "motor_vehicle", "value": 4000},
    ],
}


def _lexsym(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_two_assets_described_alike_are_refused_naming_them():
    """Answers and the checker name assets by description: the gold OE schedule of such a case was judged
    INVALID (item 4)."""
    case = copy.deepcopy(CASE)
    case["assets"][1]["description"] = "  A BLUE   car "
    with pytest.raises(LexsymError, match=r"assets\[1\]\.description repeats assets\[0\]"):
        parse_case(case, source="case.json")


def test_a_description_of_megabytes_is_refused_at_parse_time():
    """A 200 MB description grew `check` to 4.2 GB (item 14)."""
    case = copy.deepcopy(CASE)
    case["assets"][0]["description"] = "x" * 5000
    with pytest.raises(LexsymError, match="description"):
        parse_case(case, source="case.json")


def test_a_repeated_vary_value_is_refused_before_it_makes_duplicate_task_ids():
    with pytest.raises(InputError, match=r"vary\.task repeats 'AE'"):
        suite_datasets({"name": "s", "vary": {"task": ["AE", "EC", "AE"]}}, source="s.yaml")


@pytest.mark.parametrize("key", ["base", "vary"])
def test_base_and_vary_must_be_mappings(key):
    with pytest.raises(InputError, match=f"{key} must be a mapping"):
        suite_datasets({"name": "s", key: ["task", "AE"]}, source="s.yaml")


def test_yaml_aliases_are_refused_not_expanded(tmp_path):
    """A 303-byte 'billion laughs' config gave a 25 MB error; ten levels ran past 120 s (item 10)."""
    laughs = "a: &a [lol, lol, lol]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(9)
    )
    with pytest.raises(Exception, match="aliases"):
        load_yaml(laughs)
    path = tmp_path / "laughs.yaml"
    path.write_text(laughs, encoding="utf-8")
    done = _lexsym("generate", "--config", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "laughs.yaml:2" in done.stderr and "aliases" in done.stderr
    assert len(done.stderr) < 500 and "Traceback" not in done.stderr


def test_jsonl_is_split_at_newlines_only():
    """U+2028, NEL and the like may stand raw inside a JSON string: str.splitlines() cut the record there, so
    `exam convert` wrote task files that `run` then refused (item 5)."""
    record = {"id": "t1", "text": "a\u2028b\u0085c\u000cd"}
    text = json.dumps(record, ensure_ascii=False) + "\n" + json.dumps({"id": "t2"}) + "\r\n"
    lines = jsonl_lines(text)
    assert [json.loads(line)["id"] for line in lines] == ["t1", "t2"]


def test_a_task_set_with_a_line_separator_in_a_prompt_loads(tmp_path):
    record = {
        "id": "t1",
        "task": "AE",
        "prompt": {"user": "Facts\u2028more facts\u0085and more"},
        "gold": ["OR", "US"],
    }
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    task_set = load_task_set(path)
    assert [r["id"] for r in task_set.records] == ["t1"]
    assert task_set.records[0]["prompt"]["user"] == record["prompt"]["user"]


@pytest.mark.parametrize("option", ["--temperature=nan", "--top-p=2", "--rpm=nan", "--temperature=inf"])
def test_a_numeric_run_option_that_is_not_finite_or_in_range_is_refused(tmp_path, option):
    """--temperature nan was stored as null and the run could never be resumed (item 11)."""
    done = _lexsym(
        "run", "--model", "lexsym:oracle", "--tasks", str(tmp_path), "--out", str(tmp_path / "r"), option
    )
    name = option.split("=")[0]
    assert done.returncode == 2 and f"{name} must be a number" in done.stderr
