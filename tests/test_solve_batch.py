"""`lexsym solve --batch` and `lexsym.solve_many`: input order, per-case errors, resume and worker counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import lexsym
from lexsym.law.batch import solve_file
from tests.openexempt_fixtures import case as native_case


@pytest.fixture(scope="module")
def cases_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    example = (
        json.loads(Path("data/examples/case.json").read_text())
        if Path("data/examples/case.json").exists()
        else None
    )
    path = tmp_path_factory.mktemp("batch") / "cases.jsonl"
    lines = [json.dumps(native_case(state="WISCONSIN")), "not json", json.dumps({"id": "no-dates"})]
    lines.append(json.dumps(native_case(married=True, state="WISCONSIN")))
    lines.append(json.dumps(example))
    path.write_text("\n".join(lines) + "\n")
    return path


def _parse(record, source):
    from lexsym.interop.input_files import parse_any_case

    return parse_any_case(record, source, default_id=f"line-{source.rsplit(':', 1)[-1]}")


def test_every_line_gets_an_outcome_in_order_and_bad_lines_are_errors(
    cases_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "solutions.jsonl"
    counts = solve_file(cases_file, out, parse=_parse, workers=1)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["line"] for row in rows] == list(range(1, len(rows) + 1))
    assert "invalid JSON" in rows[1]["error"] and rows[1]["id"] is None
    assert "petition_date" in rows[2]["error"]
    assert rows[0]["solution"]["filing"] == "single" and rows[3]["solution"]["filing"] == "joint"
    assert counts == {"solved": len(rows) - 2, "failed": 2, "resumed": 0}


def test_workers_and_resume_give_the_same_bytes(cases_file: Path, tmp_path: Path) -> None:
    one, two, resumed = tmp_path / "one.jsonl", tmp_path / "two.jsonl", tmp_path / "resumed.jsonl"
    solve_file(cases_file, one, parse=_parse, workers=1)
    solve_file(cases_file, two, parse=_parse, workers=2)
    assert one.read_bytes() == two.read_bytes()
    lines = one.read_bytes().split(b"\n")
    resumed.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][:40])  # killed mid-line
    counts = solve_file(cases_file, resumed, parse=_parse, workers=1)
    assert counts["resumed"] == 2 and resumed.read_bytes() == one.read_bytes()


def test_solve_many_keeps_going_past_a_failing_case() -> None:
    from lexsym.interop.openexempt_native import case_from_native

    good = case_from_native(native_case(state="WISCONSIN"), case_id="good", source="s", readings={})
    outcomes = list(lexsym.solve_many([good, "a case that could not be read", good]))
    assert [o.ok for o in outcomes] == [True, False, True]
    assert outcomes[1].error == "a case that could not be read" and outcomes[2].index == 2
