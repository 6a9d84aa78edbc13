"""`lexsym judge validate`: only raters marked human form the alt-test's annotator pool (never another
judge, an ensemble holding the judge's own grades, or an llm rater of the labels file), and category
labels are compared by equality."""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym.judges.labels import Labels, ratings_from_run, read_ratings
from lexsym.judges.report import validate_judges
from lexsym.judges.scores import JudgedReport
from lexsym.judges.validation import alt_test

EXPERTS = ("expert-1", "expert-2", "expert-3")
JUDGE, OTHER = "litellm:judge-a", "litellm:judge-b"


def scenario(seed: int = 7, items: int = 40):
    """Experts grading 0-10 with little noise; a judge with more noise; a second judge that mostly copies
    the first, so that pooling it (or the min ensemble) with the experts flatters the first judge."""
    rng = random.Random(seed)
    experts: dict[str, dict[str, int]] = {name: {} for name in EXPERTS}
    judge, other = {}, {}
    for i in range(items):
        truth = rng.randrange(0, 11)
        for scores in experts.values():
            scores[f"t{i}"] = min(10, max(0, truth + rng.choice([0, 0, 0, 1, -1])))
        judge[f"t{i}"] = min(10, max(0, truth + rng.choice([0, 1, -1, 2, -2])))
        copy = rng.random() < 0.8
        other[f"t{i}"] = judge[f"t{i}"] if copy else min(10, max(0, truth + rng.choice([0, 1, -1])))
    return experts, judge, other


def write_labels(path: Path, raters: dict[str, dict[str, object]], kinds: dict[str, str]) -> Path:
    with open(path, "w", newline="") as stream:
        writer = csv.DictWriter(stream, fieldnames=["item", "rater", "score", "kind"])
        writer.writeheader()
        for rater, scores in raters.items():
            for item, score in scores.items():
                writer.writerow({"item": item, "rater": rater, "score": score, "kind": kinds[rater]})
    return path


def write_judged_run(run: Path, judge: dict[str, int], other: dict[str, int]) -> Path:
    """A judged run's judged.json: two judges grading 0-1 and their min ensemble, repeat 0."""
    run.mkdir()
    samples = [
        {
            "sample_id": f"{item}#0",
            "task_id": item,
            "repeat": 0,
            "judges": {JUDGE: judge[item] / 10, OTHER: other[item] / 10},
            "score": min(judge[item], other[item]) / 10,
        }
        for item in judge
    ]
    report = JudgedReport(ensemble="min", partial=False, judges=[JUDGE, OTHER], samples=samples)
    (run / "judged.json").write_text(report.model_dump_json(), encoding="utf-8")
    return run


def test_the_runs_other_judge_and_ensemble_stay_out_of_the_pool(tmp_path):
    experts, judge, other = scenario()
    labels = write_labels(tmp_path / "labels.csv", experts, dict.fromkeys(EXPERTS, "human"))
    run = write_judged_run(tmp_path / "run", judge, other)
    ratings = read_ratings(labels)
    ratings.add(ratings_from_run(run, scale=10))
    assert ratings.kinds[OTHER] == ratings.kinds["ensemble:min"] == "llm"
    assert ratings.ratings[JUDGE]["t0"] == judge["t0"]  # 0.7 x 10 is 7.0, not 7.000000000000001

    result = validate_judges(ratings, [JUDGE], epsilon=0.2, alpha=0.05, metric="accuracy", min_items=30)
    test = result["alt_test"][JUDGE]
    assert result["human_pool"] == list(EXPERTS)
    assert [trial["annotator"] for trial in test["trials"]] == list(EXPERTS)
    right = alt_test(experts, judge, epsilon=0.2, metric="accuracy")
    assert test["advantage_probability"] == pytest.approx(right.advantage_probability) == pytest.approx(0.625)
    assert test["winning_rate"] == right.winning_rate == 0.0 and test["passed"] is False
    # What the old pool (every rater but the named judge) made of the same ratings: a pass.
    ensemble = {item: min(judge[item], other[item]) for item in judge}
    wrong = alt_test({**experts, OTHER: other, "ensemble:min": ensemble}, judge, epsilon=0.2)
    assert wrong.advantage_probability == pytest.approx(0.945) and wrong.passed is True
    # Agreement still covers every rater, the llm ones included.
    assert len(result["agreement"]) == 15  # 6 raters


