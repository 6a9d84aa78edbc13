"""Start-up cost of the commands scripts call thousands of times: prints median wall time per command.

Usage: python benchmarks/startup.py [--runs N] [--against CHECKOUT]

With --against, every command also runs from another checkout of lexsym (say a `git worktree` of main),
interleaved run by run with this one so both see the same machine noise, and the table adds that
checkout's median and the ratio this/that. Each command runs from a neutral directory with PYTHONPATH set
to the checkout, so each run imports that checkout's package, not the installed one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "data" / "examples"

COMMANDS = {
    "python -c pass (interpreter floor)": ["-c", "pass"],
    "lexsym --help": ["-m", "lexsym", "--help"],
    "lexsym schema case": ["-m", "lexsym", "schema", "case"],
    "lexsym solve example --json": ["-m", "lexsym", "solve", str(EXAMPLES / "case.json"), "--json"],
    "lexsym check valid answer": ["-m", "lexsym", "check", str(EXAMPLES / "valid-answer.json")],
}


def _time(arguments: list[str], checkout: Path, cwd: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *arguments], capture_output=True, cwd=cwd, env=env)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(arguments)} failed in {checkout}: {done.stderr.decode()[-500:]}")
    return elapsed


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--against", type=Path, help="another lexsym checkout to time side by side")
    arguments = parser.parse_args()
    checkouts = [REPO] + ([arguments.against.resolve()] if arguments.against else [])
    for checkout in checkouts:
        if not (checkout / "lexsym" / "__init__.py").is_file():
            raise SystemExit(f"{checkout}: not a lexsym checkout (no lexsym/__init__.py)")
    header = f"{'command':36} {'median s':>9} {'max s':>7}"
    if arguments.against:
        header += f" {'against s':>10} {'ratio':>6}"
    print(f"{header} {'x floor':>8}")
    floor = None
    with tempfile.TemporaryDirectory() as cwd:
        for label, command in COMMANDS.items():
            times: dict[Path, list[float]] = {checkout: [] for checkout in checkouts}
            for _ in range(arguments.runs):
                for checkout in checkouts:
                    times[checkout].append(_time(command, checkout, cwd))
            median = statistics.median(times[REPO])
            floor = floor or median
            line = f"{label:36} {median:9.3f} {max(times[REPO]):7.3f}"
            if arguments.against:
                other = statistics.median(times[checkouts[1]])
                line += f" {other:10.3f} {median / other:6.2f}"
            print(f"{line} {median / floor:8.1f}")


if __name__ == "__main__":
    main()
