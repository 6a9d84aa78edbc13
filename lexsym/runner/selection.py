"""Which tasks a run asks for: `--filter`, `--where`, `--sample-id` and `--limit`, applied in that order.

- `--filter` (repeatable) is on the record's own fields: `KEY=VALUE` with KEY one of task, variant, split,
  suite, dataset (suite and dataset from its metadata), compared without case; VALUE may be a glob
  (`variant=AE-*`) or a comma-separated list of alternatives (`task=NA,OE`). Any other text without `=`
  is a pattern on the task id: a glob when it holds `*`, `?` or `[` (`*/dev-*`), otherwise a substring
  (`test-000`). Filters on the same key are alternatives (OR); filters on different keys must all hold
  (AND); all id patterns count as one key. `KEY=VALUE` with any other KEY is refused: read as an id
  substring it would silently match nothing.
- `--where` (repeatable, all must hold) is on the metadata: `asset_count=2`, `married=false`,
  `context.setting=statutes` (a dotted path into nested metadata), `states_in_prompt=WI` (a list matches
  when one of its items does), `asset_count>=3` (also `<`, `<=`, `>`, `!=`). A key that no task of the
  set has is an error that lists the keys there are.
- `--sample-id` (repeatable) keeps exactly the tasks named (a sample id `ID#r2` names its task `ID`); an id
  not in the set is an error.
- `--limit N` keeps N tasks, stratified by dataset (metadata `dataset`, else `suite`, else the task type):
  each stratum gets its share by largest remainder, and within a stratum the tasks kept are those first
  in the order of sha256(task id), which is fixed, spread over the file and the same on every machine.
  The result stays in file order.
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from lexsym._util.errors import InputError

FIELD_KEYS = ("task", "variant", "split", "suite", "dataset")
_GLOB = set("*?[")
_CONDITION = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*(<=|>=|!=|=|<|>)(.*)$")
_ORDER: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


@dataclass(frozen=True)
class TaskFilter:
    """One alternative of one filter key: `key` is a field name or "id"."""

    key: str
    pattern: str

    def matches(self, record: dict[str, Any]) -> bool:
        if self.key == "id":
            identifier = record["id"]
            if _GLOB & set(self.pattern):
                return fnmatchcase(identifier, self.pattern)
            return self.pattern in identifier
        return fnmatchcase(_field(record, self.key).casefold(), self.pattern.casefold())


def _field(record: dict[str, Any], key: str) -> str:
    if key in ("suite", "dataset"):
        meta = record.get("metadata")
        return str(meta.get(key) or "") if isinstance(meta, dict) else ""
    return str(record.get(key) or "")


def parse_filter(text: str) -> list[TaskFilter]:
    """The alternatives one --filter value stands for."""
    key, sep, value = text.partition("=")
    if sep:
        name = key.strip().lower()
        if name not in FIELD_KEYS:
            raise InputError(
                f"--filter {text!r}: unknown key {key.strip()!r}; use one of {', '.join(FIELD_KEYS)}, "
                "or --where for metadata"
            )
        values = [v.strip() for v in value.split(",") if v.strip()]
        if not values:
            raise InputError(f"--filter {text!r}: give a value after {key}=")
        return [TaskFilter(name, v) for v in values]
    if not text:
        raise InputError("--filter needs a pattern")
    return [TaskFilter("id", text)]


def select(records: Iterable[dict[str, Any]], filters: Sequence[str]) -> list[dict[str, Any]]:
    """The records every filter key accepts (see the module docstring), in file order."""
    groups: dict[str, list[TaskFilter]] = defaultdict(list)
    for text in filters:
        for one in parse_filter(text):
            groups[one.key].append(one)
    if not groups:
        return list(records)
    return [r for r in records if all(any(f.matches(r) for f in group) for group in groups.values())]


@dataclass(frozen=True)
class Condition:
    """One --where condition on a record's metadata."""

    path: tuple[str, ...]
    op: str
    value: str

    @classmethod
    def parse(cls, text: str) -> Condition:
        match = _CONDITION.match(text)
        if match is None or not match.group(3).strip():
            raise InputError(f"--where {text!r}: write KEY=VALUE (or KEY>=N, KEY!=VALUE, …)")
        key, op, value = match.groups()
        condition = cls(tuple(key.split(".")), op, value.strip())
        if op in _ORDER and _number(condition.value) is None:
            raise InputError(f"--where {text!r}: {op} needs a number")
        return condition

    def lookup(self, record: dict[str, Any]) -> tuple[bool, Any]:
        value: Any = record.get("metadata")
        for part in self.path:
            if not isinstance(value, dict) or part not in value:
                return False, None
            value = value[part]
        return True, value

    def matches(self, record: dict[str, Any]) -> bool:
        found, value = self.lookup(record)
        if not found:
            return self.op == "!="
        values = value if isinstance(value, list) else [value]
        if self.op == "!=":
            return not any(_same(item, self.value) for item in values)
        if self.op == "=":
            return any(_same(item, self.value) for item in values)
        bound = _number(self.value)
        compare = _ORDER[self.op]
        return any(
            (number := _number(item)) is not None and bound is not None and compare(number, bound)
            for item in values
        )


