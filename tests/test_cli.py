"""The command line: readable output, JSON output, schemas, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym.law.solution import Solution

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "examples" / "case.json"


def lexsym(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("lexsym: error: ")
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


def test_solve_prints_tables_for_people():
    result = lexsym("solve", str(EXAMPLE))
    assert result.returncode == 0, result.stderr
    assert "AE: allowable jurisdictions" in result.stdout
    assert "OE: optimal schedule" in result.stdout


def test_solve_json_is_a_valid_solution(tmp_path):
    out = tmp_path / "solution.json"
    result = lexsym("solve", str(EXAMPLE), "--json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    printed = Solution.model_validate_json(result.stdout)
    written = Solution.model_validate_json(out.read_text())
    assert printed == written
    assert printed.optimal.jurisdiction in printed.allowable.jurisdictions
    assert all(r.optimal for r in printed.jurisdictions)


@pytest.mark.parametrize("name", ["case", "solution", "table", "answer"])
def test_schema_is_json_schema(name):
    result = lexsym("schema", name)
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema["type"] == "object" and "properties" in schema


def test_missing_case_file_is_one_line(tmp_path):
    assert_one_line_error(lexsym("solve", str(tmp_path / "nope.json")), "nope.json", "no such file")


def test_malformed_json_names_the_line(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "petition_date": "2024-01-01",\n  "domicile": [,]\n}\n')
    assert_one_line_error(lexsym("solve", str(bad)), "bad.json:3:", "invalid JSON")


def test_invalid_field_names_the_field(tmp_path):
    data = json.loads(EXAMPLE.read_text())
    data["assets"][2]["value"] = 12.5
    bad = tmp_path / "case.json"
    bad.write_text(json.dumps(data))
    assert_one_line_error(lexsym("solve", str(bad)), "assets[2].value", "whole number")


def test_unknown_kind_names_the_field(tmp_path):
    data = json.loads(EXAMPLE.read_text())
    data["assets"][0]["kind"] = "castle"
    bad = tmp_path / "case.json"
    bad.write_text(json.dumps(data))
    assert_one_line_error(lexsym("solve", str(bad)), "assets[0].kind")


def test_unknown_listed_citation_is_one_line(tmp_path):
    data = json.loads(EXAMPLE.read_text())
    data["assets"][0]["applicable_exemptions"] = ["11 U.S.C. § 522(z)(9)"]
    bad = tmp_path / "case.json"
    bad.write_text(json.dumps(data))
    assert_one_line_error(lexsym("solve", str(bad)), "unknown citation", "522(z)(9)")


def _broken_rules(tmp_path: Path, statute: str, old: str, new: str) -> Path:
    root = tmp_path / "rules"
    shutil.copytree(REPO / "statutes", root / "statutes")
    shutil.copytree(REPO / "encodings", root / "encodings")
    path = root / "statutes" / "federal" / statute
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return root


def _line_of(path: Path, fragment: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if fragment in line)


def test_syntax_error_in_a_statute_names_file_and_line(tmp_path):
    root = _broken_rules(
        tmp_path, "522d2_motor_vehicle.lp", "item_count(usc11_522_d_2, 1).", "item_count(usc11_522_d_2, 1)"
    )
    result = lexsym("solve", str(EXAMPLE), "--rules", str(root), cwd=root)
    line = _line_of(root / "statutes/federal/522d2_motor_vehicle.lp", "item_count(usc11_522_d_2, 1)")
    assert_one_line_error(result, "statutes/federal/522d2_motor_vehicle.lp:", "syntax error")
    # clingo reports a missing period where the next statement starts: at or after the broken line.
    reported = int(result.stderr.split("522d2_motor_vehicle.lp:")[1].split(":")[0])
    next_statement = _line_of(root / "statutes/federal/522d2_motor_vehicle.lp", "amount(usc11_522_d_2, ")
    assert line <= reported <= next_statement


def test_misspelt_predicate_in_a_statute_names_file_and_line(tmp_path):
    root = _broken_rules(
        tmp_path,
        "522d2_motor_vehicle.lp",
        ":- asset_is(A, motor_vehicle).",
        ":- asset_iss(A, motor_vehicle).",
    )
    result = lexsym("solve", str(EXAMPLE), "--rules", str(root), cwd=root)
    line = _line_of(root / "statutes/federal/522d2_motor_vehicle.lp", "asset_iss")
    assert_one_line_error(result, f"statutes/federal/522d2_motor_vehicle.lp:{line}:", "asset_iss")


def test_not_a_rules_directory(tmp_path):
    assert_one_line_error(lexsym("solve", str(EXAMPLE), "--rules", str(tmp_path)), "not a rules directory")
