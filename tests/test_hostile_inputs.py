"""Named tests for the hostile inputs of the reliability audit (issue 19): each is refused with its file,
line or field and exit 2, or read correctly; none gives a traceback, a hang or a wrong answer."""

from __future__ import annotations

import copy
import csv
import errno
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lexsym._util.errors import InputError, LexsymError, OutputError
from lexsym._util.json_file import load_json, parse_json, read_json
from lexsym._util.jsonl import jsonl_lines
from lexsym._util.safe_yaml import load_yaml
from lexsym.generate.suites import suite_datasets
from lexsym.law.case import parse_case
from lexsym.runner.tasksets import load_task_set

REPO = Path(__file__).resolve().parents[1]

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


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[" * 5000 + "]" * 5000, "nested more than"),
        ('{"a": ' + "7" * 5000 + "}", "more than 4,300 digits"),
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": -Infinity}', "-Infinity is not a JSON number"),
        ('{"a": 1e400}', "too large for a number"),
        ('{"assets": [{"id": "x\\ud800"}]}', r"assets\[0\]\.id: a lone surrogate \(U\+D800\)"),
        ('{"a": 1', ":1: invalid JSON"),
    ],
)
def test_json_python_lets_through_is_refused_naming_the_file(tmp_path, text, why):
    """Each of these was an exit 3 (RecursionError, ValueError, UnicodeEncodeError on writing) or a NaN
    that poisoned a mean (item 8)."""
    path = tmp_path / "case.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=why) as caught:
        load_json(path)
    assert str(caught.value).startswith(str(path))


def test_lexsym_s_own_result_files_from_before_null_still_read_with_nan(tmp_path):
    """A scores.json written before non-finite numbers became null (issue 19, item 12) must still report."""
    path = tmp_path / "scores.json"
    path.write_text('{"mare": NaN, "deep": ' + "[" * 3000 + "]" * 3000 + "}", encoding="utf-8")
    with pytest.raises(InputError, match="nested more than"):
        read_json(path)
    path.write_text('{"mare": NaN}', encoding="utf-8")
    assert math.isnan(read_json(path)["mare"])


