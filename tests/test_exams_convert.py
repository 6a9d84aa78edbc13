"""`lexsym exam convert` writes task records like `lexsym generate`, and `lexsym score` / `lexsym exam score`
score MCQ records: right answers 100 %, wrong ones 0, extraction failures counted apart."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lexsym.exams.datasets import load_exam
from lexsym.exams.precedents import fair_share, fit_precedents
from lexsym.exams.tasks import ConvertOptions, convert, exam_records
from lexsym.scoring import score
from lexsym.scoring.mcq_evaluation import evaluate

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "exams"
RECORD_KEYS = {
    "id",
    "task",
    "variant",
    "split",
    "prompt",
    "gold",
    "solved_steps",
    "reference",
    "metadata",
    "case",
}


def lexsym(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, timeout=120
    )


def read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_predictions(path: Path, outputs: dict[str, str | None]) -> Path:
    path.write_text(
        "".join(json.dumps({"id": i, "output": o}) + "\n" for i, o in outputs.items()), encoding="utf-8"
    )
    return path


@pytest.fixture(scope="module")
def mcq_dir(tmp_path_factory) -> Path:
    """The LEXam-shaped MCQs and the robustness set, shuffled, through the CLI."""
    out = tmp_path_factory.mktemp("mcq")
    for name in ("lexam_mcq.jsonl", "lexam_mcq_perturbation.jsonl"):
        result = lexsym(
            "exam",
            "convert",
            str(FIXTURES / name),
            "--format",
            "lexam-mcq",
            "--out",
            str(out / name.split(".")[0]),
            "--shuffle-seed",
            "13",
        )
        assert result.returncode == 0, result.stderr
        assert "tasks written to" in result.stdout
    tasks = out / "all.jsonl"
    tasks.write_text(
        "".join(
            (out / d / "tasks.jsonl").read_text(encoding="utf-8")
            for d in ("lexam_mcq", "lexam_mcq_perturbation")
        ),
        encoding="utf-8",
    )
    return out


def test_convert_writes_mcq_records_and_a_manifest(mcq_dir):
    records = read(mcq_dir / "lexam_mcq" / "tasks.jsonl")
    manifest = json.loads((mcq_dir / "lexam_mcq" / "manifest.json").read_text(encoding="utf-8"))
    source = load_exam(FIXTURES / "lexam_mcq.jsonl", "lexam-mcq")
    assert len(records) == 4 == manifest["tasks"] == manifest["splits"]["test"]
    text = (mcq_dir / "lexam_mcq" / "tasks.jsonl").read_bytes()
    assert manifest["tasks_sha256"] == hashlib.sha256(text).hexdigest()
    sha = hashlib.sha256((FIXTURES / "lexam_mcq.jsonl").read_bytes()).hexdigest()
    assert manifest["source"]["sha256"] == sha and manifest["inputs"]["source"] == sha[:16]
    assert manifest["datasets"][0]["config"]["shuffle_seed"] == 13
    for record, entry in zip(records, source.items, strict=True):
        item = entry.item
        assert set(record) == RECORD_KEYS
        assert record["task"] == "MCQ" and record["case"] is None and record["id"] == f"lexam-mcq/{item.id}"
        meta, reference = record["metadata"], record["reference"]
        assert meta["source"]["sha256"] == sha
        assert (meta["course"], meta["language"], meta["year"]) == (item.course, item.language, item.year)
        assert meta["n_choices"] == len(item.choices) == len(reference["labels"])
        assert meta["original_gold_index"] == item.gold
        # the shuffle round-trips: display position p shows original option permutation[p]
        permutation = meta["permutation"]
        assert reference["options"] == [item.choices[i] for i in permutation]
        assert permutation[meta["gold_index"]] == item.gold
        assert record["gold"] == reference["labels"][meta["gold_index"]] == reference["gold_label"]
        assert reference["gold_text"] == item.choices[item.gold]
        assert f"{record['gold']}. {item.choices[item.gold]}" in record["prompt"]["user"]
        assert meta["prompt_language"] == item.language and meta["context"] == {"setting": "none"}
    assert [r["metadata"]["negative_question"] for r in records] == [False, True, False, False]
    assert any(r["metadata"]["permutation"] != sorted(r["metadata"]["permutation"]) for r in records)


def test_the_robustness_set_keeps_its_gold_subset_at_every_k(mcq_dir):
    records = read(mcq_dir / "lexam_mcq_perturbation" / "tasks.jsonl")
    assert [r["variant"] for r in records] == [f"lexam-mcq-k{k}" for k in (4, 8, 16, 32)]
    assert len({r["reference"]["gold_text"] for r in records}) == 1
    assert records[-1]["reference"]["labels"][-1] == "AF"


def test_conversion_is_deterministic_and_the_same_from_every_file_type(tmp_path):
    pytest.importorskip("openpyxl")
    outputs = {}
    for suffix in ("jsonl", "csv", "xlsx"):
        loaded = load_exam(FIXTURES / f"lexam_mcq.{suffix}", "lexam-mcq")
        records = exam_records(loaded, ConvertOptions(shuffle_seed=5, labels="numbers"))
        for record in records:
            record["metadata"].pop("source")
            record["metadata"].pop("source_where")
        outputs[suffix] = records
    assert outputs["jsonl"] == outputs["csv"] == outputs["xlsx"]
    assert outputs["jsonl"][0]["reference"]["labels"] == ["1", "2", "3", "4"]
    loaded = load_exam(FIXTURES / "lexam_mcq.jsonl", "lexam-mcq")
    first = convert(loaded, tmp_path / "a", ConvertOptions(shuffle_seed=5))
    second = convert(loaded, tmp_path / "b", ConvertOptions(shuffle_seed=5))
    assert first["tasks_sha256"] == second["tasks_sha256"]
    third = convert(loaded, tmp_path / "c", ConvertOptions(shuffle_seed=6))
    assert third["tasks_sha256"] != first["tasks_sha256"]


def test_open_questions_become_open_records_with_the_reference_answer(tmp_path):
    result = lexsym(
        "exam",
        "convert",
        str(FIXTURES / "lexam_open.jsonl"),
        "--format",
        "lexam-open",
        "--out",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    records = read(tmp_path / "tasks.jsonl")
    assert [r["task"] for r in records] == ["OPEN"] * 4
    first = records[0]
    assert set(first) == RECORD_KEYS
    assert first["gold"] == {"reference": first["reference"]["answer"]}
    assert first["reference"]["question"].startswith("A debtor has been domiciled in Wisconsin")
    assert "U.S. law applies" in first["prompt"]["system"]
    assert [r["metadata"]["prompt_language"] for r in records] == ["en", "de", "fr", "it"]
    assert "Frage:" in records[1]["prompt"]["user"] and "Domanda:" in records[3]["prompt"]["user"]


def test_kcl_essays_carry_rubrics_points_and_fairly_cut_precedents(tmp_path):
    result = lexsym(
        "exam",
        "convert",
        str(FIXTURES / "kcl_essay.jsonl"),
        "--format",
        "kcl-essay",
        "--out",
        str(tmp_path),
        "--context",
        "precedents",
        "--max-context-chars",
        "100",
    )
    assert result.returncode == 0, result.stderr
    first, second = read(tmp_path / "tasks.jsonl")
    assert first["task"] == "OPEN" and first["variant"] == "kcl-essay+precedents"
    assert first["gold"]["points"] == [5.0] * 4 and first["gold"]["total_points"] == 20.0
    assert len(first["gold"]["rubrics"]) == 4 == first["metadata"]["rubric_count"]
    assert second["gold"] == {
        "rubrics": second["reference"]["rubrics"],
        "points": [4.0, 6.0],
        "total_points": 10.0,
    }
    context = first["metadata"]["context"]
    assert context["max_chars"] == 100 and context["chars_kept"] == 100 and "fair-share" in context["policy"]
    (cut,) = context["truncated"]
    assert cut["index"] == 0 and cut["kept"] == 100 - len("The look-back counts whole days.")
    assert "The look-back counts whole days." in first["prompt"]["user"]  # the short one is kept whole
    assert f"[… truncated: {cut['kept']} of {cut['chars']} characters kept]" in first["prompt"]["user"]
    assert second["metadata"]["prompt_language"] == "ko" and "참고 판례" in second["prompt"]["user"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["lexam_mcq.jsonl", "--format", "lexam-mcq", "--context", "precedents"], "no supporting precedents"),
        (
            ["kcl_mcqa.jsonl", "--format", "kcl-mcqa", "--max-context-chars", "10"],
            "only with --context precedents",
        ),
        (["missing.jsonl", "--format", "lexam-mcq"], "missing.jsonl: no such file"),
        (["lexam_open.jsonl", "--format", "lexam-mcq"], "lexam_open.jsonl:1: choices: Field required"),
    ],
)
def test_convert_refuses_bad_input_in_one_line(tmp_path, args, fragment):
    result = lexsym("exam", "convert", str(FIXTURES / args[0]), *args[1:], "--out", str(tmp_path / "out"))
    assert result.returncode == 2, result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lexsym: error: ") and fragment in lines[0]
    assert not (tmp_path / "out" / "tasks.jsonl").exists()


def test_skip_invalid_lists_the_skipped_rows_in_the_manifest(tmp_path):
    source = tmp_path / "mixed.jsonl"
    good = json.loads((FIXTURES / "lexam_mcq.jsonl").read_text(encoding="utf-8").splitlines()[0])
    source.write_text(
        json.dumps(good) + "\n" + json.dumps(dict(good, id="bad", gold=9)) + "\n", encoding="utf-8"
    )
    result = lexsym(
        "exam", "convert", str(source), "--format", "lexam-mcq", "--out", str(tmp_path), "--skip-invalid"
    )
    assert result.returncode == 0, result.stderr
    assert "1 invalid rows skipped" in result.stdout
    manifest = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert (
        manifest["tasks"] == 1
        and len(manifest["skipped"]) == 1
        and ":2: gold index 9" in manifest["skipped"][0]
    )


@given(st.lists(st.integers(0, 500), min_size=1, max_size=8), st.integers(0, 2000))
def test_fair_share_spends_the_budget_and_no_text_is_starved(lengths, budget):
    kept = fair_share(lengths, budget)
    assert sum(kept) == min(budget, sum(lengths))
    assert all(0 <= k <= n for k, n in zip(kept, lengths, strict=True))
    for i, k in enumerate(kept):
        if k < lengths[i]:  # a cut text gets at least as much as any other text, within one character
            assert all(k >= other - 1 for other in kept)


def test_fit_precedents_without_a_budget_keeps_everything():
    loaded = load_exam(FIXTURES / "kcl_essay.jsonl", "kcl-essay")
    precedents = loaded.items[0].item.supporting_precedents
    texts, report = fit_precedents(precedents, None)
    assert [t.text for t in texts] == [p.text for p in precedents]
    assert report["truncated"] == [] and report["chars_kept"] == report["chars_total"]


# --- scoring MCQ records -------------------------------------------------------------------------------


def test_lexsym_score_gives_oracle_answers_100_wrong_ones_0_and_counts_failures_apart(mcq_dir, tmp_path):
    tasks = mcq_dir / "all.jsonl"
    records = read(tasks)
    assert len(records) == 8

    def other(record):
        return next(label for label in record["reference"]["labels"] if label != record["gold"])

    oracle = write_predictions(
        tmp_path / "oracle.jsonl", {r["id"]: f"Reasoning.\nANSWER: {r['gold']}" for r in records}
    )
    report = score(tasks, oracle)
    (mcq,) = report.by_task
    assert mcq.task == "MCQ" and mcq.n == 8
    assert mcq.metrics["accuracy"].mean == 1.0 and mcq.metrics["format"].mean == 1.0
    assert mcq.metrics["f1"].mean == 1.0 and mcq.metrics["accuracy"].se == 0.0

    wrong = write_predictions(tmp_path / "wrong.jsonl", {r["id"]: f"ANSWER: {other(r)}" for r in records})
    report = score(tasks, wrong)
    assert report.by_task[0].metrics["accuracy"].mean == 0.0
    assert report.by_task[0].metrics["format"].mean == 1.0

    outputs: dict[str, str | None] = {}
    for i, record in enumerate(records):
        outputs[record["id"]] = [
            "ANSWER: " + record["gold"],
            "I cannot tell.",
            None,
            "ANSWER: " + other(record),
        ][i % 4]
    del outputs[records[-1]["id"]]  # and one without any prediction
    report = score(tasks, write_predictions(tmp_path / "mixed.jsonl", outputs))
    m = report.by_task[0].metrics
    assert m["accuracy"].mean == pytest.approx(2 / 8)
    # two "cannot tell", two null outputs and one missing: five failures, none of them a wrong answer
    assert m["format"].mean == pytest.approx(3 / 8)
    assert m["accuracy_extracted"].mean == pytest.approx(2 / 3) and m["accuracy_extracted"].n == 3
    assert report.missing == [records[-1]["id"]]
    rows = {s.id: s for s in report.samples}
    assert rows[records[1]["id"]].error == "no answer marker" and not rows[records[1]["id"]].parsed
    assert rows[records[3]["id"]].parsed and rows[records[3]["id"]].scores["accuracy"] == 0.0
    # the clustered SE is by course: 3 courses in the fixtures
    assert m["accuracy_clustered"].n == 3 and m["accuracy_clustered"].se is not None
    assert {g.variant for g in report.by_variant} >= {"lexam-mcq-k4", "lexam-mcq-k32"}


def test_lexsym_score_cli_prints_mcq_accuracy_and_refuses_open_records(mcq_dir, tmp_path):
    tasks = mcq_dir / "all.jsonl"
    records = read(tasks)
    oracle = write_predictions(tmp_path / "oracle.jsonl", {r["id"]: f"ANSWER: {r['gold']}" for r in records})
    result = lexsym("score", str(tasks), str(oracle))
    assert result.returncode == 0, result.stderr
    assert "MCQ accuracy 100.0%" in result.stdout
    # OPEN records are a judge's job: named as unusable lines, the MCQ ones still scored
    open_dir = tmp_path / "open"
    convert(load_exam(FIXTURES / "lexam_open.jsonl", "lexam-open"), open_dir)
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(
        tasks.read_text(encoding="utf-8") + (open_dir / "tasks.jsonl").read_text(encoding="utf-8")
    )
    report = score(mixed, oracle)
    assert report.tasks == 8 and len(report.errors) == 4
    assert "OPEN tasks are graded by a judge" in report.errors[0].message


def test_exam_score_reports_ses_positions_and_maps_answers_back(mcq_dir, tmp_path):
    tasks = mcq_dir / "all.jsonl"
    records = read(tasks)
    outputs = {r["id"]: f"ANSWER: {r['gold']}" for r in records}
    outputs[records[0]["id"]] = "Antwort: keine Ahnung"
    report = evaluate(
        tasks, write_predictions(tmp_path / "p.jsonl", outputs), cluster_by="course", resamples=200
    )
    assert report.overall.n == 8 and report.overall.correct == 7 and report.overall.extraction_failures == 1
    assert report.overall.accuracy == pytest.approx(7 / 8) and report.overall.accuracy_extracted == 1.0
    assert report.overall.se_bootstrap is not None and report.overall.clusters == 3
    assert list(report.by_n_choices) == ["4", "8", "16", "32"]
    assert set(report.by_language) == {"en", "de", "it"}
    samples = {s.id: s for s in report.samples}
    for record in records[1:]:
        sample = samples[record["id"]]
        assert sample.correct and sample.predicted_original_index == record["metadata"]["original_gold_index"]
    assert [b.k for b in report.position_bias] == [4, 8, 16, 32]
    four = report.position_bias[0]
    assert four.n == 5 and four.extracted == 4
    assert sum(c.predicted_count for c in four.positions) == 4
    result = lexsym("exam", "score", str(tasks), str(tmp_path / "p.jsonl"), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["overall"]["extraction_failures"] == 1
    result = lexsym("exam", "score", str(tasks), str(tmp_path / "p.jsonl"))
    assert result.returncode == 0 and "MCQ accuracy" in result.stdout and "chi2=" in result.stdout


def test_the_fingerprint_command_prints_the_pin():
    result = lexsym("exam", "fingerprint", str(FIXTURES / "kcl_mcqa.jsonl"))
    assert result.returncode == 0, result.stderr
    pin = json.loads(result.stdout)
    assert pin["sha256"] == hashlib.sha256((FIXTURES / "kcl_mcqa.jsonl").read_bytes()).hexdigest()
