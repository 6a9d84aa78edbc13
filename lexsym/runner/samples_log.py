"""samples.jsonl, read and written: a tolerant streaming reader (a live or killed run never crashes it) and
the single group-committing writer."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lexsym._util.errors import OutputError, os_problem


def _parse_line(raw: bytes) -> dict[str, Any] | None:
    """A sample line as a dict with a string task_id and an int repeat, or None."""
    try:
        return sample_fields(json.loads(raw))
    except (ValueError, RecursionError):
        return None


def sample_fields(record: Any) -> dict[str, Any] | None:
    """`record` when it is a sample line's dict (a string task_id, an int repeat), else None."""
    if (
        not isinstance(record, dict)
        or not isinstance(record.get("task_id"), str)
        or not isinstance(record.get("repeat"), int)
        or isinstance(record.get("repeat"), bool)
    ):
        return None
    return record


def read_samples(path: str | Path) -> Iterator[dict[str, Any]]:
    """Every readable sample line of a samples.jsonl, streaming. Torn or unreadable lines are skipped (a
    killed session may leave one at the end), so readers never crash on a live or crashed run."""
    path = Path(path)
    if not path.exists():
        return
    with open(path, "rb") as stream:
        for raw in stream:
            if not raw.strip():
                continue
            record = _parse_line(raw)
            if record is not None:
                yield record


class SampleWriter:
    """The only appender to samples.jsonl: a task that drains a queue of finished lines, writes each batch
    with one `os.write` loop, and fsyncs it in a worker thread, so the event loop never blocks on the disk
    and samples that finish while one batch is being synced go out together in the next (group commit)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.written = 0
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._fd: int | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self, on_error: Any = None) -> None:
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._task = asyncio.get_running_loop().create_task(self._run())
        if on_error is not None:
            self._task.add_done_callback(
                lambda task: on_error(task.exception()) if not task.cancelled() and task.exception() else None
            )

    def append(self, line: str) -> None:
        """Queue one finished line (ending in a newline)."""
        self._queue.put_nowait(line)

    async def _run(self) -> None:
        assert self._fd is not None
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty():
                batch.append(self._queue.get_nowait())
            lines = [line for line in batch if line is not None]
            if lines:
                data = "".join(lines).encode("utf-8")
                view = memoryview(data)
                try:
                    while view:
                        view = view[os.write(self._fd, view) :]
                    await asyncio.to_thread(os.fsync, self._fd)
                except OSError as error:  # a full disk: the torn line is set aside when the run resumes
                    raise OutputError(f"cannot write {os_problem(error, self.path)}") from None
                self.written += len(lines)
            if len(lines) != len(batch):
                return

    async def close(self) -> None:
        """Write what is queued, then close the file. Re-raises a write error."""
        try:
            if self._task is not None:
                if not self._task.done():
                    self._queue.put_nowait(None)
                await self._task
        finally:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
