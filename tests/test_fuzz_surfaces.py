"""Every input surface of `lexsym` fed hostile documents (issues 18 and 19): a case, an answer, predictions,
an exam (JSONL, CSV, XLSX), a generator config and a suite, judge labels, and statute files for `lint` and
`solve`. The only assertion is the audit's (`tests/hostile_documents.py`): exit 0, 1 or 2, never 3 or a
signal or a hang; an error names the file, in one bounded line; JSON output has no NaN.

The default run draws 20 inputs per surface (10 per statute surface); LEXSYM_LONG_RUNS=full draws 1,000
(200), 9,400 in all, and with HYPOTHESIS_PROFILE=dated new ones each day. `tools/fuzz_surfaces.py` runs
the same inputs in fresh processes and prints the campaign's table.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.hostile_documents import SURFACES, make_trial, problem_with
from tests.long_runs import FULL
from tests.task_sets import generate_task_set

IN_PROCESS = [s for s in SURFACES if not s.startswith("statute")]
"""Statute files go to clingo, which can abort the whole process on what it cannot decode: those run in a
child process of their own."""

SECONDS = 60

EXAMPLES = 1000 if FULL else 20
"""Inputs per surface: a bounded sample in every run, thousands in all with LEXSYM_LONG_RUNS=full."""
STATUTE_EXAMPLES = 200 if FULL else 10
"""Statute inputs run in a child process each (about two seconds), so fewer."""


@pytest.fixture(scope="module")
def tasks(tmp_path_factory) -> Path:
    return (
        generate_task_set(tmp_path_factory.mktemp("tasks"), {"task": ["AE", "EV", "OE"]}, seed=19)
        / "tasks.jsonl"
    )


class _Hang(Exception):
    pass


def _alarm(*_):
    raise _Hang(f"no answer in {SECONDS} s")


def run_in_process(argv: list[str]) -> tuple[int | None, str, str]:
    """`lexsym argv` run through the CLI's own entry point: (exit code, stdout, stderr); None for a hang."""
    from lexsym.cli import main

    stdout, stderr = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(SECONDS)
    code: int | None = 0
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            old_argv, sys.argv = sys.argv, ["lexsym", *argv]
            try:
                main()
            except SystemExit as done:
                code = done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
            finally:
                sys.argv = old_argv
    except _Hang:
        code = None
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if "internal error: _Hang" in stderr.getvalue():
        code = None
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.mark.parametrize("surface", IN_PROCESS)
def test_each_surface_s_seed_document_is_read(surface, tasks):
    """The hostile documents start from valid ones: otherwise every input would fail at the same place."""
    with tempfile.TemporaryDirectory() as work:
        trial = make_trial(surface, None, Path(work), tasks)
        code, _, stderr = run_in_process(trial.argv)
    assert code in (0, 1), stderr


@pytest.mark.parametrize("surface", IN_PROCESS)
@settings(max_examples=EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_hostile_input_is_read_or_refused_by_name(surface, seed, tasks):
    with tempfile.TemporaryDirectory() as work:
        trial = make_trial(surface, seed, Path(work), tasks)
        code, stdout, stderr = run_in_process(trial.argv)
        assert problem_with(trial, code, stdout, stderr) is None, (surface, seed, stderr[-500:])


@pytest.mark.parametrize("surface", ["statute-lint", "statute-solve"])
@settings(max_examples=STATUTE_EXAMPLES, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_a_hostile_statute_file_is_read_or_refused_by_name(surface, seed):
    with tempfile.TemporaryDirectory() as work:
        trial = make_trial(surface, seed, Path(work))
        try:
            done = subprocess.run(
                [sys.executable, "-m", "lexsym", *trial.argv],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=SECONDS,
                env={**os.environ, **trial.env},
            )
            code, stdout, stderr = done.returncode, done.stdout, done.stderr
        except subprocess.TimeoutExpired:
            code, stdout, stderr = None, "", ""
        assert problem_with(trial, code, stdout, stderr) is None, (surface, seed, stderr[-500:])
