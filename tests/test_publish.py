"""`lexsym export lm-eval` and `lexsym export hf`: what another harness or the Hub gets is lexsym's benchmark.

lm-eval runs the exported folder offline with a scripted model (gold answers for some samples, wrong or
unreadable ones for others), and its means must be `lexsym score`'s on the same outputs for every task and
metric. The Hugging Face folder must load back with `datasets` (offline, a fresh cache) and rebuild every
prompt, gold and record exactly, with the card's own snippet too.
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from lexsym.exams.datasets import load_exam
from lexsym.exams.tasks import ConvertOptions, convert
from lexsym.generate.pipeline import generate
from lexsym.generate.suites import suite_datasets
from lexsym.publish import export_hf, export_lm_eval, full_prompt, full_record
from lexsym.publish.compact_records import ROW_COLUMNS
from lexsym.publish.lm_eval_export import task_name
from lexsym.publish.sample_scores import task_record
from lexsym.runner.tasksets import messages_for
from lexsym.scoring import score
from lexsym.scoring.inputs import task_set_table
from lexsym.scoring.results import MEDIAN_METRICS
from tests.task_sets import TINY_BASE

FIXTURES = Path(__file__).parent / "fixtures" / "exams"
#: lexsym aggregates lm-eval has no counterpart for (same mean as accuracy, a clustered standard error).
NOT_IN_LM_EVAL = {"accuracy_clustered"}


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def tasks_dir(tmp_path_factory) -> Path:
    """Three suite folders: every task on four small cases (dev and test), EV and OE with distracting
    facts (test only), and LEXam-shaped MCQs."""
    out = tmp_path_factory.mktemp("suites")
    alpha = {"name": "alpha", "base": dict(TINY_BASE), "vary": {"task": ["AE", "EC", "EV", "NA", "OE"]}}
    beta = {
        "name": "beta",
        "base": {**TINY_BASE, "split": {"dev": 0, "test": 2}},
        "vary": {"task": ["EV", "OE"], "obfuscation": ["distractor"]},
    }
    datasets = suite_datasets(alpha, source="test") + suite_datasets(beta, source="test")
    generate(datasets, out, workers=1, per_suite=True)
    convert(
        load_exam(FIXTURES / "lexam_mcq.jsonl", "lexam-mcq"), out / "exams", ConvertOptions(shuffle_seed=13)
    )
    return out


@pytest.fixture(scope="module")
def records(tasks_dir) -> list[dict[str, Any]]:
    return [
        r for suite in sorted(tasks_dir.iterdir()) if suite.is_dir() for r in _read(suite / "tasks.jsonl")
    ]


def _gold_text(record: dict[str, Any]) -> str:
    gold = record["gold"]
    if record["task"] == "MCQ":
        return f"ANSWER: {gold}"
    if record["task"] == "OE":
        gold = {"jurisdiction": gold["jurisdiction"], "schedule": gold["schedule"]}
    return "FINAL ANSWER: " + json.dumps(gold)


def _wrong_text(record: dict[str, Any]) -> str:
    """A readable answer that is partly wrong, so that every rate and error metric moves."""
    gold, task = record["gold"], record["task"]
    if task == "AE":
        wrong: Any = [g for g in gold if g != "Federal"] or ["Federal", "Wisconsin"]
    elif task == "EC":
        wrong = {asset: citations[:1] for asset, citations in gold.items()}
    elif task == "EV":
        wrong = {
            asset: [{**claim, "claim_value": claim["claim_value"] * 1.5 + 10} for claim in claims]
            for asset, claims in gold.items()
        }
    elif task == "NA":
        wrong = {jurisdiction: value * 2 + 10 for jurisdiction, value in gold.items()}
    elif task == "OE":
        wrong = {"jurisdiction": gold["jurisdiction"], "schedule": {}}
    else:
        labels = record["reference"]["labels"]
        return f"ANSWER: {next(label for label in labels if label != gold)}"
    return "FINAL ANSWER: " + json.dumps(wrong)


def _outputs(records: list[dict[str, Any]]) -> dict[str, str]:
    """Gold, wrong and unreadable answers in turn, per task type."""
    outputs, seen = {}, {}
    for record in records:
        turn = seen[record["task"]] = seen.get(record["task"], -1) + 1
        outputs[record["id"]] = (_gold_text(record), _wrong_text(record), "I cannot tell.")[turn % 3]
    return outputs


def _scripted_lm(outputs: dict[str, str], by_id: dict[str, dict[str, Any]], prompts: list[tuple[str, Any]]):
    from lm_eval.api.model import LM

    class Scripted(LM):
        """Answers each document from `outputs`; its chat template is the messages as JSON, so the test
        sees exactly what a chat model would be sent."""

        def generate_until(self, requests, disable_tqdm=False):
            replies = []
            for request in requests:
                prompts.append((request.doc["id"], request.args[0]))
                replies.append(outputs[request.doc["id"]])
            return replies

        def loglikelihood(self, requests, disable_tqdm=False):
            raise NotImplementedError

        def loglikelihood_rolling(self, requests, disable_tqdm=False):
            raise NotImplementedError

        @property
        def tokenizer_name(self) -> str:
            return "scripted"

        def chat_template(self, chat_template=False) -> str:
            return "json"

        def apply_chat_template(self, chat_history, add_generation_prompt=True) -> str:
            return json.dumps(chat_history)

    return Scripted()


def _evaluate(folder: Path, tasks: list[str], lm: Any, *, chat: bool) -> dict[str, Any]:
    import lm_eval
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(folder), include_defaults=False)
    result = lm_eval.simple_evaluate(
        model=lm,
        tasks=tasks,
        task_manager=manager,
        bootstrap_iters=0,
        apply_chat_template=chat,
        log_samples=False,
    )
    return result["results"]


def _same(lm_value: Any, lexsym_value: float | None) -> bool:
    if lexsym_value is None:
        return lm_value is None or (isinstance(lm_value, float) and math.isnan(lm_value))
    return isinstance(lm_value, (int, float)) and math.isclose(
        lm_value, lexsym_value, rel_tol=1e-9, abs_tol=1e-12
    )


def _assert_utils_only_delegates(path: Path) -> None:
    """The generated utils.py holds no lexsym logic: every function returns a call into lm_eval_hooks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    assert {f.name for f in functions} == {"load_docs", "process_results"}
    for function in functions:
        body = [
            n for n in function.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))
        ]
        assert len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call)
        assert ast.unparse(body[0].value.func).startswith("lm_eval_hooks."), function.name


