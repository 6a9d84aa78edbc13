"""Reading LEXam and KCL exam items from JSONL, CSV, XLSX or Hugging Face `datasets`, validated and pinned.

Four formats, with the field names of the published data:

- ``lexam-open``: question, answer, course, language, area, jurisdiction, year, id;
- ``lexam-mcq``: question, choices, gold (0-based index), course, language, area, jurisdiction, year,
  n_statements, none_as_an_option, negative_question, id. A row of LEXam's robustness set, with
  "4_choices"/"4_choices_gold" ... "32_choices"/"32_choices_gold" instead of choices/gold, becomes one item
  per k, with id "<id>/k<k>";
- ``kcl-essay``: meta, question, rubrics (strings, or objects with text and points), score (the question's
  total points), supporting_precedents;
- ``kcl-mcqa``: meta, question, A, B, C, D, E, label (the right letter), supporting_precedents.

KCL stores each supporting precedent as a JSON string mapping the case name to its text; objects and plain
strings are accepted too. KCL rows have no id: the id is the "id" field when present, else "meta" (a
repeated meta gets "#<line>" appended).

Why validate item by item and pin every source: a bad row must be found with its file, line and field
before a model is run on it, not as a crash half-way through scoring; and LEXam has been revised since its
first release (annotation fixes 2025-11, a reorganisation 2025-12), so a run is only comparable with another
on the same bytes. `source_fingerprint` gives the sha256 of a file (or of a saved dataset directory) or the
revision of a Hugging Face snapshot, for the manifest and the run header.

A LEXam MCQ row whose text shows fewer numbered statements (i., ii., ...) than its `n_statements` is kept
(it is LEXam's item) but warned about, once per row, in `LoadedExam.warnings` (and the manifest).
"""

from __future__ import annotations

import ast
import csv
import importlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from lexsym._util.errors import InputError
from lexsym._util.json_file import parse_json
from lexsym.exams.items import (
    ExamFormat,
    ExamItem,
    ExamItemBase,
    KclEssay,
    KclMCQA,
    LexamMCQ,
    LexamOpen,
    describe,
)
from lexsym.exams.sources import HubSpec, is_hub_source, load_hub, load_saved, source_fingerprint

_MODELS: dict[ExamFormat, type[ExamItemBase]] = {
    ExamFormat.lexam_open: LexamOpen,
    ExamFormat.lexam_mcq: LexamMCQ,
    ExamFormat.kcl_essay: KclEssay,
    ExamFormat.kcl_mcqa: KclMCQA,
}


#: Fields holding lists: in a CSV or XLSX cell they are JSON (or a Python literal, as pandas writes them).
_LIST_FIELDS = {
    ExamFormat.lexam_open: (),
    ExamFormat.lexam_mcq: ("choices",),
    ExamFormat.kcl_essay: ("rubrics", "supporting_precedents"),
    ExamFormat.kcl_mcqa: ("supporting_precedents",),
}


_PERTURBATION = re.compile(r"^(\d+)_choices$")


@dataclass(frozen=True)
class LoadedItem:
    """A validated item and where it came from ("file.jsonl:12", "hf:owner/name:config[test] row 3")."""

    where: str
    item: ExamItem


@dataclass
class LoadedExam:
    """Every valid item of a source, the problems found in the others, and the source's pin."""

    format: ExamFormat
    source: str
    fingerprint: dict[str, Any]
    items: list[LoadedItem] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # rows kept, but odd (see `_statement_shortfall`)


def _statement_shortfall(where: str, row: dict[str, Any], item: ExamItem) -> str | None:
    """A warning when a LEXam MCQ row's text shows fewer numbered statements than its n_statements says:
    its options then name statements the model cannot read (LEXam's robustness set has such rows)."""
    if not isinstance(item, LexamMCQ) or not item.n_statements:
        return None
    from lexsym.exams.statements import shown_statements

    shown = shown_statements(item.question)
    if shown >= item.n_statements:
        return None
    return (
        f"{where}: id {row.get('id')!r}: the question shows {shown} numbered statement(s), "
        f"but n_statements is {item.n_statements}"
    )


