"""What the `utils.py` of a `lexsym export lm-eval` folder calls: loading its documents, the prompt, and
scoring one output with lexsym's scorer. The generated file only points here, so an exported folder
never holds a copy of lexsym's logic and scores as the installed lexsym does.

Documents are the export's compact rows (`lexsym.publish.compact_records`) with the full `system` and
`user` prompt texts rebuilt once, on loading. The metrics are lexsym's per-sample scores; `metric_specs`
says how lm-eval aggregates each one so that its means are `lexsym score`'s (metrics that some samples
lack are NaN there and averaged with `nanmean`; the median relative error is a median, as lexsym's).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_json
from lexsym.publish.compact_records import SharedTexts, full_prompt, full_record
from lexsym.publish.parquet_tables import read_rows
from lexsym.publish.sample_scores import sample_scores
from lexsym.runner.tasksets import messages_for
from lexsym.scoring import metrics
from lexsym.scoring.results import MEDIAN_METRICS, OE_RATES, PARTIAL_METRICS, RATE_METRICS
from lexsym.scoring.task_scorers import empty_scores

DATA_FOLDER = "data"
SHARED_FILE = "contexts.parquet"
#: The what-if table a suite's gold rests on, when it has one (`lexsym.scoring.inputs.TABLE_FILE`).
TABLE_FILE = "table.json"
#: MCQ accuracy among the answers whose option could be read (lexsym's accuracy_extracted).
EXTRACTED = "accuracy_extracted"
#: Errors, not rates: lower is better.
LOWER_IS_BETTER = frozenset(PARTIAL_METRICS)


@dataclass(frozen=True)
class MetricSpec:
    """One metric of an lm-eval task: its name, lm-eval aggregation and direction."""

    name: str
    aggregation: str  # "mean", "nanmean" (undefined samples left out) or "median" (median_over_defined)
    higher_is_better: bool


def metric_specs(task: str) -> list[MetricSpec]:
    """The metrics `lexsym score` aggregates for `task`, in its order: the rates every sample has, then
    those some samples lack (MARE without a matched amount, a gap without a valid schedule)."""
    rates = [*RATE_METRICS, *(OE_RATES if task == "OE" else ()), *(("accuracy",) if task == "MCQ" else ())]
    partial = [name for name in PARTIAL_METRICS if name in empty_scores(task)]
    partial += [EXTRACTED] if task == "MCQ" else []
    specs = [MetricSpec(name, "mean", True) for name in rates]
    for name in partial:
        aggregation = "median" if name in MEDIAN_METRICS else "nanmean"
        specs.append(MetricSpec(name, aggregation, name not in LOWER_IS_BETTER))
    return specs


def shared_texts(folder: Path) -> SharedTexts:
    """The shared prompt texts of an exported suite folder, read once per process (again if the file
    changed: an export replaced in place)."""
    path = folder / DATA_FOLDER / SHARED_FILE
    try:
        stat = path.stat()
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})") from None
    return _read_shared(path, stat.st_mtime_ns, stat.st_size)


@cache
def _read_shared(path: Path, _mtime_ns: int, _size: int) -> SharedTexts:
    shared = SharedTexts()
    for row in read_rows(path):
        shared.entries[row["id"]] = (row["kind"], row["text"])
    return shared


def task_table(folder: Path) -> dict[str, Any] | None:
    """The what-if table of an exported suite folder, or None; read once per process."""
    path = folder / DATA_FOLDER / TABLE_FILE
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return _read_table(path, stat.st_mtime_ns, stat.st_size)


@cache
def _read_table(path: Path, _mtime_ns: int, _size: int) -> dict[str, Any]:
    return read_json(path)


def load_docs(folder: str | Path, data_file: str, **_settings: Any) -> Any:
    """The documents of one task, by split, as a `datasets.DatasetDict` (lm-eval's `custom_dataset`).
    lm-eval also passes the task's metadata and settings; they are not needed here."""
    import datasets

    folder = Path(folder)
    texts = shared_texts(folder)
    by_split: dict[str, list[dict[str, Any]]] = {}
    for row in read_rows(folder / DATA_FOLDER / data_file):
        by_split.setdefault(row["split"], []).append({**row, **full_prompt(row, texts)})
    return datasets.DatasetDict({split: datasets.Dataset.from_list(docs) for split, docs in by_split.items()})


def _messages(doc: Mapping[str, Any]) -> list[dict[str, str]]:
    """The chat messages `lexsym run` sends for the task (`lexsym.runner.tasksets.messages_for`)."""
    return messages_for({"prompt": {"system": doc["system"], "user": doc["user"]}})


def doc_to_text(doc: Mapping[str, Any]) -> str:
    """The user message lexsym sends. The system message is the task's `description` (doc field `system`),
    which lm-eval sends as the system turn with `--apply_chat_template`."""
    return _messages(doc)[-1]["content"]


def doc_to_text_inline(doc: Mapping[str, Any]) -> str:
    """The system and user messages as one text, a blank line between them: for models without a chat
    template (an export made with `--system inline`). lexsym itself always sends two messages."""
    return "\n\n".join(message["content"] for message in _messages(doc))


def doc_to_target(doc: Mapping[str, Any]) -> str:
    """The gold answer as JSON (what a few-shot example would show; lexsym's prompts are zero-shot)."""
    return doc["gold"]


def process_results(
    doc: Mapping[str, Any], results: list[str], folder: str | Path | None = None
) -> dict[str, float]:
    """lexsym's per-sample scores of the model's output `results[0]` (`lexsym.publish.sample_scores`),
    under the what-if table of the suite `folder`, if it has one; a metric the sample lacks is NaN, which
    the task's `nanmean` and `median_over_defined` leave out."""
    record = full_record(doc, None)
    table = task_table(Path(folder)) if folder is not None else None
    scores = sample_scores(record, results[0] if results else "", table)
    if record["task"] == "MCQ":
        scores[EXTRACTED] = scores["accuracy"] if scores["format"] else None
    return {
        spec.name: math.nan if scores.get(spec.name) is None else float(scores[spec.name])  # type: ignore[arg-type]
        for spec in metric_specs(record["task"])
    }


def _defined(values: Iterable[float | None]) -> list[float]:
    return [v for v in values if v is not None and not math.isnan(v)]


def median_over_defined(values: Iterable[float | None]) -> float:
    """The median of the defined values (the middle two averaged), as lexsym reports median_re; NaN when
    no sample has one."""
    found = metrics.median(_defined(values))
    return math.nan if found is None else found
