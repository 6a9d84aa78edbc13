"""`--by FIELD[,FIELD]` for `lexsym score` and `lexsym report`: slices by any task field, aggregated by the
per-task code (so a one-valued field has exactly the per-task SEs), and the report's warnings and names.

The task set: four cases each of two, three and ten assets, as AE, as NA with AE solved (EC-NA) and as OE
with every earlier step solved, answered by lexsym:baseline.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from lexsym._util.errors import InputError
from lexsym.reports.compare import comparison, render_comparison
from lexsym.runner.run import run_tasks
from lexsym.runner.run_options import RunOptions
from lexsym.scoring import ScoreReport, render_report, score
from lexsym.scoring.slices import (
    SlicedScoreReport,
    available_fields,
    field_value,
    label,
    records_by_id,
    sliced_report,
)
from tests.task_sets import generate_task_set

LONG_MODEL = "litellm:openrouter/meta-llama/llama-3.3-70b-instruct:free"


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory) -> Path:
    vary = {"variant": ["AE", "EC-NA", "OE"], "asset_count": [2, 3, 10]}
    return generate_task_set(tmp_path_factory.mktemp("sliced"), vary)


@pytest.fixture(scope="module")
def records(task_dir) -> dict[str, dict[str, Any]]:
    lines = (task_dir / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    return records_by_id(json.loads(line) for line in lines)


@pytest.fixture(scope="module")
def run_dir(task_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "baseline"
    options = RunOptions(cache=False, progress=False, score_workers=1, seed=0)
    result = run_tasks("lexsym:baseline", task_dir, out, options=options)
    assert result.header.status == "complete" and (out / "scores.json").is_file()
    return out


@pytest.fixture(scope="module")
def report(run_dir) -> ScoreReport:
    return ScoreReport.model_validate_json((run_dir / "scores.json").read_text(encoding="utf-8"))


def lexsym(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, timeout=300, env=env
    )


def by_task(report: ScoreReport) -> dict[str, Any]:
    return {g.task: g for g in report.by_task}


def test_every_field_of_the_task_set_slices_each_task_into_its_values(report, records):
    fields = available_fields(records.values())
    assert {"asset_count", "obfuscation.asset_opinions", "context.setting", "solved_steps"} <= set(fields)
    assert {"states_in_prompt", "task", "variant", "suite", "dataset", "split"} <= set(fields)
    assert not {"id", "prompt", "gold", "case", "metadata", "reference"} & set(fields)
    tasks = by_task(report)
    for name in fields:
        sliced = sliced_report(report, records, (name,), "the set")
        expected = Counter((r["task"], field_value(r, name)) for r in records.values())
        found = {(g.task, g.values[name]): g.n for g in sliced.by_fields.groups}
        assert found == dict(expected), name
        for task, whole in tasks.items():
            parts = [g for g in sliced.by_fields.groups if g.task == task]
            assert sum(g.n for g in parts) == whole.n
            for metric in ("format", "f1"):  # a mean over slices, weighted by n, is the task's mean
                mean = sum(g.n * g.metrics[metric].mean for g in parts) / whole.n
                assert mean == pytest.approx(whole.metrics[metric].mean), (name, task, metric)


def test_values_are_the_exports_lists_joined_and_solved_steps_named(records):
    values = {name: {field_value(r, name) for r in records.values()} for name in ("states_in_prompt",)}
    assert values["states_in_prompt"] == {"WI,IL"}
    solved = {r["variant"]: field_value(r, "solved_steps") for r in records.values()}
    assert solved == {"AE": "", "EC-NA": "AE", "OE": "AE,EC,EV,NA"}
    assert label("") == "(none)" and label(None) == "–" and label(False) == "false" and label(10) == "10"


def test_a_field_with_one_value_has_the_per_task_means_and_ses(task_dir, run_dir, report, records):
    assert {field_value(r, "obfuscation.asset_opinions") for r in records.values()} == {False}
    direct = score(
        task_dir / "tasks.jsonl", run_dir / "predictions.jsonl", workers=1, by=("obfuscation.asset_opinions",)
    )
    from_file = sliced_report(report, records, ("obfuscation.asset_opinions",), "the set")
    for sliced in (direct, from_file):
        assert isinstance(sliced, SlicedScoreReport)
        groups = sliced.by_fields.groups
        assert [g.task for g in groups] == [g.task for g in report.by_task] == ["AE", "NA", "OE"]
        for group, whole in zip(groups, report.by_task, strict=True):
            assert group.values == {"obfuscation.asset_opinions": False}
            assert group.n == whole.n and group.violations == whole.violations
            assert group.metrics == whole.metrics  # every mean, SE, n and median
            assert group.metrics["f1"].se is not None and group.metrics["f1"].se > 0
    # the plain report is left as it was, to the byte: by_fields comes after every field of it
    plain = score(task_dir / "tasks.jsonl", run_dir / "predictions.jsonl", workers=1)
    assert type(plain) is ScoreReport
    assert direct.model_dump_json(indent=2, exclude={"by_fields"}) == plain.model_dump_json(indent=2)
    assert list(json.loads(direct.model_dump_json()))[-1] == "by_fields"


def test_two_fields_give_their_cross_product_and_numbers_sort_by_value(report, records):
    sliced = sliced_report(report, records, ("asset_count", "married"), "the set")
    expected = Counter(
        (r["task"], r["metadata"]["asset_count"], r["metadata"]["married"]) for r in records.values()
    )
    found = [(g.task, g.values["asset_count"], g.values["married"], g.n) for g in sliced.by_fields.groups]
    assert {(t, a, m): n for t, a, m, n in found} == dict(expected)
    assert sliced.by_fields.groups[0].values == {"asset_count": 2, "married": False}
    for task in ("AE", "NA", "OE"):
        counts = [a for t, a, _, _ in found if t == task]
        assert counts == sorted(counts) and counts[-1] == 10  # 2, 3, 10: not "10" before "2"
    console = Console(record=True, width=150)
    render_report(sliced, console, by="asset_count,married")
    text = console.export_text()
    ae_rows = [line.split()[:3] for line in text.splitlines() if line.split()[2:3] == ["AE"]]
    assert [row[0] for row in ae_rows] == sorted((row[0] for row in ae_rows), key=int)
    assert ae_rows[0][:2] == ["2", "false"] and "asset_count" in text and "married" in text


def test_a_missing_value_is_its_own_group_shown_as_a_dash_and_last(report, records):
    changed = {key: json.loads(json.dumps(r)) for key, r in records.items()}
    dropped = [r for r in changed.values() if r["task"] == "AE"][:3]
    for record in dropped:
        del record["metadata"]["domicile_count"]
    sliced = sliced_report(report, changed, ("domicile_count",), "the set")
    ae = [g for g in sliced.by_fields.groups if g.task == "AE"]
    assert ae[-1].values == {"domicile_count": None} and ae[-1].n == 3
    assert all(isinstance(g.values["domicile_count"], int) for g in ae[:-1])
    console = Console(record=True, width=150)
    render_report(sliced, console, by="domicile_count")
    assert any(line.split()[:2] == ["–", "AE"] for line in console.export_text().splitlines())


def test_an_unknown_field_is_a_one_line_error_listing_the_fields(task_dir, run_dir, report, records):
    with pytest.raises(InputError, match=r"--by 'nope'.*asset_count, case_id"):
        sliced_report(report, records, ("nope",), "the set")
    for args in (
        (
            "score",
            str(task_dir / "tasks.jsonl"),
            str(run_dir / "predictions.jsonl"),
            "--by",
            "asset_count,nope",
        ),
        ("score", str(run_dir), "--by", "nope"),
        ("report", str(run_dir), "--by", "nope"),
        ("score", str(run_dir), "--by", "asset_count,"),
    ):
        done = lexsym(*args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("lexsym: error: --by"), done
        if "nope" in args[-1]:
            assert (
                "'nope'" in lines[0]
                and "obfuscation.asset_opinions" in lines[0]
                and "solved_steps" in lines[0]
            )


def test_the_score_command_slices_a_file_and_a_run_directory(task_dir, run_dir, report):
    done = lexsym(
        "score",
        str(task_dir / "tasks.jsonl"),
        str(run_dir / "predictions.jsonl"),
        "--by",
        "asset_count",
        "--json",
        "--workers",
        "1",
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["by_task"] == json.loads(report.model_dump_json())["by_task"]
    assert payload["by_fields"]["fields"] == ["asset_count"]
    assert [g["values"]["asset_count"] for g in payload["by_fields"]["groups"] if g["task"] == "OE"] == [
        2,
        3,
        10,
    ]
    of_run = json.loads(lexsym("score", str(run_dir), "--by", "asset_count", "--json").stdout)
    assert of_run["scores"]["by_fields"] == payload["by_fields"]
    table = lexsym("score", str(run_dir), "--by", "solved_steps")
    assert table.returncode == 0, table.stderr
    assert "solved_steps" in table.stdout and "AE,EC,EV,NA" in table.stdout and "(none)" in table.stdout


def copy_run(run_dir: Path, to: Path, **changes: Any) -> Path:
    """A copy of the run directory with run.json changed (keys with dots reach into objects)."""
    shutil.copytree(run_dir, to)
    header = json.loads((to / "run.json").read_text(encoding="utf-8"))
    for key, value in changes.items():
        *parents, last = key.split(".")
        target = header
        for parent in parents:
            target = target[parent]
        target[last] = value
    (to / "run.json").write_text(json.dumps(header), encoding="utf-8")
    return to


def test_report_warns_about_other_task_sets_and_unfinished_runs(run_dir, tmp_path):
    stopped = copy_run(run_dir, tmp_path / "stopped", status="stopped", stop_reason="time budget")
    other = copy_run(run_dir, tmp_path / "other", **{"tasks.tasks_sha256": "0" * 64})
    assert comparison([run_dir, run_dir])["warnings"] == []
    table = comparison([run_dir, stopped])
    assert len(table["warnings"]) == 1 and "unfinished run (stopped: time budget)" in table["warnings"][0]
    console = Console(record=True, width=200)
    render_comparison(table, console)
    assert "(stopped: time budget)" in console.export_text()
    table = comparison([run_dir, other])
    assert len(table["warnings"]) == 1 and "different task sets" in table["warnings"][0]
    done = lexsym("report", str(run_dir), str(stopped), str(other), "--json")
    assert done.returncode == 0, done.stderr
    warned = [line for line in done.stderr.splitlines() if line.startswith("lexsym report: warning: ")]
    assert len(warned) == 2 == len(json.loads(done.stdout)["warnings"])
    selected = copy_run(run_dir, tmp_path / "selected", where=["asset_count=2"])
    assert "different tasks of one task set" in comparison([run_dir, selected])["warnings"][0]


def test_report_by_a_field_compares_each_slice(run_dir, report, tmp_path):
    table = comparison([run_dir], by=("obfuscation.asset_opinions",))
    rows = table["by_fields"]["rows"]
    tasks = by_task(report)
    for row in rows:  # one value: the per-task figures, SEs included
        summary = tasks[row["task"]].metrics[row["metric"]]
        assert row["values"] == {"obfuscation.asset_opinions": False}
        assert row["cells"][0][1] == summary.se and row["n"] == [tasks[row["task"]].n]
    assert {(r["task"], r["label"]) for r in rows} >= {("AE", "AE F1"), ("OE", "OE optimal%")}
    stopped = copy_run(run_dir, tmp_path / "stopped", status="stopped", stop_reason="time budget")
    table = comparison([run_dir, stopped], by=("asset_count", "married"))
    values = [r["values"]["asset_count"] for r in table["by_fields"]["rows"] if r["label"] == "NA F1"]
    assert values == [2, 2, 3, 3, 10, 10]  # each count married or not, in the order of the numbers
    console = Console(record=True, width=160)
    render_comparison(table, console)
    text = console.export_text()
    assert "per asset_count × married" in text and "NA F1" in text and "(stopped: time budget)" in text
    markdown = Console(record=True, width=160)
    render_comparison(table, markdown, markdown=True)
    assert markdown.export_text().startswith("| asset_count | married | n | |")


@pytest.mark.parametrize("by", [(), ("asset_count",)])
def test_a_long_model_name_is_never_cut_short(run_dir, tmp_path, by):
    long = copy_run(run_dir, tmp_path / "long", model=LONG_MODEL)
    console = Console(record=True, width=100)
    render_comparison(comparison([long], by=by), console)
    assert LONG_MODEL in console.export_text()
