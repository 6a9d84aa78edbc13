"""Where the statute and encoding files live, in a source checkout or inside an installed wheel."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from lexsym._util.errors import InputError

RULES_ENV = "LEXSYM_RULES"
"""Point this at a directory holding `statutes/` and `encodings/` to run edited rules without reinstalling."""

CASE_ENCODINGS = (
    "vocabulary.lp",
    "domicile.lp",
    "amounts.lp",
    "interests.lp",
    "classify.lp",
    "parameters.lp",
    "valuation.lp",
)
"""Encodings of the deterministic first pass (tasks AE, EC, EV and the allocation contract), in order."""

ALLOCATION_ENCODING = "allocate.lp"


def _looks_like_rules(path: Path) -> bool:
    return (path / "statutes").is_dir() and (path / "encodings").is_dir()


@cache
def rules_root(override: str | None = None) -> Path:
    """The directory holding `statutes/` and `encodings/`.

    Order: an explicit override, then $LEXSYM_RULES, then the copy packaged in the wheel, then the
    source checkout this module sits in (editable installs).
    """
    candidates: list[Path] = []
    chosen = override or os.environ.get(RULES_ENV)
    if chosen:
        path = Path(chosen)
        if not _looks_like_rules(path):
            raise InputError(f"{path}: not a rules directory (needs statutes/ and encodings/)")
        return path.resolve()
    package = Path(__file__).resolve().parents[1]  # lexsym/, whose _rules/ the wheel ships
    candidates += [package / "_rules", package.parent]
    for candidate in candidates:
        if _looks_like_rules(candidate):
            return candidate
    raise InputError("cannot find the statutes/ and encodings/ directories; set LEXSYM_RULES")


_TREES: dict[Path, tuple[tuple[tuple[str, int], ...], dict[str, list[Path]]]] = {}


def _directory_stamps(statutes: Path) -> tuple[tuple[str, int], ...]:
    """Every directory under `statutes` with its mtime: a file added, removed or renamed anywhere in the
    tree changes one of them."""
    stamps = []
    pending = [statutes]
    while pending:
        directory = pending.pop()
        with os.scandir(directory) as entries:
            children = [Path(entry.path) for entry in entries if entry.is_dir()]
        stamps.append((str(directory), directory.stat().st_mtime_ns))
        pending.extend(children)
    return tuple(sorted(stamps))


def _statute_tree(root: Path) -> dict[str, list[Path]]:
    """The rule files of `root/statutes` by top-level part ("" for files directly in it, else the
    directory's name), listed once per process and again whenever a directory of the tree changes
    (a solve asks for them several times; walking the tree each time cost milliseconds per case)."""
    statutes = root / "statutes"
    stamps = _directory_stamps(statutes)
    cached = _TREES.get(statutes)
    if cached is not None and cached[0] == stamps:
        return cached[1]
    parts: dict[str, list[Path]] = {"": sorted(statutes.glob("*.lp"))}
    for directory in sorted(p for p in statutes.iterdir() if p.is_dir()):
        parts[directory.name] = sorted(directory.rglob("*.lp"))
    _TREES[statutes] = (stamps, parts)
    return parts


def statute_files(root: Path, jurisdictions: Iterable[str] | None = None) -> list[Path]:
    """Every statute file, or only those a case in `jurisdictions` (ids: US, AZ, ...) needs.

    Files directly under statutes/ (opt_out.lp) and statutes/federal/ (which also limits state
    exemptions, e.g. 11 U.S.C. § 522(p)) are always included; a state's directory is named by its
    lower-case USPS code.
    """
    tree = _statute_tree(root)
    if jurisdictions is None:
        return sorted(path for files in tree.values() for path in files)
    wanted = {"federal", *(part.lower() for code in jurisdictions for part in code.split("+"))}
    files = list(tree[""])
    for name in sorted(name for name in tree if name and name in wanted):
        files.extend(tree[name])
    return files


def encoded_jurisdictions(root: Path) -> list[str]:
    """Jurisdiction ids with a statute directory: US for federal/, else the directory's USPS code."""
    tree = _statute_tree(root)
    return ["US" if name == "federal" else name.upper() for name in sorted(tree) if name and tree[name]]


def domicile_files(root: Path) -> list[Path]:
    """What the 730-day rule alone needs: the vocabulary, the opt-out table and domicile.lp."""
    return [
        root / "encodings" / "vocabulary.lp",
        root / "statutes" / "opt_out.lp",
        root / "encodings" / "domicile.lp",
    ]


def case_encoding_files(root: Path) -> list[Path]:
    return [root / "encodings" / name for name in CASE_ENCODINGS]


def allocation_encoding(root: Path) -> Path:
    return root / "encodings" / ALLOCATION_ENCODING


def rule_files(root: Path) -> list[Path]:
    """Every rule file of `root`: the statutes and the encodings, sorted."""
    return sorted([*statute_files(root), *(root / "encodings").glob("*.lp")])


def stratified_files(root: Path) -> list[Path]:
    """The rule files of the deterministic passes (every one but the allocation encoding), sorted."""
    return [path for path in rule_files(root) if path != allocation_encoding(root)]


def rules_digest(root: Path) -> str:
    """A hash of every rule file, recorded in outputs so results can be traced to the rules that made them."""
    files = rule_files(root)
    return _digest(root, tuple((path, path.stat().st_mtime_ns, path.stat().st_size) for path in files))


@cache
def _digest(root: Path, files: tuple[tuple[Path, int, int], ...]) -> str:
    digest = hashlib.sha256()
    for path, _mtime, _size in files:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
