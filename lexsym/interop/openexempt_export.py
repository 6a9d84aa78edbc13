"""Exporting lexsym task sets in OpenExempt's dataset layout, so its evaluator and tools read them.

OpenExempt keeps one dataset per task variant (one terminal task) in a folder: config.json, shared.json
(the prompt fields every task shares), test.jsonl and dev.jsonl (uid, jurisdiction, facts, solved_steps,
solution) and cases.jsonl / dev_cases.jsonl (native cases), with uids `<dataset_id>_<split>_task_<n>`;
suites are folders of datasets named after its suite ids. A lexsym task set is split by suite and dataset
(and by interval of statute figures, should its petition dates straddle a change) into such folders,
beside a `statutes/` folder holding lexsym's figures as OpenExempt statute files (its evaluator needs them
for OE). What the format cannot hold is written to losses.json and LOSSES.md; nothing is dropped silently.

Paths inside the export are relative to its root, as OpenExempt's own are relative to its checkout: run
its tools from the export root (README.md there says how).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym._util.json_file import read_json
from lexsym.interop.openexempt import table_from_openexempt
from lexsym.interop.openexempt_dataset import SHARED_PARTS, joined_prompt
from lexsym.interop.openexempt_dataset_config import SUITES, TASK_NAMES, dataset_config, task_number
from lexsym.interop.openexempt_export_input import read_task_records, task_sets
from lexsym.interop.openexempt_export_notes import export_readme, losses_markdown
from lexsym.interop.openexempt_oe_check import fit_oe_gold, least_non_exempt
from lexsym.interop.openexempt_statute_files import (
    NATIVE_JURISDICTIONS,
    StatuteFiles,
    file_name,
    statute_files_on,
)
from lexsym.interop.openexempt_task_pieces import (
    RESPONSE_FORMAT_NOTE,
    RESPONSE_FORMATS,
    native_case,
    prompt_segments,
    solution,
    split_prompts,
    state_jurisdiction,
)


@dataclass
class _Group:
    """The records of one lexsym dataset that share one set of statute figures."""

    suite: str
    dataset: str
    files: StatuteFiles
    config: dict[str, Any] | None
    records: list[dict[str, Any]] = field(default_factory=list)


def export_openexempt(tasks_path: str | Path, out_dir: str | Path, *, rules: str | None = None) -> dict:
    """Write the task set at `tasks_path` (a tasks.jsonl, its folder, or a folder of suite folders) into
    `out_dir` in OpenExempt's layout; return the summary also written to `out_dir/export.json`."""
    out = Path(out_dir)
    sources = task_sets(Path(tasks_path))
    groups = _groups(sources, rules)  # every record read and checked before anything is written
    _clear_previous(out)
    contents = {_digest(g.files.documents): g.files for g in groups}
    statute_dirs = {
        key: "statutes" if len(contents) == 1 else f"statutes_{files.period_start}"
        for key, files in contents.items()
    }
    for key, files in contents.items():
        for name, document in files.documents.items():
            _write_json(out / statute_dirs[key] / name, document, ascii_only=False)
    tables = {key: table_from_openexempt(out / statute_dirs[key]) for key in contents}
    written: list[dict[str, Any]] = []
    counters: dict[tuple[str, str], int] = defaultdict(int)
    caches = _Caches(rules)
    for group in groups:
        task = group.records[0]["task"]
        counters[(group.suite, task)] += 1
        name = f"{TASK_NAMES[task]}_{counters[(group.suite, task)]}"
        key = _digest(group.files.documents)
        written.append(_write_dataset(out, group, name, statute_dirs[key], tables[key], caches))
    statute_losses = [
        {"statutes": statute_dirs[key], **loss.to_dict()}
        for key, files in contents.items()
        for loss in files.losses
    ]
    summary = _summary(sources, written, statute_dirs, contents, statute_losses)
    losses = {
        "statutes": statute_losses,
        "datasets": [d["losses"] for d in written if _has_losses(d["losses"])],
    }
    _write_json(out / "losses.json", losses, ascii_only=False)
    write_atomic(out / "LOSSES.md", losses_markdown(losses, summary))
    write_atomic(out / "README.md", export_readme(summary))
    _write_json(out / "export.json", summary, ascii_only=False)
    return summary


def _clear_previous(out: Path) -> None:
    """Refuse a folder that holds anything but a previous export; remove what that export wrote."""
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError(f"{out}: not a directory")
    entries = list(out.iterdir())
    if not entries:
        return
    previous = out / "export.json"
    if not previous.is_file():
        raise InputError(
            f"{out}: not empty and not an OpenExempt export (no export.json); choose a new --out"
        )
    listed = read_json(previous).get("paths", [])
    for entry in entries:
        if entry.name not in listed:
            raise InputError(
                f"{out}: {entry.name} was not written by the previous export; choose a new --out"
            )
    for entry in entries:
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


