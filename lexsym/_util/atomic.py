"""Writing result files so that a crash never leaves a half-written one behind."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from lexsym._util.errors import OutputError, os_problem


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` to a temporary file beside `path`, fsync it, then rename it into place. A file that
    cannot be written (a full disk, a read-only folder) is an OutputError naming `path`, with nothing left
    behind."""
    path = Path(path)
    try:
        _write_atomic(path, text)
    except OSError as error:
        raise OutputError(f"cannot write {os_problem(error, path)}") from None


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_atomic_with(path: str | Path, write: Callable[[Path], None]) -> None:
    """`write_atomic` for a writer that wants a path (a parquet or an image library): `write(temporary)`
    fills a file beside `path`, which is fsynced and renamed into place only once it is complete."""
    path = Path(path)
    try:
        _write_atomic_with(path, write)
    except OSError as error:
        raise OutputError(f"cannot write {os_problem(error, path)}") from None


def _write_atomic_with(path: Path, write: Callable[[Path], None]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(handle)
    temporary = Path(name)
    try:
        write(temporary)
        with open(temporary, "rb+") as stream:
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
