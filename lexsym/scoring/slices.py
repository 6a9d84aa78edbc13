"""Slices: the aggregates of `lexsym score --by FIELD[,FIELD]` (and `lexsym report --by`), per task and per
value of any field of the task records.

Why: the seed papers report their figures by slice (OpenExempt F1 by domicile count, asset count,
obfuscation flags and solved steps; LEXam accuracy by course, language, area, jurisdiction, year and
number of choices; KCL with and without precedents). A slice is (task, the fields' values): a metric never
mixes tasks, and every slice is aggregated by `aggregation.aggregate`, the code of the per-task groups, so
its means and bootstrap standard errors are those a task set holding only that slice would get.

Decisions:

- **Fields.** Any key of a record's `metadata`, nested keys joined by dots (`obfuscation.asset_opinions`,
  `context.setting`); the record's own scalar fields (task, variant, split, and any other that is never an
  object or a list); and `solved_steps`, the steps the prompt gives solved. Several fields give their cross
  product. A field no record has is an error listing those the records have.
- **Values** are those of `lexsym export`'s columns, so a group-by of the exported table finds the same
  groups: a list is joined by "," (`states_in_prompt` "WI,IL", in its order), `solved_steps` is its steps
  sorted and joined by "," ("" when none), anything else is the JSON value. A missing field and a null are
  one value, None (shown "–"); a record's missing variant is its task, as in the per-variant groups.
- **Order.** Tasks in the order of the per-task groups; within a task, numbers by value (2, 3, 10), then
  false before true, then text, then the missing value last.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from lexsym._util.errors import InputError
from lexsym.scoring.aggregation import aggregate
from lexsym.scoring.inputs import TaskRecord
from lexsym.scoring.results import EXAM_TASKS, TASKS, GroupScore, SampleRow, ScoreReport
from lexsym.scoring.task_scorers import Row

#: Top-level record fields that are never slice fields: the id (one sample each) and the record's parts.
NOT_FIELDS = frozenset({"id", "metadata", "prompt", "gold", "reference", "case", "solved_steps"})
SOLVED_STEPS = "solved_steps"
MISSING_LABEL = "–"
EMPTY_LABEL = "(none)"

Value = str | int | float | bool | None


class SliceScore(GroupScore):
    """The aggregates of one slice: one task and one value of each field (None: missing)."""

    values: dict[str, Value] = Field(description="The slice's value of each field, in --by order.")


class FieldSlices(BaseModel):
    """Aggregates per (task, values of `fields`), with the metrics and SEs of the per-task groups."""

    fields: list[str]
    groups: list[SliceScore]


class SlicedScoreReport(ScoreReport):
    """A ScoreReport with the slices `--by` asked for, after every field of the plain report."""

    by_fields: FieldSlices


def parse_fields(by: str) -> tuple[str, ...]:
    """The fields of a `--by` value ("asset_count,married"); raises InputError on an empty one."""
    fields = tuple(part.strip() for part in by.split(","))
    if not by.strip() or any(not part for part in fields):
        raise InputError(f"--by {by!r}: give field names separated by commas (asset_count,married)")
    return fields


def _leaves(metadata: Mapping[str, Any], prefix: str = "") -> Iterable[str]:
    for key, value in metadata.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, f"{prefix}{key}.")
        elif not isinstance(value, dict):
            yield f"{prefix}{key}"


def available_fields(records: Iterable[Mapping[str, Any]]) -> list[str]:
    """The fields the records have, sorted: metadata paths, scalar top-level fields, solved_steps."""
    found: set[str] = set()
    shaped: set[str] = set()  # top-level fields holding an object or a list somewhere: not fields
    for record in records:
        for key, value in record.items():
            if key in NOT_FIELDS:
                continue
            if isinstance(value, (dict, list)):
                shaped.add(key)
            elif value is not None:
                found.add(key)
        if isinstance(record.get(SOLVED_STEPS), dict):
            found.add(SOLVED_STEPS)
        if isinstance(record.get("metadata"), dict):
            found.update(_leaves(record["metadata"]))
    return sorted(found - shaped)


def check_fields(fields: Sequence[str], records: Sequence[Mapping[str, Any]], where: str) -> None:
    """Raise InputError naming the first of `fields` that no record of `where` has, with those there are."""
    known = set(available_fields(records))
    for name in fields:
        if name not in known:
            raise unknown_field(name, known, where)


def unknown_field(name: str, known: Iterable[str], where: str) -> InputError:
    """The one-line error for a `--by` field that no task of `where` has, listing the fields there are."""
    return InputError(
        f"--by {name!r}: no task in {where} has this field; the fields are: {', '.join(sorted(known))}"
    )


def field_value(record: Mapping[str, Any], name: str) -> Value:
    """The slice value of `record` for the field `name` (see the module docstring)."""
    if name == SOLVED_STEPS and SOLVED_STEPS in record:
        steps = record[SOLVED_STEPS]
        return ",".join(sorted(steps)) if isinstance(steps, dict) else _plain(steps)
    if name == "variant" and not record.get("variant"):
        return _plain(record.get("task"))  # as in the per-variant groups
    if "." not in name and name in record and name not in NOT_FIELDS:
        return _plain(record[name])
    value: Any = record.get("metadata")
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return _plain(value)


def _plain(value: Any) -> Value:
    if isinstance(value, list):
        return ",".join(item if isinstance(item, str) else json.dumps(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return value


def label(value: Value) -> str:
    """A slice value as a table shows it: JSON's true/false, "–" when missing, "(none)" when empty."""
    if value is None:
        return MISSING_LABEL
    if isinstance(value, bool):
        return "true" if value else "false"
    if value == "":
        return EMPTY_LABEL
    return str(value)


