"""Time `lexsym.scoring.score` on a 10,000-line prediction file built from the whole nine-suite benchmark.

The predictions mix what a real run produces: answers copied from the gold (about 60 %), mutated ones
(about 25 %: a jurisdiction dropped or added, a citation missing or wrong, amounts off by 3 % or 20 %, OE
schedules over-claimed or under-claimed), malformed ones (about 12 %: no marker, truncated JSON, prose,
a wrong type), missing ones, plus lines for unknown ids, duplicates and garbage. Solving and checking the
distinct OE cases dominates the time. Prints the time, predictions per second and the scores per task.

    python3 benchmarks/score_throughput.py [--tasks TASKS.jsonl] [--workers N] [--lines 10000]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from lexsym.generate.pipeline import generate
from lexsym.generate.suites import SUITE_NAMES, load_suite
from lexsym.scoring import score

TARGET_SECONDS = 10.0  # issue 15


def _text(answer: Any) -> str:
    return "Let me work through the statutes.\n\nFINAL ANSWER: " + json.dumps(answer, ensure_ascii=False)


def _mutated(record: dict[str, Any], rng: random.Random) -> Any:
    """The gold answer with one plausible mistake."""
    gold = copy.deepcopy(record["gold"])
    task = record["task"]
    if task == "AE":
        return gold[:-1] if len(gold) > 1 and rng.random() < 0.5 else [*gold, "Oregon"]
    if task == "EC":
        for citations in gold.values():
            if citations and rng.random() < 0.5:
                citations.pop()
            else:
                citations.append("11 U.S.C. § 522(d)(9)")
            break
        return gold
    if task == "EV":
        factor = rng.choice([1.03, 1.2, 0.5])
        for claims in gold.values():
            for claim in claims:
                claim["claim_value"] = round(claim["claim_value"] * factor)
        return gold
    if task == "NA":
        return {name: round(value * rng.choice([1.02, 1.1]) + 100) for name, value in gold.items()}
    factor = rng.choice([0.5, 1.5, 3.0])
    for claims in gold["schedule"].values():
        for claim in claims:
            claim["claim_value"] = round(claim["claim_value"] * factor) + 1
    if rng.random() < 0.3:
        gold.pop("jurisdiction")
    return gold


_MALFORMED = [
    "I cannot determine the answer from the facts given.",
    'FINAL ANSWER: {"truncated": [{"citation": "11 U.S.C. § 522(d)(5)", "claim_va',
    "FINAL ANSWER: the debtor may keep everything",
    "FINAL ANSWER:",
    "FINAL ANSWER: [1, 2, 3]",
]


def build_predictions(tasks_path: Path, out: Path, lines: int, seed: int = 0) -> dict[str, int]:
    """Write at least `lines` prediction lines (one per task, minus the missing ones, then padding of unknown
    ids, duplicates and garbage) for the tasks in `tasks_path`; return how many of each kind."""
    rng = random.Random(seed)
    records = [json.loads(line) for line in tasks_path.read_text(encoding="utf-8").splitlines()]
    kinds = {
        "correct": 0,
        "mutated": 0,
        "malformed": 0,
        "missing": 0,
        "unknown": 0,
        "duplicate": 0,
        "garbage": 0,
    }
    written: list[str] = []
    for record in records:
        roll = rng.random()
        if roll < 0.60:
            kinds["correct"] += 1
            written.append(json.dumps({"id": record["id"], "output": _text(record["gold"])}))
        elif roll < 0.85:
            kinds["mutated"] += 1
            written.append(json.dumps({"id": record["id"], "answer": _mutated(record, rng)}))
        elif roll < 0.97:
            kinds["malformed"] += 1
            written.append(json.dumps({"id": record["id"], "completion": rng.choice(_MALFORMED)}))
        else:
            kinds["missing"] += 1
    while len(written) < lines:
        roll = rng.random()
        if roll < 0.4:
            kinds["unknown"] += 1
            written.append(json.dumps({"id": f"nowhere/{len(written)}", "output": "FINAL ANSWER: []"}))
        elif roll < 0.7:
            kinds["duplicate"] += 1
            written.append(json.dumps({"id": rng.choice(records)["id"], "output": "FINAL ANSWER: {}"}))
        else:
            kinds["garbage"] += 1
            written.append(
                rng.choice(['{"id": 3, "output": 4}', "not json at all", '{"id": "x", "out', "[]"])
            )
    rng.shuffle(written)
    out.write_text("".join(line + "\n" for line in written), encoding="utf-8")
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--tasks", type=Path, default=None, help="a tasks.jsonl (default: generate all suites)"
    )
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--lines", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tasks = args.tasks
        if tasks is None:
            started = time.perf_counter()
            datasets = [d for name in SUITE_NAMES for d in load_suite(name)]
            generate(datasets, Path(scratch), workers=args.workers)
            tasks = Path(scratch) / "tasks.jsonl"
            print(f"generated {tasks} in {time.perf_counter() - started:.1f} s (not timed below)")
        predictions = Path(scratch) / "predictions.jsonl"
        kinds = build_predictions(tasks, predictions, args.lines)
        lines = sum(count for kind, count in kinds.items() if kind != "missing")
        print(
            "prediction lines:",
            ", ".join(f"{kind} {count}" for kind, count in kinds.items() if kind != "missing"),
        )
        print(f"tasks without a prediction: {kinds['missing']}")
        started = time.perf_counter()
        report = score(tasks, predictions, workers=args.workers)
        seconds = time.perf_counter() - started
    oe_cases = len({s.case_id for s in report.samples if s.task == "OE" and s.parsed})
    print(
        f"score: {seconds:.1f} s wall, {args.workers} worker(s), {lines / seconds:.0f} prediction lines/s; "
        f"{report.scored} samples scored, {oe_cases} distinct OE cases solved and checked"
    )
    print(
        f"line errors {len(report.errors)}, unknown ids {len(report.unknown)}, missing {len(report.missing)}"
    )
    for group in report.by_task:
        m = group.metrics
        extra = ""
        if "mare" in m and m["mare"].mean is not None:
            extra += f"  MARE {m['mare'].mean:.3f}"
        if group.task == "OE":
            extra += f"  valid {m['valid'].mean:.1%}  optimal {m['optimal'].mean:.1%}"
        print(
            f"  {group.task}: n {group.n}  format {m['format'].mean:.1%}  "
            f"F1 {m['f1'].mean:.3f} ± {m['f1'].se:.3f}{extra}"
        )
    print(f"target < {TARGET_SECONDS:.0f} s: {'MET' if seconds < TARGET_SECONDS else 'MISSED'}")


if __name__ == "__main__":
    main()
