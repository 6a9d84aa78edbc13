"""Judging run directories end to end: litellm over real HTTP to the stub server, scripted judge replies.

Covers the judge record on disk (every raw reply, parse status, never a silent 0), ensembles, resume and
the cache, `<think>` stripping, cost kept apart from the answering model's, and the CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lexsym._util.errors import InputError
from lexsym.judges.session import judge_run
from lexsym.judges.settings import JudgeOptions, JudgeSpec
from lexsym.models.base import Completion, GenerationParams
from lexsym.runner.limits import RetryPolicy
from lexsym.runner.run import run_tasks
from lexsym.runner.run_options import RunOptions
from tests.judge_replies import rubric_reply
from tests.stub_server import FAKE_KEY

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "exams"
JUDGE = "litellm:openai/gpt-4o-mini"  # a name litellm has prices for, so judge cost is counted
JUDGE_B = "litellm:openai/judge-b"
FAST_RETRY = RetryPolicy(base=0.01, cap=0.05, max_attempts=4)

pytestmark = pytest.mark.usefixtures("offline")


class Answers:
    """An answering model that replies from a list, in task order (concurrency 1)."""

    id = "test:answers"
    cacheable = False

    def __init__(self, *texts: str):
        self.texts = list(texts)

    async def generate(self, messages, params: GenerationParams, *, task=None) -> Completion:
        return Completion(text=self.texts.pop(0), cost=0.25, finish_reason="stop")


def make_run(tmp_path: Path, fixture: str, fmt: str, model: Any = "lexsym:oracle") -> Path:
    from lexsym.exams.datasets import load_exam
    from lexsym.exams.tasks import ConvertOptions, convert

    tasks = tmp_path / f"tasks-{fmt}"
    convert(load_exam(FIXTURES / fixture, fmt), tasks, ConvertOptions())
    out = tmp_path / f"run-{fmt}"
    run_tasks(model, tasks, out, options=RunOptions(concurrency=1, progress=False, cache=False))
    return out


def options(tmp_path: Path, *judges: str, **changes: Any) -> JudgeOptions:
    base = {
        "judges": tuple(JudgeSpec(j) for j in judges),
        "concurrency": 1,
        "cache_dir": tmp_path / "cache",
        "retry": FAST_RETRY,
    }
    return JudgeOptions(**{**base, **changes})


def judgements(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "judgements.jsonl").read_text().splitlines()]


def test_reference_judge_records_every_reply_and_never_scores_a_failure_zero(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    stub.say(
        "Covers the 730-day rule. [[0.9]]",
        "<think>draft [[0.1]]</think>Sound, minor gap. [[0.8]]",
        "First [[0.4]], on reflection [[0.6]]",  # several markers: retried
        "[[0.6]]",
        "[[7]]",  # off the scale, three times: a failure
        "[[8/10]]",
        "eight out of ten",
    )
    result = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    lines = judgements(run)
    assert [line["status"] for line in lines] == ["ok", "ok", "ok", "parse_failure"]
    assert [line["score"] for line in lines] == [0.9, 0.8, 0.6, None]
    assert [len(line["attempts"]) for line in lines] == [1, 1, 2, 3]
    assert (
        lines[3]["attempts"][0]["raw"] == "[[7]]" and "outside 0 to 1" in lines[3]["attempts"][0]["problem"]
    )
    assert lines[0]["template"] == "reference/1" and lines[0]["params"] == {"temperature": 0.0, "seed": 0}
    reference = result.report.reference
    assert (reference.n, reference.scored, reference.failed) == (4, 3, 1)
    assert reference.mean == pytest.approx((0.9 + 0.8 + 0.6) / 3)
    assert reference.se is not None and reference.se > 0
    # The judge saw the question, the reference answer and the model's answer, in one user message.
    task = json.loads((tmp_path / "tasks-lexam-open" / "tasks.jsonl").read_text().splitlines()[0])
    sent = stub.requests[0]["messages"][-1]["content"]
    assert task["reference"]["question"] in sent and task["gold"]["reference"] in sent
    assert stub.requests[0]["seed"] == 0 and stub.requests[0]["temperature"] == 0.0
    # Judge cost is counted apart from the answering model's.
    assert result.report.cost_totals["cost"] > 0
    header = json.loads((run / "judge.json").read_text())
    assert header["totals"]["cost"] == pytest.approx(result.report.cost_totals["cost"])
    assert header["templates"]["reference"]["id"] == "reference/1"


def test_thinking_is_stripped_from_the_answer_before_judging(tmp_path, stub):
    answers = Answers(*[f"<think>secret draft {n}</think>The answer {n}." for n in range(4)])
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open", model=answers)
    stub.say(*["[[0.5]]"] * 4)
    result = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    sent = [request["messages"][-1]["content"] for request in stub.requests]
    assert all("secret draft" not in text for text in sent)
    assert any("The answer 0." in text for text in sent)
    assert result.report.answering_cost == pytest.approx(1.0)  # 4 x 0.25, apart from the judge's


def test_min_ensemble_keeps_every_judge_and_a_failed_judge_leaves_a_hole(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    # Per sample: judge A then judge B.
    stub.say("[[0.9]]", "[[0.6]]", "[[0.4]]", "[[0.7]]", "[[1.0]]", "[[1.0]]", "[[0.8]]", "no", "no", "no")
    result = judge_run(run, options(tmp_path, JUDGE, JUDGE_B), model_options={"api_base": stub.url})
    rows = sorted(result.report.samples, key=lambda row: row["sample_id"])
    assert [row["judges"] for row in rows] == [
        {JUDGE: 0.9, JUDGE_B: 0.6},
        {JUDGE: 0.4, JUDGE_B: 0.7},
        {JUDGE: 1.0, JUDGE_B: 1.0},
        {JUDGE: 0.8, JUDGE_B: None},
    ]
    assert [row["score"] for row in rows] == [0.6, 0.4, 1.0, None]
    assert result.report.reference.failed == 1
    assert result.report.reference_by_judge[JUDGE].mean == pytest.approx((0.9 + 0.4 + 1.0 + 0.8) / 4)
    # Another rule needs no judge call: the mean and median come from the same judgements.
    from lexsym.judges.scores import rescore_run

    mean = rescore_run(run, ensemble="mean")
    assert [row["score"] for row in sorted(mean.samples, key=lambda r: r["sample_id"])][:2] == [
        pytest.approx(0.75),
        pytest.approx(0.55),
    ]


def test_judging_resumes_and_reuses_the_cache(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    stub.say(*["[[0.5]]"] * 4)
    judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    assert len(stub.requests) == 4
    again = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    assert again.judged == 0 and len(stub.requests) == 4  # everything was already judged
    # A kill mid-line: the torn line is set aside and re-judged from the cache, with no call.
    path = run / "judgements.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 40])
    third = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    assert third.judged == 1 and len(stub.requests) == 4
    assert len(judgements(run)) == 4 and (run / "judgements.dropped").exists()
    assert judgements(run)[-1]["attempts"][0]["cached"] is True
    # Another temperature is another judge set-up: judged afresh, not mixed with the old grades.
    stub.say(*["[[0.3]]"] * 4)
    warm = options(tmp_path, JUDGE, judges=(JudgeSpec(JUDGE, temperature=0.5),))
    fourth = judge_run(run, warm, model_options={"api_base": stub.url})
    assert len(stub.requests) == 8 and fourth.report.reference.mean == pytest.approx(0.3)


def test_transient_judge_errors_are_retried_with_backoff(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    stub.enqueue("429", "500")
    stub.say(*["[[0.7]]"] * 4)
    result = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    assert stub.counts["429"] == 1 and stub.counts["500"] == 1
    assert result.report.reference.scored == 4


def test_a_permanent_judge_error_is_recorded_not_scored(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    stub.enqueue("400")
    stub.say(*["[[0.7]]"] * 3)
    result = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    errors = [line for line in judgements(run) if line["status"] == "error"]
    assert len(errors) == 1 and errors[0]["score"] is None and errors[0]["error_kind"] == "permanent"
    assert FAKE_KEY not in errors[0]["problem"]
    assert (result.report.reference.scored, result.report.reference.failed) == (3, 1)


def test_rubric_judge_shares_points_and_counts_undecided_items(tmp_path, stub):
    run = make_run(tmp_path, "kcl_essay.jsonl", "kcl-essay")
    tasks = [
        json.loads(line) for line in (tmp_path / "tasks-kcl-essay" / "tasks.jsonl").read_text().splitlines()
    ]
    first, second = (len(task["gold"]["rubrics"]) for task in tasks)
    stub.say(
        # First essay: the first item unmet, then a retry for an item left out.
        rubric_reply(*[(i, i != 1, f"reason {i}") for i in range(1, first)]),
        rubric_reply((first, True, "found on retry")),
        # Second essay: item 1 never decided in a usable form.
        rubric_reply((1, "maybe"), *[(i, True) for i in range(2, second + 1)]),
        rubric_reply((1, "perhaps")),
        "no json at all",
    )
    result = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    lines = judgements(run)
    assert [line["status"] for line in lines] == ["ok", "incomplete"]
    points = tasks[0]["gold"]["points"]
    assert lines[0]["earned"] == pytest.approx(sum(points) - points[0])
    assert lines[1]["items"][0]["satisfied"] is None and lines[1]["score"] is None
    rubric = result.report.rubric
    assert (rubric.n, rubric.complete, rubric.incomplete, rubric.items_undecided) == (2, 1, 1, 1)
    # The headline is the share of the decided points earned, over both essays (the second essay's
    # undecided item is left out of both sides), so it lies within its bounds.
    second_points = tasks[1]["gold"]["points"]
    earned = sum(points) - points[0] + sum(second_points) - second_points[0]
    decided = tasks[0]["gold"]["total_points"] + tasks[1]["gold"]["total_points"] - second_points[0]
    assert rubric.percent == pytest.approx(100 * earned / decided)
    assert rubric.lower_percent < rubric.percent < rubric.upper_percent
    from io import StringIO

    from rich.console import Console

    from lexsym.judges.report import render_judged

    shown = Console(file=StringIO(), width=200)
    render_judged(result.report, shown)
    table = shown.file.getvalue()
    assert "Rubric judge" in table and f"{rubric.percent:.1f}% ±" in table and "1 (1 items)" in table


def test_unanswered_samples_are_the_models_failure_not_the_judges(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open", model=Answers("", "A.", "B.", "C."))
    stub.say(*["[[0.5]]"] * 3)
    result = judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})
    assert len(stub.requests) == 3
    assert result.report.reference.no_answer == 1 and result.report.reference.mean == pytest.approx(0.375)


def test_judging_refuses_a_task_file_changed_since_the_run(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    tasks = tmp_path / "tasks-lexam-open" / "tasks.jsonl"
    tasks.write_text(tasks.read_text().replace("Wisconsin", "Oregon"))
    with pytest.raises(InputError, match="changed since the run"):
        judge_run(run, options(tmp_path, JUDGE), model_options={"api_base": stub.url})


def test_cli_judges_a_run_and_score_shows_it(tmp_path, stub):
    run = make_run(tmp_path, "lexam_open.jsonl", "lexam-open")
    stub.say(*["Fine. [[0.8]]"] * 4)
    env = {**os.environ, "OPENAI_API_KEY": FAKE_KEY, "COLUMNS": "160"}
    command = [
        sys.executable,
        "-m",
        "lexsym",
        "judge",
        str(run),
        "--judge",
        JUDGE,
        "--api-base",
        stub.url,
        "--cache-dir",
        str(tmp_path / "cache"),
        "--concurrency",
        "1",
    ]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "0.800" in done.stdout and "lexsym judge: complete" in done.stderr
    shown = subprocess.run(
        [sys.executable, "-m", "lexsym", "score", str(run), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["judged"]["reference"]["mean"] == pytest.approx(0.8)
    bad = subprocess.run(
        [sys.executable, "-m", "lexsym", "judge", str(tmp_path), "--judge", JUDGE],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not a run directory" in bad.stderr
