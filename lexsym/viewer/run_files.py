"""The files of one run directory, read for the viewer: the header, the task records, the samples, the
per-sample rows of scores(.rK).json and the judges' replies in judgements.jsonl.

Why not the results table alone: the table holds one flat row per sample (what the list filters and sorts
by); opening a sample needs the texts the table leaves out (prompt, completion, reasoning, the gold, every
judge reply). Every file is read tolerantly where the run writes it append-only (samples.jsonl and
judgements.jsonl, as a live or killed run leaves them), and strictly where it is written atomically.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_json
from lexsym.analysis.table import task_file
from lexsym.judges.settings import JUDGEMENTS
from lexsym.runner.rundir import HEADER, SAMPLES
from lexsym.runner.samples_log import read_samples
from lexsym.runner.tasksets import load_task_set

_SCORES = re.compile(r"^scores(?:\.r(\d+))?\.json$")


@dataclass
class RunFiles:
    """One run directory's contents, keyed for lookups by sample."""

    path: Path
    header: dict[str, Any]
    records: dict[str, dict[str, Any]]
    samples: list[dict[str, Any]]
    scored: dict[tuple[int, str], dict[str, Any]] = field(default_factory=dict)
    judgements: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    tasks_path: Path | None = None


def _latest_judgements(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Per sample id, the last judgement line of each (judge, kind): a resumed session may judge a failed
    sample again, and the later line is the one the scores use."""
    latest: dict[tuple[str, str, str], dict[str, Any]] = {}
    for line in read_samples(path):  # judgement lines carry task_id and repeat like sample lines
        key = (str(line.get("sample_id")), str(line.get("judge")), str(line.get("kind")))
        latest[key] = line
    found: dict[str, list[dict[str, Any]]] = {}
    for (sample_id, _, _), line in latest.items():
        found.setdefault(sample_id, []).append(line)
    return found


def read_run(run_dir: str | Path) -> RunFiles:
    """Read a run directory; InputError when it is not one or a result file cannot be read."""
    path = Path(run_dir)
    if not (path / HEADER).is_file():
        raise InputError(f"{path}: not a run directory (no {HEADER})")
    header = read_json(path / HEADER)
    tasks = task_file(path, header)
    task_set = load_task_set(tasks)
    samples: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for sample in read_samples(path / SAMPLES):
        key = (sample["task_id"], sample["repeat"])
        if key not in seen:  # a line repeated by a resume: the first one counts, as in the run's scores
            seen.add(key)
            samples.append(sample)
    scored: dict[tuple[int, str], dict[str, Any]] = {}
    for scores in sorted(path.glob("scores*.json")):
        match = _SCORES.match(scores.name)
        if match is not None:
            for row in read_json(scores).get("samples", []):
                scored[(int(match.group(1) or 0), row["id"])] = row
    return RunFiles(
        path=path,
        header=header,
        records={record["id"]: record for record in task_set.records},
        samples=samples,
        scored=scored,
        judgements=_latest_judgements(path / JUDGEMENTS),
        tasks_path=task_set.path,
    )
