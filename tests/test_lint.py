"""`lexsym lint`: the shipped statutes are clean, and each kind of defect is reported at its line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym.law.lint import lint

REPO = Path(__file__).resolve().parents[1]


def test_shipped_statutes_are_clean():
    problems = lint([REPO / "statutes"])
    assert not problems, "\n".join(map(str, problems))


def test_cli_lint_exits_zero_on_the_shipped_statutes():
    result = subprocess.run(
        [sys.executable, "-m", "lexsym", "lint", str(REPO / "statutes")],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "clean" in result.stdout


@pytest.fixture()
def rules(tmp_path) -> Path:
    root = tmp_path / "rules"
    shutil.copytree(REPO / "statutes", root / "statutes")
    shutil.copytree(REPO / "encodings", root / "encodings")
    return root


def _add(rules: Path, name: str, text: str) -> Path:
    path = rules / "statutes" / "zz" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


GOOD_HEADER = "%# Test § 1: a test\n%\n% Source: test.\n% Output: exemption/2.\n"


def _messages(rules: Path, path: Path) -> list[str]:
    return [str(p) for p in lint([path], rules=str(rules))]


def test_missing_header_is_reported(rules):
    path = _add(rules, "bad.lp", "unlimited(x).\n")
    assert any("must open with a '%#" in m for m in _messages(rules, path))


def test_missing_citation_and_amount_are_reported_at_the_declaration(rules):
    path = _add(rules, "bad.lp", GOOD_HEADER + "exemption(c_zz_1, us).\n")
    messages = _messages(rules, path)
    assert any("bad.lp:5:" in m and "no citation" in m for m in messages), messages
    assert any("bad.lp:5:" in m and "no limit amount" in m for m in messages), messages


def test_id_must_follow_the_citation(rules):
    text = (
        GOOD_HEADER
        + 'exemption(wrong_id, us).\ncitation(wrong_id, "11 U.S.C. § 522(d)(2)").\nunlimited(wrong_id).\n'
    )
    messages = _messages(rules, _add(rules, "bad.lp", text))
    assert any("should be named usc11_522_d_2" in m for m in messages), messages


def test_undefined_predicate_is_reported_with_its_line(rules):
    text = GOOD_HEADER + "% Test § 1.\nqualifies(c_zz_1, A, x) :- asset_knd(A, car).\n"
    messages = _messages(rules, _add(rules, "bad.lp", text))
    assert any("bad.lp:6:" in m and "asset_knd" in m for m in messages), messages


def test_unreachable_exemption_is_reported(rules):
    text = GOOD_HEADER + (
        'exemption(c_zz_1, us).\ncitation(c_zz_1, "zz 1").\nunlimited(c_zz_1).\n'
        "% Test § 1.\nqualifies(c_zz_1, A, never) :- asset_is(A, motor_vehicle), asset_is(A, jewelry).\n"
    )
    messages = _messages(rules, _add(rules, "bad.lp", text))
    assert any("no catalogue asset qualifies for c_zz_1" in m for m in messages), messages


def test_bad_amount_date_is_reported(rules):
    text = GOOD_HEADER + (
        'exemption(c_zz_1, us).\ncitation(c_zz_1, "zz 1").\namount(c_zz_1, limit, date(2024,2,30), 5).\n'
        "% Test § 1.\nqualifies(c_zz_1, A, any) :- asset(A).\n"
    )
    messages = _messages(rules, _add(rules, "bad.lp", text))
    assert any("bad date date(2024,2,30)" in m for m in messages), messages
