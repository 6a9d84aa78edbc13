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
"""

from __future__ import annotations

import ast
import csv
import hashlib
import importlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from lexsym.errors import InputError


class ExamFormat(str, Enum):
    """The exam formats `lexsym exam convert` reads."""

    lexam_mcq = "lexam-mcq"
    lexam_open = "lexam-open"
    kcl_essay = "kcl-essay"
    kcl_mcqa = "kcl-mcqa"


class _Item(BaseModel):
    # Unknown columns are ignored (datasets grow fields); numbers in an id column become text.
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True, frozen=True)

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_missing(cls, value: Any, info: ValidationInfo) -> Any:
        """A blank cell is a missing value; a required text left blank is named as empty."""
        if isinstance(value, str) and not value.strip():
            if info.field_name and cls.model_fields[info.field_name].is_required():
                raise ValueError("is empty")
            return None
        return value


def _nonblank(value: str, what: str) -> str:
    if not value.strip():
        raise ValueError(f"{what} is empty")
    return value


class LexamOpen(_Item):
    """A LEXam open question with its reference answer."""

    id: str
    question: str
    answer: str
    course: str | None = None
    language: str | None = None
    area: str | None = None
    jurisdiction: str | None = None
    year: int | None = None


class LexamMCQ(_Item):
    """A LEXam multiple-choice question: options in the source's order and the 0-based gold index."""

    id: str
    question: str
    choices: list[str] = Field(min_length=2)
    gold: int
    course: str | None = None
    language: str | None = None
    area: str | None = None
    jurisdiction: str | None = None
    year: int | None = None
    n_statements: int | None = None
    none_as_an_option: bool | None = None
    negative_question: bool = False
    choice_set: int | None = Field(None, description="k of the robustness-set row this item came from.")

    @field_validator("gold", mode="before")
    @classmethod
    def _letter_gold(cls, value: Any) -> Any:
        """A letter ("B") means its 0-based position; LEXam's own field is an integer index."""
        if isinstance(value, str) and re.fullmatch(r"\s*[A-Za-z]\s*", value):
            return ord(value.strip().upper()) - ord("A")
        if isinstance(value, float) and value.is_integer():
            return int(value)
        return value

    @field_validator("negative_question", mode="before")
    @classmethod
    def _missing_is_false(cls, value: Any) -> Any:
        return False if value is None else value

    @model_validator(mode="after")
    def _gold_in_range(self) -> LexamMCQ:
        if not 0 <= self.gold < len(self.choices):
            raise ValueError(f"gold index {self.gold} is outside the {len(self.choices)} choices")
        seen: set[str] = set()
        for text in self.choices:
            _nonblank(text, "a choice")
            if text in seen:
                raise ValueError(f"choice {text!r} appears twice (options must be distinct)")
            seen.add(text)
        return self


class Precedent(BaseModel):
    """A supporting precedent: case name (when the source gives one) and full text."""

    model_config = ConfigDict(frozen=True)

    name: str | None = None
    text: str


class RubricItem(BaseModel):
    """One rubric criterion and, when the source gives them, its points."""

    model_config = ConfigDict(frozen=True)

    text: str
    points: float | None = Field(None, ge=0)


def _precedents(value: Any) -> Any:
    """KCL's supporting_precedents: JSON strings {"case name": "text", ...}, objects, or plain text."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValueError("supporting_precedents must be a list")
    found: list[Precedent] = []
    for entry in value:
        if isinstance(entry, str):
            try:
                decoded = json.loads(entry)
            except ValueError:
                decoded = entry
            entry = decoded
        if isinstance(entry, str):
            found.append(Precedent(text=entry))
        elif isinstance(entry, Mapping) and "text" in entry and set(entry) <= {"name", "text"}:
            found.append(Precedent.model_validate(entry))
        elif isinstance(entry, Mapping):
            for name, text in entry.items():
                if not isinstance(text, str):
                    raise ValueError(f"precedent {name!r}: its text must be a string")
                found.append(Precedent(name=str(name), text=text))
        else:
            raise ValueError(f"a precedent must be a JSON string or an object, not {type(entry).__name__}")
    return found


_RUBRIC_TEXT_KEYS = ("text", "rubric", "criterion", "description")
_RUBRIC_POINT_KEYS = ("points", "score", "point")


def _rubric(entry: Any) -> Any:
    if isinstance(entry, str):
        return RubricItem(text=_nonblank(entry, "a rubric"))
    if isinstance(entry, Mapping):
        text = next((entry[k] for k in _RUBRIC_TEXT_KEYS if k in entry), None)
        points = next((entry[k] for k in _RUBRIC_POINT_KEYS if k in entry), None)
        if not isinstance(text, str):
            raise ValueError(f"a rubric object needs its text in one of {', '.join(_RUBRIC_TEXT_KEYS)}")
        return RubricItem(text=_nonblank(text, "a rubric"), points=points)
    raise ValueError(f"a rubric must be a string or an object, not {type(entry).__name__}")


class KclEssay(_Item):
    """A KCL essay question: rubric criteria, the question's total points, and supporting precedents."""

    id: str
    meta: str
    question: str
    rubrics: list[RubricItem] = Field(min_length=1)
    score: float | None = Field(None, gt=0, description="The question's total points in the bar exam.")
    supporting_precedents: list[Precedent] = Field(default_factory=list)
    language: str | None = Field(None, description="Not in KCL (Korean); for KCL-shaped items in another.")
    jurisdiction: str | None = None

    @field_validator("rubrics", mode="before")
    @classmethod
    def _rubrics(cls, value: Any) -> Any:
        if not isinstance(value, list):
            raise ValueError("rubrics must be a list")
        return [_rubric(entry) for entry in value]

    @field_validator("supporting_precedents", mode="before")
    @classmethod
    def _supporting(cls, value: Any) -> Any:
        return _precedents(value)

    @model_validator(mode="after")
    def _points_agree(self) -> KclEssay:
        given = [r.points for r in self.rubrics]
        if any(p is None for p in given) and any(p is not None for p in given):
            raise ValueError("give points for every rubric or for none")
        if given[0] is None and self.score is None:
            raise ValueError("without per-rubric points the question needs its total score")
        if given[0] is not None and self.score is not None:
            total = sum(p for p in given if p is not None)
            if abs(total - self.score) > 1e-6 * max(1.0, self.score):
                raise ValueError(f"rubric points sum to {total:g}, not the question's score {self.score:g}")
        return self

    def rubric_points(self) -> tuple[list[float], float]:
        """Each rubric's points and the total. Without per-rubric points, the total is shared evenly, as
        KCL does (the bar exam's points for the question over its rubrics)."""
        given = [r.points for r in self.rubrics]
        if given[0] is not None:
            points = [float(p or 0.0) for p in given]
            return points, float(sum(points))
        total = float(self.score or 0.0)
        return [total / len(self.rubrics)] * len(self.rubrics), total


