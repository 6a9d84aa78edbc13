"""The nine suites as task sets on disk, generated on first use and never again for the same inputs.

Why a cache keyed by inputs rather than a shipped file: a suite's tasks follow from its definition
(`data/suites/NAME.yaml`), the seed, the law (`statutes/` and `encodings/`), the templates and the asset
catalogue, and lexsym's version. The key hashes all of them (`generate.pipeline.inputs_digest` holds the
rules digest), so an edited statute gives a new task set instead of stale gold, and the same inputs are
read back, byte for byte, from the directory `lexsym generate` would have written. Generation writes a
temporary directory and renames it into place, so two evaluations starting at once never read a half
written set: the loser's copy is dropped.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from lexsym._version import __version__
from lexsym.generate.pipeline import generate, inputs_digest
from lexsym.generate.suites import SUITE_NAMES, load_suite, suite_path
from lexsym.runner.cache import default_cache_dir


def suites_dir(cache_dir: str | Path | None = None) -> Path:
    """Where generated suites live: `cache_dir`, else `default_cache_dir()/suites` ($LEXSYM_CACHE_DIR,
    else the XDG cache)."""
    return Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir() / "suites"


def suite_key(name: str, seed: int) -> dict[str, object]:
    """Everything a suite's task set follows from."""
    return {
        "suite": name,
        "seed": seed,
        "suite_file": hashlib.sha256(suite_path(name).read_bytes()).hexdigest(),
        "inputs": inputs_digest(),
        "lexsym_version": __version__,
    }


def suite_tasks(
    name: str, *, seed: int = 0, cache_dir: str | Path | None = None, workers: int | None = None
) -> Path:
    """The tasks.jsonl of suite `name` at `seed`, generated (with `workers` processes) only when no task set
    of the same inputs is cached yet."""
    if name not in SUITE_NAMES:
        from lexsym._util.errors import InputError

        raise InputError(f"unknown suite {name!r} (known: {', '.join(SUITE_NAMES)})")
    key = suite_key(name, seed)
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16]
    target = suites_dir(cache_dir) / name / f"seed-{seed}-{digest}"
    if _complete(target):
        return target / "tasks.jsonl"
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    generate(load_suite(name, seed=seed), partial, workers=workers)
    (partial / "cache_key.json").write_text(
        json.dumps(key, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    try:
        partial.rename(target)
    except OSError:  # another process put its copy in place first: the same inputs, so the same bytes
        shutil.rmtree(partial, ignore_errors=True)
        if not _complete(target):
            raise
    return target / "tasks.jsonl"


def _complete(directory: Path) -> bool:
    """A cached set is used only whole: the manifest is written last and holds the tasks' hash."""
    try:
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        data = (directory / "tasks.jsonl").read_bytes()
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("tasks_sha256") == hashlib.sha256(data).hexdigest()
