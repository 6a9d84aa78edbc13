"""Where the statute and encoding files live, in a source checkout or inside an installed wheel."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from lexsym._util.errors import InputError
from lexsym.law.vocabulary import state_of, systems_of

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

    Order: an explicit override (`--rules`), then $LEXSYM_RULES, then the working tree (the current
    directory or its nearest parent holding `statutes/` and `encodings/`: a legal engineer's checkout, so
    that edited rules take effect without reinstalling), then the rules installed with lexsym. When the
    working tree's rules differ from the installed ones, one line on stderr says which are used.
    """
    packaged = _installed_rules()
    root, origin = choose_rules(override, os.environ.get(RULES_ENV), Path.cwd(), packaged)
    notice = rules_notice(root, origin, packaged)
    if notice:
        sys.stderr.write(notice + "\n")
    return root


def _installed_rules() -> Path | None:
    package = Path(__file__).resolve().parents[1]  # lexsym/, whose _rules/ the wheel ships
    for candidate in (package / "_rules", package.parent):  # the wheel's copy, or an editable checkout
        if _looks_like_rules(candidate):
            return candidate
    return None


def choose_rules(
    override: str | None, environment: str | None, cwd: Path, packaged: Path | None
) -> tuple[Path, str]:
    """Which rules to use, and why: "option", "environment", "working tree" or "installed"."""
    for chosen, origin in ((override, "option"), (environment, "environment")):
        if chosen:
            path = Path(chosen)
            if not _looks_like_rules(path):
                raise InputError(f"{path}: not a rules directory (needs statutes/ and encodings/)")
            return path.resolve(), origin
    for directory in (cwd, *cwd.parents):
        if _looks_like_rules(directory):
            return directory.resolve(), "working tree"
    if packaged is None:
        raise InputError("cannot find the statutes/ and encodings/ directories; set LEXSYM_RULES")
    return packaged, "installed"


def rules_notice(root: Path, origin: str, packaged: Path | None) -> str | None:
    """The line that says the working tree's rules are used instead of different installed ones."""
    if origin != "working tree" or packaged is None or root == packaged.resolve():
        return None
    if rules_digest(root) == rules_digest(packaged):
        return None
    return (
        f"lexsym: using the rules of the working tree {root} (digest {rules_digest(root)}), not the "
        f"installed ones (digest {rules_digest(packaged)}); --rules or ${RULES_ENV} chooses others"
    )


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
    wanted = {"federal", *(state_of(part).lower() for code in jurisdictions for part in code.split("+"))}
    files = list(tree[""])
    for name in sorted(name for name in tree if name and name in wanted):
        files.extend(tree[name])
    return files


def encoded_jurisdictions(root: Path) -> list[str]:
    """Jurisdiction ids with a statute directory: US for federal/, else the directory's USPS code, or the ids
    of the state's systems where its law offers several (statutes/ca/ holds CA_703 and CA_704)."""
    codes = ["US" if name == "federal" else name.upper() for name in encoded_folders(root)]
    return sorted(system for code in codes for system in systems_of(code))


def encoded_states(root: Path) -> list[str]:
    """The USPS codes of the states with a statute directory (a state's law may be several jurisdictions)."""
    return [name.upper() for name in encoded_folders(root) if name != "federal"]


def encoded_folders(root: Path) -> list[str]:
    tree = _statute_tree(root)
    return [name for name in sorted(tree) if name and tree[name]]


def jurisdiction_folder(code: str) -> str:
    """The statute directory of a jurisdiction id: federal/ for US, else its state's lower-case code."""
    return "federal" if code == "US" else state_of(code).lower()


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