def test_an_llm_rater_of_the_labels_file_stays_out_of_the_pool(tmp_path):
    experts, judge, other = scenario()
    kinds = {**dict.fromkeys(EXPERTS, "human"), JUDGE: "llm", OTHER: "llm"}
    labels = write_labels(tmp_path / "labels.jsonl", {**experts, JUDGE: judge, OTHER: other}, kinds)
    # The same file as JSONL, to read the format both ways.
    with open(labels, newline="") as stream:
        rows = list(csv.DictReader(stream))
    labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    ratings = read_ratings(labels)
    result = validate_judges(ratings, [JUDGE], epsilon=0.2, alpha=0.05, metric="accuracy", min_items=30)
    assert result["human_pool"] == list(EXPERTS)
    assert result["alt_test"][JUDGE]["advantage_probability"] == pytest.approx(0.625)


def test_a_judge_marked_human_and_too_few_humans_are_refused(tmp_path):
    experts, judge, _ = scenario()
    kinds = {**dict.fromkeys(EXPERTS, "human"), JUDGE: "llm"}
    ratings = read_ratings(write_labels(tmp_path / "labels.csv", {**experts, JUDGE: judge}, kinds))
    with pytest.raises(ValueError, match=r"judge 'expert-1' is marked human in .*labels\.csv"):
        validate_judges(ratings, ["expert-1"], epsilon=0.2, alpha=0.05, metric="accuracy", min_items=30)
    few = dict(kinds, **{"expert-2": "llm", "expert-3": "llm"})
    ratings = read_ratings(write_labels(tmp_path / "few.csv", {**experts, JUDGE: judge}, few))
    with pytest.raises(ValueError, match=r"at least two raters marked human; found 1 \(expert-1\)"):
        validate_judges(ratings, [JUDGE], epsilon=0.2, alpha=0.05, metric="accuracy", min_items=30)


