"""Start-up cost of the commands scripts call thousands of times: prints median wall time per command.

Usage: python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "data" / "examples" / "case.json"

COMMANDS = {
    "python -c pass (interpreter floor)": [sys.executable, "-c", "pass"],
    "lexsym --help": [sys.executable, "-m", "lexsym", "--help"],
    "lexsym schema case": [sys.executable, "-m", "lexsym", "schema", "case"],
    "lexsym solve example --json": [sys.executable, "-m", "lexsym", "solve", str(EXAMPLE), "--json"],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    floor = None
    print(f"{'command':40} {'median s':>9} {'max s':>7} {'x floor':>8}")
    for label, command in COMMANDS.items():
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        floor = floor or median
        print(f"{label:40} {median:9.3f} {max(times):7.3f} {median / floor:8.1f}")


if __name__ == "__main__":
    main()
