"""The results table over run directories: every column present and typed, rows joined right across
samples.jsonl, scores.json, the task file and judged.json, and the exports."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.analysis import describe, export_table, load_runs, load_table
from lexsym.analysis.columns import BASE_COLUMNS, BASE_NAMES
from lexsym.runner import RunOptions, run_tasks
from tests.task_sets import generate_task_set

PYTHON_TYPES = {"string": str, "int": int, "float": float, "bool": bool}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> list[Path]:
    root = tmp_path_factory.mktemp("analysis")
    tasks = generate_task_set(root / "tasks", {"task": ["AE", "NA", "OE"]})
    made = []
    for model in ("lexsym:baseline", "lexsym:oracle"):
        out = root / model.split(":")[1]
        run_tasks(model, tasks, out, options=RunOptions(progress=False, repeats=2, score_workers=1))
        made.append(out)
    return made


def test_every_column_is_present_and_typed(runs):
    table = load_table(runs)
    assert table.columns[: len(BASE_NAMES)] == list(BASE_NAMES)
    for name in ("asset_count", "domicile_count", "married", "obfuscation.asset_opinions", "rule_path"):
        assert name in table.types, name
    assert table.types["asset_count"] == "int" and table.types["married"] == "bool"
    assert table.types["states_in_prompt"] == "string"  # a list, joined
    for row in table.rows:
        assert set(row) == set(table.types)
        for name, kind in table.types.items():
            value = row[name]
            assert value is None or type(value) is PYTHON_TYPES[kind], (name, value)
    frame = load_runs(runs)
    assert list(frame.columns) == table.columns and len(frame) == len(table.rows)
    expected = {"int": "Int64", "float": "float64", "bool": "boolean", "string": "string"}
    assert {name: str(frame[name].dtype) for name in frame.columns} == {
        name: expected[kind] for name, kind in table.types.items()
    }


def test_rows_join_the_run_files_by_sample(runs):
    table = load_table(runs)
    rows = table.rows
    assert len(rows) == 2 * 2 * 12  # two runs, two repeats, four cases x three tasks
    assert {row["model"] for row in rows} == {"lexsym:baseline", "lexsym:oracle"}
    assert {row["repeat"] for row in rows} == {0, 1}
    oracle = [row for row in rows if row["model"] == "lexsym:oracle"]
    assert all(row["f1"] == 1.0 and row["parsed"] and row["format"] == 1.0 for row in oracle)
    assert all(row["optimal"] == 1.0 and row["n_violations"] == 0 for row in oracle if row["task"] == "OE")
    baseline = [row for row in rows if row["model"] == "lexsym:baseline" and row["task"] == "OE"]
    scores = json.loads((runs[0] / "scores.json").read_text())
    by_id = {sample["id"]: sample for sample in scores["samples"]}
    for row in (r for r in baseline if r["repeat"] == 0):
        assert row["violations"] == ";".join(by_id[row["task_id"]]["violations"])
        assert row["f1"] == by_id[row["task_id"]]["scores"]["f1"]
    records = {
        json.loads(line)["id"]: json.loads(line)
        for line in (runs[0].parent / "tasks" / "tasks.jsonl").read_text().splitlines()
    }
    for row in rows:
        record = records[row["task_id"]]
        assert row["asset_count"] == record["metadata"]["asset_count"]
        assert row["prompt_chars"] == len(record["prompt"].get("system") or "") + len(
            record["prompt"]["user"]
        )
    assert len({row["params_digest"] for row in rows}) == 1  # both at the default settings


def test_exports_keep_every_row_and_type(runs, tmp_path):
    table = load_table(runs)
    export_table(table, tmp_path / "t.jsonl")
    lines = (tmp_path / "t.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == table.rows
    export_table(table, tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="") as stream:
        read = list(csv.reader(stream))
    assert read[0] == table.columns and len(read) == len(table.rows) + 1
    married = read[0].index("married")
    assert {line[married] for line in read[1:]} <= {"true", "false", ""}
    import pandas as pd

    export_table(table, tmp_path / "t.parquet")
    back = pd.read_parquet(tmp_path / "t.parquet")
    assert list(back.columns) == table.columns and len(back) == len(table.rows)
    assert str(back["asset_count"].dtype) == "Int64" and str(back["married"].dtype) == "boolean"
    with pytest.raises(InputError, match="unknown export format 'xlsx'"):
        export_table(table, tmp_path / "t.xlsx")
    assert not list(tmp_path.glob(".t.*"))  # no temporary left behind


def test_bad_run_directories_are_one_line_errors(tmp_path, runs):
    with pytest.raises(InputError, match="not a run directory"):
        load_table([tmp_path])
    moved = tmp_path / "moved"
    moved.mkdir()
    header = json.loads((runs[0] / "run.json").read_text())
    header["tasks"]["path"] = str(tmp_path / "gone")
    (moved / "run.json").write_text(json.dumps(header))
    (moved / "samples.jsonl").write_text("")
    with pytest.raises(InputError, match=r"task file .* is not there"):
        load_table([moved])


def test_the_columns_are_documented(runs):
    table = load_table(runs)
    described = describe(table.types)
    assert [entry["name"] for entry in described] == table.columns
    assert all(entry["description"] for entry in described)
    assert {entry["name"] for entry in described if entry["description"].startswith("A field of")} == set(
        table.columns[len(BASE_COLUMNS) :]
    )


def lexsym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, env=os.environ, timeout=300
    )


def test_the_export_and_schema_commands(runs, tmp_path):
    done = lexsym("export", *map(str, runs), "--out", str(tmp_path / "all.csv"))
    assert done.returncode == 0, done.stderr
    assert "lexsym export: 48 rows x" in done.stderr and (tmp_path / "all.csv").stat().st_size > 0
    schema = json.loads(lexsym("schema", "sample").stdout)
    assert set(schema["properties"]) == set(BASE_NAMES)
    assert schema["properties"]["f1"]["type"] == ["number", "null"]
    run_schema = json.loads(lexsym("schema", "run").stdout)
    assert "params_dropped" in run_schema["properties"] and "failed" in run_schema["properties"]
    bad = lexsym("export", str(tmp_path), "--out", str(tmp_path / "x.csv"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not a run directory" in bad.stderr
