"""The reliability campaign of issues 18 and 19: feed generated hostile inputs to every surface of `lexsym`
in a fresh process each, and print what came back, per surface: exit codes, internal errors (exit 3),
signals, hangs, errors that name no file, and NaN in JSON. The inputs are those of the fuzz tests
(`tests/hostile_documents.py`), so a seed printed here reproduces in a test.

    python tools/fuzz_surfaces.py [--inputs 200] [--surface case --surface answer] [--timeout 30]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.hostile_documents import SURFACES, make_trial, problem_with  # noqa: E402


def _kind(problem: str) -> str:
    for prefix, kind in (
        ("hang", "hang"),
        ("exit 3", "internal (exit 3)"),
        ("exit -", "signal"),
        ("error names no file", "names no file"),
        ("JSON output", "NaN in JSON"),
    ):
        if problem.startswith(prefix):
            return kind
    return "other"


def _tasks(work: Path) -> Path:
    from tests.task_sets import generate_task_set

    out = generate_task_set(work / "tasks", {"task": ["AE", "EV", "OE"]}, seed=19)
    return out / "tasks.jsonl"


def _one(surface: str, seed: int, work: Path, tasks: Path, timeout: float):
    trial = make_trial(surface, seed, work / f"{surface}-{seed}", tasks)
    env = {**os.environ, **trial.env, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "lexsym", *trial.argv],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout,
            env=env,
        )
        code, stdout, stderr = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired:
        code, stdout, stderr = None, "", ""
    return surface, seed, code, problem_with(trial, code, stdout, stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=200, help="inputs per surface")
    parser.add_argument("--surface", action="append", choices=SURFACES, help="default: every surface")
    parser.add_argument(
        "--timeout", type=float, default=30.0, help="seconds before an input counts as a hang"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--first-seed", type=int, default=0)
    options = parser.parse_args()
    surfaces = options.surface or list(SURFACES)
    codes: dict[str, Counter] = defaultdict(Counter)
    problems: dict[str, Counter] = defaultdict(Counter)
    examples: dict[str, list[str]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        tasks = _tasks(work)
        seeds = range(options.first_seed, options.first_seed + options.inputs)
        jobs = [(surface, seed) for surface in surfaces for seed in seeds]
        with ThreadPoolExecutor(options.jobs) as pool:
            futures = [pool.submit(_one, s, n, work, tasks, options.timeout) for s, n in jobs]
            for future in futures:
                surface, seed, code, problem = future.result()
                codes[surface]["hang" if code is None else code] += 1
                if problem:
                    kind = _kind(problem)
                    problems[surface][kind] += 1
                    if len(examples[surface]) < 8:
                        examples[surface].append(f"seed {seed}: {problem}")
                shutil_rmtree(work / f"{surface}-{seed}")
    kinds = ["internal (exit 3)", "signal", "hang", "names no file", "NaN in JSON", "other"]
    print(f"| surface | inputs | exit 0/1/2 | {' | '.join(kinds)} |")
    print("|---|---|---|" + "---|" * len(kinds))
    for surface in surfaces:
        spread = "/".join(str(codes[surface][c]) for c in (0, 1, 2))
        row = " | ".join(str(problems[surface][k]) for k in kinds)
        print(f"| {surface} | {options.inputs} | {spread} | {row} |")
    for surface in surfaces:
        for example in examples[surface]:
            print(f"  {surface} {example}")
    return 1 if any(problems.values()) else 0


def shutil_rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
