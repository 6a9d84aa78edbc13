"""A JSONL output file that a killed batch can be resumed into: one complete line per input, in input
order, each on disk before the next is started.

`lexsym solve --batch` and `lexsym check` on a file of many answers both write this way, so a kill loses at
most the line being written, and running the command again appends exactly the lines an uninterrupted run
would have written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from lexsym._util.errors import OutputError, os_problem


def complete_lines(out: Path) -> int:
    """How many complete lines a previous run left in `out` (0 if there is none); a torn last line (a kill
    mid-write) is cut off first."""
    if not out.exists():
        return 0
    data = out.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with out.open("r+b") as handle:
            handle.truncate(len(complete))
    return complete.count(b"\n")


def append_record(handle: IO[bytes], record: dict[str, Any]) -> None:
    """Write one record as a line (keys sorted, so reruns are byte-identical) and force it to disk."""
    try:
        handle.write((json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n").encode())
        handle.flush()
        os.fsync(handle.fileno())
    except OSError as error:  # a full disk: the torn line is cut off when the output is resumed
        raise OutputError(f"cannot write {os_problem(error, getattr(handle, 'name', None))}") from None
