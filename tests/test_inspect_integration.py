"""`lexsym.inspect`: inspect_ai tasks over lexsym task sets score every answer exactly as `lexsym score` does.

Offline throughout: the answering model and the judges are inspect's `mockllm`, scripted per prompt (gold
answers, wrong ones, unreadable ones, a `<think>` block), and every output carries its usage, so inspect
never reaches for a tokenizer. The shell test runs `inspect eval` itself with downloads made to fail.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai import eval_set
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model, ModelOutput, ModelUsage, get_model

from lexsym.exams.datasets import load_exam
from lexsym.exams.tasks import ConvertOptions, convert
from lexsym.generate.suites import SUITE_NAMES, suite_datasets
from lexsym.inspect import lexsym_exam, lexsym_tasks
from lexsym.judges.scores import build_report
from lexsym.runner.scores import answer_text
from lexsym.runner.tasksets import messages_for
from lexsym.scoring import score
from lexsym.scoring.results import MEDIAN_METRICS, TASK_METRICS
from tests.task_sets import generate_task_set

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "exams"
GENERATED = ("AE", "EC", "EV", "NA", "OE")


def output(text: str) -> ModelOutput:
    reply = ModelOutput.from_content("mockllm/model", text)
    reply.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return reply


def scripted(answer: Callable[[list[Any]], str], seen: list[list[Any]] | None = None) -> Model:
    """A mockllm model whose reply is `answer(messages)`; what it was sent is appended to `seen`."""

    def generate(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        if seen is not None:
            seen.append(messages)
        return output(answer(messages))

    return get_model("mockllm/model", custom_outputs=generate, memoize=False)


def user_text(messages: list[Any]) -> str:
    return [m for m in messages if m.role == "user"][-1].text


def lexsym_values(value: dict[str, Any]) -> dict[str, Any]:
    """A score value with inspect's NaN ("not scored") read as lexsym's None ("undefined")."""
    return {k: None if isinstance(v, float) and math.isnan(v) else v for k, v in value.items()}


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def wrong(record: dict[str, Any]) -> Any:
    """A readable answer that is wrong in a way each task's metrics see."""
    gold = json.loads(json.dumps(record["gold"]))
    task = record["task"]
    if task == "AE":
        return [*gold[:-1], "Arizona"]
    if task == "EC":
        first = next(iter(gold))
        gold[first] = [*gold[first][:-1], "11 U.S.C. § 522(d)(1)"]
        return gold
    if task == "EV":
        for claim in next(iter(gold.values())):
            claim["claim_value"] *= 2
        return gold
    if task == "NA":
        return {name: amount + 5000 for name, amount in gold.items()}
    for claims in gold["schedule"].values():  # OE: every claim ten times too large
        for claim in claims:
            claim["claim_value"] *= 10
    return gold


def answer_for(record: dict[str, Any], index: int) -> str:
    """Per task type: the gold (once behind a `<think>` block), a wrong answer, and an unreadable one."""
    kind = index % 3
    if record["task"] == "MCQ":
        labels = record["reference"]["labels"]
        other = next(label for label in labels if label != record["gold"])
        return [f"Answer: {record['gold']}", f"Answer: {other}", "I would rather not say."][kind]
    if kind == 0:
        thought = "<think>FINAL ANSWER: []</think>\n" if record["task"] == "NA" else ""
        return f"{thought}Working through the statutes.\nFINAL ANSWER: {json.dumps(record['gold'])}"
    if kind == 1:
        return "FINAL ANSWER: " + json.dumps(wrong(record))
    return "I am not sure; it depends on the facts."


@pytest.fixture(scope="module")
def task_sets(tmp_path_factory) -> dict[str, Path]:
    """Three tasks of each generated type plus seven MCQs in one file; LEXam open questions; KCL essays."""
    root = tmp_path_factory.mktemp("inspect")
    generated = generate_task_set(
        root / "generated", {"task": list(GENERATED)}, base={"split": {"dev": 0, "test": 3}}, seed=11
    )
    parts = [(generated / "tasks.jsonl").read_text(encoding="utf-8")]
    for name, fmt in (("lexam_mcq.jsonl", "lexam-mcq"), ("kcl_mcqa.jsonl", "kcl-mcqa")):
        convert(load_exam(FIXTURES / name, fmt), root / fmt, ConvertOptions(shuffle_seed=13))
        parts.append((root / fmt / "tasks.jsonl").read_text(encoding="utf-8"))
    (root / "mixed").mkdir()
    (root / "mixed" / "tasks.jsonl").write_text("".join(parts), encoding="utf-8")
    convert(load_exam(FIXTURES / "lexam_open.jsonl", "lexam-open"), root / "open")
    convert(load_exam(FIXTURES / "kcl_essay.jsonl", "kcl-essay"), root / "essay")
    return {
        "root": root,
        "mixed": root / "mixed" / "tasks.jsonl",
        "open": root / "open",
        "essay": root / "essay",
    }


