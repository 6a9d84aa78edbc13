"""`lexsym export lm-eval`: a task folder for lm-evaluation-harness, scored by lexsym's own scorer.

The folder, for `lm_eval --include_path OUT`:

- `<suite>/lexsym_<suite>_<task>.yaml`: one `generate_until` task per task type of each suite, over the
  suite's test split (dev, where present, is its validation split);
- `<suite>/_lexsym_<suite>.yaml`: the suite as a group (no aggregate: lexsym never averages unlike tasks);
- `_lexsym_<task>.yaml`: each task type over every suite, its rates averaged by sample count, which is
  `lexsym score`'s mean over all of them; `_lexsym.yaml` groups those;
- `<suite>/utils.py`: the hooks, which import lexsym (`lexsym.publish.lm_eval_hooks`);
- `<suite>/data/`: the compact rows (zstd parquet), one file per task type, the shared prompt texts, and
  the what-if table the suite's gold rests on, if any;
- `README.md`: how to run it, how the system prompt is sent, what lm-eval cannot reproduce.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError
from lexsym._version import __version__
from lexsym.publish.compact_records import ROW_COLUMNS, SHARED_COLUMNS, SharedTexts, compact_rows
from lexsym.publish.lm_eval_hooks import DATA_FOLDER, SHARED_FILE, TABLE_FILE, metric_specs
from lexsym.publish.lm_eval_readme import SCORED_ORDER, lm_eval_readme
from lexsym.publish.output_folder import write_folder
from lexsym.publish.parquet_tables import require_pyarrow, write_table
from lexsym.publish.task_sources import SuiteSource, identifier, read_sources

KIND = "lm-eval"
SYSTEM_MODES = ("message", "inline")
#: lm-eval's default of 256 new tokens would cut most answers short; lexsym sends no limit by default.
DEFAULT_MAX_GEN_TOKS = 8192
#: Task types lm-eval can score with lexsym, in table order (OPEN tasks need a judge: `lexsym judge`).
SCORED_TASKS = SCORED_ORDER
PREFIX = "lexsym"

UTILS_PY = '''"""lm-evaluation-harness hooks for this lexsym benchmark: they call the installed lexsym,
which must be importable where lm_eval runs (pip install lexsym). Written by `lexsym export lm-eval`."""

from pathlib import Path

from lexsym.publish import lm_eval_hooks

HERE = Path(__file__).resolve().parent

doc_to_text = lm_eval_hooks.doc_to_text
doc_to_text_inline = lm_eval_hooks.doc_to_text_inline
doc_to_target = lm_eval_hooks.doc_to_target
median_over_defined = lm_eval_hooks.median_over_defined


def load_docs(**settings):
    """This folder's documents for one task (`custom_dataset`; `dataset_kwargs` names the data file)."""
    return lm_eval_hooks.load_docs(HERE, **settings)


def process_results(doc, results):
    """lexsym's scores of one output (under this suite's what-if table, if it has one)."""
    return lm_eval_hooks.process_results(doc, results, folder=HERE)
