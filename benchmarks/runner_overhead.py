"""The runner's own cost per sample, with a model that answers instantly, at concurrency 32.

A real model takes seconds per call, so what the runner adds (planning, the cache lookup and write,
parsing and per-sample scoring, serialising the line, the single writer's write and fsync) must stay far
below that: the target is under 5 ms per sample. Three scenarios over at least 5,000 samples (the basic
suite's tasks, repeated):

- "instant, cache writes": a cacheable instant model at temperature 0.7 (every repeat its own cache entry),
  a fresh cache: every sample is a miss, a call and a cache write;
- "cache hits": the same again into a new run directory: every sample is answered from the cache;
- "oracle, no cache": the local oracle, which bypasses the cache.

For each it prints the session's wall time per sample (everything from planning to the last fsync) and the
median and 95th percentile of the per-sample time the runner itself spends (model call and waits excluded).
Scoring is not overhead: it is timed separately, on repeat 0's predictions.

    python3 benchmarks/runner_overhead.py [--tasks DIR] [--samples 5000] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from lexsym.generate.pipeline import generate
from lexsym.generate.suites import load_suite
from lexsym.models.base import Completion, GenerationParams
from lexsym.models.local import OracleModel
from lexsym.runner import RunOptions, run_tasks
from lexsym.runner.tasksets import load_task_set
from lexsym.scoring import score

TARGET_MS = 5.0


class Instant(OracleModel):
    """The oracle's answer, instantly, with token counts, through the cache like a remote model."""

    id = "bench:instant"
    cacheable = True

    async def generate(self, messages, params, *, task=None) -> Completion:
        completion = await super().generate(messages, params, task=task)
        completion.tokens_in, completion.tokens_out, completion.model = 4000, 200, self.id
        return completion


def _scenario(name: str, model: Any, tasks: Path, out: Path, cache: Path, repeats: int, args) -> dict:
    options = RunOptions(
        concurrency=args.concurrency, repeats=repeats, cache_dir=cache, score=False, progress=False
    )
    params = GenerationParams(temperature=0.7 if isinstance(model, Instant) else 0.0)
    started = time.perf_counter()
    result = run_tasks(model, tasks, out, params=params, options=options)
    total = time.perf_counter() - started
    samples = result.recorded
    session = result.header.sessions[-1].wall_seconds or 0.0
    overheads = sorted(result.overheads)
    return {
        "name": name,
        "samples": samples,
        "cached": result.header.totals.cached,
        "total_ms": 1000 * total / samples,
        "session_ms": 1000 * session / samples,
        "median_ms": 1000 * statistics.median(overheads),
        "p95_ms": 1000 * overheads[int(0.95 * (len(overheads) - 1))],
        "out": out,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tasks", type=Path, help="A task directory (default: generate the basic suite).")
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lexsym-bench-") as scratch:
        root = Path(scratch)
        tasks = args.tasks
        if tasks is None:
            tasks = root / "tasks"
            started = time.perf_counter()
            generate(load_suite("basic"), tasks)
            print(f"generated the basic suite in {time.perf_counter() - started:.1f} s")
        count = len(load_task_set(tasks).records)
        repeats = math.ceil(args.samples / count)
        print(
            f"{count} tasks x {repeats} repeats = {count * repeats} samples, concurrency {args.concurrency}\n"
        )
        cache = root / "cache"
        rows = [
            _scenario("instant, cache writes", Instant(), tasks, root / "a", cache, repeats, args),
            _scenario("cache hits", Instant(), tasks, root / "b", cache, repeats, args),
            _scenario("oracle, no cache", "lexsym:oracle", tasks, root / "c", cache, repeats, args),
        ]
        print(
            f"{'scenario':<24}{'samples':>8}{'cached':>8}{'total':>10}{'session':>10}{'median':>10}{'p95':>9}"
        )
        print(f"{'':<24}{'':>8}{'':>8}{'ms/sample':>10}{'ms/sample':>10}{'ms':>10}{'ms':>9}")
        for row in rows:
            print(
                f"{row['name']:<24}{row['samples']:>8}{row['cached']:>8}{row['total_ms']:>10.3f}"
                f"{row['session_ms']:>10.3f}{row['median_ms']:>10.3f}{row['p95_ms']:>9.3f}"
            )
        worst = max(row["total_ms"] for row in rows)
        verdict = "meets" if worst < TARGET_MS else "MISSES"
        print(f"\nworst total per-sample overhead {worst:.3f} ms: {verdict} the {TARGET_MS:g} ms target")
        started = time.perf_counter()
        report = score(
            tasks if tasks.is_file() else tasks / "tasks.jsonl", rows[0]["out"] / "predictions.jsonl"
        )
        elapsed = time.perf_counter() - started
        print(
            f"scoring repeat 0 ({report.scored} samples, not overhead): {elapsed:.2f} s, "
            f"{1000 * elapsed / max(report.scored, 1):.2f} ms/sample"
        )


if __name__ == "__main__":
    main()