def test_cli_with_a_run_tests_only_against_the_humans(tmp_path):
    experts, judge, other = scenario()
    labels = write_labels(tmp_path / "labels.csv", experts, dict.fromkeys(EXPERTS, "human"))
    run = write_judged_run(tmp_path / "run", judge, other)
    command = [sys.executable, "-m", "lexsym", "judge", "validate", str(labels), "--run", str(run)]
    done = subprocess.run(
        [*command, "--run-scale", "10", "--judge", JUDGE, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["human_pool"] == list(EXPERTS) and list(result["alt_test"]) == [JUDGE]
    assert result["alt_test"][JUDGE]["advantage_probability"] == pytest.approx(0.625)
    assert result["kinds"]["ensemble:min"] == "llm"
    # Without --judge every llm rater is tested: both judges and the ensemble.
    done = subprocess.run(
        [*command, "--run-scale", "10", "--json"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(done.stdout)["alt_test"]) == sorted([JUDGE, OTHER, "ensemble:min"])
    # A file without the kind column is refused in one line naming the file.
    bare = tmp_path / "bare.csv"
    bare.write_text("item,rater,score\nt0,expert-1,3\n")
    done = subprocess.run(
        [sys.executable, "-m", "lexsym", "judge", "validate", str(bare), "--run", str(run)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"{bare}:1: missing column(s) kind" in done.stderr


# -- category labels -------------------------------------------------------------------------------------


def pairwise_choices(seed: int = 11, items: int = 40):
    """Experts choosing between two answers (model_a, model_b or tie), a judge that agrees with the majority
    and one that always says model_a."""
    rng = random.Random(seed)
    options = ("model_a", "model_b", "tie")
    raters: dict[str, dict[str, str]] = {name: {} for name in (*EXPERTS, "good-judge", "lazy-judge")}
    for i in range(items):
        truth = rng.choice(options)
        votes = []
        for name in EXPERTS:
            vote = truth if rng.random() < 0.8 else rng.choice(options)
            raters[name][f"p{i}"] = vote
            votes.append(vote)
        raters["good-judge"][f"p{i}"] = max(options, key=lambda o: (votes.count(o), o == truth))
        raters["lazy-judge"][f"p{i}"] = "model_a"
    return raters


def test_category_labels_are_compared_by_equality(tmp_path):
    raters = pairwise_choices()
    kinds = {**dict.fromkeys(EXPERTS, "human"), "good-judge": "llm", "lazy-judge": "llm"}
    ratings = read_ratings(write_labels(tmp_path / "choices.csv", raters, kinds))
    assert ratings.ratings["expert-1"]["p0"] in ("model_a", "model_b", "tie")
    result = validate_judges(
        ratings, ["good-judge", "lazy-judge"], epsilon=0.2, alpha=0.05, metric="accuracy", min_items=30
    )
    assert result["scores"] == "labels"
    assert result["alt_test"]["good-judge"]["passed"] is True
    assert result["alt_test"]["lazy-judge"]["passed"] is False
    expected = alt_test({name: raters[name] for name in EXPERTS}, raters["good-judge"], epsilon=0.2)
    assert result["alt_test"]["good-judge"]["advantage_probability"] == pytest.approx(
        expected.advantage_probability
    )
    pair = next(p for p in result["agreement"] if (p["first"], p["second"]) == ("expert-1", "expert-2"))
    same = sum(raters["expert-1"][i] == raters["expert-2"][i] for i in raters["expert-1"]) / 40
    assert pair["exact"] == pytest.approx(same)
    assert pair["pearson"] != pair["pearson"] and pair["qwk"] != pair["qwk"] and pair["mae"] != pair["mae"]


@pytest.mark.parametrize("metric", ["neg_rmse", "neg_mae"])
def test_distance_metrics_refuse_labels_clearly(tmp_path, metric):
    raters = pairwise_choices()
    kinds = {**dict.fromkeys(EXPERTS, "human"), "good-judge": "llm", "lazy-judge": "llm"}
    ratings = read_ratings(write_labels(tmp_path / "choices.csv", raters, kinds))
    with pytest.raises(ValueError, match=f"metric {metric} needs numeric scores, and '.*' is a category"):
        validate_judges(ratings, ["good-judge"], epsilon=0.2, alpha=0.05, metric=metric, min_items=30)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "lexsym",
            "judge",
            "validate",
            str(tmp_path / "choices.csv"),
            "--metric",
            metric,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "needs numeric scores" in done.stderr


def test_labels_and_numbers_are_not_mixed_across_sources(tmp_path):
    raters = pairwise_choices()
    kinds = {**dict.fromkeys(EXPERTS, "human"), "good-judge": "llm", "lazy-judge": "llm"}
    ratings = read_ratings(write_labels(tmp_path / "choices.csv", raters, kinds))
    _, judge, other = scenario()
    ratings.add(ratings_from_run(write_judged_run(tmp_path / "run", judge, other)))
    with pytest.raises(ValueError, match=r"gives category labels but rater .* gives numbers"):
        validate_judges(ratings, [JUDGE], epsilon=0.2, alpha=0.05, metric="accuracy", min_items=30)


def test_a_rater_in_both_sources_is_refused(tmp_path):
    experts, judge, other = scenario()
    kinds = {**dict.fromkeys(EXPERTS, "human"), JUDGE: "llm"}
    ratings = read_ratings(write_labels(tmp_path / "labels.csv", {**experts, JUDGE: judge}, kinds))
    from lexsym._util.errors import InputError

    with pytest.raises(InputError, match=f"run: rater '{JUDGE}' also rates in .*labels.csv"):
        ratings.add(ratings_from_run(write_judged_run(tmp_path / "run", judge, other)))
    assert isinstance(ratings, Labels)
