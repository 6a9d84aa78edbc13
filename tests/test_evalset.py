"""`lexsym eval-set`: several models over several task sets into one tree, resumed as a whole after a
SIGKILL with the same report as an uninterrupted eval set; the file's checks; a failed run exits 1;
judges over the runs with open questions, with their bias flags in the report.

No network: the local models, and litellm pointed at the stub server."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from lexsym._util.errors import InputError
from lexsym.evalset.config import load_config
from lexsym.evalset.plan import model_folders, plan_runs, slug
from lexsym.evalset.session import run_eval_set
from tests.stub_server import FAKE_KEY
from tests.task_sets import generate_task_set

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "exams"
SLOW = "lexsym:slow-oracle:0.2"


@pytest.fixture(scope="module")
def task_sets(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("task-sets")
    return {
        "ae-ec": generate_task_set(root / "ae-ec", {"task": ["AE", "EC"]}, seed=1),
        "ev-na": generate_task_set(root / "ev-na", {"task": ["EV", "NA"]}, seed=2),
    }


def write_config(folder: Path, **config: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "eval-set.yaml"
    path.write_text(
        yaml.safe_dump(json.loads(json.dumps(config, default=str)), sort_keys=False), encoding="utf-8"
    )
    return path


def three_models(folder: Path, task_sets: dict[str, Path]) -> Path:
    return write_config(
        folder,
        out="tree",
        tasks=[str(path) for path in task_sets.values()],
        models=["lexsym:oracle", "lexsym:baseline", {"id": SLOW, "concurrency": 1}],
    )


def lexsym(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
        cwd=REPO,
    )


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_killed_and_resumed_eval_set_ends_with_the_report_of_an_uninterrupted_one(tmp_path, task_sets):
    straight = run_eval_set(three_models(tmp_path / "straight", task_sets), progress=False)
    assert not straight.failures and len(straight.ran) == 6

    config = three_models(tmp_path / "killed", task_sets)
    tree = tmp_path / "killed" / "tree"
    slow_samples = tree / "ae-ec" / slug(SLOW) / "samples.jsonl"
    first_log, second_log = tmp_path / "calls-1.log", tmp_path / "calls-2.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "lexsym", "eval-set", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "LEXSYM_SLOW_ORACLE_LOG": str(first_log)},
        cwd=REPO,
    )
    deadline = time.monotonic() + 120
    while not (slow_samples.exists() and slow_samples.read_bytes().count(b"\n") >= 2):
        assert process.poll() is None, "the eval set ended before it could be killed"
        assert time.monotonic() < deadline, f"{slow_samples} never reached 2 lines"
        time.sleep(0.02)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)

    killed = read(tree / "eval-set.json")
    states = {key: entry["state"] for key, entry in killed["runs"].items()}
    assert states == {
        "ae-ec/lexsym-oracle": "complete",
        "ae-ec/lexsym-baseline": "complete",
        f"ae-ec/{slug(SLOW)}": "running",
        "ev-na/lexsym-oracle": "pending",
        "ev-na/lexsym-baseline": "pending",
        f"ev-na/{slug(SLOW)}": "pending",
    }
    assert not (tree / "report.json").exists()
    answered = set()
    for line in slow_samples.read_text().splitlines():
        with contextlib.suppress(ValueError):  # a line torn by the kill: set aside, and asked again
            answered.add(json.loads(line)["task_id"])
    assert 2 <= len(answered) < 8

    resumed = lexsym("eval-set", str(config), env={"LEXSYM_SLOW_ORACLE_LOG": str(second_log)})
    assert resumed.returncode == 0, resumed.stderr
    assert "6 runs (2 already done)" in resumed.stderr
    # Nothing the killed session had recorded was asked again; the finished runs were not touched.
    asked_again = second_log.read_text().split()
    assert not set(asked_again) & answered and len(asked_again) == len(set(asked_again)) == 8 + 8 - len(
        answered
    )
    assert len(read(tree / "ae-ec" / "lexsym-oracle" / "run.json")["sessions"]) == 1
    assert len(read(tree / "ae-ec" / slug(SLOW) / "run.json")["sessions"]) == 2

    report, expected = read(tree / "report.json"), read(tmp_path / "straight" / "tree" / "report.json")
    assert report["task_sets"] == expected["task_sets"]  # every score, SE, count and cost
    assert report == expected  # and nothing else differs either (no clock readings in the report)
    ae_ec = report["task_sets"]["ae-ec"]
    assert [run["path"] for run in ae_ec["runs"]] == [
        "ae-ec/lexsym-oracle",
        "ae-ec/lexsym-baseline",
        f"ae-ec/{slug(SLOW)}",
    ]
    f1 = ae_ec["cells"]["AE F1"]
    assert f1[0][0] == f1[2][0] == 1.0 and f1[1][0] < 1.0  # the oracles and the baseline
    state = read(tree / "eval-set.json")
    assert state["status"] == "complete" and len(state["sessions"]) == 2 and state["failed"] == []
    assert all(entry["state"] == "complete" and entry["failed"] is None for entry in state["runs"].values())
    markdown = (tree / "report.md").read_text()
    assert "## Task set ae-ec" in markdown and "| AE F1 | 1.000 ± 0.000 |" in markdown
    assert "All 6 runs complete." in resumed.stdout and "Task set ev-na" in resumed.stdout

    # Run again: everything is done, nothing is asked, the same report.
    again = lexsym("eval-set", str(config), "--json")
    assert again.returncode == 0, again.stderr
    assert "6 runs (6 already done)" in again.stderr and json.loads(again.stdout) == expected


def test_a_bad_file_is_one_line_naming_the_file_and_the_field(tmp_path, task_sets):
    config = write_config(
        tmp_path,
        out="tree",
        tasks=[str(task_sets["ae-ec"])],
        models=[{"id": "lexsym:oracle", "temprature": 0}],
    )
    result = lexsym("eval-set", str(config))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"lexsym: error: {config}: models[0].temprature: not a field of this section"
    ]
    assert not (tmp_path / "tree").exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"models": ["openai/gpt-4o"]}, "models[0].id: 'openai/gpt-4o': use litellm:"),
        ({"limit": 0}, "limit: Input should be greater than or equal to 1 (given: 0)"),
        ({"tasks": ["a/ae-ec", "b/ae-ec"]}, "tasks: two task sets named 'ae-ec': give tasks as a mapping"),
        ({"tasks": {"a b": "x"}}, "tasks: 'a b': a task set name is a folder name"),
        (
            {"judges": {"models": ["litellm:openai/gpt-4o"], "ensemble": "max"}},
            "judges.ensemble: Input should",
        ),
        ({"judges": {"model": ["litellm:openai/gpt-4o"]}}, "judges.model: not a field of this section"),
        ({"out": None}, "out: Input is not a valid path"),
        (
            {"models": ["lexsym:oracle", "lexsym:oracle"]},
            "models[1]: the same model and options as models[0]",
        ),
    ],
)
def test_bad_fields(tmp_path, task_sets, changes, message):
    config = {"out": "tree", "tasks": [str(task_sets["ae-ec"])], "models": ["lexsym:oracle"], **changes}
    path = write_config(tmp_path, **config)
    with pytest.raises(InputError) as raised:
        plan_runs(load_config(path)[0])
    assert str(raised.value).startswith(f"{path}: ") and message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_folders_are_safe_unique_slugs_and_paths_are_relative_to_the_file(tmp_path):
    path = write_config(
        tmp_path / "here",
        out="../tree",
        tasks={"mine": "tasks/basic"},
        models=[
            "litellm:openrouter/anthropic/claude-3.5-sonnet",
            {"id": "litellm:openai/gpt-4o", "temperature": 0.7},
            {"id": "litellm:openai/gpt-4o", "temperature": 0.0},
            {"id": "vllm:Qwen/Qwen3-8B", "name": "qwen3"},
        ],
    )
    config, _ = load_config(path)
    assert config.out == tmp_path / "here" / ".." / "tree"
    assert config.tasks == {"mine": tmp_path / "here" / "tasks" / "basic"}
    folders = model_folders(config.models)
    assert folders[0] == "litellm-openrouter-anthropic-claude-3.5-sonnet" and folders[3] == "qwen3"
    assert folders[1] != folders[2] and all(f.startswith("litellm-openai-gpt-4o-") for f in folders[1:3])
    assert model_folders(config.models) == folders  # the same file, the same folders
    runs = plan_runs(config)
    assert [run.params.temperature for run in runs] == [0.0, 0.7, 0.0, 0.0]
    assert runs[3].out == config.out / "mine" / "qwen3"


def test_a_changed_file_is_refused_naming_the_field_unless_forced(tmp_path, task_sets):
    config = {"out": "tree", "tasks": [str(task_sets["ae-ec"])], "models": ["lexsym:oracle"], "limit": 2}
    path = write_config(tmp_path, **config)
    assert not run_eval_set(path, progress=False).failures
    write_config(tmp_path, **{**config, "limit": 3, "concurrency": 2})  # pacing alone is no change
    with pytest.raises(InputError, match=r"eval-set.yaml: limit changed \(2 → 3\) since the eval set in"):
        run_eval_set(path, progress=False)
    result = run_eval_set(path, force=True, progress=False)
    assert result.ran == ["ae-ec/lexsym-oracle"] and not result.failures
    assert read(tmp_path / "tree" / "ae-ec" / "lexsym-oracle" / "run.json")["totals"]["recorded"] == 3
    write_config(tmp_path, **{**config, "limit": 3, "concurrency": 4})
    assert run_eval_set(path, progress=False).skipped == ["ae-ec/lexsym-oracle"]
    other = tmp_path / "other"
    (other / "tree").mkdir(parents=True)
    (other / "tree" / "notes.txt").write_text("mine")
    with pytest.raises(InputError, match=r"is not empty and holds no eval-set\.json"):
        run_eval_set(write_config(other, **config), progress=False)


def test_a_failed_run_exits_1_and_is_listed(tmp_path, task_sets, stub, offline):
    stub.enqueue(*["401"] * 2)
    path = write_config(
        tmp_path,
        out="tree",
        tasks=[str(task_sets["ae-ec"])],
        models=["lexsym:oracle", {"id": "litellm:openai/stub-model", "api_base": stub.url}],
        limit=2,
        max_attempts=2,
        retry_base=0.01,
    )
    result = lexsym("eval-set", str(path), env={"OPENAI_API_KEY": FAKE_KEY})
    assert result.returncode == 1, result.stderr
    assert stub.counts["401"] == 2
    failed = "ae-ec/litellm-openai-stub-model: every sample failed"
    assert f"  {failed}" in result.stderr and f"- {failed}" in result.stdout
    assert FAKE_KEY not in result.stdout + result.stderr
    report = read(tmp_path / "tree" / "report.json")
    assert [line.split(":")[0] for line in report["failed"]] == ["ae-ec/litellm-openai-stub-model"]
    state = read(tmp_path / "tree" / "eval-set.json")
    assert state["status"] == "failed"
    assert state["runs"]["ae-ec/lexsym-oracle"]["failed"] is None
    assert state["runs"]["ae-ec/litellm-openai-stub-model"]["failed"].startswith("every sample failed")
    assert state["config"]["models"][1]["api_base"] == stub.url


def test_judges_grade_the_runs_with_open_questions_and_the_report_flags_their_family(
    tmp_path, task_sets, stub, offline
):
    from lexsym.exams.datasets import load_exam
    from lexsym.exams.tasks import ConvertOptions, convert

    exams = tmp_path / "lexam-open"
    convert(load_exam(FIXTURES / "lexam_open.jsonl", "lexam-open"), exams, ConvertOptions())
    answering = "litellm:openai/stub-answers"
    judge = "litellm:openai/gpt-4o-mini"
    stub.enqueue(*["ok"] * 4)  # the answering model's four answers, then the judge's grades of them
    stub.say("[[0.9]]", "[[0.5]]", "[[1.0]]", "[[0.6]]")
    stub.say(*["[[1.0]]"] * 4)  # the oracle's answers (the references themselves)
    path = write_config(
        tmp_path,
        out="tree",
        tasks={"exams": str(exams), "ae-ec": str(task_sets["ae-ec"])},
        models=[{"id": answering, "api_base": stub.url, "concurrency": 1}, "lexsym:oracle"],
        limit=4,
        max_attempts=2,
        retry_base=0.01,
        judges={"models": [judge], "api_base": stub.url, "concurrency": 1},
    )
    result = run_eval_set(path, progress=False)
    runs = result.state["runs"]
    assert runs["exams/litellm-openai-stub-answers"]["judge_state"] == "complete"
    assert "judge_state" not in runs["ae-ec/lexsym-oracle"]  # no open question: not judged
    assert runs["exams/lexsym-oracle"]["judge_state"] == "complete"
    assert stub.counts["ok"] == 4 + 4 and stub.counts["say"] == 8  # ae-ec: answered, not judged
    assert not result.failures
    judged = read(tmp_path / "tree" / "exams" / "litellm-openai-stub-answers" / "judged.json")
    assert judged["reference"]["mean"] == pytest.approx((0.9 + 0.5 + 1.0 + 0.6) / 4)
    cells = result.report["task_sets"]["exams"]["cells"]
    assert cells["OPEN judged grade (min)"][0][0] == pytest.approx(0.75)
    # The judge is of the answering model's family (openai); not of the oracle's (lexsym).
    assert result.report["judge_bias"] == {
        "exams/litellm-openai-stub-answers": {
            judge: {"family": "openai", "same_family_as_answering": True, "self": False}
        }
    }
    markdown = (tmp_path / "tree" / "report.md").read_text()
    assert (
        f"- exams/litellm-openai-stub-answers: judge {judge} is of the answering model's family (openai)"
        in markdown
    )