KCL_LETTERS = ("A", "B", "C", "D", "E")
_CIRCLED = {"①": 1, "②": 2, "③": 3, "④": 4, "⑤": 5}


class KclMCQA(_Item):
    """A KCL five-choice question: options A-E (verbatim from the bar exam) and the right letter."""

    id: str
    meta: str
    question: str
    A: str
    B: str
    C: str
    D: str
    E: str
    label: str
    supporting_precedents: list[Precedent] = Field(default_factory=list)
    language: str | None = Field(None, description="Not in KCL (Korean); for KCL-shaped items in another.")
    jurisdiction: str | None = None

    @field_validator("label", mode="before")
    @classmethod
    def _label(cls, value: Any) -> Any:
        """ "B", "b", "(B)", "B." mean B; 1-5 and ①-⑤ count from A."""
        if isinstance(value, bool):
            raise ValueError("label must be a letter A-E")
        if isinstance(value, (int, float)) and float(value).is_integer() and 1 <= value <= 5:
            return KCL_LETTERS[int(value) - 1]
        if isinstance(value, str):
            text = value.strip().strip("().[] ").upper()
            if text in KCL_LETTERS:
                return text
            if text.isascii() and text.isdigit() and 1 <= int(text) <= 5:  # "②".isdigit() is true
                return KCL_LETTERS[int(text) - 1]
            if text in _CIRCLED:
                return KCL_LETTERS[_CIRCLED[text] - 1]
        raise ValueError(f"label must be one of A-E, 1-5 or ①-⑤, not {value!r}")

    @field_validator("supporting_precedents", mode="before")
    @classmethod
    def _supporting(cls, value: Any) -> Any:
        return _precedents(value)

    @property
    def choices(self) -> list[str]:
        return [self.A, self.B, self.C, self.D, self.E]

    @property
    def gold(self) -> int:
        return KCL_LETTERS.index(self.label)


ExamItem = LexamOpen | LexamMCQ | KclEssay | KclMCQA

