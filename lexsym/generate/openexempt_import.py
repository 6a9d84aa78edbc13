"""`lexsym import openexempt`: OpenExempt's published benchmark (or a replay export of its cases) re-golded
by the logic program, written as lexsym task sets with a gold-diff report.

For each statute table asked for (OpenExempt's parameters, read from its statute files, and lexsym's own
statutes), the import writes `OUT/<table>/<suite>/tasks.jsonl` (every dataset of the suite; `manifest.json`
beside it, and `table.json` when the gold rests on OpenExempt's parameters, so that `lexsym score` checks
OE answers under the same figures), `OUT/<table>/manifest.json`, and `OUT/<table>/gold_diff.json` and
`.md`: every task whose gold changed, with its cause.

A task's prompt is OpenExempt's own, sent as one user message as OpenExempt sends it. Under lexsym's
statutes its statute part is replaced by lexsym's statute sheet for the petition date, so the prompt states
the law the gold rests on. A replay export has no prompts: it yields the gold diff only.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym._util.jsonl import LineError, read_jsonl
from lexsym._util.parallel import Executor, map_in_order
from lexsym._version import __version__
from lexsym.interop.gold_diff import GoldItem, gold_diff, markdown
from lexsym.interop.gold_items import is_replay_record, item_from_task, items_from_replay
from lexsym.interop.openexempt import table_from_openexempt
from lexsym.interop.openexempt_dataset import (
    OpenExemptDataset,
    OpenExemptTask,
    find_datasets,
    joined_prompt,
    read_dataset,
)
from lexsym.interop.openexempt_regold import TABLES, regold, task_record
from lexsym.law.whatif import ExemptionTable

IMPORT_VERSION = 1


@dataclass(frozen=True)
class _Job:
    task: OpenExemptTask
    dataset: str
    suite: str
    table_name: str
    table: ExemptionTable | None
    opt_out: dict[str, bool] | None


def statute_directory(source: Path, datasets: Sequence[OpenExemptDataset], given: Path | None) -> Path | None:
    """OpenExempt's statute files: `given`, else the `statute_directory` a dataset's config names, looked
    up from the dataset folder and its parents (OpenExempt writes it relative to its checkout)."""
    if given is not None:
        return given
    for dataset in datasets:
        named = dataset.config.get("statute_directory")
        if not isinstance(named, str):
            continue
        for base in (dataset.directory, *dataset.directory.parents):
            if (base / named).is_dir() and any((base / named).glob("*.json")):
                return base / named
    return None


def lexsym_statutes_part(petition: str, readings: dict[str, str]) -> str:
    """lexsym's statute sheet for the petition date, as the statutes part of an OpenExempt prompt."""
    import datetime as dt

    from lexsym.generate.templates import environment
    from lexsym.law.rules import encoded_jurisdictions, rules_root
    from lexsym.law.statute_sheet import sheet_for

    codes = ("US", *(code for code in encoded_jurisdictions(rules_root()) if code != "US"))
    sheet = sheet_for(dt.date.fromisoformat(petition), codes)
    body = environment().get_template("prompt/statutes.j2").render(sheet=sheet, readings=readings)
    return "Statutes:\n" + body.strip()


def _run(job: _Job) -> tuple[dict[str, Any], GoldItem]:
    item = regold(job.task, job.table)
    record = task_record(item, job.dataset, job.suite, job.table_name)
    parts = dict(job.task.parts)
    if job.table is None:
        parts["statutes"] = lexsym_statutes_part(
            record["metadata"]["petition_date"], record["case"]["readings"]
        )
    prompt = joined_prompt(parts)
    record["prompt"] = {"system": "", "user": prompt}
    gold_item = item_from_task(item, job.dataset, job.opt_out)
    if job.task.start_task.number > 1 and gold_item.their_allowable is not None:
        # The prompt's solved steps state OpenExempt's allowable jurisdictions: say when ours differ.
        ours = {name.casefold() for name in item.gold["AE"]}
        record["metadata"]["openexempt"]["solved_steps_agree"] = set(gold_item.their_allowable) == ours
    return record, gold_item


def _replay_job(job: tuple[dict[str, Any], ExemptionTable | None, str]) -> list[GoldItem]:
    record, table, source = job
    return list(items_from_replay(record, table, source, readings=None if table is not None else {}))


def _pool_map(
    function: Callable,
    jobs: list,
    workers: int,
    progress: Callable[[int, int], None] | None,
    executor: Executor | str = Executor.local,
) -> list:
    return list(map_in_order(function, jobs, workers=workers, executor=executor, progress=progress))


def _replay_records(path: Path) -> list[tuple[int, dict[str, Any]]] | None:
    """The cases of a replay export at `path` (a cases.jsonl, or a folder holding one), else None."""
    file = path / "cases.jsonl" if path.is_dir() else path
    if not file.is_file() or (path.is_dir() and (path / "shared.json").exists()):
        return None
    errors: list[LineError] = []
    lines = list(read_jsonl(file, errors))
    if errors:
        raise InputError(str(errors[0]))
    if not lines or not all(is_replay_record(record) for _, record in lines):
        return None
    return lines