def test_a_surrogate_pair_written_as_escapes_is_text():
    assert parse_json('{"a": "\\ud83d\\ude00"}', "x.json") == {"a": "\U0001f600"}


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"name: x\nsplit: {dev: 1, test: 2}\nnote: \xc3(\n", "not UTF-8"),
        (b"name: x\nseed: " + b"9" * 5000 + b"\n", "more than 4,300 digits"),
        (b"name: x\nseed: " + b"[" * 3000 + b"]" * 3000 + b"\n", "nested too deeply"),
        (
            b"name: x\nsplit: {dev: 0, test: 4294972296}\n",
            r"split\.test: Input should be less than or equal to 100000",
        ),
        (b"name: x\nasset_count_max: 1000000\n", "asset_count_max"),
        (b"name: x\nstate_jurisdictions: 5\n", "state_jurisdictions: must be a list"),
        (b"name: x\nrule_path_weights: {'730': .nan}\n", "weights must be numbers"),
        (
            b"name: x\ndomicile_count_max: 1\nrule_path_weights: {'730': 0, tie: 1}\n",
            r"no path with a weight is reachable with 1 domicile\(s\) \(reachable: 730\)",
        ),
    ],
)
def test_a_generator_config_python_or_yaml_would_crash_on_is_refused_by_name(tmp_path, data, why):
    """Exit 3 before, or (for a size of 2^32) a run that never ended (item 8)."""
    path = tmp_path / "config.yaml"
    path.write_bytes(data)
    done = _lexsym("generate", "--config", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    assert re.search(why, done.stderr) and str(path) in done.stderr and "internal" not in done.stderr
    assert not (tmp_path / "out" / "tasks.jsonl").exists()


@pytest.mark.parametrize("value", [[["1"]], [{"a": 1}], ["light"]])
def test_an_obfuscation_preset_that_is_not_one_is_refused_naming_the_suite_and_field(value):
    with pytest.raises(InputError, match=r"^s\.yaml: vary\.obfuscation: unknown obfuscation preset"):
        suite_datasets({"name": "s", "vary": {"obfuscation": value}}, source="s.yaml")


def test_a_list_cell_that_is_no_literal_is_a_row_error_not_a_crash(tmp_path):
    """`{[1]: 2}` made ast.literal_eval raise TypeError (unhashable), an exit 3 (item 8)."""
    from lexsym.exams.datasets import load_exam

    source = (Path(__file__).parent / "fixtures" / "exams" / "lexam_mcq.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(source)))
    rows[1][rows[0].index("choices")] = "{[1]: 2}"
    path = tmp_path / "exam.csv"
    with open(path, "w", newline="", encoding="utf-8") as stream:
        csv.writer(stream).writerows(rows)
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}:2: .*choices"):
        load_exam(path, "lexam-mcq")


def test_a_damaged_xlsx_sheet_is_one_error_naming_the_file(tmp_path):
    """A read-only workbook parses its sheet as rows are read: truncated XML was a ParseError, exit 3."""
    import zipfile

    from lexsym.exams.datasets import load_exam

    seed = Path(__file__).parent / "fixtures" / "exams" / "lexam_mcq.xlsx"
    path = tmp_path / "exam.xlsx"
    with zipfile.ZipFile(seed) as source, zipfile.ZipFile(path, "w") as target:
        for entry in source.infolist():
            content = source.read(entry)
            if entry.filename.endswith("sheet1.xml"):
                content = content[: len(content) // 2]
            target.writestr(entry, content)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: a damaged XLSX sheet"):
        load_exam(path, "lexam-mcq")


def test_check_on_a_directory_says_so(tmp_path):
    done = _lexsym("check", str(tmp_path))
    assert done.returncode == 2 and f"{tmp_path}: a directory, not a JSON file" in done.stderr


def _rules_copy(tmp_path: Path) -> Path:
    rules = tmp_path / "rules"
    shutil.copytree(REPO / "statutes", rules / "statutes")
    shutil.copytree(REPO / "encodings", rules / "encodings")
    return rules


def test_lint_of_a_statute_file_that_is_not_utf8_names_its_line(tmp_path):
    rules = _rules_copy(tmp_path)
    target = sorted((rules / "statutes" / "wi").glob("*.lp"))[0]
    target.write_bytes(target.read_bytes() + b"\n% caf\xe9\n")
    done = _lexsym("lint", "--rules", str(rules), str(target))
    assert done.returncode == 2 and re.search(rf"{re.escape(target.name)}:\d+: not UTF-8", done.stderr)


def test_a_missing_encoding_is_named_not_a_traceback(tmp_path):
    """A rules folder without allocate.lp printed a traceback, then 'no feasible schedule' (item 9)."""
    rules = _rules_copy(tmp_path)
    (rules / "encodings" / "allocate.lp").unlink()
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    done = _lexsym("solve", str(case), "--rules", str(rules))
    assert done.returncode == 2 and "allocate.lp: cannot read the rule file" in done.stderr
    assert "Traceback" not in done.stderr and "feasible" not in done.stderr


def test_no_answer_set_names_the_file_that_made_it(tmp_path):
    """'the rules gave no answer set' named nothing; it names the first file whose addition does it."""
    rules = _rules_copy(tmp_path)
    broken = rules / "statutes" / "federal" / "522d5_wildcard.lp"
    broken.write_text(broken.read_text(encoding="utf-8") + "\n:- petition_date(_).\n", encoding="utf-8")
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    done = _lexsym("solve", str(case), "--rules", str(rules))
    assert done.returncode == 2 and "no answer set" in done.stderr and broken.name in done.stderr


@pytest.mark.parametrize(
    ("number", "reason"),
    [
        (errno.ENOSPC, "the disk is full"),
        (errno.EROFS, "the file system is read-only"),
        (errno.EFBIG, "too large"),
    ],
)
def test_a_write_that_fails_names_the_file_and_why_and_leaves_nothing(tmp_path, monkeypatch, number, reason):
    """ENOSPC, EROFS and EFBIG were exit-3 tracebacks in disguise (item 8). A real full tmpfs and a read-only
    remount gave the same messages (issue 19 note)."""
    from lexsym._util import atomic

    target = tmp_path / "scores.json"
    target.write_text("old\n", encoding="utf-8")

    def full(_fd):
        raise OSError(number, os.strerror(number))

    monkeypatch.setattr(atomic.os, "fsync", full)
    with pytest.raises(OutputError, match=rf"^cannot write {re.escape(str(target))}: .*{reason}"):
        atomic.write_atomic(target, "new\n")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.json"]


def test_a_run_lock_that_cannot_be_created_names_the_file(tmp_path, monkeypatch):
    from lexsym._util import append_log

    def read_only(*_args, **_kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(append_log.os, "open", read_only)
    with pytest.raises(OutputError, match=r"run\.lock: the file system is read-only"):
        append_log.lock_file(tmp_path / "run.lock", "busy")


def test_a_killed_worker_ends_the_command_within_seconds(tmp_path):
    """A dead worker of a process pool made `generate --workers 2` and the scorer wait for ever (item 1);
    now the pool breaks, and the command says so and exits non-zero."""
    cases = tmp_path / "cases.jsonl"
    one = copy.deepcopy(CASE)
    cases.write_text("".join(json.dumps({**one, "id": f"c{n}"}) + "\n" for n in range(400)), encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "lexsym",
        "solve",
        "--batch",
        str(cases),
        "--out",
        str(tmp_path / "o.jsonl"),
    ]
    process = subprocess.Popen([*command, "--workers", "2"], stderr=subprocess.PIPE, text=True)
    children: list[int] = []
    deadline = time.monotonic() + 60
    while not children and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
        children = _children(process.pid)
    assert children, "no worker process appeared"
    time.sleep(1.0)
    os.kill(children[-1], signal.SIGKILL)
    killed_at = time.monotonic()
    try:
        _, stderr = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("the command still ran 30 s after its worker died")
    assert process.returncode != 0 and "worker process died" in stderr
    assert time.monotonic() - killed_at < 30


def _children(pid: int) -> list[int]:
    """The processes `pid` started (Linux /proc), the pool's workers among them."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        children = task / "children"
        if children.exists():
            found += [int(child) for child in children.read_text().split()]
    return found


def test_a_range_too_large_to_ground_is_refused_at_its_line_not_run_out_of_memory(tmp_path):
    """`big(1..1000000000).` in a statute file ran `solve` until memory ran out (item 13)."""
    rules = _rules_copy(tmp_path)
    target = rules / "statutes" / "or" / sorted(p.name for p in (rules / "statutes" / "or").glob("*.lp"))[0]
    lines = target.read_text(encoding="utf-8").count("\n")
    target.write_text(target.read_text(encoding="utf-8") + "big(1..1000000000).\n", encoding="utf-8")
    case = tmp_path / "case.json"
    case.write_text(json.dumps(CASE), encoding="utf-8")
    done = _lexsym("solve", str(case), "--rules", str(rules))
    assert done.returncode == 2, done.stderr
    assert f"{target.name}:{lines + 1}: the range 1..1000000000 has 1,000,000,000 values" in done.stderr


def test_the_workers_of_a_killed_command_end_with_it(tmp_path):
    """After a SIGKILL of `lexsym run`, the audit found its pool's workers still running (orphans)."""
    cases = tmp_path / "cases.jsonl"
    cases.write_text(
        "".join(json.dumps({**CASE, "id": f"c{n}"}) + "\n" for n in range(400)), encoding="utf-8"
    )
    command = [
        sys.executable,
        "-m",
        "lexsym",
        "solve",
        "--batch",
        str(cases),
        "--out",
        str(tmp_path / "o.jsonl"),
    ]
    process = subprocess.Popen([*command, "--workers", "2"], stderr=subprocess.DEVNULL)
    children: list[int] = []
    deadline = time.monotonic() + 60
    while not children and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
        children = _children(process.pid)
    assert children, "no worker process appeared"
    process.kill()
    process.wait(timeout=10)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(_alive(child) for child in children):
        time.sleep(0.2)
    assert not any(_alive(child) for child in children), "a worker outlived its killed command"


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by init, counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.mark.parametrize("score", [1e308, -1e308, 1e10])
def test_a_score_past_any_grade_is_refused_at_its_line(tmp_path, score):
    """±1e308 overflowed the means: MAE inf in the table and numpy warnings on stderr (item 8)."""
    from lexsym.judges.labels import read_ratings

    rows = [{"item": "q1", "rater": "a", "score": 1, "kind": "human"}]
    rows.append({"item": "q1", "rater": "b", "score": score, "kind": "llm"})
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(InputError, match=rf"labels\.jsonl:2: score {re.escape(repr(score))} is out of range"):
        read_ratings(path)


def test_an_error_quoting_a_huge_value_stays_one_bounded_line(tmp_path):
    """A 3,000-character vary value was quoted twice in one 6,101-character error (fuzz seed suite 5047)."""
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps({"name": "s", "vary": {"task": ["x" * 3000]}}), encoding="utf-8")
    done = _lexsym("generate", "--suite", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and str(path) in done.stderr
    assert len(done.stderr) < 2200 and done.stderr.count("\n") == 1