def _same(value: Any, wanted: str) -> bool:
    if isinstance(value, bool):
        return str(value).casefold() == wanted.casefold()
    if isinstance(value, (int, float)):
        number = _number(wanted)
        return number is not None and float(value) == number
    return str(value).casefold() == wanted.casefold()


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def where(
    records: list[dict[str, Any]],
    conditions: Sequence[str],
    universe: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The records whose metadata meets every --where condition. A key that no record of `universe` (the
    whole task set; default `records`) has is an InputError."""
    parsed = [Condition.parse(text) for text in conditions]
    universe = records if universe is None else universe
    for condition in parsed:
        if not any(condition.lookup(record)[0] for record in universe):
            known = sorted({key for record in universe for key in (record.get("metadata") or {})})
            raise InputError(
                f"--where {'.'.join(condition.path)}: no task has this metadata key; the keys are "
                f"{', '.join(known) or '(none)'}"
            )
    return [record for record in records if all(c.matches(record) for c in parsed)]


def by_sample_id(records: list[dict[str, Any]], sample_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The records named by --sample-id (a task id, or a sample id `ID#rK`), in file order."""
    wanted = {sample_id.split("#r", 1)[0] for sample_id in sample_ids}
    known = {record["id"] for record in records}
    missing = sorted(wanted - known)
    if missing:
        raise InputError(f"--sample-id: no task {', '.join(map(repr, missing[:5]))} in the selection")
    return [record for record in records if record["id"] in wanted]


def _stratum(record: dict[str, Any]) -> str:
    meta = record.get("metadata") if isinstance(record.get("metadata"), dict) else {}
    return str(meta.get("dataset") or meta.get("suite") or record.get("task") or "")


def limit(records: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """`count` records stratified by dataset (see the module docstring), in file order."""
    if count < 1:
        raise InputError(f"--limit must be at least 1, not {count}")
    if count >= len(records):
        return list(records)
    strata: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        strata[_stratum(record)].append(record)
    shares = {name: count * len(group) / len(records) for name, group in strata.items()}
    quota = {name: int(share) for name, share in shares.items()}
    left = count - sum(quota.values())
    for name in sorted(shares, key=lambda n: (-(shares[n] - quota[n]), n))[:left]:
        quota[name] += 1
    kept: set[str] = set()
    for name, group in strata.items():
        ranked = sorted(group, key=lambda r: hashlib.sha256(r["id"].encode("utf-8")).hexdigest())
        kept.update(record["id"] for record in ranked[: quota[name]])
    return [record for record in records if record["id"] in kept]


def choose(
    records: list[dict[str, Any]],
    *,
    filters: Sequence[str] = (),
    conditions: Sequence[str] = (),
    sample_ids: Sequence[str] = (),
    count: int | None = None,
) -> list[dict[str, Any]]:
    """The selection a run asks for (see the module docstring), in file order."""
    chosen = select(records, filters)
    if conditions:
        chosen = where(chosen, conditions, universe=records)
    if sample_ids:
        chosen = by_sample_id(chosen, sample_ids)
    if count is not None:
        chosen = limit(chosen, count)
    return chosen