@pytest.fixture(scope="module")
def mixed_run(task_sets) -> dict[str, Any]:
    """One inspect eval of the mixed set, and `lexsym score` on the same answer texts."""
    records = read(task_sets["mixed"])
    counters: dict[str, int] = {}
    answers: dict[str, str] = {}
    for record in records:
        index = counters[record["task"]] = counters.get(record["task"], -1) + 1
        answers[record["prompt"]["user"]] = answer_for(record, index)
    seen: list[list[Any]] = []
    model = scripted(lambda messages: answers[user_text(messages)], seen)
    (log,) = inspect_eval(
        lexsym_tasks(path=str(task_sets["mixed"])),
        model=model,
        log_dir=str(task_sets["root"] / "logs"),
        display="none",
    )
    predictions = task_sets["root"] / "predictions.jsonl"
    predictions.write_text(  # what `lexsym run` writes: the answer with `<think>` blocks removed
        "".join(
            json.dumps({"id": r["id"], "output": answer_text(answers[r["prompt"]["user"]])}) + "\n"
            for r in records
        ),
        encoding="utf-8",
    )
    report = score(task_sets["mixed"], predictions, workers=1)
    return {"log": log, "report": report, "records": records, "seen": seen}


def test_samples_send_exactly_the_messages_of_lexsym_run(mixed_run):
    by_user = {r["prompt"]["user"]: r for r in mixed_run["records"]}
    assert len(mixed_run["seen"]) == len(by_user) == 22
    for messages in mixed_run["seen"]:
        record = by_user[user_text(messages)]
        assert [{"role": m.role, "content": m.text} for m in messages] == messages_for(record)
    assert mixed_run["log"].eval.task == "lexsym/lexsym_tasks"
    assert mixed_run["log"].eval.config is not None and mixed_run["log"].plan.config.temperature == 0.0


def test_every_sample_scores_what_lexsym_score_gives_for_the_same_answer(mixed_run):
    log, report = mixed_run["log"], mixed_run["report"]
    assert log.status == "success"
    expected = {row.id: row for row in report.samples}
    compared: dict[str, int] = {}
    for sample in log.samples:
        result = sample.scores["lexsym_score"]
        row = expected[sample.id]
        assert lexsym_values(result.value) == row.scores, sample.id
        assert result.metadata["violations"] == row.violations
        assert result.metadata["parsed"] == row.parsed
        compared[row.task] = compared.get(row.task, 0) + 1
    assert compared == {"AE": 3, "EC": 3, "EV": 3, "NA": 3, "OE": 3, "MCQ": 7}
    values = [sample.scores["lexsym_score"].value for sample in log.samples]
    assert {v["format"] for v in values} == {0.0, 1.0}  # unreadable answers are in the comparison
    assert any(0.0 < (v.get("f1") or 0.0) < 1.0 for v in values)  # and partly right ones


def test_the_aggregates_are_lexsym_scores_by_task_table(mixed_run):
    (result,) = mixed_run["log"].results.scores
    metrics = {name: m.value for name, m in result.metrics.items()}
    checked = 0
    for group in mixed_run["report"].by_task:
        for name in TASK_METRICS[group.task]:
            summary = group.metrics[name]
            value = summary.median if name in MEDIAN_METRICS else summary.mean
            assert metrics.get(f"{group.task}/{name}") == value, (group.task, name)
            assert metrics.get(f"{group.task}/{name}_se") == summary.se, (group.task, name)
            checked += 1
    assert checked == sum(len(TASK_METRICS[t]) for t in (*GENERATED, "MCQ"))


def test_an_oe_explanation_names_the_broken_rule_with_its_citation(mixed_run):
    explained = [s.scores["lexsym_score"] for s in mixed_run["log"].samples if s.metadata["task"] == "OE"]
    broken = [s for s in explained if s.metadata["violations"]]
    assert broken, "the oversized OE schedule must break a rule"
    text = broken[0].explanation
    assert "Rules broken:" in text
    cited = [line for line in text.splitlines() if line.startswith("- `") and "` (" in line]
    assert cited and any(f"`{name}` (" in cited[0] for name in broken[0].metadata["violations"])
    assert "U.S.C." in cited[0] or "Stat." in cited[0]
    assert any("Valid and optimal." in s.explanation for s in explained)
    unreadable = [s for s in explained if not s.metadata["parsed"]]
    assert unreadable and "could not be read" in unreadable[0].explanation


