"""`lexsym import openexempt`, the gold-diff report, and `lexsym score` on OpenExempt's own files.

The checkout is invented in OpenExempt's shapes (tests/openexempt_fixtures.py); its published solutions
are wrong in the three ways OpenExempt's gold goes wrong, and the report must name each cause.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lexsym.cli import app
from lexsym.generate.openexempt_import import import_openexempt
from lexsym.interop.openexempt_dataset import read_datasets, solution_text
from tests.openexempt_fixtures import write_checkout

runner = CliRunner()


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """`lexsym ARGS` in this process, through the entry point that turns errors into one line and a code."""
    import sys

    from lexsym.cli import main

    saved, sys.argv = sys.argv, ["lexsym", *args]
    try:
        main()
        code = 0
    except SystemExit as exit:
        code = int(exit.code or 0)
    finally:
        sys.argv = saved
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_checkout(tmp_path_factory.mktemp("openexempt"))


@pytest.fixture(scope="module")
def imported(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("imported")
    return out, import_openexempt(checkout, out, workers=1)


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _changes(out: Path, table: str) -> dict[str, tuple[str, str]]:
    report = json.loads((out / table / "gold_diff.json").read_text())
    return {c["uid"]: (c["task"], c["cause"]) for c in report["changes"]}


def test_both_tables_are_written_when_openexempt_statutes_are_found(imported) -> None:
    out, summary = imported
    assert sorted(summary["tables"]) == ["lexsym", "openexempt"]
    for table in ("lexsym", "openexempt"):
        folder = out / table / "basic_competency"
        assert len(_records(folder / "tasks.jsonl")) == 9
        assert json.loads((folder / "manifest.json").read_text())["import"]["table"] == table
        assert (out / table / "gold_diff.md").read_text().startswith("# Gold differences")
    assert (out / "openexempt" / "basic_competency" / "table.json").is_file()
    assert not (out / "lexsym" / "basic_competency" / "table.json").exists()


def test_each_wrong_published_gold_is_found_with_its_cause(imported) -> None:
    out, _ = imported
    assert _changes(out, "openexempt") == {
        "bc_allowable_exemptions_1_test_task_1": ("AE", "fewest_days_180"),
        "bc_exemption_valuation_1_test_task_0": ("EV", "ev_one_item_claim"),
        "bc_nonexempt_assets_1_test_task_1": ("NA", "bnb_suboptimal"),
    }


def test_the_regolded_answers_are_the_statute_s(imported) -> None:
    out, _ = imported
    gold = {r["id"]: r["gold"] for r in _records(out / "openexempt" / "basic_competency" / "tasks.jsonl")}
    # Arizona has the longer portion of the 180 days, and has opted out: Arizona alone.
    assert gold["bc_allowable_exemptions_1_test_task_1"] == ["Arizona"]
    ev = {
        c["citation"]: c["claim_value"]
        for c in gold["bc_exemption_valuation_1_test_task_0"]["grey hatchback"]
    }
    assert ev["11 U.S.C. § 522(d)(2)"] == 1000  # both spouses' item claims on the one car
    assert gold["bc_nonexempt_assets_1_test_task_1"] == {"Wisconsin": 1100, "Federal": 1000}


def test_prompts_are_openexempt_s_with_the_statutes_the_gold_rests_on(imported) -> None:
    out, _ = imported
    theirs = _records(out / "openexempt" / "basic_competency" / "tasks.jsonl")[0]["prompt"]
    ours = _records(out / "lexsym" / "basic_competency" / "tasks.jsonl")[0]["prompt"]
    assert theirs["system"] == "" and theirs["user"].startswith("Instruction for task 1 (invented).")
    assert "OpenExempt-style statute text (invented)." in theirs["user"]
    assert "OpenExempt-style statute text (invented)." not in ours["user"]
    assert "11 U.S.C. § 522(d)(2)" in ours["user"] and ours["user"].endswith(
        "Remember the format (invented)."
    )


def test_oe_answers_of_an_import_are_checked_under_its_table(imported, tmp_path: Path) -> None:
    out, _ = imported
    tasks = out / "openexempt" / "basic_competency" / "tasks.jsonl"
    claim = {"grey hatchback": [{"citation": "11 U.S.C. § 522(d)(2)", "claim_value": 800}]}
    predictions = tmp_path / "p.jsonl"
    predictions.write_text(
        json.dumps(
            {"id": "bc_optimal_exemptions_1_test_task_0", "output": "FINAL ANSWER: " + json.dumps(claim)}
        )
    )
    result = runner.invoke(app, ["score", str(tasks), str(predictions), "--json"])
    assert result.exit_code == 0, result.output
    sample = next(s for s in json.loads(result.output)["samples"] if s["predicted"])
    # $800 is within lexsym's (d)(2) but over the table's $500: invalid only because the table is used.
    assert sample["scores"]["valid"] == 0.0 and "exceeds_single_claim" in sample["violations"]


def test_oracle_answers_score_perfectly_on_an_import(imported, tmp_path: Path) -> None:
    out, _ = imported
    tasks = out / "openexempt" / "basic_competency" / "tasks.jsonl"
    predictions = tmp_path / "oracle.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"id": r["id"], "answer": r["gold"]["schedule"] if r["task"] == "OE" else r["gold"]})
            + "\n"
            for r in _records(tasks)
        )
    )
    result = runner.invoke(app, ["score", str(tasks), str(predictions), "--json"])
    assert result.exit_code == 0, result.output
    by_task = {row["task"]: row for row in json.loads(result.output)["by_task"]}
    assert {task: row["metrics"]["f1"]["mean"] for task, row in by_task.items()} == {
        "AE": 1.0,
        "EV": 1.0,
        "NA": 1.0,
        "OE": 1.0,
    }


def _responses(checkout: Path, root: Path, answer) -> Path:
    """OpenExempt-style response files: <model>/<dataset_id>/predictions.jsonl, test split only."""
    for dataset in read_datasets(checkout):
        folder = root / "some-model" / dataset.dataset_id
        folder.mkdir(parents=True)
        lines = [
            json.dumps({"uid": t.uid, "prediction": "Let me think.\nFINAL ANSWER: " + answer(t)})
            for t in dataset.tasks
            if t.split == "test"
        ]
        (folder / "predictions.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_openexempt_response_files_are_rescored_against_corrected_gold(
    checkout: Path, tmp_path: Path
) -> None:
    responses = _responses(checkout, tmp_path, lambda task: solution_text(task.solution))
    result = runner.invoke(app, ["score", str(checkout), str(responses), "--json", "--workers", "1"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["tasks"] == 8 and report["missing"] == [] and report["unknown"] == []  # test split only
    f1 = {s["id"]: s["scores"]["f1"] for s in report["samples"]}
    wrong = {
        "bc_allowable_exemptions_1_test_task_1",
        "bc_exemption_valuation_1_test_task_0",
        "bc_nonexempt_assets_1_test_task_1",
    }
    assert {uid for uid, value in f1.items() if value < 1.0} == wrong
    assert f1["bc_allowable_exemptions_1_test_task_1"] == 0.0  # {Wisconsin, Federal} against {Arizona}


def test_scoring_under_openexempt_parameters_needs_its_statutes(
    checkout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lonely = tmp_path / "copy"
    dataset = checkout / "basic_competency" / "bc_nonexempt_assets_1"
    (lonely / dataset.name).mkdir(parents=True)
    for file in dataset.iterdir():
        (lonely / dataset.name / file.name).write_bytes(file.read_bytes())
    responses = _responses(lonely, tmp_path / "r", lambda task: "{}")
    code, output = _main(capsys, "score", str(lonely), str(responses))
    assert code == 2
    assert (
        output.startswith("lexsym: error: ") and "pass --statutes DIR" in output and output.count("\n") == 1
    )
    result = runner.invoke(app, ["score", str(lonely), str(responses), "--table", "lexsym", "--json"])
    assert result.exit_code == 0, result.output


def test_import_of_a_folder_without_openexempt_files_is_a_clean_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, output = _main(capsys, "import", "openexempt", str(tmp_path), "--out", str(tmp_path / "o"))
    assert code == 2 and "no OpenExempt dataset folders" in output and output.count("\n") == 1


def test_the_cli_prints_the_table_of_changes(checkout: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "import",
            "openexempt",
            str(checkout),
            "--out",
            str(tmp_path),
            "--table",
            "openexempt",
            "--workers",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "AE: 1 of 3 (fewest_days_180 1)" in result.output
    assert "NA: 1 of 2 (bnb_suboptimal 1)" in result.output


def test_solve_reads_a_native_case_and_openexempt_statutes(checkout: Path, tmp_path: Path) -> None:
    record = json.loads(
        (checkout / "basic_competency" / "bc_nonexempt_assets_1" / "cases.jsonl").read_text().splitlines()[0]
    )
    case = tmp_path / "case.json"
    case.write_text(json.dumps(record))
    statutes = checkout.parent / "data" / "statutes"
    result = runner.invoke(app, ["solve", str(case), "--table", str(statutes), "--json"])
    assert result.exit_code == 0, result.output
    solution = json.loads(result.output)
    assert {r["jurisdiction"]: r["non_exempt_total"] for r in solution["jurisdictions"]} == {
        "WI": 1100,
        "US": 1000,
    }
    result = runner.invoke(app, ["solve", str(case), "--table", str(statutes / "federal.json"), "--json"])
    assert result.exit_code == 0, result.output


def test_one_dataset_s_task_file_and_response_file_are_scored(checkout: Path, tmp_path: Path) -> None:
    """`lexsym score …/test.jsonl …/predictions.jsonl`, as an OpenExempt user would type it."""
    responses = _responses(checkout, tmp_path, lambda task: solution_text(task.solution))
    dataset = "bc_nonexempt_assets_1"
    tasks = checkout / "basic_competency" / dataset / "test.jsonl"
    predictions = responses / "some-model" / dataset / "predictions.jsonl"
    result = runner.invoke(app, ["score", str(tasks), str(predictions), "--json", "--workers", "1"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["tasks"] == 2 and report["tasks_path"] == str(tasks)
    assert {s["id"]: s["scores"]["f1"] for s in report["samples"]} == {
        f"{dataset}_test_task_0": 1.0,
        f"{dataset}_test_task_1": 0.5,  # Wisconsin right, Federal 1,200 where the optimum is 1,000
    }
