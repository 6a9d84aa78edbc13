"""Answer formats (issue 12, points 10-13): the MCQ answer formats of LEXam, KCL and the usual markers, the
last marker of the whole text winning; NA/OE answers of the wrong shape; MARE labelled and the median
relative error beside it; score tables and summaries showing only the metrics that apply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from lexsym.answers import parse_answer
from lexsym.answers.choices import extract_choice, option_labels
from lexsym.law.tasks import Task
from lexsym.reports.compare import comparison, render_comparison
from lexsym.runner.scores import scores_summary
from lexsym.scoring import ScoreReport, metrics, render_report, score
from lexsym.scoring.results import MARE_LABEL

ABCD = option_labels(4)
ABCDE = option_labels(5)
LEXAM = Path(__file__).resolve().parents[2] / "shared" / "reference" / "lexam"


# --- point 10 and 12: every format is read ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "label"),
    [
        ("ANSWER: C", "C"),
        ("Answer: C", "C"),
        ("answer: (c)", "C"),
        ("Correct Answer: ###C###", "C"),  # LEXam's prompt asks for exactly this
        ("Statements i and iii are right.\n\n###C###", "C"),
        ("Correct Answer: ### c ###", "C"),
        ("The analysis points one way.\n**Answer: C**", "C"),
        ("**Answer:** C", "C"),
        ("Final answer: $\\boxed{C}$", "C"),
        ("\\boxed{\\text{C}}", "C"),
        ("『C』", "C"),
        ("따라서 『C』", "C"),
        ("정답: C", "C"),
        ("최종정답: C", "C"),
        ("최종 정답: C", "C"),
        ("최종 답: C", "C"),
        ("정답은 C입니다.", "C"),
        ("정답은 c입니다", "C"),
        ("정답은 (C)입니다", "C"),
        ("정답은 C라고 판단됩니다.", "C"),
        ("답변: C", "C"),
        ("“답변 : ( c ) ” 라고 정리하겠습니다.", "C"),
        ("응답: c", "C"),
        ('{"answer": "C"}', "C"),
        ('"answer": "c"', "C"),
        ("{'answer': 'c'}", "C"),
        ('```json\n{"reasoning": "ii is wrong", "answer": "C"}\n```', "C"),
        ("Answer: a", "A"),  # a marker directly before it: the label, not the article
        ("Answer: a.", "A"),
    ],
)
def test_every_supported_format_is_read(output, label):
    extraction = extract_choice(output, ABCDE)
    assert extraction.label == label, (output, extraction)
    assert extraction.ok and extraction.error is None


def test_lexam_numbers_are_read_between_hashes():
    assert extract_choice("Correct Answer: ###12###", option_labels(16, "numbers")).label == "12"
    assert extract_choice("###2###", option_labels(4, "numbers")).label == "2"


def test_the_korean_phrase_is_a_phrase_but_ranks_with_the_markers():
    extraction = extract_choice("정답: A\n검토해 보니 정답은 C입니다.", ABCD)
    assert (extraction.label, extraction.method) == ("C", "phrase")


# --- point 11: the last marker of the whole text, not of a line ---------------------------------------------


@pytest.mark.parametrize(
    ("output", "label"),
    [
        ("I first thought ANSWER: B but the final ANSWER: D", "D"),  # the case
        ("처음에는 정답은 A라고 생각했지만, 정답은 C입니다.", "C"),  # the Korean case
        ("ANSWER: A; on reflection ANSWER: B; no, ANSWER: C", "C"),
        ("Answer: B. Correct Answer: ###D###", "D"),
        ("###B### was my draft; ANSWER: C", "C"),
        ("ANSWER: A\nLater: \\boxed{D}", "D"),
        ('정답: B ... {"answer": "D"}', "D"),
        ('{"answer": "B"} 최종정답: D', "D"),
        ("『A』라고 쓴 것은 잘못이고 최종 정답: D", "D"),
        ("Correct Answer: ###A###\nWait, statement iii is wrong.\nCorrect Answer: ###B###", "B"),
        ("The answer is B, but checking again the correct option is D", "D"),  # phrases too
    ],
)
def test_the_last_marker_in_the_whole_text_wins(output, label):
    extraction = extract_choice(output, ABCD)
    assert extraction.label == label, (output, extraction)


def test_a_marker_anywhere_beats_a_looser_phrase_after_it():
    # "the answer is B" in later reasoning is not a marker: the explicit ANSWER line stands
    assert extract_choice("ANSWER: C\nOne might think the answer is B.", ABCD).label == "C"


# --- negatives ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "error"),
    [
        ("Statement ii is right and statement iv is wrong.", "no answer marker"),
        ("The answer depends on cantonal law.", "no answer marker"),
        ("ANSWER: E", "answer marker without a valid option label"),
        ("Correct Answer: ###E###", "answer marker without a valid option label"),
        ("『E』", "answer marker without a valid option label"),
        ('"answer": "E"', "answer marker without a valid option label"),
        ("정답은 E입니다", "answer marker without a valid option label"),
        ("응답: e", "answer marker without a valid option label"),
        ("answer: a combination of factors decides", "answer marker without a valid option label"),
        ("Answer: b ecause of ii", "answer marker without a valid option label"),
        ("The last line is prose about b", "no answer marker"),
        ("###Summary###\nNothing decided.", "no answer marker"),
    ],
)
def test_no_marker_or_a_label_outside_the_question_is_not_read(output, error):
    extraction = extract_choice(output, ABCD)
    assert extraction.label is None and not extraction.ok, (output, extraction)
    assert error in (extraction.error or ""), extraction


def test_an_invalid_last_marker_gives_way_to_the_one_before():
    assert extract_choice("ANSWER: B\nCorrect Answer: ###E###", ABCD).label == "B"


def test_lexam_reference_gold_in_lexams_format_is_read():
    """LEXam's sample questions, answered in LEXam's own format: every gold letter reads back."""
    path = LEXAM / "mcq_4_choices_24.jsonl"
    if not path.is_file():
        pytest.skip("../shared/reference/lexam is not present")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert rows
    for row in rows:
        labels = option_labels(len(row["choices"]))
        gold = labels[row["gold"]]
        output = f"Considering each statement in turn.\n\nCorrect Answer: ###{gold}###"
        assert extract_choice(output, labels, options=row["choices"]).label == gold


# --- point 13a: an empty list is not an NA or OE answer -----------------------------------------------------


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        (Task.NA, "expected an object mapping jurisdiction names to amounts, got an empty list"),
        (Task.OE, "expected an object with a jurisdiction and a schedule, got an empty list"),
        (Task.EV, "expected an object mapping asset descriptions to lists of claims, got an empty list"),
    ],
)
@pytest.mark.parametrize("text", ["FINAL ANSWER: []", 'FINAL ANSWER: {"answer": []}', "[]"])
def test_an_empty_list_is_not_well_formed(task, expected, text):
    answer = parse_answer(task, text)
    assert not answer.ok and answer.value is None
    assert expected in (answer.error or ""), answer.error


def test_an_empty_object_still_is():
    assert parse_answer(Task.NA, "FINAL ANSWER: {}").ok
    assert parse_answer(Task.OE, 'FINAL ANSWER: {"jurisdiction": "Federal", "schedule": {}}').ok
    assert parse_answer(Task.AE, "FINAL ANSWER: []").ok  # AE's answer is a list: empty is an answer


# --- point 13b: MARE labelled, the median relative error beside it -----------------------------------------


def test_median_relative_error_per_sample():
    assert metrics.median([]) is None
    assert metrics.median([3.0, 1.0, 2.0]) == 2.0
    assert metrics.median([4.0, 1.0, 2.0, 3.0]) == 2.5
    # gold 0, prediction 920: OpenExempt's error is 919; the median of the sample is not moved by it
    score = metrics.non_exempt_score({"US": 920, "OR": 1000, "AZ": 500}, {"US": 0, "OR": 1000, "AZ": 500})
    assert score.mare == pytest.approx(919 / 3)
    assert score.median_re == 0.0
    ev = metrics.asset_mean_amounts(
        {"car": [("d2", 920.0)], "maps": [("d5", 9.0), ("d3", 19.0)]},
        {"car": [("d2", 0.0)], "maps": [("d5", 9.0), ("d3", 19.0)]},
    )
    assert ev.mare == pytest.approx(919 / 2)  # per asset, then averaged (OpenExempt's nesting)
    assert ev.median_re == 0.0  # over the sample's three matched claims


def test_bootstrap_median_se():
    assert metrics.bootstrap_median_se([]) is None
    assert metrics.bootstrap_median_se([5.0]) == 0.0
    values = [0.01 * i for i in range(19)] + [900.0]
    assert metrics.bootstrap_median_se(values) == metrics.bootstrap_median_se(values)
    assert 0 < metrics.bootstrap_median_se(values) < 0.1  # one huge error barely moves a median
    assert metrics.bootstrap_se(values) > 10  # while it swamps the mean's


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def _na_report(tmp_path: Path) -> ScoreReport:
    """Four NA tasks: one answer 920 where the gold is 0, three exact."""
    golds = [{"Federal": 0, "Oregon": 1000}, {"Federal": 50}, {"Oregon": 70}, {"Federal": 5, "Oregon": 9}]
    tasks = [{"id": f"na{i}", "task": "NA", "gold": gold} for i, gold in enumerate(golds)]
    answers = [{"Federal": 920, "Oregon": 1000}, *golds[1:]]
    predictions = [{"id": f"na{i}", "answer": answer} for i, answer in enumerate(answers)]
    return score(_write(tmp_path / "t.jsonl", tasks), _write(tmp_path / "p.jsonl", predictions), workers=1)


def _rendered(report: ScoreReport, **options: Any) -> str:
    console = Console(record=True, width=200)
    render_report(report, console, **options)
    return console.export_text()


def test_mare_is_labelled_and_the_median_shown_in_json_and_table(tmp_path):
    report = _na_report(tmp_path)
    na = next(g for g in report.by_task if g.task == "NA")
    # sample errors: (919 + 0) / 2 for the first, 0 for the others
    assert na.metrics["mare"].mean == pytest.approx(919 / 2 / 4)
    assert na.metrics["median_re"].median == 0.0 and na.metrics["median_re"].n == 4
    assert na.metrics["median_re"].se is not None
    first = next(s for s in report.samples if s.id == "na0")
    assert first.scores["mare"] == pytest.approx(919 / 2) and first.scores["median_re"] == pytest.approx(
        919 / 2
    )
    data = json.loads(report.model_dump_json())
    assert data["metric_definitions"]["mare"].startswith(MARE_LABEL)
    assert "median" in data["metric_definitions"]["median_re"]
    assert data["by_task"][0]["metrics"]["median_re"]["median"] == 0.0
    text = _rendered(report)
    assert MARE_LABEL == "MARE (OpenExempt, /(gold+1))"
    assert MARE_LABEL in text and "median RE" in text
    lines = text.splitlines()
    header = next(n for n, line in enumerate(lines) if MARE_LABEL in line and "median RE" in line)
    errors = next(line for line in lines[header:] if line.strip().startswith("NA"))
    assert errors.split()[1:] == ["4", "115", "0"]  # n matched, MARE 114.875 (".3g"), the median 0


def test_an_na_table_has_no_mcq_or_oe_columns(tmp_path):
    text = _rendered(_na_report(tmp_path))
    assert "F1 ± SE" in text and "accuracy" not in text
    assert "valid%" not in text and "optimal%" not in text


# --- point 13c: an MCQ-only run shows what applies to MCQs --------------------------------------------------


def _mcq_report(tmp_path: Path) -> ScoreReport:
    tasks = [
        {
            "id": f"q{i}",
            "task": "MCQ",
            "gold": gold,
            "reference": {"labels": ABCD},
            "metadata": {"course": f"course {i % 2}"},
        }
        for i, gold in enumerate("ABCD")
    ]
    outputs = ["Correct Answer: ###A###", "정답은 B입니다", "ANSWER: D", "no idea"]
    predictions = [{"id": f"q{i}", "output": output} for i, output in enumerate(outputs)]
    return score(_write(tmp_path / "t.jsonl", tasks), _write(tmp_path / "p.jsonl", predictions), workers=1)


def test_an_mcq_only_table_has_accuracy_and_no_f1_or_mare(tmp_path):
    report = _mcq_report(tmp_path)
    text = _rendered(report)
    assert "acc%" in text and "50.0" in text and "format%" in text
    for absent in ("F1", "MARE", "median RE", "valid%", "optimal%", " P ", " R "):
        assert absent not in text, absent
    for by in ("variant", "suite"):
        assert "F1" not in _rendered(report, by=by)


def test_a_mixed_table_shows_each_metric_only_where_it_applies(tmp_path):
    (tmp_path / "na").mkdir()
    (tmp_path / "mcq").mkdir()
    na, mcq = _na_report(tmp_path / "na"), _mcq_report(tmp_path / "mcq")
    report = na.model_copy(update={"by_task": [*na.by_task, *mcq.by_task]})
    lines = _rendered(report).splitlines()
    header = next(line for line in lines if "F1 ± SE" in line)
    assert "acc%" in header and "valid%" not in header
    mcq_row = next(line for line in lines if line.strip().startswith("MCQ"))
    na_row = next(line for line in lines if line.strip().startswith("NA"))  # the first table's
    assert "50.0" in mcq_row and mcq_row.count("–") == 3  # no P, R or F1 for MCQ
    assert "0.875" in na_row and na_row.count("–") == 1  # no accuracy for NA
    start = next(n for n, line in enumerate(lines) if MARE_LABEL in line and "median RE" in line)
    end = next(n for n, line in enumerate(lines) if line.startswith(f"{MARE_LABEL}:"))
    tasks = [line.split()[0] for line in lines[start + 2 : end] if line.strip()]
    assert tasks == ["NA"]  # no MCQ row of relative errors


def test_run_summary_and_report_rows_apply_to_their_tasks(tmp_path):
    mcq = _mcq_report(tmp_path)
    summary = scores_summary({0: mcq, 1: mcq})
    assert summary is not None
    assert set(summary["by_task"]["MCQ"]) == {"n", "format", "accuracy"}
    assert summary["accuracy_over_repeats"]["MCQ"]["mean"] == 0.5
    assert "MCQ" not in summary["f1_over_repeats"]

    na = _na_report(tmp_path)
    na_summary = scores_summary({0: na})
    assert na_summary is not None
    assert na_summary["by_task"]["NA"]["median_re"] == 0.0 and "accuracy" not in na_summary["by_task"]["NA"]

    runs = []
    for name, report in (("mcq-run", mcq), ("na-run", na)):
        run = tmp_path / name
        run.mkdir()
        (run / "run.json").write_text(json.dumps({"model": name, "status": "complete", "totals": {}}))
        (run / "scores.json").write_text(report.model_dump_json())
        runs.append(run)
    table = comparison(runs)
    assert "MCQ accuracy%" in table["rows"] and "MCQ F1" not in table["rows"]
    assert f"NA {MARE_LABEL}" in table["rows"] and "NA median RE" in table["rows"]
    assert not any(row.startswith("MCQ") and "MARE" in row for row in table["rows"])
    console = Console(record=True, width=200)
    render_comparison(table, console)
    text = console.export_text()
    assert "MCQ accuracy%" in text and "50.0" in text and f"NA {MARE_LABEL}" in text