def test_the_log_reads_back_as_inspect_view_reads_it(mixed_run):
    log = mixed_run["log"]
    again = read_eval_log(log.location)
    assert again.status == "success" and len(again.samples) == 22
    before = {s.id: lexsym_values(s.scores["lexsym_score"].value) for s in log.samples}
    assert {s.id: lexsym_values(s.scores["lexsym_score"].value) for s in again.samples} == before
    header = read_eval_log(log.location, header_only=True)
    assert (
        header.results.scores[0].metrics["OE/valid"].value == log.results.scores[0].metrics["OE/valid"].value
    )


def test_the_reference_judge_grades_with_lexsyms_protocol_and_ensemble(task_sets):
    essays = {0: "essay A", 1: "essay B", 2: "essay C", 3: "<think>only thinking</think>"}
    records = read(task_sets["open"] / "tasks.jsonl")
    answers = {r["prompt"]["user"]: essays[i] for i, r in enumerate(records)}

    def first_judge(messages: list[Any]) -> str:
        prompt, retry = messages[1].text, len(messages) > 2
        if "essay A" in prompt:
            return "Sound on the 730-day rule. [[0.6]]"
        if "essay B" in prompt:
            return "[[0.3]]" if retry else "Decent, but no grade."
        return "Between [[0.5]] and [[0.7]]."  # never one grade: a parse failure, not a zero

    def second_judge(messages: list[Any]) -> str:
        prompt = messages[1].text
        return "[[0.8]]" if "essay A" in prompt else "[[0.2]]" if "essay B" in prompt else "[[0.4]]"

    (log,) = inspect_eval(
        lexsym_exam(path=str(task_sets["open"])),
        model=scripted(lambda messages: answers[user_text(messages)]),
        model_roles={"grader": [scripted(first_judge), scripted(second_judge)]},
        log_dir=str(task_sets["root"] / "judge-logs"),
        display="none",
    )
    assert log.status == "success"
    results = {s.id: s.scores["reference_judge"] for s in log.samples}
    values = [results[r["id"]].value for r in records]
    assert values[0] == 0.6 and values[1] == 0.2 and values[3] == 0.0  # min of the two judges
    assert values[2] != values[2]  # NaN: unscored, as lexsym leaves a failed grade out
    assert results[records[2]["id"]].reason == "grader_failed"
    attempts = [[len(line["attempts"]) for line in results[r["id"]].metadata["judgements"]] for r in records]
    assert attempts == [[1, 1], [2, 1], [3, 1], [0, 0]]  # B asked again once; C to the end; D never
    assert results[records[3]["id"]].metadata["status"] == "empty_answer"
    lines = [line for r in records for line in results[r["id"]].metadata["judgements"]]
    names = results[records[0]["id"]].metadata["judges"]
    lexsym_report = build_report(
        lines, judges=names, method="min", partial=False, records={r["id"]: r for r in records}
    ).reference
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["mean"] == pytest.approx(0.8 / 3) == lexsym_report.mean
    assert metrics["se"] == lexsym_report.se and metrics.get("se_clustered") == lexsym_report.se_clustered
    assert log.results.scores[0].unscored_samples == 1


def test_the_rubric_judge_counts_undecided_items_as_lexsym_does(task_sets):
    records = read(task_sets["essay"] / "tasks.jsonl")
    answers = {r["prompt"]["user"]: f"essay K{i}" for i, r in enumerate(records)}

    def judge(messages: list[Any]) -> str:
        def items(*decided: tuple[int, bool]) -> str:
            return json.dumps({"items": [{"id": i, "satisfied": s, "reason": "stated"} for i, s in decided]})

        if "essay K0" in messages[1].text:
            return items((4, True)) if len(messages) > 2 else items((1, True), (2, True), (3, False))
        return items((1, True))  # item 2 is never decided

    (log,) = inspect_eval(
        lexsym_exam(path=str(task_sets["essay"])),
        model=scripted(lambda messages: answers[user_text(messages)]),
        model_roles={"grader": scripted(judge)},
        log_dir=str(task_sets["root"] / "rubric-logs"),
        display="none",
    )
    assert log.status == "success"
    values = [s.scores["rubric_judge"].value for s in log.samples]
    assert values[0] == {"score": 0.75, "earned": 15.0, "total": 20.0, "undecided_points": 0.0}
    assert values[1] == {"score": None, "earned": 4.0, "total": 10.0, "undecided_points": 6.0}
    lines = [line for s in log.samples for line in s.scores["rubric_judge"].metadata["judgements"]]
    names = log.samples[0].scores["rubric_judge"].metadata["judges"]
    lexsym_report = build_report(
        lines, judges=names, method="min", partial=False, records={r["id"]: r for r in records}
    ).rubric
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics["percent"] == pytest.approx(100 * 19 / 24) == lexsym_report.percent
    assert metrics["lower_percent"] == lexsym_report.lower_percent == pytest.approx(100 * 19 / 30)
    assert metrics["upper_percent"] == lexsym_report.upper_percent and metrics["se"] == lexsym_report.se
    assert "item 3 (5 points): unmet" in log.samples[0].scores["rubric_judge"].explanation