'''


class _Function(str):
    """A YAML value written as lm-eval's `!function utils.<name>` tag."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Function, lambda dumper, value: dumper.represent_scalar("!function", str(value)))


def _yaml(data: dict[str, Any]) -> str:
    header = (
        "# Written by `lexsym export lm-eval`; see README.md. Needs lexsym installed (utils.py imports it).\n"
    )
    return header + yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)


@dataclass
class LmEvalExport:
    """What an lm-eval export wrote: task names by suite, document counts, and what it left out."""

    out: Path
    tasks: dict[str, dict[str, str]] = field(default_factory=dict)  # suite -> task type -> task name
    documents: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def task_name(suite: str, task: str) -> str:
    """The lm-eval task name of one task type of a suite: `lexsym_<suite>_<task>`."""
    return f"{PREFIX}_{identifier(suite)}_{task.lower()}"


def _task_config(
    source: SuiteSource, task: str, splits: list[str], system: str, max_gen_toks: int
) -> dict[str, Any]:
    test = "test" if "test" in splits else splits[-1]
    config: dict[str, Any] = {
        "task": task_name(source.name, task),
        "task_alias": f"{source.name} {task}",
        "custom_dataset": _Function("utils.load_docs"),
        "dataset_kwargs": {"data_file": f"{task.lower()}.parquet"},
        "output_type": "generate_until",
        "test_split": test,
    }
    if "dev" in splits and test != "dev":
        config["validation_split"] = "dev"
    if system == "message":
        config["description"] = "system"  # the doc field: the system turn with --apply_chat_template
        config["doc_to_text"] = _Function("utils.doc_to_text")
    else:
        config["doc_to_text"] = _Function("utils.doc_to_text_inline")
    config.update(
        {
            "doc_to_target": _Function("utils.doc_to_target"),
            "process_results": _Function("utils.process_results"),
            "num_fewshot": 0,
            # lexsym's defaults: greedy, no stop sequence (an answer ends where the model stops).
            "generation_kwargs": {
                "until": [],
                "do_sample": False,
                "temperature": 0.0,
                "max_gen_toks": max_gen_toks,
            },
            "metric_list": [
                {
                    "metric": spec.name,
                    "aggregation": _Function("utils.median_over_defined")
                    if spec.aggregation == "median"
                    else spec.aggregation,
                    "higher_is_better": spec.higher_is_better,
                }
                for spec in metric_specs(task)
            ],
            "metadata": {
                "version": 1.0,
                "lexsym_version": __version__,
                "tasks_sha256": source.sha256,
                "rules_digests": source.rules_digests,
                "seeds": source.seeds,
            },
        }
    )
    return config


def _group(name: str, tasks: list[str], aggregate: list[str] | None = None) -> dict[str, Any]:
    group: dict[str, Any] = {"group": name, "task": tasks}
    if aggregate:
        group["aggregate_metric_list"] = [
            {"metric": metric, "aggregation": "mean", "weight_by_size": True} for metric in aggregate
        ]
    group["metadata"] = {"version": 1.0}
    return group


def export_lm_eval(
    tasks_dir: str | Path,
    out: str | Path,
    *,
    system: str = "message",
    max_gen_toks: int = DEFAULT_MAX_GEN_TOKS,
) -> LmEvalExport:
    """Write the lm-eval task folder `out` for the task sets under `tasks_dir` (module docstring).
    InputError (exit 2) for unreadable task files, a bad setting, or no task lm-eval can score."""
    if system not in SYSTEM_MODES:
        raise InputError(f"--system must be one of {', '.join(SYSTEM_MODES)}, not {system!r}")
    if max_gen_toks < 1:
        raise InputError(f"--max-gen-toks must be at least 1, not {max_gen_toks}")
    require_pyarrow()
    sources = read_sources(tasks_dir)
    result = LmEvalExport(Path(out))
    names: dict[str, str] = {}
    for source in sources:
        result.warnings += source.warnings
        taken = names.setdefault(identifier(source.name), source.name)
        if taken != source.name:
            raise InputError(f"suites {taken!r} and {source.name!r} give the same lm-eval task names")
    by_task: dict[str, list[str]] = {}
    plan: list[tuple[SuiteSource, dict[str, list[dict[str, Any]]], SharedTexts]] = []
    for source in sources:
        shared = SharedTexts()
        rows: dict[str, list[dict[str, Any]]] = {}
        for task in SCORED_TASKS:
            records = [r for r in source.records if r["task"] == task]
            if records:
                rows[task] = compact_rows(records, source.name, shared)
                by_task.setdefault(task, []).append(task_name(source.name, task))
        for record in source.records:
            if record["task"] not in SCORED_TASKS:
                result.skipped[record["task"]] = result.skipped.get(record["task"], 0) + 1
        if rows:
            plan.append((source, rows, shared))
            result.tasks[source.name] = {task: task_name(source.name, task) for task in rows}
            result.documents += sum(len(r) for r in rows.values())
    if not plan:
        raise InputError(f"{tasks_dir}: no task lm-eval can score ({', '.join(SCORED_TASKS)})")

    def fill(folder: Path) -> None:
        for source, rows, shared in plan:
            suite_dir = folder / identifier(source.name)
            write_atomic(suite_dir / "utils.py", UTILS_PY)
            write_table(suite_dir / DATA_FOLDER / SHARED_FILE, shared.rows(), SHARED_COLUMNS)
            if source.table is not None:
                write_atomic(suite_dir / DATA_FOLDER / TABLE_FILE, json.dumps(source.table, indent=2) + "\n")
            for task, task_rows in rows.items():
                write_table(suite_dir / DATA_FOLDER / f"{task.lower()}.parquet", task_rows, ROW_COLUMNS)
                splits = list(dict.fromkeys(row["split"] for row in task_rows))
                config = _task_config(source, task, splits, system, max_gen_toks)
                write_atomic(suite_dir / f"{config['task']}.yaml", _yaml(config))
            group = _group(f"{PREFIX}_{identifier(source.name)}", list(result.tasks[source.name].values()))
            write_atomic(suite_dir / f"_{group['group']}.yaml", _yaml(group))
        type_groups = []
        for task, members in by_task.items():
            rates = [spec.name for spec in metric_specs(task) if spec.aggregation == "mean"]
            group = _group(f"{PREFIX}_{task.lower()}", members, rates)
            write_atomic(folder / f"_{group['group']}.yaml", _yaml(group))
            type_groups.append(group["group"])
        write_atomic(folder / f"_{PREFIX}.yaml", _yaml(_group(PREFIX, type_groups)))
        write_atomic(folder / "README.md", lm_eval_readme(result, system=system, max_gen_toks=max_gen_toks))

    provenance = {
        "lexsym_version": __version__,
        "system": system,
        "max_gen_toks": max_gen_toks,
        "suites": [{"name": s.name, "path": str(s.path), "tasks_sha256": s.sha256} for s, _, _ in plan],
    }
    write_folder(out, KIND, [s.path for s in sources], provenance, fill)
    return result
