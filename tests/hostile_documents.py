"""Hostile inputs for every surface a user's file reaches, and the verdict on what `lexsym` did with one.

The fuzz tests (`tests/test_fuzz_surfaces.py`) and the reliability campaign (`tools/fuzz_surfaces.py`) share
this module, so that the figures in an issue note come from the same inputs the tests draw. Each surface
starts from a valid seed document and changes it one hostile way, deterministically in a seed: a value
replaced by a huge integer, a lone surrogate, a NUL, NaN, a list where a scalar belongs; a key dropped or
added; the bytes truncated, given a byte-order mark or an invalid byte; the whole nested past Python's
recursion limit. The verdict is the audit's: exit 0, 1 or 2 (never 3 or a signal), an error that names the
file, one line of bounded length, and JSON output without NaN or Infinity.
"""

from __future__ import annotations

import copy
import io
import json
import random
import shutil
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "data" / "examples"
EXAM_FIXTURES = REPO / "tests" / "fixtures" / "exams"

MAX_ERROR_CHARS = 4000
"""An error longer than this is a defect of its own (the audit's billion laughs printed 25 MB)."""


class Raw(str):
    """JSON text written as it is: a token json.dumps would refuse or rewrite (NaN, a 5,000-digit integer,
    a lone surrogate escape, nesting deeper than the recursion limit)."""


HOSTILE_VALUES: tuple[Any, ...] = (
    Raw("1" * 5000),
    Raw("-" + "9" * 4400),
    Raw("1e308"),
    Raw("-1e308"),
    Raw("1e400"),
    Raw("NaN"),
    Raw("Infinity"),
    Raw("-Infinity"),
    Raw('"\\ud800"'),
    Raw('"a\\u0000b"'),
    Raw('"\\u2028x\\u0085"'),
    Raw("[" * 3000 + "]" * 3000),
    Raw('{"a":' * 3000 + "1" + "}" * 3000),
    2**31,
    2**32 + 5000,
    2**63,
    -1,
    0,
    0.5,
    True,
    None,
    "",
    " ",
    "x" * 3000,
    "§ 522(d)(5)",
    '"). #show. a.',
    ":- .",
    "zz,false). allowable(or,state_law(whole_730)). %",
    "2025-02-30",
    "9999-12-31",
    "{[1]: 2}",
    [],
    {},
    [1, [2]],
    {"a": [1]},
    [None],
)

BYTE_DAMAGE: tuple[Callable[[bytes, random.Random], bytes], ...] = (
    lambda data, rng: data[: rng.randrange(len(data))],
    lambda data, rng: b"\xef\xbb\xbf" + data,
    lambda data, rng: _insert(data, rng, b"\xff"),
    lambda data, rng: _insert(data, rng, b"\xc3("),
    lambda data, rng: _insert(data, rng, b"\x00"),
    lambda data, rng: b"[" * 100_000 + b"]" * 100_000,
    lambda data, rng: b"",
)


def _insert(data: bytes, rng: random.Random, piece: bytes) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + piece + data[at:]


