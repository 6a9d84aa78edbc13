"""The dataset card (README.md) of a Hugging Face export: YAML front matter the Hub reads (configs,
features, license, sizes), then what a user needs: what the tasks are, how the gold was computed, how to
load a split and rebuild its prompts, how to score, where it came from, how to cite it.

The loading snippet needs only `datasets`; tests/test_publish.py runs it on an export.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from lexsym._version import __version__
from lexsym.publish.compact_records import ROW_COLUMNS, SHARED_COLUMNS
from lexsym.publish.hf_layout import ALL_CONFIG, SHARED_CONFIG, SHARED_SPLIT, configs, split_order
from lexsym.publish.parquet_tables import TableSize
from lexsym.publish.task_sources import SuiteSource

TASK_QUESTIONS = {
    "AE": "which exemption systems may the debtor choose?",
    "EC": "which exemptions does each asset fall under?",
    "EV": "the most each exemption protects in each asset alone",
    "NA": "the least value left non-exempt, per jurisdiction",
    "OE": "the best jurisdiction and an optimal exemption schedule",
    "MCQ": "an exam question with options (its source's gold)",
    "OPEN": "an open exam question (graded by a judge)",
}

LOADING = '''```python
import json

from datasets import load_dataset

repo = "."  # this folder, or the dataset's id on the Hub
tasks = load_dataset(repo, "{suite}", split="{split}")
texts = {{row["id"]: row["text"] for row in load_dataset(repo, "{shared_config}", split="{shared_split}")}}


def messages(row):
    """The chat messages lexsym sends for a task: its system prompt, then its user prompt."""
    statutes = texts[row["statutes_id"]] if row["statutes_id"] else ""
    user = row["user_head"] + statutes + row["user_tail"]
    system = [{{"role": "system", "content": texts[row["system_id"]]}}] if row["system_id"] else []
    return system + [{{"role": "user", "content": user}}]


first = tasks[0]
prompt, gold = messages(first), json.loads(first["gold"])
```'''

SCORING = """```python
import json

from lexsym.publish import full_record  # pip install lexsym

with open("tasks.jsonl", "w", encoding="utf-8") as out:
    for row in tasks:
        out.write(json.dumps(full_record(row, texts), ensure_ascii=False) + "\\n")
```"""


@dataclass(frozen=True)
class CardFacts:
    """What the card states: the suites exported, their written splits, and the card's settings."""

    sources: list[SuiteSource]
    splits: dict[str, dict[str, TableSize]]  # suite -> split -> size
    shared: TableSize
    license: str
    pretty_name: str | None

    @property
    def rows(self) -> dict[str, dict[str, int]]:
        return {suite: {split: size.rows for split, size in s.items()} for suite, s in self.splits.items()}

    @property
    def shared_texts(self) -> int:
        return self.shared.rows


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M"


def _features(columns: dict[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "dtype": "string"} for name in columns]


def _languages(facts: CardFacts) -> list[str]:
    found = {
        str(record["metadata"]["language"])
        for source in facts.sources
        for record in source.records
        if isinstance(record.get("metadata"), dict) and record["metadata"].get("language")
    }
    generated = any(record["task"] not in ("MCQ", "OPEN") for s in facts.sources for record in s.records)
    return sorted(found | ({"en"} if generated or not found else set()))


def front_matter(facts: CardFacts) -> dict[str, Any]:
    """The card's YAML metadata, as the Hub reads it."""
    total = sum(sum(splits.values()) for splits in facts.rows.values())
    every: dict[str, list[TableSize]] = {}
    for splits in facts.splits.values():
        for split, size in splits.items():
            every.setdefault(split, []).append(size)
    pooled = {
        split: TableSize(*(sum(getattr(s, f) for s in sizes) for f in SIZE_FIELDS))
        for split, sizes in every.items()
    }
    info = [_config_info(ALL_CONFIG, ROW_COLUMNS, pooled)]
    info += [_config_info(suite, ROW_COLUMNS, splits) for suite, splits in facts.splits.items()]
    info.append(_config_info(SHARED_CONFIG, SHARED_COLUMNS, {SHARED_SPLIT: facts.shared}))
    return {
        "pretty_name": facts.pretty_name or "lexsym: U.S. bankruptcy exemption tasks",
        "license": facts.license,
        "language": _languages(facts),
        "task_categories": ["text-generation", "question-answering"],
        "tags": ["legal", "bankruptcy", "benchmark", "reasoning", "synthetic", "logic-programming"],
        "size_categories": [_size_category(total)],
        "configs": configs(facts.rows),
        "dataset_info": info,
    }


