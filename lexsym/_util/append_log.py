"""Append-only JSONL logs that survive a kill: an exclusive lock per log, and the torn or unusable lines set
aside (kept, not deleted) before the next session appends."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError, OutputError, os_problem


def lock_file(path: Path, busy: str) -> int | None:
    """Take an exclusive lock on `path` (created if needed) and write our pid into it; InputError with
    `busy` and the holder's pid when another process holds it. The kernel drops the lock when the holder
    dies, even by SIGKILL. None where there is no flock (Windows: one process per directory by convention)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise OutputError(f"cannot write {os_problem(error, path)}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 64).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise InputError(f"{busy} (pid {holder})") from None
    try:
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
    except OSError as error:
        os.close(fd)
        raise OutputError(f"cannot write {os_problem(error, path)}") from None
    return fd


def unlock_file(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)  # closing the descriptor releases the flock


def set_aside_lines(
    path: Path, dropped: Path, verdict: Callable[[Any, bool], str | None]
) -> tuple[dict[str, int], int]:
    """Before appending to an append-only JSONL file, move the lines that cannot stand to `dropped`.

    `verdict(line, torn)` gets each line parsed (None when it is not JSON; `torn` when that is the last
    line and the file does not end with a newline, which is what a kill mid-write leaves) and returns the
    reason to set it aside, or None to keep it. With lines set aside the file is rewritten atomically;
    either way it ends with a newline afterwards, so the next append starts on a fresh line. Returns the
    set-aside counts by reason, and the number of lines kept.
    """
    if not path.exists():
        return {}, 0
    data = path.read_bytes()
    pieces = data.split(b"\n")
    tail_complete = data.endswith(b"\n") or not data
    keep: list[bytes] = []
    moved: list[bytes] = []
    reasons: dict[str, int] = {}
    for number, raw in enumerate(pieces, start=1):
        last = number == len(pieces)
        if last and not raw:
            break
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except (ValueError, RecursionError):
            line = None
        reason = verdict(line, last and not tail_complete)
        if reason is None:
            keep.append(raw)
        else:
            moved.append(raw)
            reasons[reason] = reasons.get(reason, 0) + 1
    if moved:
        with open(dropped, "ab") as stream:
            stream.write(b"".join(line + b"\n" for line in moved))
            stream.flush()
            os.fsync(stream.fileno())
        write_atomic(path, b"".join(line + b"\n" for line in keep).decode("utf-8"))
    elif not tail_complete:
        with open(path, "ab") as stream:  # a complete last record whose newline was cut
            stream.write(b"\n")
            stream.flush()
            os.fsync(stream.fileno())
    return reasons, len(keep)