def emit(value: Any) -> str:
    """JSON text of `value`, with `Raw` pieces written as they are."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {emit(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(emit(v) for v in value) + "]"
    return json.dumps(value)


def _paths(value: Any, path: tuple = ()) -> list[tuple]:
    found = [path]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*path, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*path, index))
    return found


def _replace(document: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = new
    return document


def mutate_value(document: Any, rng: random.Random) -> Any:
    """`document` changed in one hostile way: a value replaced, a key dropped or added, an item repeated."""
    document = copy.deepcopy(document)
    path = rng.choice(_paths(document))
    operator = rng.randrange(10)
    if operator < 6:
        return _replace(document, path, rng.choice(HOSTILE_VALUES))
    target = document
    for step in path:
        target = target[step]
    if isinstance(target, dict) and target:
        key = rng.choice(sorted(target))
        if operator < 8:
            del target[key]
        else:
            target[rng.choice(["zz_unknown", "\ud800", "", key.upper()])] = rng.choice(HOSTILE_VALUES)
    elif isinstance(target, list) and target:
        index = rng.randrange(len(target))
        if operator < 8:
            del target[index]
        else:
            target.append(copy.deepcopy(target[index]))
    else:
        return _replace(document, path, rng.choice(HOSTILE_VALUES))
    return document


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def hostile_json(document: Any, rng: random.Random | None) -> bytes:
    """A JSON file: `document` mutated, then one time in four its bytes damaged (no `rng`: as it is)."""
    if rng is None:
        return _encoded(emit(document))
    data = _encoded(emit(mutate_value(document, rng)))
    return rng.choice(BYTE_DAMAGE)(data, rng) if rng.random() < 0.25 else data


def hostile_jsonl(records: list[Any], rng: random.Random | None) -> bytes:
    """A JSONL file: one record mutated (or a line added or dropped), one time in four its bytes damaged."""
    if rng is None:
        return _encoded("".join(emit(record) + "\n" for record in records))
    records = copy.deepcopy(records)
    index = rng.randrange(len(records))
    records[index] = mutate_value(records[index], rng)
    if rng.random() < 0.1:
        records.append(Raw("[" * 5000))
    data = _encoded("".join(emit(record) + "\n" for record in records))
    return rng.choice(BYTE_DAMAGE)(data, rng) if rng.random() < 0.25 else data


STATUTE_INSERTS = (
    " big(1..1000000000). ",
    " p(X) :- q(X), X = 1..100000000. ",
    "#script (python) import os #end.",
    '#include "/etc/passwd".',
    "\ufeff",
    "§",
    "%*",
    '"',
    ":- .",
    "a :- not a.",
    "#const x=1.",
    "#show.",
    "\x00",
    "amount(x, y, date(2025,1,1), 99999999999999).",
)


def hostile_statute(text: str, rng: random.Random | None) -> bytes:
    """A statute file changed at the text level: a character or line dropped or repeated, a hostile
    construct inserted (a range that explodes in grounding, a script, an include, a NUL), a bad byte."""
    if rng is None:
        return _encoded(text)
    lines = text.split("\n")
    operator = rng.randrange(6)
    if operator == 0 and len(text) > 1:
        at = rng.randrange(len(text))
        text = text[:at] + text[at + 1 :]
    elif operator == 1:
        del lines[rng.randrange(len(lines))]
        text = "\n".join(lines)
    elif operator == 2:
        at = rng.randrange(len(lines))
        lines.insert(at, lines[at])
        text = "\n".join(lines)
    elif operator in (3, 4):
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(STATUTE_INSERTS) + text[at:]
    data = _encoded(text)
    if operator == 5:
        data = rng.choice(BYTE_DAMAGE[:5])(data, rng)
    return data


def hostile_xlsx(seed_file: Path, rng: random.Random | None) -> bytes:
    """An XLSX exam: a cell given a hostile value (through openpyxl), or the zip's bytes damaged."""
    if rng is None:
        return seed_file.read_bytes()
    if rng.random() < 0.5:
        import openpyxl

        book = openpyxl.load_workbook(seed_file)
        sheet = book.active
        row, column = rng.randrange(1, sheet.max_row + 1), rng.randrange(1, sheet.max_column + 1)
        value = rng.choice([v for v in HOSTILE_VALUES if isinstance(v, (str, int, float)) or v is None])
        sheet.cell(row=row, column=column).value = _cell(value)
        out = io.BytesIO()
        book.save(out)
        return out.getvalue()
    data = seed_file.read_bytes()
    if rng.random() < 0.5:
        return rng.choice(BYTE_DAMAGE[:1] + BYTE_DAMAGE[2:5])(data, rng)
    out = io.BytesIO()  # a well-formed zip whose sheet XML is not
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        for entry in source.infolist():
            content = source.read(entry)
            if entry.filename.endswith("sheet1.xml"):
                content = content[: rng.randrange(len(content))]
            target.writestr(entry, content)
    return out.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, Raw) or not isinstance(value, (str, int, float)) or isinstance(value, bool):
        return str(value)[:200]
    if isinstance(value, int) and abs(value) >= 2**53:
        return str(value)
    return value