SIZE_FIELDS = ("rows", "num_bytes", "file_bytes")


def _config_info(name: str, columns: dict[str, str], splits: dict[str, TableSize]) -> dict[str, Any]:
    """One config's `dataset_info` entry: features, and per split its rows and Arrow bytes."""
    order = split_order(list(splits))
    return {
        "config_name": name,
        "features": _features(columns),
        "splits": [
            {"name": split, "num_bytes": splits[split].num_bytes, "num_examples": splits[split].rows}
            for split in order
        ],
        "download_size": sum(splits[split].file_bytes for split in order),
        "dataset_size": sum(splits[split].num_bytes for split in order),
    }


def _counts_table(facts: CardFacts) -> str:
    lines = ["| suite | task | " + " | ".join(split_order(_all_splits(facts))) + " |"]
    lines.append("|---|---|" + "---|" * len(_all_splits(facts)))
    for source in facts.sources:
        counts: dict[str, dict[str, int]] = {}
        for record in source.records:
            by_split = counts.setdefault(record["task"], {})
            split = str(record.get("split") or "test")
            by_split[split] = by_split.get(split, 0) + 1
        for task, by_split in counts.items():
            cells = " | ".join(str(by_split.get(split, 0)) for split in split_order(_all_splits(facts)))
            lines.append(f"| {source.name} | {task} | {cells} |")
    return "\n".join(lines)


def _all_splits(facts: CardFacts) -> list[str]:
    return split_order(list({split for splits in facts.rows.values() for split in splits}))


def _provenance(facts: CardFacts) -> str:
    lines = [
        "| suite | tasks | tasks.jsonl sha256 | rules digest | seeds | inputs |",
        "|---|---|---|---|---|---|",
    ]
    for source in facts.sources:
        inputs = (source.manifest or {}).get("inputs") or {}
        shown = ", ".join(f"{k} `{v}`" for k, v in sorted(inputs.items())) or "-"
        digests = ", ".join(f"`{d}`" for d in source.rules_digests) or "-"
        seeds = ", ".join(map(str, source.seeds)) or "-"
        sha = source.sha256[:16]
        lines.append(f"| {source.name} | {len(source.records):,} | `{sha}` | {digests} | {seeds} | {shown} |")
    return "\n".join(lines)


def _columns_table(columns: dict[str, str]) -> str:
    return "\n".join(["| column | holds |", "|---|---|", *(f"| `{k}` | {v} |" for k, v in columns.items())])