_MODELS: dict[ExamFormat, type[_Item]] = {
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


def describe(error: ValidationError) -> str:
    """Every problem pydantic found, as "field: message; field: message"."""
    parts = []
    for problem in error.errors():
        location = ".".join(str(p) for p in problem["loc"] if not str(p).startswith("function-"))
        message = problem["msg"].removeprefix("Value error, ")
        parts.append(f"{location}: {message}" if location else message)
    return "; ".join(parts)


# --- sources ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HubSpec:
    """A Hugging Face dataset named as hf:OWNER/NAME[:CONFIG][@REVISION]."""

    name: str
    config: str | None
    revision: str | None

    @classmethod
    def parse(cls, text: str) -> HubSpec:
        body = text.removeprefix("hf:").removeprefix("hf://")
        match = re.fullmatch(
            r"(?P<name>[^:@\s]+)(?::(?P<config>[^:@\s]+))?(?:@(?P<revision>[^:@\s]+))?", body
        )
        if not match:
            raise InputError(f"{text}: a Hugging Face source is hf:OWNER/NAME[:CONFIG][@REVISION]")
        return cls(match["name"], match["config"], match["revision"])

    def label(self, split: str) -> str:
        config = f":{self.config}" if self.config else ""
        return f"hf:{self.name}{config}[{split}]"


def is_hub_source(source: str | Path) -> bool:
    return isinstance(source, str) and source.startswith("hf:")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _directory_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    for child in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(child.relative_to(path).as_posix().encode() + b"\0")
        digest.update(file_sha256(child).encode())
    return digest.hexdigest()


def _import_datasets(source: str) -> Any:
    try:
        return importlib.import_module("datasets")
    except ImportError:
        raise InputError(
            f"{source}: reading a Hugging Face dataset needs the `datasets` package (pip install datasets)"
        ) from None


_REVISION_IN_URL = re.compile(r"(?:@|/resolve/|/snapshots/)([0-9a-f]{40})(?:/|$)")


def _hub_revision(dataset: Any) -> str | None:
    """The commit a cached Hub dataset was built from, read from its download URLs or cache paths."""
    places: list[str] = []
    info = getattr(dataset, "info", None)
    checksums = getattr(info, "download_checksums", None) or {}
    places.extend(str(url) for url in checksums)
    for cache in getattr(dataset, "cache_files", None) or []:
        places.append(str(cache.get("filename", "")) if isinstance(cache, Mapping) else str(cache))
    for place in places:
        match = _REVISION_IN_URL.search(place)
        if match:
            return match.group(1)
    return None


def _load_hub(source: str, split: str, cache_dir: str | None) -> tuple[Any, dict[str, Any]]:
    spec = HubSpec.parse(source)
    datasets = _import_datasets(source)
    try:
        dataset = datasets.load_dataset(
            spec.name, spec.config, split=split, revision=spec.revision, cache_dir=cache_dir
        )
    except Exception as error:  # offline, unknown name, no such split: one line, not a traceback
        raise InputError(f"{spec.label(split)}: cannot load ({error.__class__.__name__}: {error})") from None
    found = _hub_revision(dataset)
    revision = spec.revision or found
    fingerprint = {
        "kind": "huggingface",
        "dataset": spec.name,
        "config": spec.config,
        "split": split,
        "revision": revision,
        "resolved_revision": found,
        "pinned": revision is not None,
        "datasets_fingerprint": getattr(dataset, "_fingerprint", None),
        "rows": len(dataset),
    }
    return dataset, fingerprint


def _load_saved(path: Path, split: str) -> tuple[Any, dict[str, Any]]:
    """A directory written by `Dataset.save_to_disk` (or a DatasetDict's, from which `split` is taken)."""
    datasets = _import_datasets(str(path))
    try:
        dataset = datasets.load_from_disk(str(path))
    except Exception as error:
        raise InputError(f"{path}: not a saved `datasets` directory ({error.__class__.__name__})") from None
    if isinstance(dataset, Mapping):  # a DatasetDict
        try:
            dataset = dataset[split]
        except (KeyError, TypeError):
            raise InputError(f"{path}: no split {split!r}") from None
    fingerprint = {
        "kind": "datasets-directory",
        "path": str(path),
        "split": split,
        "sha256": _directory_sha256(path),
        "datasets_fingerprint": getattr(dataset, "_fingerprint", None),
        "revision": _hub_revision(dataset),
        "rows": len(dataset),
    }
    return dataset, fingerprint


def source_fingerprint(
    source: str | Path, *, split: str = "test", cache_dir: str | None = None
) -> dict[str, Any]:
    """What pins a source, for manifests and run headers: {"kind": "file", "path", "sha256", "bytes"} for a
    file, the sha256 over all files of a saved `datasets` directory, or {"kind": "huggingface", "dataset",
    "config", "split", "revision", "pinned", ...} for hf:OWNER/NAME[:CONFIG][@REVISION] (the revision asked
    for, else the commit read from the cache; "pinned" is false when neither is known)."""
    if is_hub_source(source):
        return _load_hub(str(source), split, cache_dir)[1]
    path = Path(source)
    if path.is_dir():
        return _load_saved(path, split)[1]
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    return {"kind": "file", "path": str(path), "sha256": file_sha256(path), "bytes": path.stat().st_size}


# --- rows -------------------------------------------------------------------------------------------------


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
                value = json.loads(text)
            except ValueError as error:
                yield where, f"invalid JSON ({error})"
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
        rows = worksheet.iter_rows(values_only=True)
        header: list[str] | None = None
        for number, cells in enumerate(rows, 1):
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
    except (ValueError, SyntaxError, MemoryError, RecursionError):
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
        dataset, fingerprint = _load_hub(str(source), split, cache_dir)
        return _dataset_rows(dataset, HubSpec.parse(str(source)).label(split)), fingerprint
    path = Path(source)
    if path.is_dir():
        dataset, fingerprint = _load_saved(path, split)
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
    if strict and loaded.errors:
        more = f" (and {len(loaded.errors) - 1} more)" if len(loaded.errors) > 1 else ""
        raise InputError(loaded.errors[0] + more)
    if not loaded.items and not loaded.errors:
        raise InputError(f"{source}: no items")
    if not loaded.items:
        raise InputError(f"{source}: no valid items; first problem: {loaded.errors[0]}")
    return loaded
