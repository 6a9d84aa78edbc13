"""Generating task sets: sample each case once, solve it once, render it for every dataset that uses it.

Datasets with the same case shape (config.case_shape) share their cases, so a suite compares task variants
and obfuscations on the very same cases, and the logic program solves each case once. Work is split by
case across processes; records are put back in dataset and index order, so the output is byte-identical
whatever the number of workers.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.datafiles import data_dir
from lexsym._util.errors import LexsymError, SolveError
from lexsym._util.parallel import Executor, map_in_order
from lexsym._version import __version__
from lexsym.generate.config import GeneratorConfig, shape_id
from lexsym.generate.suites import Dataset
from lexsym.law.gold import gold_answers
from lexsym.law.rules import encoded_jurisdictions, rules_root
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import systems_of

MANIFEST_VERSION = 1


@dataclass(frozen=True)
class _Job:
    shape: str
    index: int
    datasets: tuple[Dataset, ...]


def _prompt_jurisdictions(config: GeneratorConfig) -> tuple[str, ...]:
    if config.statutes_in_prompt == "all":
        states = [code for code in encoded_jurisdictions(rules_root()) if code != "US"]
    else:  # a state's systems: California's two
        states = [system for state in config.state_jurisdictions for system in systems_of(state)]
    return ("US", *states)


def _run_jobs(jobs: list[_Job]) -> list[list[tuple[str, int, str]]]:
    """For each job, its task record for every dataset sharing its case: (dataset key, index, line). The
    jobs' cases, and the obfuscated twins that prove the law ignores the distractions, are solved
    together."""
    from lexsym.generate.sampling import sample_scenario
    from lexsym.law.solver import solve_cases

    scenarios = [sample_scenario(job.datasets[0].config, job.index) for job in jobs]
    twins = [i for i, job in enumerate(jobs) if any(d.config.obfuscated for d in job.datasets)]
    cases = [s.case for s in scenarios] + [scenarios[i].obfuscated_case() for i in twins]
    solved = solve_cases(cases)
    again = dict(zip(twins, solved[len(jobs) :], strict=True))
    return [
        _render_job(job, scenario, solution, again.get(index))
        for index, (job, scenario, solution) in enumerate(zip(jobs, scenarios, solved, strict=False))
    ]


def _render_job(
    job: _Job, scenario: Any, solution: Any, obfuscated_solution: Any
) -> list[tuple[str, int, str]]:
    from lexsym.generate.render import render_prompt
    from lexsym.law.statute_sheet import sheet_for

    for result in (solution, obfuscated_solution):
        if isinstance(result, LexsymError):
            raise result
    _refuse_stale_amounts(scenario.case, solution)
    gold = gold_answers(scenario.case, solution)
    # The distracting stays and other people's property are facts of the obfuscated case: re-solving it
    # proves the law ignores them (the gold answers must not move).
    if obfuscated_solution is not None and gold_answers(scenario.case, obfuscated_solution) != gold:
        raise SolveError(f"case {scenario.case.id}: obfuscation changed the gold answers")
    lines = []
    for dataset in job.datasets:
        config = dataset.config
        sheet = sheet_for(scenario.case.petition_date, _prompt_jurisdictions(config))
        prompt = render_prompt(scenario, config, sheet, gold)
        split = "dev" if job.index < config.split.dev else "test"
        case = scenario.obfuscated_case() if config.obfuscated else scenario.case
        record = {
            "id": f"{dataset.key}/{split}-{job.index:04d}",
            "task": config.terminal_task.value,
            "variant": config.variant,
            "split": split,
            "prompt": {"system": prompt.system, "user": prompt.user},
            "gold": gold[config.terminal_task.value],
            "solved_steps": {t.value: gold[t.value] for t in Task if t.number < config.start_task.number},
            "reference": gold,
            "metadata": {
                "suite": dataset.suite,
                "dataset": dataset.name,
                "case_id": scenario.case.id,
                "seed": config.seed,
                "married": scenario.married,
                "asset_count": len(scenario.case.assets),
                "domicile_count": len(scenario.residences),
                "rule_path": scenario.rule_path,
                "governing_state": scenario.target_state,
                "petition_date": scenario.case.petition_date.isoformat(),
                "states_in_prompt": list(_prompt_jurisdictions(config)[1:]),
                "context": {
                    "setting": "none" if config.statutes_in_prompt == "none" else "statutes",
                    "statutes_in_prompt": config.statutes_in_prompt,
                    "truncation": "none",
                },
                "obfuscation": {
                    "irrelevant_asset_facts": config.irrelevant_asset_facts,
                    "irrelevant_domicile_facts": config.irrelevant_domicile_facts,
                    "asset_opinions": config.asset_opinions,
                    "domicile_opinions": config.domicile_opinions,
                },
                "rules_digest": solution.rules_digest,
                "readings": solution.readings,
                "warnings": solution.warnings,
            },
            "case": json.loads(case.model_dump_json()),
        }
        lines.append((dataset.key, job.index, json.dumps(record, ensure_ascii=False, sort_keys=True)))
    return lines


def _refuse_stale_amounts(case: Any, solution: Any) -> None:
    """Gold must not rest on figures known to understate the law (an indexed amount not yet encoded)."""
    from lexsym.law.amount_notes import STALE_WARNING

    stale = [warning for warning in solution.warnings if STALE_WARNING in warning]
    if stale:
        raise SolveError(
            f"case {case.id} (petition {case.petition_date}): {stale[0]}; choose petition dates before the "
            "adjustment (petition_date_max) or encode the adjusted figure"
        )


def _jobs(datasets: Sequence[Dataset]) -> list[_Job]:
    by_shape: dict[str, list[Dataset]] = defaultdict(list)
    for dataset in datasets:
        by_shape[shape_id(dataset.config)].append(dataset)
    jobs = []
    for shape, group in by_shape.items():
        size = max(d.config.split.size for d in group)
        for index in range(size):
            members = tuple(d for d in group if index < d.config.split.size)
            jobs.append(_Job(shape, index, members))
    return jobs


def content_digest(paths: Iterable[Path]) -> str:
    """A hash of every file under `paths`, by relative name and content."""
    digest = hashlib.sha256()
    for base in paths:
        for path in sorted(p for p in base.rglob("*") if p.is_file()):
            digest.update(f"{base.name}/{path.relative_to(base).as_posix()}".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def inputs_digest() -> dict[str, str]:
    root = rules_root()
    return {
        "statutes_encodings": content_digest([root / "statutes", root / "encodings"]),
        "templates": content_digest([data_dir("templates")]),
        "catalogue": content_digest([data_dir("assets")]),
    }


def generate(
    datasets: Sequence[Dataset],
    out: Path,
    *,
    workers: int | None = None,
    executor: Executor | str = Executor.local,
    per_suite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Write `tasks.jsonl` and `manifest.json` into `out` (or into `out/<suite>/` for each suite, with a
    summary `out/manifest.json`); return the top manifest. Cases are solved in `workers` local processes
    (None: one per core) or, with `executor` "ray", on a Ray cluster."""
    from lexsym.law.solver import CASES_PER_GROUNDING

    jobs = _jobs(datasets)
    workers = workers or os.cpu_count() or 1
    results: dict[str, dict[int, str]] = defaultdict(dict)
    runs = [jobs[i : i + CASES_PER_GROUNDING] for i in range(0, len(jobs), CASES_PER_GROUNDING)]
    done = 0
    for rendered in map_in_order(_run_jobs, runs, workers=workers, executor=executor, chunk_size=1):
        for lines in rendered:
            for key, index, line in lines:
                results[key][index] = line
        done += len(rendered)
        if progress:
            progress(done, len(jobs))
    inputs = inputs_digest()
    if not per_suite:
        return _write(out, datasets, results, inputs)
    suites: dict[str, list[Dataset]] = defaultdict(list)
    for dataset in datasets:
        suites[dataset.suite].append(dataset)
    summary = {
        "manifest_version": MANIFEST_VERSION,
        "lexsym_version": __version__,
        "inputs": inputs,
        "suites": {name: _write(out / name, members, results, inputs) for name, members in suites.items()},
    }
    summary["tasks"] = sum(m["tasks"] for m in summary["suites"].values())
    summary["suites"] = {
        name: {"tasks": m["tasks"], "tasks_sha256": m["tasks_sha256"]}
        for name, m in summary["suites"].items()
    }
    write_atomic(out / "manifest.json", json.dumps(summary, indent=2, sort_keys=True) + "\n")
    return summary


def _write(
    out: Path, datasets: Sequence[Dataset], results: dict[str, dict[int, str]], inputs: dict[str, str]
) -> dict[str, Any]:
    ordered = [results[d.key][i] for d in datasets for i in range(d.config.split.size)]
    text = "".join(line + "\n" for line in ordered)
    write_atomic(out / "tasks.jsonl", text)
    manifest = {
        "manifest_version": MANIFEST_VERSION,
        "lexsym_version": __version__,
        "inputs": inputs,
        "tasks": len(ordered),
        "splits": {
            "dev": sum(d.config.split.dev for d in datasets),
            "test": sum(d.config.split.test for d in datasets),
        },
        "datasets": [
            {
                "key": d.key,
                "suite": d.suite,
                "name": d.name,
                "variant": d.config.variant,
                "case_shape": shape_id(d.config),
                "catalogue_edition": d.config.edition,
                "dev": d.config.split.dev,
                "test": d.config.split.test,
                "config": json.loads(d.config.model_dump_json()),
            }
            for d in datasets
        ],
        "tasks_sha256": hashlib.sha256(text.encode()).hexdigest(),
    }
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest
