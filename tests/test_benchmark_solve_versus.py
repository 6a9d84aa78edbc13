"""benchmarks/solve_versus.py runs without an OpenExempt checkout: lexsym's own cases, the table, exit 0."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

pytest.importorskip("highspy")

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "solve_versus.py"


@pytest.fixture(scope="module")
def solve_versus() -> ModuleType:
    spec = importlib.util.spec_from_file_location("solve_versus", BENCHMARK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def test_without_openexempt_prints_the_table_and_exits_0(solve_versus, monkeypatch, capsys):
    monkeypatch.delenv("OPENEXEMPT_SRC", raising=False)
    assert solve_versus.main(["--cases", "1", "--sizes", "1", "2"]) == 0
    out = capsys.readouterr().out
    assert "OpenExempt column skipped" in out
    assert "| allocator/HiGHS | NA agreement" in out
    rows = [line.split("|") for line in out.splitlines() if line.count("|") == 9]
    assert [row[0].strip() for row in rows[1:]] == ["1", "2"]
    assert all(row[2].strip() == "skipped" and row[9].strip() == "HiGHS 1/1" for row in rows[1:])
    assert "PASS lexsym and HiGHS agree on every NA: 0 cases disagree" in out
    assert "SKIP lexsym faster than OpenExempt at every asset count" in out


def test_a_folder_that_is_not_an_openexempt_checkout_is_refused(solve_versus, tmp_path):
    with pytest.raises(SystemExit, match="not an OpenExempt checkout"):
        solve_versus.main(["--openexempt", str(tmp_path), "--cases", "1", "--sizes", "1"])