def _groups(sources: list[tuple[Path, dict[str, Any] | None]], rules: str | None) -> list[_Group]:
    import datetime as dt

    groups: dict[tuple[str, str, str], _Group] = {}
    for path, manifest in sources:
        configs = {d.get("key"): d.get("config") for d in (manifest or {}).get("datasets", [])}
        for record in read_task_records(path):
            metadata = record["metadata"]
            suite, dataset = str(metadata.get("suite", "custom")), str(metadata.get("dataset", "dataset"))
            try:
                day = dt.date.fromisoformat(str(record["case"]["petition_date"]))
            except ValueError:
                raise InputError(f"{record['_source']}: case.petition_date is not a date") from None
            files = statute_files_on(day, rules)
            key = (suite, dataset, _digest(files.documents))
            if key not in groups:
                groups[key] = _Group(suite, dataset, files, configs.get(f"{suite}/{dataset}"))
            groups[key].records.append(record)
    return list(groups.values())


@dataclass
class _Caches:
    """What several datasets of one export share: each case's classification and OpenExempt optimum."""

    rules: str | None
    classification: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    least: dict[str, int] = field(default_factory=dict)


def _write_dataset(
    out: Path, group: _Group, name: str, statute_dir: str, table: Any, caches: _Caches
) -> dict[str, Any]:
    """Write one dataset folder; return its summary entry (with its losses)."""
    suite_folder, suite_id = SUITES.get(group.suite, (_slug(group.suite), _slug(group.suite)))
    dataset_id = f"{suite_id}_{name}"
    folder = out / suite_folder / dataset_id
    kept, dropped, notes = _convert(group, statute_dir, table, caches)
    task = group.records[0]["task"]
    entry: dict[str, Any] = {
        "dataset_id": dataset_id,
        "path": f"{suite_folder}/{dataset_id}",
        "lexsym_dataset": f"{group.suite}/{group.dataset}",
        "task": task,
        "test": 0,
        "dev": 0,
        "dropped": len(dropped),
        "statutes": statute_dir,
        "statute_text_in": "absent",
        "outside_openexempt_ranges": {},
    }
    prompt_notes = [RESPONSE_FORMAT_NOTE] if task in RESPONSE_FORMATS else []
    entry["losses"] = {"dataset_id": dataset_id, "dropped": dropped, "tasks": notes, "prompt": prompt_notes}
    if not kept:
        entry["path"] = None  # nothing to write: every task was left out (see the losses)
        entry["losses"]["config"] = {}
        return entry
    shared, pieces, entry["statute_text_in"] = split_prompts([item.segments for item in kept])
    ids: dict[str, str] = {}
    lines: dict[str, list[tuple[dict, dict]]] = {"test": [], "dev": []}
    for item, piece in zip(kept, pieces, strict=True):
        uid = f"{dataset_id}_{item.split}_task_{len(lines[item.split])}"
        ids[uid] = item.lexsym_id
        if joined_prompt({**shared, **piece}) != "\n\n".join(text for _n, text in item.segments):
            raise AssertionError(f"{item.lexsym_id}: the OpenExempt fields do not join to the prompt")
        line = {"uid": uid, "jurisdiction": item.case["state_jurisdiction"], **piece, "solution": item.target}
        lines[item.split].append((line, item.case))
    start = str(group.records[0].get("variant", task)).split("-")[0]
    shared_line = {
        "start_task_id": task_number(start if start in TASK_NAMES else task),
        "terminal_task_id": task_number(task),
        **{key: shared[key] for key in SHARED_PARTS},
    }
    config, outside = dataset_config(group, name, dataset_id, suite_folder, statute_dir, len(lines["test"]))
    _write_json(folder / "config.json", config, indent=4)
    _write_json(folder / "shared.json", shared_line, indent=4)
    for split, (tasks_file, cases_file) in {"test": ("test", "cases"), "dev": ("dev", "dev_cases")}.items():
        write_atomic(folder / f"{tasks_file}.jsonl", "".join(json.dumps(t) + "\n" for t, _c in lines[split]))
        write_atomic(folder / f"{cases_file}.jsonl", "".join(json.dumps(c) + "\n" for _t, c in lines[split]))
    mapping = {"lexsym_dataset": entry["lexsym_dataset"], "tasks": ids, "dropped": dropped}
    _write_json(folder / "lexsym.json", mapping, ascii_only=False)
    entry |= {"test": len(lines["test"]), "dev": len(lines["dev"]), "outside_openexempt_ranges": outside}
    entry["losses"]["config"] = outside
    return entry


@dataclass(frozen=True)
class _Kept:
    """One task as OpenExempt will hold it."""

    lexsym_id: str
    split: str
    case: dict[str, Any]
    target: Any
    segments: list[tuple[str, str]]


