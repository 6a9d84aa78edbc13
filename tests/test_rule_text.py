"""Rule files clingo would abort on are read safely or refused by file and line (issue 19, item 1): a
byte-order mark is stripped; bytes that are not UTF-8, or an unterminated string holding a "§", are refused
with exit 2, never clingo's "PANIC: exception in nothrow scope" (which killed the process, and hung pools)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym._util.errors import RuleError
from lexsym.law.rule_text import rule_text

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "examples" / "case.json"


def _rules(tmp_path: Path) -> Path:
    root = tmp_path / "rules"
    shutil.copytree(REPO / "statutes", root / "statutes")
    shutil.copytree(REPO / "encodings", root / "encodings")
    return root


def _solve(root: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "lexsym", "solve", str(EXAMPLE), "--json", "--rules", str(root)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"a(1).\n% caf\xe9\n", ":2: not UTF-8"),
        ('a(1).\nc("\u00a7 x) :- .\n'.encode(), ":2: a string is not closed"),
        (b"a(1).\n%* never closed\nb.\n", ":2: a block comment"),
        ("a(1).\nb(\u00a7).\n".encode(), ":2: '\u00a7' outside a string or comment"),
    ],
)
def test_what_clingo_would_choke_on_is_refused_with_its_line(tmp_path, data, message):
    path = tmp_path / "x.lp"
    path.write_bytes(data)
    with pytest.raises(RuleError, match=message):
        rule_text(path)


def test_comments_and_strings_may_hold_any_text(tmp_path):
    path = tmp_path / "x.lp"
    path.write_text('%# § 522(d)\n%* «block» § *%\nc("§ 522(d)(1)").  % ünïcode\n', encoding="utf-8")
    text, bom = rule_text(path)
    assert not bom and text.startswith("%# §")


def test_a_byte_order_mark_is_stripped_and_the_rules_solve_as_before(tmp_path):
    root = _rules(tmp_path)
    before = _solve(root)
    target = root / "statutes" / "opt_out.lp"  # loaded for every case
    target.write_bytes(b"\xef\xbb\xbf" + target.read_bytes())
    after = _solve(root)
    assert before.returncode == after.returncode == 0, after.stderr
    strip = ("rules_digest", "seconds")
    assert {k: v for k, v in json.loads(after.stdout).items() if k not in strip} == {
        k: v for k, v in json.loads(before.stdout).items() if k not in strip
    }


def test_an_unterminated_string_with_a_section_sign_exits_2_naming_the_file(tmp_path):
    root = _rules(tmp_path)
    target = root / "statutes" / "opt_out.lp"  # loaded for every case
    target.write_text(target.read_text(encoding="utf-8") + '\nbroken("§ 18.345 :- .\n', encoding="utf-8")
    done = _solve(root)
    assert done.returncode == 2, done.stderr
    assert "PANIC" not in done.stderr and "Traceback" not in done.stderr
    assert "opt_out.lp:" in done.stderr and "string is not closed" in done.stderr