def _jsonl_rows(path: Path) -> Iterator[tuple[str, dict[str, Any] | str]]:
    with path.open("rb") as stream:
        for number, raw in enumerate(stream, 1):
            where = f"{path}:{number}"
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                yield where, f"not UTF-8 ({error.reason})"
                continue
            if not text.strip():
                continue
            try:
                value = parse_json(text, where, line_numbers=False)
            except InputError as error:
                yield where, str(error).removeprefix(f"{where}: ")
                continue
            yield where, value if isinstance(value, dict) else f"not a JSON object ({type(value).__name__})"


def _csv_rows(path: Path) -> Iterator[tuple[str, dict[str, Any] | str]]:
    try:
        stream = path.open(encoding="utf-8-sig", newline="")
        with stream:
            reader = csv.DictReader(stream)
            start = 2
            for row in reader:
                where = f"{path}:{start}"
                start = reader.line_num + 1
                if None in row:
                    yield where, "more cells than header columns"
                    continue
                if not any((v or "").strip() for v in row.values()):
                    continue
                yield where, {k.strip(): v for k, v in row.items() if k is not None}
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason})") from None
    except csv.Error as error:
        raise InputError(f"{path}: not CSV ({error})") from None


def _xlsx_rows(path: Path, sheet: str | None) -> Iterator[tuple[str, dict[str, Any] | str]]:
    try:
        openpyxl = importlib.import_module("openpyxl")
    except ImportError:
        raise InputError(
            f"{path}: reading XLSX needs the `openpyxl` package (pip install openpyxl)"
        ) from None
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as error:
        raise InputError(f"{path}: not an XLSX workbook ({error.__class__.__name__})") from None
    try:
        if sheet is not None and sheet not in book.sheetnames:
            raise InputError(f"{path}: no sheet {sheet!r} (sheets: {', '.join(book.sheetnames)})")
        worksheet = book[sheet] if sheet else book.worksheets[0]
        header: list[str] | None = None
        for number, cells in enumerate(_sheet_rows(path, worksheet), 1):
            if header is None:
                header = [str(c).strip() if c is not None else "" for c in cells]
                continue
            if all(c is None or (isinstance(c, str) and not c.strip()) for c in cells):
                continue
            row = {name: value for name, value in zip(header, cells, strict=False) if name}
            if any(value is not None for name, value in zip(header, cells, strict=False) if not name):
                yield f"{path}:{number}", "a cell under an empty header"
                continue
            yield f"{path}:{number}", row
    finally:
        book.close()


def _sheet_rows(path: Path, worksheet: Any) -> Iterator[tuple]:
    """The cells of each row. A read-only workbook parses its sheet's XML only as rows are read, so a
    damaged sheet fails here, half-way, as an XML or zip error: one InputError naming the file."""
    rows = worksheet.iter_rows(values_only=True)
    while True:
        try:
            cells = next(rows)
        except StopIteration:
            return
        except Exception as error:  # ParseError, BadZipFile, KeyError ...: the workbook's bytes are damaged
            raise InputError(f"{path}: a damaged XLSX sheet ({error.__class__.__name__}: {error})") from None
        yield cells


def _dataset_rows(dataset: Any, label: str) -> Iterator[tuple[str, dict[str, Any] | str]]:
    for number, row in enumerate(dataset):
        yield f"{label} row {number}", dict(row) if isinstance(row, Mapping) else "not a record"


