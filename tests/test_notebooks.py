"""Every notebook under notebooks/ runs top to bottom, and is stored without outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
#: What a notebook must show besides running: output types (MIME) that some cell must produce.
SHOWS = {"analysis.ipynb": {"image/png"}}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path):
    notebook = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    assert any(cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    shown = {
        kind for cell in notebook.cells for out in cell.get("outputs", []) for kind in out.get("data", {})
    }
    assert SHOWS.get(path.name, set()) <= shown


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_without_outputs(path):
    notebook = nbformat.read(path, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs") and cell.get("execution_count") is None