def test_lm_eval_scores_equal_lexsym_scores_and_prompts_are_lexsyms(tasks_dir, records, tmp_path):
    pytest.importorskip("lm_eval")
    out = tmp_path / "lm-eval"
    export = export_lm_eval(tasks_dir, out)
    assert sorted(export.tasks) == ["alpha", "beta", "exams"]
    assert (out / "README.md").read_text(encoding="utf-8").count("cannot reproduce") >= 1
    _assert_utils_only_delegates(out / "alpha" / "utils.py")
    test_records = [r for r in records if r["split"] == "test"]
    outputs = _outputs(test_records)
    by_id = {r["id"]: r for r in test_records}
    prompts: list[tuple[str, Any]] = []
    results = _evaluate(out, ["lexsym"], _scripted_lm(outputs, by_id, prompts), chat=True)

    # The prompts are the messages `lexsym run` sends, system turn included; only test splits run.
    assert sorted(i for i, _ in prompts) == sorted(by_id)
    for identifier, context in prompts:
        assert json.loads(context) == messages_for(by_id[identifier]), identifier

    tasks_file, predictions = tmp_path / "tasks.jsonl", tmp_path / "predictions.jsonl"
    tasks_file.write_text("".join(json.dumps(r) + "\n" for r in test_records), encoding="utf-8")
    predictions.write_text(
        "".join(json.dumps({"id": i, "output": text}) + "\n" for i, text in outputs.items()), encoding="utf-8"
    )
    report = score(tasks_file, predictions, workers=1, resamples=10)
    suite_names = {task_record(r).suite: r["metadata"].get("suite") or "exams" for r in test_records}
    pairs, moving = 0, 0
    for group in report.by_suite:
        lm_task = results[task_name(suite_names[group.suite], group.task)]
        assert lm_task["sample_len"] == group.n
        for metric, summary in group.metrics.items():
            if metric in NOT_IN_LM_EVAL:
                continue
            expected = summary.median if metric in MEDIAN_METRICS else summary.mean
            assert _same(lm_task[f"{metric},none"], expected), (group.suite, group.task, metric)
            pairs += 1
            moving += expected is not None and 0 < expected < 1
    for group in report.by_task:  # the per-task-type groups pool the rates over suites
        lm_group = results[f"lexsym_{group.task.lower()}"]
        for metric in ("format", "precision", "recall", "f1", "valid", "optimal", "accuracy"):
            if metric in group.metrics:
                assert _same(lm_group[f"{metric},none"], group.metrics[metric].mean), (group.task, metric)
                pairs += 1
    print(f"lm-eval = lexsym on {pairs} task/metric pairs ({moving} strictly between 0 and 1)")
    assert pairs >= 60 and moving >= 20, (pairs, moving)