@dataclass(frozen=True)
class Trial:
    """One hostile input on disk and the command line that reads it."""

    surface: str
    argv: list[str]
    input_file: Path
    env: dict[str, str]
    json_output: bool


def _case() -> dict:
    return json.loads((EXAMPLES / "case.json").read_text(encoding="utf-8"))


def _answer() -> dict:
    return json.loads((EXAMPLES / "valid-answer.json").read_text(encoding="utf-8"))


def _jsonl(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


GENERATE_CONFIG = {
    "name": "fuzz",
    "terminal_task": "EC",
    "asset_count_min": 1,
    "asset_count_max": 2,
    "domicile_count_min": 1,
    "domicile_count_max": 2,
    "married_ratio": 0.5,
    "state_jurisdictions": ["WI", "OR"],
    "split": {"dev": 0, "test": 2},
}
SUITE = {
    "name": "fuzz",
    "base": {k: v for k, v in GENERATE_CONFIG.items() if k not in ("name", "terminal_task")},
    "vary": {"task": ["AE", "NA"]},
}
LABELS = [
    {"item": f"q{item}", "rater": rater, "score": score, "kind": kind}
    for item in range(32)
    for rater, kind, score in (
        ("expert-1", "human", (item % 3) / 2),
        ("expert-2", "human", ((item + 1) % 3) / 2),
        ("expert-3", "human", (item % 3) / 2),
        ("judge", "llm", (item % 3) / 2),
    )
]


def make_trial(surface: str, seed: int | None, work: Path, tasks: Path | None = None) -> Trial:
    """Write surface `surface`'s hostile input number `seed` under `work` and say how to run it (seed None:
    the valid document the hostile ones start from). `tasks` is a generated tasks.jsonl, which the `score`
    surface needs beside its predictions."""
    rng = None if seed is None else random.Random(f"{surface}:{seed}")
    work.mkdir(parents=True, exist_ok=True)
    env: dict[str, str] = {}
    if surface == "case":
        path = work / "case.json"
        path.write_bytes(hostile_json(_case(), rng))
        return Trial(surface, ["solve", str(path), "--json"], path, env, True)
    if surface == "answer":
        shutil.copy(EXAMPLES / "case.json", work / "case.json")
        path = work / "answer.json"
        path.write_bytes(hostile_json(_answer(), rng))
        return Trial(surface, ["check", str(path), "--json"], path, env, True)
    if surface == "predictions":
        assert tasks is not None, "the score surface needs a generated tasks.jsonl"
        ids = [json.loads(line)["id"] for line in tasks.read_text(encoding="utf-8").splitlines()]
        records = [{"id": task_id, "output": '{"answer": ["Wisconsin"]}'} for task_id in ids]
        path = work / "predictions.jsonl"
        path.write_bytes(hostile_jsonl(records, rng))
        argv = ["score", str(tasks), str(path), "--json", "--resamples", "20"]
        return Trial(surface, argv, path, env, True)
    if surface == "exam":
        path = work / "exam.jsonl"
        path.write_bytes(hostile_jsonl(_jsonl(EXAM_FIXTURES / "lexam_mcq.jsonl"), rng))
        argv = ["exam", "convert", str(path), "--format", "lexam-mcq", "--out", str(work / "out")]
        return Trial(surface, argv, path, env, False)
    if surface == "exam-csv":
        path = work / "exam.csv"
        path.write_bytes(_hostile_csv((EXAM_FIXTURES / "lexam_mcq.csv").read_text(encoding="utf-8"), rng))
        argv = ["exam", "convert", str(path), "--format", "lexam-mcq", "--out", str(work / "out")]
        return Trial(surface, argv, path, env, False)
    if surface == "exam-xlsx":
        path = work / "exam.xlsx"
        path.write_bytes(hostile_xlsx(EXAM_FIXTURES / "lexam_mcq.xlsx", rng))
        argv = ["exam", "convert", str(path), "--format", "lexam-mcq", "--out", str(work / "out")]
        return Trial(surface, argv, path, env, False)
    if surface == "config":
        path = work / "config.yaml"
        path.write_bytes(hostile_json(GENERATE_CONFIG, rng))
        return Trial(
            surface, ["generate", "--config", str(path), "--out", str(work / "out")], path, env, False
        )
    if surface == "suite":
        path = work / "suite.yaml"
        path.write_bytes(hostile_json(SUITE, rng))
        return Trial(
            surface, ["generate", "--suite", str(path), "--out", str(work / "out")], path, env, False
        )
    if surface == "labels":
        path = work / "labels.jsonl"
        path.write_bytes(hostile_jsonl(LABELS, rng))
        return Trial(surface, ["judge", "validate", str(path), "--json"], path, env, True)
    if surface in ("statute-lint", "statute-solve"):
        rules = work / "rules"
        if not rules.exists():
            shutil.copytree(REPO / "statutes", rules / "statutes")
            shutil.copytree(REPO / "encodings", rules / "encodings")
        files = sorted((REPO / "statutes").rglob("*.lp"))
        original = (rng or random.Random(0)).choice(files)
        path = rules / original.relative_to(REPO)
        path.write_bytes(hostile_statute(original.read_text(encoding="utf-8"), rng))
        if surface == "statute-lint":
            return Trial(surface, ["lint", "--rules", str(rules), str(path)], path, env, False)
        shutil.copy(EXAMPLES / "case.json", work / "case.json")
        argv = ["solve", str(work / "case.json"), "--rules", str(rules), "--json"]
        return Trial(surface, argv, path, env, True)
    raise ValueError(f"unknown surface {surface!r}")


def _hostile_csv(text: str, rng: random.Random | None) -> bytes:
    """A CSV exam with one cell replaced (a `{[1]: 2}` list cell, a NUL, a huge number) or bytes damaged."""
    import csv

    if rng is None:
        return _encoded(text)
    rows = list(csv.reader(io.StringIO(text)))
    row = rng.randrange(len(rows))
    column = rng.randrange(len(rows[row]))
    value = rng.choice(HOSTILE_VALUES)
    rows[row][column] = value if isinstance(value, str) else emit(value)[:5000]
    if rng.random() < 0.2:
        rows[row] = rows[row][: rng.randrange(len(rows[row]) + 1)]
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    data = _encoded(out.getvalue())
    return rng.choice(BYTE_DAMAGE)(data, rng) if rng.random() < 0.25 else data


SURFACES = (
    "case",
    "answer",
    "predictions",
    "exam",
    "exam-csv",
    "exam-xlsx",
    "config",
    "suite",
    "labels",
    "statute-lint",
    "statute-solve",
)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} in JSON output")


