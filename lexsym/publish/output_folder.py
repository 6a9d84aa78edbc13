"""Writing an export folder as a whole: it is filled beside its place and renamed into it, so a crash or a
failed check never leaves half a benchmark, and a re-export never keeps files of the previous one.

A folder that an export wrote carries `export.json` (what wrote it, from which task files); only such a
folder, of the same kind, is replaced. Anything else that is not empty is refused, so a mistyped `--out`
cannot delete someone's work.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lexsym._util.atomic import write_atomic
from lexsym._util.errors import InputError

MARKER = "export.json"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _check_target(out: Path, kind: str, inputs: list[Path]) -> None:
    resolved = out.resolve()
    for source in inputs:
        if source.resolve() == resolved or resolved in source.resolve().parents:
            raise InputError(f"{out}: --out holds the task files being exported ({source}); choose another")
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder")
    if not any(out.iterdir()):
        return
    marker = out / MARKER
    try:
        written = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise InputError(f"{out}: not empty and not a lexsym export; choose a new or empty --out") from None
    if not isinstance(written, dict) or written.get("kind") != kind:
        found = written.get("kind") if isinstance(written, dict) else None
        raise InputError(f"{out}: holds a {found!r} export, not {kind!r}; choose another --out")


def write_folder(
    out: str | Path, kind: str, inputs: list[Path], provenance: dict[str, Any], fill: Callable[[Path], None]
) -> Path:
    """`fill(folder)` writes the export into a fresh folder beside `out`; with `export.json` (`kind` and
    `provenance`) added it replaces `out`. InputError (exit 2) for an `out` that may not be replaced."""
    out = Path(out)
    _check_target(out, kind, inputs)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        fill(staging)
        marker = {"kind": kind, **provenance}
        write_atomic(staging / MARKER, json.dumps(marker, indent=2, ensure_ascii=False) + "\n")
        os.chmod(staging, 0o777 & ~_umask())
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            os.replace(out, retired / out.name)
            os.replace(staging, out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.replace(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return out