def _write_set(directory: Path, records: list[dict[str, Any]], summary: dict[str, Any], table: Any) -> dict:
    text = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records)
    write_atomic(directory / "tasks.jsonl", text)
    if table is not None:
        write_atomic(directory / "table.json", table.model_dump_json(indent=2) + "\n")
    manifest = {
        "manifest_version": 1,
        "lexsym_version": __version__,
        "tasks": len(records),
        "splits": {split: sum(r["split"] == split for r in records) for split in ("dev", "test")},
        "tasks_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "import": summary,
    }
    write_atomic(directory / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def regold_datasets(
    datasets: Sequence[OpenExemptDataset],
    table_name: str,
    table: ExemptionTable | None,
    opt_out: dict[str, bool] | None,
    workers: int,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | str = Executor.local,
) -> tuple[list[dict[str, Any]], list[GoldItem]]:
    """Every task of `datasets` as a lexsym task record with our gold (in dataset order), and its gold-diff
    item."""
    jobs = [
        _Job(task, dataset.dataset_id, dataset.suite, table_name, table, opt_out)
        for dataset in datasets
        for task in dataset.tasks
    ]
    results = _pool_map(_run, jobs, workers or os.cpu_count() or 1, progress, executor)
    return [record for record, _ in results], [item for _, item in results]


def regold_for_scoring(
    source: Path,
    out_dir: Path,
    *,
    table: str | None,
    statutes: Path | None,
    workers: int = 0,
    executor: Executor | str = Executor.local,
) -> Path:
    """OpenExempt's test tasks under `source` (its runs cover that split only) re-golded into one lexsym
    tasks file in `out_dir` (with the table beside it), for `lexsym score`. `table` None: OpenExempt's
    parameters (the figures its prompts state)."""
    datasets = [read_dataset(d) for d in find_datasets(source)]
    found = statute_directory(source, datasets, statutes)
    name = table or "openexempt"
    if name not in TABLES:
        raise InputError(f"--table {name!r}: choose from {', '.join(TABLES)}")
    if name == "openexempt" and found is None:
        raise InputError(
            f"{source}: re-scoring under the parameters OpenExempt's prompts state needs its statute files: "
            "pass --statutes DIR (its data/statutes), or --table lexsym for lexsym's statutes"
        )
    theirs = table_from_openexempt(found) if found is not None else None
    chosen = theirs if name == "openexempt" else None
    for dataset in datasets:  # OpenExempt runs and evaluates the test split only
        dataset.tasks = [task for task in dataset.tasks if task.split == "test"]
    records, _ = regold_datasets(
        [d for d in datasets if d.tasks], name, chosen, None, workers, executor=executor
    )
    path = Path(out_dir) / "tasks.jsonl"
    write_atomic(path, "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in records))
    if chosen is not None:
        write_atomic(Path(out_dir) / "table.json", chosen.model_dump_json(indent=2) + "\n")
    return path


def import_openexempt(
    source: Path,
    out: Path,
    *,
    tables: Sequence[str] = (),
    statutes: Path | None = None,
    workers: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Re-gold everything under `source` and write it to `out` (see the module docstring); returns the top
    summary, one entry per table. `tables` empty: both tables when OpenExempt's statute files are found,
    else lexsym's only."""
    source, out = Path(source), Path(out)
    workers = workers or os.cpu_count() or 1
    replay = _replay_records(source)
    datasets = [] if replay is not None else [read_dataset(d) for d in find_datasets(source)]
    found = statute_directory(source, datasets, statutes)
    wanted = list(tables) or (["openexempt", "lexsym"] if found else ["lexsym"])
    unknown = [name for name in wanted if name not in TABLES]
    if unknown:
        raise InputError(f"--table {unknown[0]!r}: choose from {', '.join(TABLES)}")
    if "openexempt" in wanted and found is None:
        raise InputError(
            f"{source}: OpenExempt's statute files are needed for --table openexempt (the parameters its "
            "prompts state): pass --statutes DIR (its data/statutes)"
        )
    summary: dict[str, Any] = {"source": str(source), "lexsym_version": __version__, "tables": {}}
    theirs = table_from_openexempt(found) if found is not None else None
    opt_out = dict(theirs.opt_out) if theirs is not None else None
    for name in wanted:
        table = theirs if name == "openexempt" else None
        if replay is not None:
            jobs = [(record, table, f"{source}:{number}") for number, record in replay]
            items = [i for chunk in _pool_map(_replay_job, jobs, workers, progress) for i in chunk]
            sets: dict[str, Any] = {}
        else:
            records, items = regold_datasets(datasets, name, table, opt_out, workers, progress)
            by_suite: dict[str, list[dict[str, Any]]] = defaultdict(list)
            for record in records:
                by_suite[record["metadata"]["suite"]].append(record)
            about = {"import_version": IMPORT_VERSION, "source": str(source), "table": name}
            sets = {
                suite: _write_set(out / name / suite, records, about, table)["tasks"]
                for suite, records in sorted(by_suite.items())
            }
        report = gold_diff(items, name)
        report["source"] = str(source)
        write_atomic(out / name / "gold_diff.json", json.dumps(report, indent=2, sort_keys=True) + "\n")
        write_atomic(out / name / "gold_diff.md", markdown(report))
        entry = {
            "task_sets": sets,
            "compared": report["compared"],
            "changed": report["changed"],
            "by_cause": report["by_cause"],
        }
        write_atomic(
            out / name / "manifest.json",
            json.dumps({**summary, "table": name, **entry}, indent=2, sort_keys=True) + "\n",
        )
        summary["tables"][name] = entry
    return summary
