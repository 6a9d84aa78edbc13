"""`lexsym new`: a statute and a jurisdiction started from the house layout, with tests beside them, and
placeholders that lint points at until they are filled in."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.law.scaffold import canonical_statute

REPO = Path(__file__).resolve().parents[1]


def lexsym(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, cwd=folder, timeout=120
    )


def test_citations_are_made_canonical_and_ids_come_from_them_as_lint_derives_them():
    assert canonical_statute("Ohio Rev. Code § 2329.66(A)(2)", "oh") == (
        "Ohio Rev. Code § 2329.66(A)(2)",
        "oh_2329_66_a_2",
    )
    # The id the shipped Illinois rules use, not a second derivation of the scaffold's own.
    assert canonical_statute("735 ILCS 5/12-1001(b)", "IL") == (
        "735 Ill. Comp. Stat. 5/12-1001(b)",
        "ilcs735_5_12_1001_b",
    )
    with pytest.raises(InputError, match="unknown jurisdiction 'ohh'"):
        canonical_statute("Ohio Rev. Code § 2329.66", "ohh")
    with pytest.raises(
        InputError, match=re.escape("does not follow OH's canonical form `Ohio Rev. Code § <section>`")
    ):
        canonical_statute("Revised Code 2329.66", "OH")


def test_a_new_jurisdiction_and_statute_are_written_and_lint_names_what_to_fill_in(tmp_path):
    shutil.copytree(REPO / "statutes", tmp_path / "statutes")
    shutil.copytree(REPO / "encodings", tmp_path / "encodings")
    shutil.rmtree(tmp_path / "statutes" / "oh", ignore_errors=True)  # Ohio as a state not yet encoded
    early = lexsym(tmp_path, "new", "statute", "Ohio Rev. Code § 2329.66(A)(2)", "--jurisdiction", "OH")
    assert early.returncode == 2 and "run `lexsym new jurisdiction OH` first" in early.stderr
    assert lexsym(tmp_path, "new", "jurisdiction", "oh").returncode == 0
    made = lexsym(tmp_path, "new", "statute", "Ohio Rev. Code § 2329.66(A)(2)", "--jurisdiction", "OH")
    assert made.returncode == 0, made.stderr
    rule = tmp_path / "statutes" / "oh" / "oh_2329_66_a_2.lp"
    assert f"wrote {rule}" in made.stdout
    text = rule.read_text(encoding="utf-8")
    assert text.startswith("%# Ohio Rev. Code § 2329.66(A)(2): ")
    assert "% Source:" in text and "% Output:" in text and 'citation(oh_2329_66_a_2, "Ohio Rev. Code' in text
    tests = tmp_path / "tests" / "statutes" / "oh" / "oh_2329_66_a_2.yaml"
    assert "jurisdiction: OH" in tests.read_text(encoding="utf-8")
    again = lexsym(tmp_path, "new", "statute", "Ohio Rev. Code § 2329.66(A)(2)", "--jurisdiction", "OH")
    assert again.returncode == 2 and "already exists; nothing was written" in again.stderr
    lint = lexsym(tmp_path, "lint", "statutes/oh")
    assert lint.returncode == 1 and "statutes/oh/oh_2329_66_a_2.lp:24" in lint.stdout  # the placeholders
