"""The documents a fresh clone is read by: they name only files that exist, never the ../shared folder a
clone does not have, and ARCHITECTURE.md draws the same house the layering test enforces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.test_layering import LAYERS

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = ("README.md", "ARCHITECTURE.md", "statutes/README.md")
PACKAGES = {package for floor in LAYERS for package in floor}


@pytest.mark.parametrize("document", DOCUMENTS)
def test_no_document_sends_readers_to_the_shared_folder(document):
    text = (REPO / document).read_text(encoding="utf-8")
    assert not re.search(r"\.\./shared|\bshared/(reference|seeds|STYLE)", text), document


@pytest.mark.parametrize("document", DOCUMENTS)
def test_every_path_a_document_names_exists(document):
    text = (REPO / document).read_text(encoding="utf-8")
    # Paths in the package, whole (`lexsym/law/solver.py`) or as ARCHITECTURE.md writes them
    # (`law/solver.py`); other paths may be examples (statutes/README.md shows how to add `statutes/oh/...`).
    named = set(re.findall(r"`(lexsym/[\w./-]*)`", text))
    short = re.findall(r"`(\w+/\w+\.py)`", text)
    inside = {f"lexsym/{path}" for path in short if path.split("/")[0] in PACKAGES}
    assert named | inside, f"{document} names no path: the pattern is out of date"
    missing = sorted(path for path in named | inside if not (REPO / path).exists())
    assert not missing, f"{document} names paths that do not exist: {missing}"


def test_architecture_lists_the_layers_of_the_layering_test_bottom_to_top():
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `(\w+)/` \|", text, re.M)
    drawn = [(int(floor), package) for floor, package in rows]
    enforced = [(floor, package) for floor, packages in enumerate(LAYERS) for package in packages]
    assert drawn == enforced


def test_architecture_names_every_folder_of_the_package():
    text = (REPO / "ARCHITECTURE.md").read_text(encoding="utf-8")
    folders = {p.name for p in (REPO / "lexsym").iterdir() if (p / "__init__.py").is_file()}
    missing = sorted(name for name in folders if f"`{name}/`" not in text)
    assert not missing, missing
