"""Choosing tasks (`--where`, `--sample-id`, `--limit`), `key=value` options, repeats summarised, and a
run reproduced from one config file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lexsym._util.errors import InputError
from lexsym.models import Completion
from lexsym.models.options import parse_options, parse_scoped
from lexsym.runner import RunOptions, run_tasks
from lexsym.runner.repeats import pass_at_k
from lexsym.runner.selection import choose, limit, parse_filter
from tests.task_sets import generate_task_set


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory) -> Path:
    """Four cases, each with AE, NA and a variant of each: 16 tasks in four datasets."""
    return generate_task_set(
        tmp_path_factory.mktemp("sel"), {"task": ["AE", "NA"], "domicile_count_max": ["1", "3"]}
    )


@pytest.fixture(scope="module")
def records(task_dir) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (task_dir / "tasks.jsonl").read_text(encoding="utf-8").splitlines()]


def lexsym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
        timeout=300,
    )


# --- selection -----------------------------------------------------------------------------------------


def test_where_reads_metadata_with_numbers_booleans_lists_and_paths(records):
    def ids(*conditions: str) -> set[str]:
        return {r["id"] for r in choose(records, conditions=conditions)}

    meta = [r["metadata"] for r in records]
    counts = Counter(m["asset_count"] for m in meta)
    some = next(iter(counts))
    assert ids(f"asset_count={some}") == {r["id"] for r in records if r["metadata"]["asset_count"] == some}
    assert ids("asset_count>=3") == {r["id"] for r in records if r["metadata"]["asset_count"] >= 3}
    assert ids(f"asset_count!={some}") == {r["id"] for r in records if r["metadata"]["asset_count"] != some}
    assert ids("married=false") == {r["id"] for r in records if r["metadata"]["married"] is False}
    assert ids("married=FALSE") == ids("married=false")
    assert ids("states_in_prompt=wi") == {
        r["id"] for r in records if "WI" in r["metadata"]["states_in_prompt"]
    }
    setting = meta[0]["context"]["setting"]
    assert ids(f"context.setting={setting}") == {r["id"] for r in records}
    assert ids("married=false", "asset_count>=3") == ids("married=false") & ids("asset_count>=3")


def test_unknown_keys_are_errors_not_silent_matches(records):
    with pytest.raises(InputError, match="--where bogus: no task has this metadata key; the keys are"):
        choose(records, conditions=("bogus=1",))
    with pytest.raises(InputError, match=r"unknown key 'asset_count'; use one of task, .* or --where"):
        parse_filter("asset_count=2")
    with pytest.raises(InputError, match=">= needs a number"):
        choose(records, conditions=("asset_count>=many",))
    with pytest.raises(InputError, match="write KEY=VALUE"):
        choose(records, conditions=("asset_count",))


def test_sample_ids_pick_exactly_those_tasks(records):
    wanted = [records[3]["id"], records[0]["id"] + "#r2"]
    assert [r["id"] for r in choose(records, sample_ids=wanted)] == [records[0]["id"], records[3]["id"]]
    with pytest.raises(InputError, match="--sample-id: no task 'nope'"):
        choose(records, sample_ids=["nope"])


def test_limit_is_deterministic_stratified_and_in_file_order(records):
    kept = limit(records, 8)
    assert len(kept) == 8 and kept == limit(list(records), 8)
    strata = Counter(r["metadata"]["dataset"] for r in records)
    assert len(strata) == 4
    assert Counter(r["metadata"]["dataset"] for r in kept) == {name: 2 for name in strata}
    order = [r["id"] for r in records]
    assert [order.index(r["id"]) for r in kept] == sorted(order.index(r["id"]) for r in kept)
    odd = limit(records, 5)  # 5 over 4 equal strata: one gets the remainder
    assert sorted(Counter(r["metadata"]["dataset"] for r in odd).values()) == [1, 1, 1, 2]
    assert limit(records, 100) == records
    with pytest.raises(InputError, match="--limit must be at least 1"):
        limit(records, 0)


def test_the_run_header_records_the_selection(tmp_path, task_dir):
    options = RunOptions(progress=False, where=("married=false",), limit=3)
    result = run_tasks("lexsym:oracle", task_dir, tmp_path / "run", options=options)
    assert result.header.where == ["married=false"] and result.header.limit == 3
    assert result.header.tasks.selected <= 3


# --- key=value options ---------------------------------------------------------------------------------


def test_options_are_typed_by_yaml_and_names_stay_strings():
    options = parse_options(
        [
            "tensor_parallel_size=2",
            "gpu_memory_utilization=0.9",
            "drop_params=true",
            "dtype=bfloat16",
            "revision=20240620",
            "chat_template_kwargs={enable_thinking: false}",
            'extra_headers={"X-A": "b"}',
            "note=a: b",
            "empty=",
        ]
    )
    assert options == {
        "tensor_parallel_size": 2,
        "gpu_memory_utilization": 0.9,
        "drop_params": True,
        "dtype": "bfloat16",
        "revision": "20240620",
        "chat_template_kwargs": {"enable_thinking": False},
        "extra_headers": {"X-A": "b"},
        "note": "a: b",
        "empty": "",
    }
    with pytest.raises(InputError, match="-M timeout= is given twice"):
        parse_options(["timeout=1", "timeout=2"])
    with pytest.raises(InputError, match="-J '=x': write key=value"):
        parse_options(["=x"], "-J")
    assert parse_scoped(["litellm:hosted_vllm/q=http://h:8000/v1?a=b"], "--judge-api-base") == {
        "litellm:hosted_vllm/q": "http://h:8000/v1?a=b"
    }


def test_a_local_model_refuses_options(tmp_path, task_dir):
    with pytest.raises(InputError, match="lexsym:oracle is a local model and takes no options"):
        run_tasks("lexsym:oracle", task_dir, tmp_path / "run", model_options={"timeout": 3})


# --- repeats -------------------------------------------------------------------------------------------


def test_pass_at_k_is_the_unbiased_estimate():
    assert pass_at_k(4, 0, 1) == 0.0 and pass_at_k(4, 4, 1) == 1.0
    assert pass_at_k(4, 1, 1) == pytest.approx(0.25)
    assert pass_at_k(4, 1, 4) == 1.0 and pass_at_k(4, 2, 3) == 1.0
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - 3 / 10)


class Alternating:
    """Right on repeats 0 and 2 of every AE task, wrong (another answer) on repeat 1: at temperature > 0
    each repeat is its own request."""

    id = "test:alternating"
    cacheable = False

    def __init__(self) -> None:
        self.calls: Counter[str] = Counter()

    async def generate(self, messages, params, *, task=None) -> Completion:
        turn = self.calls[task["id"]]
        self.calls[task["id"]] += 1
        gold = task["gold"]
        answer = gold if turn != 1 else ["Nowhere"]
        return Completion(text="FINAL ANSWER: " + json.dumps(answer), finish_reason="stop")


def test_repeats_are_summarised_per_cell_per_sample_with_pass_at_k_and_majority(tmp_path, task_dir):
    from lexsym.models import GenerationParams

    out = tmp_path / "run"
    options = RunOptions(progress=False, repeats=3, concurrency=1, filters=("task=AE",), score_workers=1)
    result = run_tasks(
        Alternating(), task_dir, out, params=GenerationParams(temperature=0.7), options=options
    )
    summary = result.header.scores["over_repeats"]
    assert summary["repeats"] == 3 and summary["file"] == "repeats.json"
    cell = summary["cells"]["AE"]["f1"]
    assert cell["max"] == 1.0 and cell["min"] < 1.0 and cell["sd"] > 0
    rates = summary["by_task"]["AE"]
    assert rates["pass@1"] == pytest.approx(2 / 3) and rates["pass@n"] == 1.0
    assert rates["all@n"] == 0.0 and rates["majority"] == 1.0  # two right answers out-vote one wrong
    detail = json.loads((out / "repeats.json").read_text())
    one = next(iter(detail["samples"].values()))
    assert one["right"] == 2 and one["repeats"] == 3 and one["majority_right"] is True
    assert one["mean"] == pytest.approx(2 / 3)


def test_the_run_table_shows_the_repeats(tmp_path, task_dir):
    done = lexsym(
        "run",
        "--model",
        "lexsym:baseline",
        "--tasks",
        str(task_dir),
        "--out",
        str(tmp_path / "run"),
        "--repeats",
        "2",
        "--filter",
        "task=AE",
    )
    assert done.returncode == 0, done.stderr
    assert "Over 2 repeats (mean ± sd between repeats; pass@k over tasks)" in done.stdout
    assert "pass@2" in done.stdout and "majority" in done.stdout


# --- one config file -----------------------------------------------------------------------------------


def test_a_run_is_reproduced_from_its_config_file_and_flags_win(tmp_path, task_dir):
    first = tmp_path / "first"
    done = lexsym(
        "run",
        "--model",
        "lexsym:oracle",
        "--tasks",
        str(task_dir),
        "--out",
        str(first),
        "--where",
        "married=false",
    )
    assert done.returncode == 0, done.stderr
    config = (first / "config.yaml").read_text()
    assert "model: lexsym:oracle" in config and "married=false" in config
    copy = tmp_path / "copy.yaml"
    copy.write_text(config.replace(str(first), str(tmp_path / "second")))
    again = lexsym("run", "--config", str(copy), "--json")
    assert again.returncode == 0, again.stderr
    header = json.loads(again.stdout)
    assert header["where"] == ["married=false"] and header["model"] == "lexsym:oracle"
    assert header["tasks"]["selected"] == json.loads((first / "run.json").read_text())["tasks"]["selected"]
    flagged = lexsym("run", "--config", str(copy), "--out", str(tmp_path / "third"), "--limit", "1", "--json")
    assert flagged.returncode == 0, flagged.stderr
    assert json.loads(flagged.stdout)["tasks"]["selected"] == 1 and (tmp_path / "third" / "run.json").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("concurrency: many\n", "concurrency: Invalid value for '--concurrency'"),
        ("bogus: 1\n", "bogus: not an option of this command"),
        ("model: [\n", "not a YAML config file at line 2"),
        ("- a\n", "a config file is a mapping"),
        ("model_options: 3\n", "model_options: must be a mapping"),
    ],
)
def test_a_bad_config_file_is_one_line_naming_it(tmp_path, task_dir, text, message):
    path = tmp_path / "run.yaml"
    path.write_text(text)
    done = lexsym(
        "run", "--config", str(path), "--model", "lexsym:oracle", "--tasks", str(task_dir), "--out", "x"
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"lexsym: error: {path}: ") and message in done.stderr


def test_the_judge_section_of_a_config_file(tmp_path):
    from lexsym.cli.config_file import read_config

    path = tmp_path / "run.yaml"
    path.write_text("model: m\njudge:\n  judge: [a, b]\n  judge-api-base: {b: 'http://h/v1'}\n")
    assert read_config(path, "judge") == {"judge": ["a", "b"], "judge_api_base": {"b": "http://h/v1"}}
    assert read_config(path)["model"] == "m"
