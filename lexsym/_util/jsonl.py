"""Reading a JSONL file a model or a person wrote: every bad line becomes a counted error, never a crash.

Scoring and the exam evaluator both read hostile files (truncated last lines, stray bytes, wrong types), so
the reader that turns them into `file:line: why` errors lives here, below both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from lexsym._util.errors import InputError
from lexsym._util.json_file import parse_json


class LineError(BaseModel):
    """A line of an input file that could not be used, and why."""

    file: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text, split at "\n" only: json.dumps may leave U+2028, NEL and the like raw
    inside a string (ensure_ascii=False), and str.splitlines() would cut the record there. A trailing "\r"
    (a file saved on Windows) is dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def read_jsonl(path: Path, errors: list[LineError]) -> Iterator[tuple[int, Any]]:
    """(line number, JSON value) for every non-blank line that parses; the others are appended to `errors`.
    Raises InputError when the file itself cannot be opened or read."""
    name = str(path)
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except OSError as error:
        raise InputError(f"{name}: cannot read: {error.strerror or error}") from None
    with stream:
        number = 0
        while True:
            try:
                raw = stream.readline()
            except OSError as error:
                raise InputError(f"{name}:{number + 1}: cannot read: {error.strerror or error}") from None
            if not raw:
                return
            number += 1
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                errors.append(LineError(file=name, line=number, message=f"not UTF-8 ({error.reason})"))
                continue
            if not text.strip():
                continue
            try:
                yield number, parse_json(text, "", line_numbers=False)
            except InputError as error:
                why = str(error).removeprefix(": ")
                if not text.endswith("\n"):
                    why += " (truncated last line?)"
                errors.append(LineError(file=name, line=number, message=why))
