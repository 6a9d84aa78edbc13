"""How long `lexsym export` takes for a run of 10,000 samples or more: the target is under 5 s.

Set-up (not timed): the basic suite's tasks, answered by the local oracle with enough repeats to pass
`--samples`, scored on repeat 0 (so the table joins scores.json as a real run's does). Timed, each
`--runs` times, in one process: building the table (`load_table`), then writing it as CSV, JSONL and
parquet. Prints the median and the range of wall time per step, and the median CPU time of this process
(which a busy machine inflates less); `lexsym export` itself is one table plus one write.

    python3 benchmarks/export_speed.py [--samples 10000] [--runs 5]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path

from lexsym.analysis import export_table, load_table
from lexsym.generate.pipeline import generate
from lexsym.generate.suites import load_suite
from lexsym.runner import RunOptions, run_tasks
from lexsym.runner.scores import score_repeats, summarize_samples
from lexsym.runner.tasksets import load_task_set


def _make_run(root: Path, samples: int) -> Path:
    tasks = root / "tasks"
    generate(load_suite("basic"), tasks, workers=1)
    count = len(load_task_set(tasks).records)
    repeats = max(1, math.ceil(samples / count))
    out = root / "run"
    run_tasks("lexsym:oracle", tasks, out, options=RunOptions(progress=False, repeats=repeats, score=False))
    summary = summarize_samples(out / "samples.jsonl")
    score_repeats(out, load_task_set(tasks), {0: summary.outputs[0]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        run = _make_run(root, args.samples)
        timings: dict[str, list[float]] = {"table": [], "csv": [], "jsonl": [], "parquet": []}
        cpu: dict[str, list[float]] = {step: [] for step in timings}
        rows = columns = 0
        for _ in range(args.runs):
            started, used = time.perf_counter(), time.process_time()
            table = load_table([run])
            timings["table"].append(time.perf_counter() - started)
            cpu["table"].append(time.process_time() - used)
            rows, columns = len(table.rows), len(table.columns)
            for fmt in ("csv", "jsonl", "parquet"):
                started, used = time.perf_counter(), time.process_time()
                export_table(table, root / f"out.{fmt}")
                timings[fmt].append(time.perf_counter() - started)
                cpu[fmt].append(time.process_time() - used)
        print(f"{rows:,} rows x {columns} columns, {args.runs} runs")
        print(f"{'step':<10}{'median s':>10}{'min s':>10}{'max s':>10}{'cpu s':>10}")
        for step, values in timings.items():
            spread = f"{statistics.median(values):>10.3f}{min(values):>10.3f}{max(values):>10.3f}"
            print(f"{step:<10}{spread}{statistics.median(cpu[step]):>10.3f}")
        worst = statistics.median(timings["table"]) + max(
            statistics.median(timings[f]) for f in ("csv", "jsonl", "parquet")
        )
        verdict = "meets" if worst < 5 else "MISSES"
        print(f"export (table + slowest format), median: {worst:.3f} s: {verdict} the 5 s target")


if __name__ == "__main__":
    main()
