"""After an optimisation, the process still dies of SIGTERM as Python means it to, not of a segfault in the
handler clingo_main leaves behind (that is how a pool stops its workers)."""

from __future__ import annotations

import signal
import subprocess
import sys

SCRIPT = """
import os, random, signal
import lexsym
from lexsym.testing import random_federal_case
lexsym.solve(random_federal_case(random.Random(1), min_assets=2, max_assets=2))
os.kill(os.getpid(), signal.SIGTERM)
"""


def test_sigterm_after_a_solve_terminates_cleanly():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert result.returncode == -signal.SIGTERM, (result.returncode, result.stderr[-2000:])
