"""How much memory reading a task set for a run takes, against the size of the file (issue 19, item 14: a
run held about 4.8 times the task file, 1.3 GB for the full benchmark).

Set-up (not measured): the basic suite's tasks, repeated under new ids until the file is about `--mb`
megabytes. Measured, each `--runs` times in a fresh process: the peak resident memory of
`load_task_set` beyond that of the same process before it, as a multiple of the file's size. With
`--compare DIR`, the same for the `lexsym` package under DIR (an older checkout, e.g. a `git worktree`),
side by side in the same run.

    python3 benchmarks/task_set_memory.py [--mb 100] [--runs 3] [--compare /tmp/lexsym-old]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from lexsym.generate.pipeline import generate
from lexsym.generate.suites import load_suite

_MEASURE = """
import resource, sys
sys.path.insert(0, sys.argv[1])
from lexsym.runner.tasksets import load_task_set
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
task_set = load_task_set(sys.argv[2])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) * 1024)
"""


def _task_file(root: Path, megabytes: float) -> Path:
    generate(load_suite("basic"), root / "basic", workers=1)
    records = [json.loads(line) for line in (root / "basic" / "tasks.jsonl").read_text().splitlines()]
    target, written, copy = megabytes * 1e6, 0, 0
    path = root / "big" / "tasks.jsonl"
    path.parent.mkdir()
    with path.open("w", encoding="utf-8") as stream:
        while written < target:
            for record in records:
                line = json.dumps({**record, "id": f"{record['id']}#{copy}"}, ensure_ascii=False) + "\n"
                stream.write(line)
                written += len(line.encode())
            copy += 1
    return path


def _peak(package_root: Path, tasks: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(package_root), str(tasks)],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=100.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--compare", type=Path, help="a checkout whose lexsym to measure beside this one")
    options = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as scratch:
        tasks = _task_file(Path(scratch), options.mb)
        size = tasks.stat().st_size
        print(f"task file: {size / 1e6:.1f} MB, {sum(1 for _ in tasks.open()):,} tasks")
        checkouts = [("this checkout", here)] + ([("--compare", options.compare)] if options.compare else [])
        medians = {}
        for name, root in checkouts:
            peaks = [_peak(root, tasks) for _ in range(options.runs)]
            medians[name] = statistics.median(peaks)
            print(f"{name:14} peak {medians[name] / 1e6:8.1f} MB = {medians[name] / size:4.2f} x the file")
        if options.compare:
            print(f"ratio this/compare: {medians['this checkout'] / medians['--compare']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
