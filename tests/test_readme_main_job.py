"""The README's first command (the offline main job) must keep working: generate, run two local models,
score, compare. The venv and install steps are the only parts not replayed (the tests run installed)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main_job_steps() -> list[list[str]]:
    blocks = re.findall(r"```bash\n(.*?)\n```", (REPO / "README.md").read_text(encoding="utf-8"), re.S)
    steps = []
    for part in blocks[0].split("&&"):
        words = shlex.split(part)
        if words and words[0] == ".venv/bin/lexsym":
            steps.append([sys.executable, "-m", "lexsym", *words[1:]])
    return steps


def test_readme_main_job_runs_offline_and_the_oracle_is_perfect(tmp_path):
    steps = main_job_steps()
    assert [step[3] for step in steps] == ["generate", "run", "run", "report"]
    for step in steps:
        step[:] = [str(REPO / word) if word.startswith("data/") else word for word in step]
    for step in steps[:-1]:
        done = subprocess.run(step, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{shlex.join(step)}: {done.stderr}"
    done = subprocess.run([*steps[-1], "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    table = json.loads(done.stdout)
    assert [run["model"] for run in table["runs"]] == ["lexsym:baseline", "lexsym:oracle"]
    for task in ("AE", "EC", "EV", "NA", "OE"):
        baseline, oracle = table["cells"][f"{task} F1"]
        assert oracle[0] == 1.0
        assert baseline[0] < 1.0
    assert table["cells"]["OE optimal%"][1][0] == 1.0