def problem_with(trial: Trial, code: int | None, stdout: str, stderr: str) -> str | None:
    """What is wrong with how `lexsym` handled `trial` (None: nothing). The audit's rule: exit 0, 1 or 2;
    an error names the file it is about, in one bounded line; JSON output has no NaN or Infinity."""
    if code is None:
        return "hang"
    if code < 0 or code > 2:
        first = stderr.strip().splitlines()[-1:] or [""]
        return f"exit {code}: {first[0][:300]}"
    if "Traceback (most recent call last)" in stderr:
        return "traceback on stderr"
    errors = [line for line in stderr.splitlines() if line.startswith("lexsym: error:")]
    if len(stderr) > MAX_ERROR_CHARS and errors:
        return f"an error of {len(stderr)} characters"
    if code == 2:
        if not errors:
            return "exit 2 without an error line"
        if not any(trial.input_file.name in line for line in errors):
            return f"error names no file: {errors[0][:300]}"
    if trial.json_output and code in (0, 1) and stdout.strip():
        try:
            json.loads(stdout, parse_constant=_no_constant)
        except ValueError as whole:
            try:  # JSON lines (check of a batch)
                for line in stdout.splitlines():
                    if line.strip():
                        json.loads(line, parse_constant=_no_constant)
            except ValueError:
                return f"JSON output: {whole}"[:300]
    return None