def test_lm_eval_inline_mode_sends_one_text(tasks_dir, records, tmp_path):
    pytest.importorskip("lm_eval")
    out = tmp_path / "inline"
    export_lm_eval(tasks_dir, out, system="inline")
    alpha_ae = [r for r in records if r["id"].startswith("alpha/task=AE/test")]
    outputs = {r["id"]: _gold_text(r) for r in alpha_ae}
    prompts: list[tuple[str, Any]] = []
    results = _evaluate(out, ["lexsym_alpha_ae"], _scripted_lm(outputs, {}, prompts), chat=False)
    assert results["lexsym_alpha_ae"]["f1,none"] == 1.0
    by_id = {r["id"]: r for r in alpha_ae}
    for identifier, context in prompts:
        prompt = by_id[identifier]["prompt"]
        assert context == prompt["system"] + "\n\n" + prompt["user"]


def test_oe_answers_are_checked_under_the_task_sets_what_if_table(records, tmp_path):
    """A task set whose gold rests on a what-if table (an OpenExempt import) is scored under it."""
    pytest.importorskip("lm_eval")
    oe = [r for r in records if r["id"].startswith("alpha/task=OE/test")]
    suite = tmp_path / "tabled"
    suite.mkdir()
    (suite / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in oe), encoding="utf-8")
    claimed = {
        (claim["citation"], "US" if r["gold"]["jurisdiction"] == "Federal" else "WI")
        for r in oe
        for claims in r["gold"]["schedule"].values()
        for claim in claims
    }
    tight = {"limit": 1}
    exemptions = [
        {"citation": c, "jurisdiction": j, "single": tight, "joint": tight} for c, j in sorted(claimed)
    ]
    table = {"name": "tight", "exemptions": exemptions}
    (suite / "table.json").write_text(json.dumps(table), encoding="utf-8")
    export_lm_eval(suite, tmp_path / "lm")
    outputs = {r["id"]: _gold_text(r) for r in oe}
    name = task_name("alpha", "OE")
    results = _evaluate(tmp_path / "lm", [name], _scripted_lm(outputs, {}, []), chat=True)[name]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(
        "".join(json.dumps({"id": i, "output": text}) + "\n" for i, text in outputs.items()), encoding="utf-8"
    )
    group = score(suite / "tasks.jsonl", predictions, workers=1, resamples=10).by_task[0]
    assert group.metrics["valid"].mean < 1  # the gold's claims break the table's limits
    for metric, summary in group.metrics.items():
        expected = summary.median if metric in MEDIAN_METRICS else summary.mean
        assert _same(results[f"{metric},none"], expected), metric
    hf = export_hf(suite, tmp_path / "hf")
    published = json.loads((hf.out / "tables" / "alpha.json").read_text(encoding="utf-8"))
    assert published == task_set_table(suite / "tasks.jsonl") and published["name"] == "tight"
    assert "rests on a what-if table" in (hf.out / "README.md").read_text(encoding="utf-8")


@pytest.fixture
def offline_datasets(monkeypatch, tmp_path):
    """`datasets` offline, with a cache of its own."""
    datasets = pytest.importorskip("datasets")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True, raising=False)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")
    return datasets


def _front_matter(card: str) -> dict[str, Any]:
    match = re.match(r"---\n(.*?)\n---\n", card, re.S)
    assert match, "the card starts with YAML front matter"
    return yaml.safe_load(match.group(1))


