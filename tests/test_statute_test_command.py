"""`lexsym test`: a legal engineer's own YAML statute cases, run from any folder, strict about keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

GOOD = """\
statute: statutes/federal/522d2_motor_vehicle.lp
cases:
  - name: a car under the (d)(2) amount is fully protected
    petition_date: 2023-06-01
    assets: [{id: car, kind: motor_vehicle, use: personal, value: 3000}]
    expect:
      eligible: {car: ["11 U.S.C. § 522(d)(2)", "11 U.S.C. § 522(d)(5)"]}
      non_exempt: 0
"""


def lexsym_test(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", "test", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=300,
    )


def test_a_folder_outside_the_repository_passes_with_exit_zero(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "car.yaml").write_text(GOOD)
    result = lexsym_test(tmp_path, "mine")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("pass  mine/car.yaml:3: a car under")
    assert "1 cases: 1 passed, 0 failed, 0 malformed" in result.stderr


def test_a_misspelt_expected_key_is_an_error_naming_the_line_and_the_fix(tmp_path):
    (tmp_path / "t.yaml").write_text(GOOD.replace("non_exempt: 0", "non_exemt: 12345"))
    result = lexsym_test(tmp_path, "t.yaml")
    assert result.returncode == 2
    assert "t.yaml:8: unknown expected key 'non_exemt'; did you mean 'non_exempt'?" in result.stdout


def test_a_misspelt_case_key_and_a_misspelt_file_key_are_errors_too(tmp_path):
    (tmp_path / "t.yaml").write_text(GOOD.replace("petition_date:", "petiton_date:"))
    result = lexsym_test(tmp_path, "t.yaml")
    assert result.returncode == 2 and "t.yaml:4: unknown case key 'petiton_date'" in result.stdout
    assert "did you mean 'petition_date'?" in result.stdout
    (tmp_path / "u.yaml").write_text(GOOD.replace("cases:", "cases:", 1).replace("statute:", "statue:"))
    result = lexsym_test(tmp_path, "u.yaml")
    assert (
        result.returncode == 2 and "u.yaml:1: unknown key 'statue'; did you mean 'statute'?" in result.stderr
    )


def test_a_wrong_expectation_fails_with_expected_and_got(tmp_path):
    (tmp_path / "t.yaml").write_text(GOOD.replace("non_exempt: 0", "non_exempt: 12345"))
    result = lexsym_test(tmp_path, "t.yaml", "--json")
    assert result.returncode == 1
    [record] = [json.loads(line) for line in result.stdout.splitlines()]
    assert record["status"] == "fail" and record["line"] == 3
    assert record["failures"] == ["non_exempt (US): expected 12345, got 0"]
    wrong = GOOD.replace('"11 U.S.C. § 522(d)(5)"', '"11 U.S.C. § 522(d)(3)"')
    (tmp_path / "e.yaml").write_text(wrong)
    result = lexsym_test(tmp_path, "e.yaml")
    assert result.returncode == 1 and "FAIL  e.yaml:3:" in result.stdout
    assert "eligible[car]: expected" in result.stdout and "11 U.S.C. § 522(d)(5) (" in result.stdout


def test_not_a_test_file_and_nothing_to_run_exit_two(tmp_path):
    (tmp_path / "bad.yaml").write_text("cases: [\n")
    result = lexsym_test(tmp_path, "bad.yaml")
    assert (
        result.returncode == 2
        and "bad.yaml:2: not YAML" in result.stderr
        and "Traceback" not in result.stderr
    )
    (tmp_path / "empty").mkdir()
    assert lexsym_test(tmp_path, "empty").returncode == 2
    assert lexsym_test(tmp_path).returncode == 2  # no tests/statutes/ here


def test_the_property_test_kit_without_hypothesis_says_what_to_install():
    code = "import sys; sys.modules['hypothesis'] = None; import lexsym.testing"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[-1] == (
        "ModuleNotFoundError: lexsym.testing needs hypothesis, which is not installed: "
        "pip install 'lexsym[testing]'"
    )
