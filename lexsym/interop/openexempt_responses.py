"""OpenExempt's response files (what its `inference.py` writes: `<model>/<dataset_id>/predictions.jsonl`,
one `{"uid", "prediction"}` per task) gathered into one predictions file for `lexsym score`."""

from __future__ import annotations

from pathlib import Path

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError

RESPONSE_FILE = "predictions.jsonl"


def response_files(path: Path) -> list[Path]:
    """`path` itself, or every predictions.jsonl under the folder `path`, in name order."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError(f"{path}: no such file or directory")
    found = sorted(path.rglob(RESPONSE_FILE))
    if not found:
        raise InputError(
            f"{path}: no {RESPONSE_FILE} under it (OpenExempt writes <model>/<dataset>/{RESPONSE_FILE})"
        )
    return found


def gather_responses(path: Path, out: Path) -> Path:
    """One predictions file holding every response under `path` (a file is used as it is). Lines are kept
    byte for byte: `lexsym score` reads OpenExempt's `uid` as the id and `prediction` as the text."""
    files = response_files(path)
    if len(files) == 1:
        return files[0]
    chunks = []
    for file in files:
        data = file.read_bytes()
        chunks.append(data if data.endswith(b"\n") or not data else data + b"\n")
    write_atomic(out, b"".join(chunks).decode("utf-8", errors="replace"))
    return out