def test_hf_export_round_trips_every_prompt_gold_and_record(tasks_dir, records, tmp_path, offline_datasets):
    out = tmp_path / "hf"
    export = export_hf(tasks_dir, out)
    cache = str(tmp_path / "hf-cache")
    load = offline_datasets.load_dataset
    texts = {row["id"]: row["text"] for row in load(str(out), "contexts", split="shared", cache_dir=cache)}
    assert export.shared_texts == len(texts) < 10
    by_id = {r["id"]: r for r in records}
    seen = []
    for suite, splits in export.rows.items():
        files = {split: str(out / f"data/{suite}/{split}-00000-of-00001.parquet") for split in splits}
        loaded = load("parquet", data_files=files, cache_dir=cache)
        for split, rows in loaded.items():
            assert len(rows) == splits[split] and list(rows.features) == list(ROW_COLUMNS)
            for row in rows:
                record = by_id[row["id"]]
                assert full_prompt(row, texts) == {
                    "system": record["prompt"]["system"],
                    "user": record["prompt"]["user"],
                }
                assert json.loads(row["gold"]) == record["gold"] and full_record(row, texts) == record
                seen.append(row["id"])
    assert sorted(seen) == sorted(by_id)

    whole = load(str(out), cache_dir=cache)  # the default config: every suite
    assert sorted(whole) == ["dev", "test"] and sum(len(s) for s in whole.values()) == len(records)
    for row in whole["test"]:
        assert full_record(row, texts) == by_id[row["id"]]
    assert len(load(str(out), "beta", split="test", cache_dir=cache)) == 4

    card = (out / "README.md").read_text(encoding="utf-8")
    meta = _front_matter(card)
    assert [c["config_name"] for c in meta["configs"]] == ["all", "alpha", "beta", "exams", "contexts"]
    assert meta["configs"][0]["default"] is True and meta["license"] == "mit"
    features = {info["config_name"]: [f["name"] for f in info["features"]] for info in meta["dataset_info"]}
    assert features["alpha"] == list(ROW_COLUMNS) and features["contexts"] == ["id", "kind", "text"]
    digest = records[0]["metadata"]["rules_digest"]
    assert (
        digest in card
        and "clingo" in card
        and "proves the allocation optimal" in card
        and "@software" in card
    )

    snippet = re.search(r"```python\n(.*?)```", card, re.S).group(1)
    namespace: dict[str, Any] = {}
    exec(snippet.replace('repo = "."', f"repo = {str(out)!r}"), namespace)  # our own card's snippet
    first = namespace["first"]
    assert (
        namespace["prompt"] == messages_for(by_id[first["id"]])
        and namespace["gold"] == by_id[first["id"]]["gold"]
    )


def test_hf_export_is_smaller_than_a_naive_one(tasks_dir, records, tmp_path):
    """In Arrow (what `load_dataset` materialises): the rows and the shared texts against the records with
    their whole prompts. Files on disk are compared on the full benchmark in the report (zstd hides much
    of the repetition there, and on a few rows per file parquet's own overhead dominates)."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    export = export_hf(tasks_dir, tmp_path / "hf")
    assert export.stored_prompt_chars * 3 < export.prompt_chars
    naive = pa.Table.from_pylist(
        [
            {
                **{
                    k: v if isinstance(v, str) or v is None else json.dumps(v)
                    for k, v in r.items()
                    if k != "prompt"
                },
                **r["prompt"],
            }
            for r in records
        ]
    )
    compact = sum(pq.read_table(p).nbytes for p in (tmp_path / "hf").rglob("*.parquet"))
    assert compact * 2 < naive.nbytes, (compact, naive.nbytes)


def lexsym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, env=os.environ, timeout=300
    )


def test_the_export_commands(tasks_dir, tmp_path):
    hf = lexsym("export", "hf", str(tasks_dir), "--out", str(tmp_path / "hf"), "--json")
    assert hf.returncode == 0, hf.stderr
    assert json.loads(hf.stdout)["rows"]["alpha"] == {"dev": 5, "test": 15}
    assert "lexsym export hf: 28 rows in 3 suite config(s)" in hf.stderr
    (tmp_path / "hf" / "stale.txt").write_text("left from before", encoding="utf-8")
    again = lexsym("export", "hf", str(tasks_dir / "alpha"), "--out", str(tmp_path / "hf"))
    assert again.returncode == 0, again.stderr
    assert not (tmp_path / "hf" / "stale.txt").exists() and not (tmp_path / "hf" / "data" / "beta").exists()

    lm = lexsym("export", "lm-eval", str(tasks_dir / "alpha" / "tasks.jsonl"), "--out", str(tmp_path / "lm"))
    assert lm.returncode == 0, lm.stderr
    assert "20 documents in 5 task(s) of 1 suite(s)" in lm.stderr
    assert (tmp_path / "lm" / "alpha" / "lexsym_alpha_oe.yaml").is_file()

    wrong_kind = lexsym("export", "lm-eval", str(tasks_dir), "--out", str(tmp_path / "hf"))
    assert wrong_kind.returncode == 2 and "holds a 'hf' export" in wrong_kind.stderr
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me", encoding="utf-8")
    foreign = lexsym("export", "hf", str(tasks_dir), "--out", str(tmp_path / "mine"))
    assert foreign.returncode == 2 and (tmp_path / "mine" / "notes.txt").is_file()
    inside = lexsym("export", "hf", str(tasks_dir / "alpha"), "--out", str(tasks_dir))
    assert inside.returncode == 2 and "holds the task files" in inside.stderr

    broken = tmp_path / "broken.jsonl"
    lines = (tasks_dir / "alpha" / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    broken.write_text(lines[0] + "\n" + lines[1][:50] + "\n", encoding="utf-8")
    bad = lexsym("export", "lm-eval", str(broken), "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and f"{broken}:2: invalid JSON" in bad.stderr
    assert not (tmp_path / "bad").exists()