def _decode_list(value: Any, name: str) -> Any:
    """A list-valued cell: JSON first, then a Python literal (pandas writes lists as reprs)."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):  # {[1]: 2}: TypeError
        raise ValueError(f"{name}: not a list (JSON or Python literal)") from None


def _expand(fmt: ExamFormat, row: dict[str, Any]) -> list[dict[str, Any]]:
    """One row as the items it holds: a robustness-set LEXam row holds one MCQ per k."""
    for name in _LIST_FIELDS[fmt]:
        if row.get(name) is not None:
            row[name] = _decode_list(row[name], name)
    if fmt is not ExamFormat.lexam_mcq or row.get("choices") is not None:
        return [row]
    ks = sorted(int(m.group(1)) for key in row if (m := _PERTURBATION.match(str(key))))
    if not ks:
        return [row]  # validation names the missing choices
    from lexsym.exams.statements import NONE_TEXT

    items = []
    for k in ks:
        choices = _decode_list(row.get(f"{k}_choices"), f"{k}_choices")
        item = {
            key: value for key, value in row.items() if not _PERTURBATION.match(str(key).split("_gold")[0])
        }
        item.update(
            id=f"{row.get('id')}/k{k}",
            choices=choices,
            gold=row.get(f"{k}_choices_gold"),
            choice_set=k,
        )
        if item.get("none_as_an_option") is None and isinstance(choices, list):
            item["none_as_an_option"] = any(c in NONE_TEXT.values() for c in choices)
        items.append(item)
    return items


def _rows(
    source: str | Path, split: str, sheet: str | None, cache_dir: str | None
) -> tuple[Iterator[tuple[str, dict[str, Any] | str]], dict[str, Any]]:
    if is_hub_source(source):
        dataset, fingerprint = load_hub(str(source), split, cache_dir)
        return _dataset_rows(dataset, HubSpec.parse(str(source)).label(split)), fingerprint
    path = Path(source)
    if path.is_dir():
        dataset, fingerprint = load_saved(path, split)
        return _dataset_rows(dataset, f"{path}[{split}]"), fingerprint
    fingerprint = source_fingerprint(path)
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return _jsonl_rows(path), fingerprint
    if suffix in (".csv", ".tsv"):
        return _csv_rows(path), fingerprint
    if suffix in (".xlsx", ".xlsm"):
        return _xlsx_rows(path, sheet), fingerprint
    raise InputError(f"{path}: unknown file type {suffix or '(none)'} (JSONL, CSV or XLSX)")


def load_exam(
    source: str | Path,
    fmt: ExamFormat | str,
    *,
    split: str = "test",
    sheet: str | None = None,
    cache_dir: str | None = None,
    strict: bool = True,
) -> LoadedExam:
    """Read and validate every item of `source` in format `fmt`.

    `source` is a .jsonl, .csv or .xlsx file, a directory saved by `datasets`, or hf:OWNER/NAME[:CONFIG]
    [@REVISION] (loaded through the `datasets` cache; `cache_dir` overrides its location, and
    HF_DATASETS_OFFLINE=1 keeps `datasets` from reaching the network). Strict (the
    default): the first bad row raises InputError naming file:line and field; otherwise bad rows are listed
    in `errors` and skipped. Ids must be unique.
    """
    fmt = ExamFormat(fmt)
    model = _MODELS[fmt]
    rows, fingerprint = _rows(source, split, sheet, cache_dir)
    loaded = LoadedExam(format=fmt, source=str(source), fingerprint=fingerprint)
    seen: dict[str, str] = {}
    for where, row in rows:
        if isinstance(row, str):
            loaded.errors.append(f"{where}: {row}")
            continue
        if fmt in (ExamFormat.kcl_essay, ExamFormat.kcl_mcqa) and row.get("id") in (None, ""):
            meta = row.get("meta")
            if isinstance(meta, str) and meta in seen:
                row["id"] = f"{meta}#{where.rsplit(':', 1)[-1].rsplit(' ', 1)[-1]}"
            else:
                row["id"] = meta
        try:
            candidates = _expand(fmt, row)
        except ValueError as error:
            loaded.errors.append(f"{where}: {error}")
            continue
        warned = False
        for candidate in candidates:
            try:
                item = model.model_validate(candidate)
            except ValidationError as error:
                loaded.errors.append(f"{where}: {describe(error)}")
                continue
            if item.id in seen:
                loaded.errors.append(f"{where}: id: {item.id!r} repeats (first at {seen[item.id]})")
                continue
            seen[item.id] = where
            loaded.items.append(LoadedItem(where, item))  # type: ignore[arg-type]
            if not warned and (warning := _statement_shortfall(where, row, item)):
                loaded.warnings.append(warning)  # once per row: its k-choice items share the text
            warned = True
    if strict and loaded.errors:
        more = f" (and {len(loaded.errors) - 1} more)" if len(loaded.errors) > 1 else ""
        raise InputError(loaded.errors[0] + more)
    if not loaded.items and not loaded.errors:
        raise InputError(f"{source}: no items")
    if not loaded.items:
        raise InputError(f"{source}: no valid items; first problem: {loaded.errors[0]}")
    return loaded
