"""lexsym's pytest plugin: YAML statute tests collected by pytest, run by the `lexsym test` runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
GOOD = """\
statute: statutes/federal/522d2_motor_vehicle.lp
cases:
  - name: a car under the (d)(2) amount is fully protected
    petition_date: 2023-06-01
    assets: [{id: car, kind: motor_vehicle, use: personal, value: 3000}]
    expect:
      non_exempt: 0
  - name: a deliberately wrong amount
    petition_date: 2023-06-01
    assets: [{id: car, kind: motor_vehicle, use: personal, value: 3000}]
    expect:
      max_claim: {car: {"11 U.S.C. § 522(d)(2)": 2999}}
  - name: a misspelt key
    assets: []
    expect:
      non_exemt: 0
"""


def pytest_in(
    folder: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(folder), *args],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=300,
        env=env,
    )


def test_the_project_collects_its_own_statute_cases_through_the_plugin(pytestconfig):
    """Guard against a silent loss: the project's YAML cases are only run if the plugin is active."""
    assert pytestconfig.pluginmanager.has_plugin("lexsym")
    assert REPO / "tests" / "statutes" in [Path(p) for p in pytestconfig.getini("lexsym_statute_tests")]
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "tests/statutes/il"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert "tests/statutes/il/12-1001_personal_property.yaml::" in listed.stdout
    assert len([line for line in listed.stdout.splitlines() if "::" in line]) >= 40


def test_pass_fail_and_malformed_cases_each_report_their_own_line(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "car.yaml").write_text(GOOD)
    (tmp_path / "other.yaml").write_text("not: a statute test\n")  # outside the roots: left alone
    done = pytest_in(tmp_path, "--lexsym-statutes", "mine", "-rA")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 failed, 1 passed" in done.stdout and "other.yaml" not in done.stdout  # malformed fails too
    assert "max_claim[car][11 U.S.C. § 522(d)(2)]: expected 2999, got 3000" in done.stdout
    assert "unknown expected key 'non_exemt'; did you mean 'non_exempt'?" in done.stdout
    assert "PASSED mine/car.yaml::a car under the (d)(2) amount is fully protected" in done.stdout


def test_a_file_that_is_not_a_test_file_fails_to_collect_and_a_missing_root_is_a_usage_error(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "bad.yaml").write_text("statue: x\ncases: []\n")
    done = pytest_in(tmp_path, "--lexsym-statutes", "mine")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "bad.yaml:1: unknown key 'statue'; did you mean 'statute'?" in done.stdout
    missing = pytest_in(tmp_path, "--lexsym-statutes", "nowhere")
    assert missing.returncode == 4 and "nowhere: no such file or folder" in missing.stderr


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """lexsym as a non-editable install: the wheel unpacked into a folder of its own (dist-info included,
    so pytest finds the plugin's entry point there), far from the source tree."""
    import zipfile

    site = tmp_path_factory.mktemp("site")
    zipfile.ZipFile(wheel).extractall(site)
    return site


def test_after_a_non_editable_install_pytest_and_lexsym_test_run_a_folder_outside_the_repo(
    installed, tmp_path
):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "car.yaml").write_text(GOOD.split("  - name: a deliberately")[0])
    (tmp_path / "pytest.ini").write_text("[pytest]\nlexsym_statute_tests = mine\n")
    env = {"PYTHONPATH": str(installed), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    where = subprocess.run(
        [sys.executable, "-c", "import lexsym.pytest_plugin as p; print(p.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert where.stdout.startswith(str(installed)), where.stdout + where.stderr
    done = pytest_in(tmp_path, env=env)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    command = subprocess.run(
        [sys.executable, "-m", "lexsym", "test", "mine"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert command.returncode == 0, command.stdout + command.stderr
    assert "1 cases: 1 passed" in command.stderr