def test_eval_set_runs_two_tasks_and_resumes_as_done(task_sets):
    records = {r["prompt"]["user"]: r for r in read(task_sets["mixed"])}
    model = scripted(lambda messages: "FINAL ANSWER: " + json.dumps(records[user_text(messages)]["gold"]))
    tasks = [
        lexsym_tasks(path=str(task_sets["mixed"]), task="AE"),
        lexsym_tasks(path=str(task_sets["mixed"]), task="NA"),
    ]
    log_dir = str(task_sets["root"] / "eval-set")
    done, logs = eval_set(tasks, log_dir=log_dir, model=model, display="none")
    assert done and len(logs) == 2 and {log.status for log in logs} == {"success"}
    assert sorted(log.eval.task_args["task"] for log in logs) == ["AE", "NA"]
    for log in logs:
        kind = log.eval.task_args["task"]
        metrics = {n: m.value for n, m in log.results.scores[0].metrics.items()}
        assert metrics[f"{kind}/format"] == metrics[f"{kind}/f1"] == 1.0  # gold answers
    again, relogs = eval_set(tasks, log_dir=log_dir, model=model, display="none")
    assert again and {Path(log.location).name for log in relogs} == {Path(log.location).name for log in logs}


def test_a_suite_is_generated_once_per_seed_and_read_back_after(tmp_path, monkeypatch):
    from lexsym.inspect import suite_cache
    from lexsym.inspect.suites import SUITE_TASKS, openexempt_temporal

    assert set(SUITE_TASKS) == set(SUITE_NAMES)
    assert all(f.__name__ == "openexempt_" + name.replace("-", "_") for name, f in SUITE_TASKS.items())
    tiny = {
        "name": "temporal",
        "base": {"asset_count_min": 0, "asset_count_max": 0, "split": {"dev": 0, "test": 2}},
        "vary": {},
    }
    monkeypatch.setattr(
        suite_cache, "load_suite", lambda name, seed: suite_datasets(tiny, source="test", seed=seed)
    )
    generated = []
    real_generate = suite_cache.generate

    def counting(datasets, out, workers=None):
        generated.append(out)
        return real_generate(datasets, out, workers=1)

    monkeypatch.setattr(suite_cache, "generate", counting)
    first = suite_cache.suite_tasks("temporal", seed=1, cache_dir=tmp_path)
    assert suite_cache.suite_tasks("temporal", seed=1, cache_dir=tmp_path) == first
    task = openexempt_temporal(seed=1, cache_dir=str(tmp_path))
    assert len(generated) == 1 and len(task.dataset) == 2
    assert task.metadata["tasks"] == str(first) and task.metadata["suite"] == "temporal"
    other = suite_cache.suite_tasks("temporal", seed=2, cache_dir=tmp_path)
    assert other != first and len(generated) == 2
    key = json.loads((first.parent / "cache_key.json").read_text())
    assert key["seed"] == 1 and set(key["inputs"]) >= {"statutes_encodings", "templates", "catalogue"}


def test_token_counting_uses_the_bundled_vocabulary_unless_one_is_chosen(monkeypatch, tmp_path):
    from lexsym.inspect.offline_tokens import use_bundled_vocabulary

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    assert use_bundled_vocabulary() is None and os.environ["TIKTOKEN_CACHE_DIR"] == str(tmp_path)
    monkeypatch.delenv("TIKTOKEN_CACHE_DIR")
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    folder = use_bundled_vocabulary()
    assert folder is not None and os.environ["TIKTOKEN_CACHE_DIR"] == str(folder)


def test_inspect_eval_from_the_shell_works_offline(task_sets, tmp_path):
    """The shell path: entry point, registry name, mockllm with no usage of its own (inspect counts the
    tokens) and no download: a proxy that refuses every connection makes any fetch fail."""
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    env.update(HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9", NO_PROXY="")
    inspect_cli = Path(sys.executable).with_name("inspect")
    command = [
        str(inspect_cli),
        "eval",
        "lexsym/lexsym_tasks",
        "-T",
        f"path={task_sets['mixed']}",
        "-T",
        "task=AE",
    ]
    command += ["--model", "mockllm/model", "--limit", "2", "--log-dir", str(tmp_path), "--display", "plain"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (location,) = tmp_path.glob("*.eval")
    log = read_eval_log(str(location))
    assert log.status == "success" and len(log.samples) == 2
    assert log.stats.model_usage["mockllm/model"].input_tokens > 0  # counted locally
    assert all(s.scores["lexsym_score"].value["format"] == 0.0 for s in log.samples)  # mockllm's default
