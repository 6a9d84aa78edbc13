"""Time generating the full nine-suite benchmark (gold included), on every core and on one.

Prints wall time, tasks per second and the number of distinct cases solved; with --check-single it also
generates with one process and confirms the files are byte-identical.

    python3 benchmarks/generate_throughput.py [--workers N] [--check-single] [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import tempfile
import time
from pathlib import Path

from lexsym.generate.pipeline import _jobs, generate
from lexsym.generate.suites import SUITE_NAMES, load_suite

TARGET_SECONDS = 10.0  # issue 15


def _digest(out: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(out.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(out).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _run(datasets, out: Path, workers: int) -> float:
    started = time.perf_counter()
    generate(datasets, out, workers=workers, per_suite=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--check-single", action="store_true", help="also run on one process and compare")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    datasets = [d for name in SUITE_NAMES for d in load_suite(name)]
    tasks = sum(d.config.split.size for d in datasets)
    cases = len(_jobs(datasets))
    with tempfile.TemporaryDirectory() as scratch:
        out = args.out or Path(scratch) / "bench"
        seconds = _run(datasets, out, args.workers)
        size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
        print(f"suites {len(SUITE_NAMES)}, datasets {len(datasets)}, tasks {tasks}, cases solved {cases}")
        print(
            f"workers {args.workers}: {seconds:.1f} s wall, {tasks / seconds:.0f} tasks/s, "
            f"output {size / 1e6:.0f} MB"
        )
        print(f"target < {TARGET_SECONDS:.0f} s: {'MET' if seconds < TARGET_SECONDS else 'MISSED'}")
        if args.check_single:
            single = Path(scratch) / "single"
            one = _run(datasets, single, 1)
            same = _digest(out) == _digest(single)
            print(f"workers 1: {one:.1f} s wall (speed-up {one / seconds:.2f}x); identical output: {same}")


if __name__ == "__main__":
    main()