def value_order(value: Value) -> tuple[int, Any]:
    if value is None:
        return (3, 0)
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, (int, float)):
        return (0, value)
    return (2, str(value))


def slice_scores(
    rows: Sequence[Row],
    records: Mapping[str, Mapping[str, Any]],
    fields: Sequence[str],
    seed: int,
    resamples: int,
) -> FieldSlices:
    """The aggregates of `rows` per (task, values of `fields`); `records` are the task records by id. Rows
    keep their order within a slice, so a slice holding all of a task's rows has its per-task SEs."""
    grouped: dict[tuple[str, tuple[Value, ...]], list[Row]] = defaultdict(list)
    for row in rows:
        record = records.get(row.task.id) or {}
        grouped[(row.task.task, tuple(field_value(record, name) for name in fields))].append(row)
    order = {task: i for i, task in enumerate((*TASKS, *EXAM_TASKS))}
    keys = sorted(
        grouped, key=lambda k: (order.get(k[0], len(order)), k[0], tuple(value_order(v) for v in k[1]))
    )
    groups = []
    for task, values in keys:
        group = aggregate(task, None, None, grouped[(task, values)], seed, resamples)
        groups.append(SliceScore(**group.model_dump(), values=dict(zip(fields, values, strict=True))))
    return FieldSlices(fields=list(fields), groups=groups)


def rows_of_samples(samples: Iterable[SampleRow], records: Mapping[str, Mapping[str, Any]]) -> list[Row]:
    """The scored rows a score report's per-sample rows stand for (what `aggregate` reads of them), so a
    report's slices can be computed from its file: scores.json keeps every sample's scores."""
    rows = []
    for sample in samples:
        record = records.get(sample.id)
        task = TaskRecord(
            line=0,
            id=sample.id,
            task=sample.task,
            variant=sample.variant,
            suite=sample.suite,
            case_id=sample.case_id,
            gold=None,
            case=None,
            record=dict(record) if record is not None and sample.task == "MCQ" else None,
        )
        scores = {name: value for name, value in sample.scores.items() if name != "format"}
        rows.append(
            Row(
                task,
                sample.predicted,
                sample.parsed,
                sample.error,
                scores=scores,
                violations=list(sample.violations),
                beats_optimum=sample.beats_optimum,
            )
        )
    return rows


def records_by_id(records: Iterable[Any]) -> dict[str, dict[str, Any]]:
    """Task records by id (the first of a repeated id, as scoring keeps it); lines of other shapes are
    skipped (scoring counts them as errors)."""
    found: dict[str, dict[str, Any]] = {}
    for record in records:
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            found.setdefault(record["id"], record)
    return found


def with_slices(
    report: ScoreReport, rows: Sequence[Row], records: Mapping[str, Mapping[str, Any]], fields: Sequence[str]
) -> SlicedScoreReport:
    """`report` with the slices by `fields` of its scored `rows`, with the report's seed and resamples."""
    slices = slice_scores(rows, records, fields, report.seed, report.resamples)
    data = {name: getattr(report, name) for name in ScoreReport.model_fields}
    return SlicedScoreReport(**data, by_fields=slices)


def sliced_report(
    report: ScoreReport, records: Mapping[str, Mapping[str, Any]], fields: Sequence[str], where: str
) -> SlicedScoreReport:
    """`report` (read from a file) with its slices by `fields`, computed from its per-sample rows and the
    task `records` by id; raises InputError for a field no record of `where` has."""
    check_fields(fields, list(records.values()), where)
    return with_slices(report, rows_of_samples(report.samples, records), records, fields)
