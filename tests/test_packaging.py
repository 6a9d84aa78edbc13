"""The wheel carries the statutes and encodings, and lexsym finds them without the source tree."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_wheel_contains_every_rule_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("statutes", "encodings"):
        for path in (REPO / folder).rglob("*.lp"):
            assert f"lexsym/_rules/{path.relative_to(REPO).as_posix()}" in names
    assert "lexsym/oracles/prolog/domicile.pl" in names
    for path in (REPO / "data" / "assets").glob("*.jsonl"):
        assert f"lexsym/_data/assets/{path.name}" in names


def test_installed_package_solves_without_the_source_tree(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    example = str(REPO / "data/examples/case.json")
    script = (
        "import json, lexsym, lexsym.law.rules as r;"
        f"s = lexsym.solve(lexsym.load_case({example!r}));"
        "print(json.dumps([str(r.rules_root()), s.optimal.non_exempt_total]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    )
    root, non_exempt = json.loads(result.stdout)
    assert Path(root) == site / "lexsym" / "_rules"
    assert non_exempt >= 0