def _convert(group: _Group, statute_dir: str, table: Any, caches: _Caches):
    """(the tasks kept, {lexsym id: why left out}, {lexsym id: notes on what a kept task lost})."""
    documents = {
        value: group.files.documents[file_name(code)] for code, value in NATIVE_JURISDICTIONS.items()
    }
    kept: list[_Kept] = []
    dropped: dict[str, str] = {}
    notes: dict[str, list[str]] = {}
    for record in group.records:
        task, lexsym_id = record["task"], record["id"]
        state = state_jurisdiction(record["reference"]["AE"])
        if state is None:
            dropped[lexsym_id] = (
                f"OpenExempt cannot name the allowable jurisdictions {record['reference']['AE']}"
            )
            continue
        losses: list[str] = []
        case = native_case(record["case"], state, _applicable(record, group.files, caches), losses)
        target = solution(task, record["gold"])
        if task == "EC" and not any(target.values()):
            dropped[lexsym_id] = (
                "no asset has an applicable exemption: OpenExempt scores an empty EC target 0 (or NaN) "
                "for every answer"
            )
            continue
        if task == "OE":
            problem, target = fit_oe_gold(
                target,
                case,
                documents,
                group.files.opted_out,
                record["reference"]["AE"],
                record["gold"],
                losses,
                lambda allowed, r=record, c=case: _least(r, c, allowed, statute_dir, table, caches),
            )
            if problem:
                dropped[lexsym_id] = problem
                continue
        segments = prompt_segments(record["prompt"]["system"], record["prompt"]["user"], task)
        split = "dev" if record["split"] == "dev" else "test"
        kept.append(_Kept(lexsym_id, split, case, target, segments))
        if losses:
            notes[lexsym_id] = losses
    kept.sort(key=lambda item: item.split != "test")  # test first: shared.json is written from the test split
    return kept, dropped, notes


def _least(record, case, allowed, statute_dir: str, table: Any, caches: _Caches) -> int:
    """OpenExempt's least non-exempt value for a native case, once per case, statutes and jurisdictions."""
    facts = [case["assets"], case["joint_debtor"] is not None, case["petition_date"], allowed, statute_dir]
    key = hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()
    if key not in caches.least:
        caches.least[key] = least_non_exempt(record["case"], case, table, allowed)
    return caches.least[key]


def _applicable(record, files: StatuteFiles, caches: _Caches) -> dict[str, list[str]]:
    """Each asset id's citations under every OpenExempt jurisdiction, from lexsym's first pass."""
    from lexsym.law.case import parse_case
    from lexsym.law.first_pass import first_pass
    from lexsym.law.rules import rules_root

    key = hashlib.sha256(json.dumps(record["case"], sort_keys=True).encode()).hexdigest()
    cache = caches.classification
    if key not in cache:
        case = parse_case(record["case"], source=f"{record['_source']}: case")
        _case, first = first_pass(case, rules_root(caches.rules), (), None)
        citation = first.citations()
        order = {
            (code.lower(), cited): (rank, position)
            for rank, code in enumerate(NATIVE_JURISDICTIONS)
            for position, cited in enumerate(files.citations[code])
        }
        found: dict[str, list[tuple]] = defaultdict(list)
        for jurisdiction, asset, exemption, _basis in first.rows["eligible_by"]:
            place = order.get((jurisdiction, citation.get(exemption, exemption)))
            if place is not None:
                found[asset].append((place, citation[exemption]))
        cache[key] = {
            asset: list(dict.fromkeys(c for _p, c in sorted(rows))) for asset, rows in found.items()
        }
    return cache[key]


def _summary(sources, written, statute_dirs, contents, statute_losses) -> dict[str, Any]:
    """export.json: what was written where, with counts; `paths` lets a later export replace this one."""
    tasks_digest = hashlib.sha256(b"".join(path.read_bytes() for path, _m in sources)).hexdigest()
    suites = sorted({d["path"].split("/")[0] for d in written if d["path"]})
    readable = [s for s in suites if s in {folder for folder, _id in SUITES.values()}]
    return {
        "format": "OpenExempt datasets (servantez/OpenExempt: source/task_dataset.py, source/config.py)",
        "source_tasks_sha256": tasks_digest,
        "datasets": [{k: v for k, v in d.items() if k != "losses"} for d in written],
        "tasks": {
            "test": sum(d["test"] for d in written),
            "dev": sum(d["dev"] for d in written),
            "dropped": sum(d["dropped"] for d in written),
        },
        "suites": {
            s: ("TaskSuite.from_directory" if s in readable else "datasets only (no OpenExempt suite id)")
            for s in suites
        },
        "statutes": {statute_dirs[k]: str(f.period_start) for k, f in contents.items()},
        "statute_losses": len(statute_losses),
        "paths": sorted(
            {*suites, *statute_dirs.values(), "export.json", "losses.json", "LOSSES.md", "README.md"}
        ),
    }


def _has_losses(losses: dict[str, Any]) -> bool:
    return any(losses[key] for key in ("dropped", "tasks", "prompt", "config"))


def _digest(documents: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(documents, sort_keys=True).encode()).hexdigest()[:16]


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "suite"
    return f"suite_{slug}" if slug.startswith("statutes") else slug


def _write_json(path: Path, value: Any, *, indent: int = 2, ascii_only: bool = True) -> None:
    write_atomic(path, json.dumps(value, indent=indent, ensure_ascii=ascii_only) + "\n")
