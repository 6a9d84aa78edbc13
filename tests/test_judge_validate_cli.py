"""`lexsym judge validate`: the alt-test and rater agreement from a ratings file, and its input errors."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.judges.labels import read_ratings
from lexsym.judges.report import validate_judges


def kind(rater: str) -> str:
    return "human" if rater.startswith("expert") else "llm"


def write_ratings(path: Path, *, items: int = 40, seed: int = 3) -> Path:
    """Three experts who mostly agree on a 0-1 grade, a judge that follows them, and a constant judge."""
    rng = random.Random(seed)
    rows = []
    for item in range(items):
        truth = rng.randrange(0, 11) / 10
        scores = {}
        for expert in ("expert-1", "expert-2", "expert-3"):
            noise = rng.choice([0.0, 0.0, 0.0, 0.1, -0.1, 0.2])
            scores[expert] = min(1.0, max(0.0, round(truth + noise, 1)))
        scores["good-judge"] = truth
        scores["constant-judge"] = 0.5
        rows += [
            {"item": f"q{item}", "rater": rater, "score": score, "kind": kind(rater)}
            for rater, score in scores.items()
        ]
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=["item", "rater", "score", "kind"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_a_judge_that_follows_the_experts_passes_and_a_constant_one_fails(tmp_path):
    ratings = read_ratings(write_ratings(tmp_path / "labels.csv"))
    result = validate_judges(
        ratings, ["good-judge", "constant-judge"], epsilon=0.2, alpha=0.05, metric="neg_rmse", min_items=30
    )
    assert result["alt_test"]["good-judge"]["passed"] is True
    assert result["alt_test"]["good-judge"]["winning_rate"] >= 0.5
    assert result["alt_test"]["constant-judge"]["passed"] is False
    pairs = {(p["first"], p["second"]): p for p in result["agreement"]}
    assert pairs[("expert-1", "expert-2")]["pearson"] > 0.8
    assert len(result["agreement"]) == 10  # every pair of the five raters


def test_cli_prints_the_test_and_the_agreement(tmp_path):
    labels = write_ratings(tmp_path / "labels.csv")
    command = [
        sys.executable,
        "-m",
        "lexsym",
        "judge",
        "validate",
        str(labels),
        "--judge",
        "good-judge",
        "--judge",
        "constant-judge",
        "--metric",
        "neg_rmse",
        "--json",
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["alt_test"]["good-judge"]["passed"] is True
    assert len(result["alt_test"]["good-judge"]["trials"]) == 3  # one per expert, judges left out
    assert result["alt_test"]["constant-judge"]["passed"] is False


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("item,rater,kind\nq1,a,human\n", "labels.csv:1: missing column(s) score"),
        # Without the kind column the file cannot say who is human: refused, whatever else it holds.
        ("item,rater,score\nq1,a,0.5\n", "labels.csv:1: missing column(s) kind (human or llm, per rater)"),
        ("item,rater,score,kind\nq1,a,0.5,expert\n", "labels.csv:2: kind 'expert' is neither human nor llm"),
        ("item,rater,score,kind\nq1,a,0.5,human\nq2,a,0.5,llm\n", "labels.csv:3: rater 'a' is human"),
        # A label among numbers (a typo, or a mixed file) is refused with its line.
        (
            "item,rater,score,kind\nq1,a,0.5,human\nq2,a,high,human\n",
            "labels.csv:3: score 'high' is not a number, while line 2 scores '0.5'",
        ),
        ("item,rater,score,kind\nq1,a,nan,human\n", "labels.csv:2: score 'nan' is not a finite number"),
        (
            "item,rater,score,kind\nq1,a,0.5,human\nq1,a,0.6,human\n",
            "labels.csv:3: rater 'a' scores item 'q1' twice",
        ),
        ("item,rater,score,kind\n", "no ratings"),
    ],
)
def test_bad_ratings_files_are_refused_with_the_line(tmp_path, content, message):
    path = tmp_path / "labels.csv"
    path.write_text(content)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_ratings(path)


def test_cli_error_is_one_line(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text('{"item": "q1", "rater": "a", "score": 0.5, "kind": "human"}\n{"item": "q1"\n')
    done = subprocess.run(
        [sys.executable, "-m", "lexsym", "judge", "validate", str(path), "--judge", "a"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        done.returncode == 2
        and done.stderr.count("\n") == 1
        and "labels.jsonl:2: invalid JSON" in done.stderr
    )


def test_json_output_has_no_nan_and_says_which_numbers_are_undefined(tmp_path):
    """A rater whose grades never vary has no correlation: the JSON says null, and why, never NaN (which is
    not JSON: 804 fuzzed label files printed it, issue 19 item 12)."""
    labels = write_ratings(tmp_path / "labels.csv")
    command = [sys.executable, "-m", "lexsym", "judge", "validate", str(labels)]
    command += ["--judge", "constant-judge", "--metric", "neg_rmse", "--json"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    def refuse(token: str) -> None:
        raise AssertionError(f"{token} in the JSON")

    document = json.loads(done.stdout, parse_constant=refuse)
    assert document["undefined"]
    assert all("pearson" in path or "qwk" in path or "rho" in path for path in document["undefined"])
