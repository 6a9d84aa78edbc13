"""Which rules a command uses: --rules, then $LEXSYM_RULES, then the working tree a legal engineer edits,
then the installed copy; and a notice whenever the working tree's rules differ from the installed ones."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.law.rules import choose_rules, rules_notice

REPO = Path(__file__).resolve().parents[1]


def _rules_copy(where: Path) -> Path:
    where.mkdir(parents=True)
    shutil.copytree(REPO / "statutes", where / "statutes")
    shutil.copytree(REPO / "encodings", where / "encodings")
    return where


def test_the_order_is_option_environment_working_tree_installed(tmp_path):
    installed = _rules_copy(tmp_path / "site-packages" / "lexsym" / "_rules")
    tree = _rules_copy(tmp_path / "checkout")
    (tree / "notes" / "deep").mkdir(parents=True)
    other = _rules_copy(tmp_path / "other")
    assert choose_rules(None, None, tree / "notes" / "deep", installed) == (tree, "working tree")
    assert choose_rules(None, None, tmp_path, installed) == (installed, "installed")
    assert choose_rules(None, str(other), tree, installed) == (other, "environment")
    assert choose_rules(str(other), str(tree), tree, installed) == (other, "option")
    with pytest.raises(InputError, match="not a rules directory"):
        choose_rules(str(tmp_path), None, tree, installed)


def test_a_notice_only_when_the_working_tree_differs_from_the_installed_rules(tmp_path):
    installed = _rules_copy(tmp_path / "installed")
    tree = _rules_copy(tmp_path / "tree")
    assert rules_notice(tree, "working tree", installed) is None  # the same files: nothing to say
    assert rules_notice(installed, "installed", installed) is None
    wildcard = tree / "statutes" / "federal" / "522d5_wildcard.lp"
    wildcard.write_text(wildcard.read_text(encoding="utf-8") + "\n% edited\n", encoding="utf-8")
    notice = rules_notice(tree, "working tree", installed)
    assert notice is not None and str(tree) in notice and "not the installed ones" in notice


def test_a_command_run_in_an_edited_checkout_uses_and_names_its_rules(tmp_path):
    tree = _rules_copy(tmp_path / "tree")
    vehicle = tree / "statutes" / "federal" / "522d2_motor_vehicle.lp"
    text = vehicle.read_text(encoding="utf-8")
    vehicle.write_text(text + "\n% a legal engineer's edit\n", encoding="utf-8")
    case = tmp_path / "tree" / "case.json"
    shutil.copy(REPO / "data" / "examples" / "case.json", case)
    env = {key: value for key, value in os.environ.items() if key != "LEXSYM_RULES"}
    run = subprocess.run(
        [sys.executable, "-m", "lexsym", "solve", "case.json", "--json"],
        capture_output=True,
        text=True,
        cwd=tree,
        env=env,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert f"using the rules of the working tree {tree}" in run.stderr
    digest = json.loads(run.stdout)["rules_digest"]
    assert f"(digest {digest})" in run.stderr  # the output names the rules it was made with
