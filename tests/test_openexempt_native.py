"""OpenExempt's native files read as they are: case records, dataset folders, suites, statute files.

The inputs are invented in OpenExempt's shapes (tests/openexempt_fixtures.py), never copied from its data.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.interop.input_files import load_any_case, load_any_table
from lexsym.interop.openexempt_dataset import (
    find_datasets,
    looks_like_openexempt,
    read_dataset,
    read_datasets,
)
from lexsym.interop.openexempt_native import case_from_native, domicile_history
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import Filing
from tests.openexempt_fixtures import LONGER_IN_ARIZONA, case, write_checkout


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_checkout(tmp_path_factory.mktemp("openexempt"))


def test_a_native_record_becomes_a_case_with_its_moves_as_periods() -> None:
    record = case(married=True, domicile=LONGER_IN_ARIZONA, state="WISCONSIN")
    converted = case_from_native(record, case_id="c1", source="cases.jsonl:1")
    assert converted.filing is Filing.JOINT
    assert converted.debtors == ["Ada Quill", "Ben Quill"]
    assert converted.petition_date == dt.date(2024, 6, 6)
    assert [(p.state, p.start, p.end) for p in converted.domicile] == [
        ("WI", dt.date(2020, 1, 1), dt.date(2022, 3, 1)),
        ("AZ", dt.date(2022, 3, 1), dt.date(2023, 6, 1)),
        ("WI", dt.date(2023, 6, 1), dt.date(2024, 6, 6)),
    ]
    assert [(a.id, a.description, a.value) for a in converted.assets] == [("a1", "grey hatchback", 1500)]


def test_moves_are_sorted_by_date_whatever_the_order_of_the_object() -> None:
    shuffled = dict(reversed(list(LONGER_IN_ARIZONA.items())))
    periods = domicile_history(shuffled, dt.date(2024, 6, 6), "domicile_dates")
    assert [p["state"] for p in periods] == ["WISCONSIN", "ARIZONA", "WISCONSIN"]


def test_a_null_joint_debtor_is_a_single_filing_but_a_missing_one_is_an_error() -> None:
    assert case_from_native(case(state="WISCONSIN"), case_id="c", source="s").filing is Filing.SINGLE
    record = case(state="WISCONSIN")
    del record["joint_debtor"]
    with pytest.raises(InputError, match=r"cases.jsonl:4: missing joint_debtor"):
        case_from_native(record, case_id="c", source="cases.jsonl:4")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"petition_date": "June 6"}, r"petition_date: 'June 6' is not an ISO date"),
        ({"domicile_dates": {}}, r"domicile_dates: expected a non-empty object"),
        ({"domicile_dates": {"2025-01-01T00:00:00": "WISCONSIN"}}, r"a move after the petition date"),
        (
            {"domicile_dates": {"2020-01-01T00:00:00": "ATLANTIS"}},
            r"unknown OpenExempt jurisdiction 'ATLANTIS'",
        ),
        ({"debtor": {"first_name": "Ada"}}, r"debtor.last_name: expected a non-empty string"),
        ({"assets": [{"description": "car", "dollar_value": -5}]}, r"assets\[0\].dollar_value"),
        ({"assets": [{"description": "car", "dollar_value": 10.5}]}, r"not a whole number"),
    ],
)
def test_a_bad_field_is_named(change: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        case_from_native({**case(state="WISCONSIN"), **change}, case_id="c", source="cases.jsonl:2")


def test_two_assets_with_one_description_are_refused() -> None:
    record = case(state="WISCONSIN")
    record["assets"] = record["assets"] * 2
    with pytest.raises(InputError, match="share a description"):
        case_from_native(record, case_id="c", source="s")


def test_datasets_are_found_from_a_tree_a_suite_a_folder_or_a_task_file(checkout: Path) -> None:
    suite = checkout / "basic_competency"
    assert len(find_datasets(checkout)) == 4
    assert find_datasets(suite) == find_datasets(checkout)
    one = suite / "bc_nonexempt_assets_1"
    assert find_datasets(one) == [one] == find_datasets(one / "test.jsonl")
    assert looks_like_openexempt(one / "test.jsonl") and looks_like_openexempt(checkout)
    with pytest.raises(InputError, match="no OpenExempt dataset folders"):
        find_datasets(checkout.parent / "data")


def test_a_dataset_pairs_tasks_with_cases_and_joins_the_prompt_as_openexempt_does(checkout: Path) -> None:
    dataset = read_dataset(checkout / "basic_competency" / "bc_allowable_exemptions_1")
    assert dataset.dataset_id == "bc_allowable_exemptions_1" and dataset.suite == "basic_competency"
    assert [(t.uid, t.split, t.task) for t in dataset.tasks] == [
        ("bc_allowable_exemptions_1_test_task_0", "test", Task.AE),
        ("bc_allowable_exemptions_1_test_task_1", "test", Task.AE),
        ("bc_allowable_exemptions_1_dev_task_0", "dev", Task.AE),
    ]
    first = dataset.tasks[0]
    # Empty parts (solved_steps) are left out; the others are joined by one blank line, in OpenExempt's order.
    assert first.prompt().split("\n\n")[0] == "Instruction for task 1 (invented)."
    assert first.prompt().endswith("Remember the format (invented).")
    assert "\n\n\n" not in first.prompt()
    assert sum(len(d.tasks) for d in read_datasets(checkout)) == 9


def test_a_dataset_with_fewer_cases_than_tasks_is_refused(tmp_path: Path) -> None:
    tasks = write_checkout(tmp_path)
    folder = tasks / "basic_competency" / "bc_nonexempt_assets_1"
    lines = (folder / "cases.jsonl").read_text().splitlines()
    (folder / "cases.jsonl").write_text(lines[0] + "\n")
    with pytest.raises(InputError, match=r"cases.jsonl: 1 cases for the 2 tasks of test.jsonl"):
        read_dataset(folder)


def test_a_shared_file_without_its_keys_is_refused(tmp_path: Path) -> None:
    tasks = write_checkout(tmp_path)
    folder = tasks / "basic_competency" / "bc_nonexempt_assets_1"
    (folder / "shared.json").write_text(json.dumps({"start_task_id": 1}))
    with pytest.raises(InputError, match=r"shared.json: missing terminal_task_id"):
        read_dataset(folder)


def test_case_and_table_files_in_openexempt_shapes_load(checkout: Path, tmp_path: Path) -> None:
    record = case(state="WISCONSIN")
    path = tmp_path / "native.json"
    path.write_text(json.dumps(record))
    assert load_any_case(path).id == "native"
    statutes = checkout.parent / "data" / "statutes"
    assert {e.jurisdiction for e in load_any_table(statutes).exemptions} == {"US", "AZ", "WI"}
    assert {e.jurisdiction for e in load_any_table(statutes / "federal.json").exemptions} == {"US"}
    with pytest.raises(InputError, match=r"neither a what-if table .* nor an OpenExempt statute file"):
        load_any_table(path)
    with pytest.raises(InputError, match="a directory without OpenExempt statute files"):
        load_any_table(checkout)
