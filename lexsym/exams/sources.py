"""Where exam items come from, pinned: a file's sha256, a saved dataset directory's digest, or the revision
of a Hugging Face snapshot, so a run is only compared with another on the same bytes (LEXam has been revised
since its first release)."""

from __future__ import annotations

import hashlib
import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError


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


def load_hub(source: str, split: str, cache_dir: str | None) -> tuple[Any, dict[str, Any]]:
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


def load_saved(path: Path, split: str) -> tuple[Any, dict[str, Any]]:
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
        return load_hub(str(source), split, cache_dir)[1]
    path = Path(source)
    if path.is_dir():
        return load_saved(path, split)[1]
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    return {"kind": "file", "path": str(path), "sha256": file_sha256(path), "bytes": path.stat().st_size}