def dataset_card(facts: CardFacts) -> str:
    """The README.md text: YAML front matter, then the card."""
    header = yaml.safe_dump(front_matter(facts), sort_keys=False, allow_unicode=True, width=110)
    first = facts.sources[0].name
    split = "test" if "test" in facts.rows[first] else next(iter(facts.rows[first]))
    tasks = sorted({r["task"] for s in facts.sources for r in s.records}, key=list(TASK_QUESTIONS).index)
    questions = "\n".join(f"| {task} | {TASK_QUESTIONS[task]} |" for task in tasks)
    exams = any(task in ("MCQ", "OPEN") for task in tasks)
    exam_note = (
        "\nExam questions (MCQ, OPEN) carry the gold of their source dataset, which `metadata.source` names "
        "and pins by checksum; they have no case.\n"
        if exams
        else ""
    )
    tables = [s.name for s in facts.sources if s.table is not None]
    table_note = (
        f"\nThe gold of {', '.join(tables)} rests on a what-if table (figures that replace the statutes' for "
        "the citations it lists, `lexsym schema table`): `tables/<suite>.json`. To score OE answers under "
        "the same figures, put it beside the suite's tasks.jsonl as `table.json`.\n"
        if tables
        else ""
    )
    loading = LOADING.format(suite=first, split=split, shared_config=SHARED_CONFIG, shared_split=SHARED_SPLIT)
    total = sum(sum(splits.values()) for splits in facts.rows.values())
    return f"""---
{header}---

# {facts.pretty_name or "lexsym: U.S. bankruptcy exemption tasks"}

{total:,} tasks of U.S. bankruptcy exemption law, generated by lexsym {__version__} (`lexsym generate`,
exported with `lexsym export hf`). Each task gives a debtor's facts and the statutes in force on the
petition date, and asks one of the questions below; the tasks follow the shape of OpenExempt's five
tasks.

| task | question |
|---|---|
{questions}

Configs: `{ALL_CONFIG}` (the default: every suite), one per suite, and `{SHARED_CONFIG}` (the shared prompt
texts). Splits are lexsym's own: `dev` (a few tasks per dataset, for prompt development) and `test`.

{_counts_table(facts)}

## How the gold answers were computed

No gold answer was written by hand. lexsym encodes 11 U.S.C. § 522 and the exemption statutes of each
jurisdiction as an answer set program and solves every case with clingo. Pass 1 (one answer set) gives
AE (the 730/180-day domicile rule of § 522(b)(3)(A), the hanging paragraph, opt-outs), EC and EV. Pass 2
(clingo-lpx, per jurisdiction) allocates exemptions to assets and proves the allocation optimal: the
least non-exempt value (NA) and the best jurisdiction with an optimal schedule (OE). Where courts
disagree, the reading applied is recorded in `metadata.readings` and stated in the prompt. Cases with
distracting facts were solved again with those facts to prove they change no answer. Optimal schedules
are rarely unique, so an OE answer is not compared with the schedule in `gold`: lexsym checks it against
the rules (valid) and its non-exempt total against the proven optimum (optimal).
{exam_note}{table_note}
The rules digest (a hash of lexsym's `statutes/` and `encodings/`) of every gold answer is in
`metadata.rules_digest` and below; the same lexsym version, configs and seeds regenerate the generated
tasks byte for byte.

## Loading and rebuilding the prompts

A row does not repeat its system prompt and statute sheet: they are stored once in `{SHARED_CONFIG}`
({facts.shared_texts} texts), and the row holds their ids with the text before and after the sheet. This
rebuilds the exact messages lexsym sends (with lexsym installed, `lexsym.publish.full_prompt(row, texts)`
does the same):

{loading}

`gold`, `reference`, `solved_steps`, `metadata` and `case` are JSON strings (their shapes differ by task).

{_columns_table(ROW_COLUMNS)}

The `{SHARED_CONFIG}` config:

{_columns_table(SHARED_COLUMNS)}

## Scoring

Answers end with `FINAL ANSWER:` and JSON in the shape the prompt asks for. lexsym scores them
(`pip install lexsym`): write the rows back as lexsym task records, then run
`lexsym score tasks.jsonl predictions.jsonl` (predictions: JSONL with `id` and the model's `output`):

{SCORING}

For lm-evaluation-harness, `lexsym export lm-eval` writes task YAMLs that score with lexsym's scorer.

## Provenance

| | |
|---|---|
| lexsym | {__version__} |
| shared texts | {facts.shared_texts} |

{_provenance(facts)}

## License

Released under the `{facts.license}` license. The facts, prompts and statute summaries were generated
by lexsym from its own templates and asset catalogue.

## Citation

```bibtex
@software{{lexsym,
  title = {{lexsym: U.S. bankruptcy exemption law as a logic program, with an LLM test bench}},
  version = {{{__version__}}},
  note = {{Benchmark tasks exported with lexsym export hf}}
}}
```
"""
