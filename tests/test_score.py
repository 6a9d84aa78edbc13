"""`lexsym.scoring.score` and `lexsym score` on a tiny generated task set: perfect answers score perfectly,
mutated ones drop by the amounts worked out from the gold, hostile lines are counted and never crash.
"""

from __future__ import annotations

import copy
import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lexsym.scoring import ScoreReport, score
from tests.task_sets import generate_task_set

OTHER_STATES = ("Oregon", "Arizona", "Pennsylvania")


@pytest.fixture(scope="module")
def tasks_path(tmp_path_factory) -> Path:
    """Four cases (two or three assets, some married, WI and IL) with each task on every case: 20 tasks."""
    vary = {"variant": ["AE", "AE-EC", "EV", "NA", "AE-OE"]}
    return generate_task_set(tmp_path_factory.mktemp("tiny"), vary) / "tasks.jsonl"


@pytest.fixture(scope="module")
def records(tasks_path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in tasks_path.read_text(encoding="utf-8").splitlines()]


def final(answer: Any) -> str:
    return "Working through the statutes...\n\nFINAL ANSWER: " + json.dumps(answer, ensure_ascii=False)


def write(path: Path, lines: list[Any]) -> Path:
    path.write_text(
        "".join(
            (line if isinstance(line, str) else json.dumps(line, ensure_ascii=False)) + "\n" for line in lines
        ),
        encoding="utf-8",
    )
    return path


def rows_by_id(report: ScoreReport) -> dict[str, Any]:
    return {row.id: row for row in report.samples}


def group(report: ScoreReport, task: str):
    return next(g for g in report.by_task if g.task == task)


# --- answers copied from the gold ----------------------------------------------------------------------


def test_gold_answers_score_perfectly(tmp_path, tasks_path, records):
    lines = [{"id": r["id"], "output": final(r["gold"])} for r in records]
    report = score(tasks_path, write(tmp_path / "p.jsonl", lines), workers=1)
    assert report.errors == [] and report.missing == [] and report.unknown == [] and report.warnings == []
    assert report.tasks == report.scored == len(records) == 20
    for g in report.by_task:
        assert g.n == 4
        for name in ("format", "precision", "recall", "f1"):
            assert g.metrics[name].mean == 1.0 and g.metrics[name].se == 0.0, (g.task, name)
        if "mare" in g.metrics:
            assert g.metrics["mare"].mean == 0.0
    oe = group(report, "OE")
    assert (
        oe.metrics["valid"].mean == oe.metrics["optimal"].mean == oe.metrics["within_tolerance"].mean == 1.0
    )
    assert oe.metrics["gap_percent"].mean == 0.0 and oe.violations == {} and oe.beats_optimum == 0
    assert all(row.parsed and not row.violations for row in report.samples)


def test_parsed_answer_objects_and_every_text_field_are_read(tmp_path, tasks_path, records):
    fields = ["output", "completion", "prediction", "response", "text"]
    lines = []
    for number, r in enumerate(records):
        if number % 6 == 5:
            lines.append({"id": r["id"], "answer": r["gold"]})
        else:
            lines.append({"id": r["id"], fields[number % 5]: final(r["gold"])})
    report = score(tasks_path, write(tmp_path / "p.jsonl", lines), workers=1)
    assert all(g.metrics["f1"].mean == 1.0 for g in report.by_task)


# --- mutated answers: the drop worked out from the gold ------------------------------------------------


def mutate(record: dict[str, Any], index: int) -> Any:
    """One mistake per task whose effect on the scores is known in closed form (see `expected`)."""
    gold = copy.deepcopy(record["gold"])
    task = record["task"]
    if task == "AE":  # one jurisdiction too many
        return [*gold, next(s for s in OTHER_STATES if s not in gold)]
    if task == "EC":  # the first asset left out
        first = next(iter(gold))
        return {asset: citations for asset, citations in gold.items() if asset != first}
    if task == "EV":  # every amount off by a relative error of exactly 0.2: 1.2 * (y + 1)
        return {
            asset: [{**claim, "claim_value": 1.2 * (claim["claim_value"] + 1)} for claim in claims]
            for asset, claims in gold.items()
        }
    if task == "NA":  # relative error 0.1 (out of tolerance) on even samples, 0.04 (within) on odd ones
        factor = 1.1 if index % 2 == 0 else 1.04
        return {name: factor * (amount + 1) for name, amount in gold.items()}
    return gold  # OE: handled in the test


def expected(record: dict[str, Any], index: int) -> dict[str, float | None]:
    """Per-sample scores of `mutate(record)`, computed by hand from the definitions."""
    gold = record["gold"]
    task = record["task"]
    if task == "AE":
        k = len(gold)  # tp k, fp 1, fn 0
        return {"precision": k / (k + 1), "recall": 1.0, "f1": 2 * k / (2 * k + 1)}
    if task == "EC":
        m = len(gold)  # the left-out asset scores 0, the others 1
        return {"precision": (m - 1) / m, "recall": (m - 1) / m, "f1": (m - 1) / m}
    if task == "EV":
        m = len(gold)
        empty = sum(1 for claims in gold.values() if not claims)  # empty-empty assets score 1
        with_claims = m - empty
        return {
            "precision": empty / m,
            "recall": empty / m,
            "f1": empty / m,
            "mare": 0.2 if with_claims else None,
        }
    if task == "NA":
        right = 0.0 if index % 2 == 0 else 1.0
        return {"precision": right, "recall": right, "f1": right, "mare": 0.1 if index % 2 == 0 else 0.04}
    raise AssertionError(task)


def test_mutated_answers_drop_as_computed_by_hand(tmp_path, tasks_path, records):
    lines = []
    oe = [r for r in records if r["task"] == "OE"]
    for index, r in enumerate(records):
        if r["task"] != "OE":
            lines.append({"id": r["id"], "output": final(mutate(r, index))})
    # OE: (0) nothing claimed, under the gold jurisdiction: valid, optimal only if the optimum claims
    # nothing; (1) a claim one dollar over the asset's value: invalid (exceeds_value); (2) the gold schedule
    # without its jurisdiction (inferred from the citations): optimal; (3) a format failure.
    empty, over, unnamed, broken = oe
    lines.append(
        {"id": empty["id"], "answer": {"jurisdiction": empty["gold"]["jurisdiction"], "schedule": {}}}
    )
    schedule = copy.deepcopy(over["gold"]["schedule"])
    asset = next(iter(schedule))
    value = next(a["value"] for a in over["case"]["assets"] if a["description"] == asset)
    schedule[asset][0]["claim_value"] = value + 1
    lines.append(
        {"id": over["id"], "answer": {"jurisdiction": over["gold"]["jurisdiction"], "schedule": schedule}}
    )
    lines.append({"id": unnamed["id"], "output": final({"schedule": unnamed["gold"]["schedule"]})})
    lines.append({"id": broken["id"], "output": 'FINAL ANSWER: {"jurisdiction": "Federal", "schedule": {"'})
    report = score(tasks_path, write(tmp_path / "p.jsonl", lines), workers=1)
    rows = rows_by_id(report)

    for index, r in enumerate(records):
        if r["task"] == "OE":
            continue
        row = rows[r["id"]]
        assert row.parsed, row.error
        for name, value in expected(r, index).items():
            assert row.scores[name] == (None if value is None else pytest.approx(value)), (r["id"], name)

    total = sum(a["value"] for a in empty["case"]["assets"])
    optimum = empty["gold"]["non_exempt_total"]
    claims_nothing = not empty["gold"]["schedule"]
    row = rows[empty["id"]]
    assert row.scores["valid"] == 1.0 and row.violations == []
    assert row.scores["optimal"] == float(claims_nothing)
    assert row.scores["gap_percent"] == pytest.approx(0.0 if claims_nothing else 100.0)
    assert row.scores["mare"] == pytest.approx(0.0 if total == optimum else abs(total / (optimum + 1) - 1))
    row = rows[over["id"]]
    assert row.scores["valid"] == 0.0 and "exceeds_value" in row.violations
    assert row.scores["gap_percent"] is None and row.scores["mare"] is None
    row = rows[unnamed["id"]]
    assert row.scores["optimal"] == 1.0 and row.scores["valid"] == 1.0
    row = rows[broken["id"]]
    assert not row.parsed and row.scores["format"] == 0.0 and row.scores["precision"] == 0.0

    g = group(report, "OE")
    correct = 1 + int(claims_nothing)
    # Precision counts the format failure: correct / 4, not correct / 3 as OpenExempt would report.
    assert g.metrics["precision"].mean == pytest.approx(correct / 4)
    assert g.metrics["valid"].mean == pytest.approx(2 / 4) and g.metrics["format"].mean == 0.75
    assert g.metrics["gap_percent"].n == 2  # among valid answers only
    assert g.violations.get("exceeds_value") == 1
    assert group(report, "AE").metrics["f1"].mean == pytest.approx(
        sum(expected(r, i)["f1"] for i, r in enumerate(records) if r["task"] == "AE") / 4
    )
    na = group(report, "NA")
    assert na.metrics["f1"].mean == pytest.approx(0.5) and na.metrics["mare"].mean == pytest.approx(0.07)
    assert na.metrics["f1"].se > 0  # half right, half wrong: the bootstrap sees the spread


def test_groups_by_variant_and_suite(tmp_path, tasks_path, records):
    report = score(
        tasks_path, write(tmp_path / "p.jsonl", [{"id": r["id"], "answer": r["gold"]} for r in records])
    )
    assert {(g.task, g.variant) for g in report.by_variant} == {
        ("AE", "AE"),
        ("EC", "AE-EC"),
        ("EV", "EV"),
        ("NA", "NA"),
        ("OE", "AE-OE"),
    }
    assert {(g.task, g.suite) for g in report.by_suite} == {
        (t, "tiny") for t in ("AE", "EC", "EV", "NA", "OE")
    }


def test_bootstrap_errors_are_reproducible_and_follow_the_seed(tmp_path, tasks_path, records):
    lines = [
        {"id": r["id"], "answer": r["gold"] if i % 2 else mutate(r, i)}
        for i, r in enumerate(records)
        if r["task"] != "OE"
    ]
    path = write(tmp_path / "p.jsonl", lines)
    first, again, other = (score(tasks_path, path, seed=seed) for seed in (0, 0, 1))
    ses = lambda report: [g.metrics["f1"].se for g in report.by_task]  # noqa: E731
    assert ses(first) == ses(again)
    assert ses(first) != ses(other)
    assert first.model_dump(exclude={"samples"}) == again.model_dump(exclude={"samples"})


# --- hostile input -------------------------------------------------------------------------------------


def test_bad_lines_missing_and_unknown_ids_are_counted_not_fatal(tmp_path, tasks_path, records):
    missing = records[0]["id"]  # an AE task
    lines: list[Any] = [{"id": r["id"], "output": final(r["gold"])} for r in records[1:]]
    lines[1:1] = [
        "not json at all",  # line 2
        {"id": 5, "output": "x"},  # 3: the id is not a string
        {"id": records[1]["id"], "output": "FINAL ANSWER: []"},  # 4: a duplicate; the first one counts
        {"id": records[2]["id"], "output": ["a", "list"]},  # 5: wrong type; its good line comes later
        {"id": "nowhere/0000", "output": "FINAL ANSWER: []"},  # 6: unknown id
        [1, 2, 3],  # 7: not an object
        {"id": records[3]["id"]},  # 8: no output field
    ]
    path = write(tmp_path / "p.jsonl", lines)
    with path.open("a", encoding="utf-8") as stream:
        stream.write('{"id": "tiny/variant=AE/test-0001", "outp')  # a truncated last line
    report = score(tasks_path, path, workers=1)
    assert [e.line for e in report.errors] == [2, 3, 4, 5, 7, 8, len(lines) + 1]
    assert all(e.file == str(path) for e in report.errors)
    assert "truncated" in report.errors[-1].message
    assert report.unknown == ["nowhere/0000"] and report.missing == [missing]
    ae = group(report, "AE")
    assert ae.n == 4 and ae.metrics["format"].mean == 0.75 and ae.metrics["f1"].mean == 0.75
    assert not rows_by_id(report)[missing].predicted
    assert all(g.metrics["f1"].mean == 1.0 for g in report.by_task if g.task != "AE")


def test_garbage_answers_never_crash(tmp_path, tasks_path, records):
    garbage = [
        "",
        "FINAL ANSWER:",
        "FINAL ANSWER: " + "[" * 5000,
        "FINAL ANSWER: null",
        'FINAL ANSWER: {"a": {"b": {"c": 1}}}',
        'FINAL ANSWER: {"jurisdiction": ["Federal"], "schedule": 5}',
        'FINAL ANSWER: {"jurisdiction": "Oz", "schedule": {"z": [{"citation": "§ 1", "claim_value": -4}]}}',
        'FINAL ANSWER: {"x": [{"citation": "11 U.S.C. § 522(d)(5)", "claim_value": "1e999"}]}',
        "FINAL ANSWER: \u0000\u202e",
        'FINAL ANSWER: {"Federal": NaN, "Wisconsin": Infinity}',
    ]
    lines = [{"id": r["id"], "output": garbage[i % len(garbage)]} for i, r in enumerate(records)]
    report = score(tasks_path, write(tmp_path / "p.jsonl", lines), workers=1)
    assert report.scored == 20
    assert all(0.0 <= (g.metrics["f1"].mean or 0.0) <= 1.0 for g in report.by_task)


def test_a_valid_schedule_beating_the_optimum_is_a_loud_warning(
    tmp_path, tasks_path, records, monkeypatch, caplog
):
    import lexsym.check.checker

    real = lexsym.check.checker.check_schedules_many

    def too_good(items, **kwargs):  # every checking path goes through check_schedules_many
        results = real(items, **kwargs)
        for verdicts in results:
            for verdict in verdicts:
                verdict.valid, verdict.violations, verdict.gap, verdict.beats_optimum = True, [], -10, True
                verdict.non_exempt = verdict.optimal_non_exempt - 10
        return results

    monkeypatch.setattr(lexsym.check.checker, "check_schedules_many", too_good)
    oe = [r for r in records if r["task"] == "OE"]
    path = write(tmp_path / "p.jsonl", [{"id": r["id"], "answer": r["gold"]} for r in oe])
    with caplog.at_level(logging.ERROR, logger="lexsym.scoring"):
        report = score(tasks_path, path, workers=1)
    oe_group = group(report, "OE")
    assert oe_group.beats_optimum == 4 and sum(row.beats_optimum for row in report.samples) == 4
    assert oe_group.metrics["valid"].mean == 1.0 and oe_group.metrics["optimal"].mean == 0.0  # not credited
    for r in oe:
        assert any(r["id"] in w and w.startswith("SOLVER BUG") for w in report.warnings)
        assert r["id"] in caplog.text


def test_odd_jurisdiction_names_and_huge_claims_are_judged_not_crashed(tmp_path, tasks_path, records):
    oe = [r for r in records if r["task"] == "OE"]
    lines = [
        {"id": r["id"], "answer": {**r["gold"], "jurisdiction": name}}
        for r, name in zip(oe, ["New Zealand", "U.K.", "not"], strict=False)
    ]
    huge = copy.deepcopy(oe[3]["gold"])
    asset = next(iter(huge["schedule"]))
    huge["schedule"][asset][0]["claim_value"] = 2**40  # past clingo's 32-bit integers
    lines.append({"id": oe[3]["id"], "answer": huge})
    report = score(tasks_path, write(tmp_path / "p.jsonl", lines), workers=1)
    rows = rows_by_id(report)
    for r in oe[:3]:
        assert "jurisdiction_not_allowable" in rows[r["id"]].violations, rows[r["id"]]
        assert "checker_error" not in rows[r["id"]].violations
    assert not any("together failed" in w for w in report.warnings)  # one batch per case, no retries
    assert rows[oe[3]["id"]].scores["optimal"] == 0.0  # never credited, whatever the checker makes of it


def test_a_checker_failure_is_reported_and_counted_as_invalid(tmp_path, tasks_path, records, monkeypatch):
    import lexsym.check.checker

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(lexsym.check.checker, "check_schedules", broken)
    monkeypatch.setattr(lexsym.check.checker, "check_schedules_many", broken)
    oe = [r for r in records if r["task"] == "OE"]
    report = score(
        tasks_path, write(tmp_path / "p.jsonl", [{"id": r["id"], "answer": r["gold"]} for r in oe])
    )
    g = group(report, "OE")
    assert g.metrics["valid"].mean == 0.0 and g.violations == {"checker_error": 4}
    assert any("boom" in w for w in report.warnings)


def test_a_task_whose_case_does_not_solve_is_reported_and_left_out(tmp_path, records):
    tasks = [copy.deepcopy(r) for r in records]
    oe_line, oe = next((n, r) for n, r in enumerate(tasks, 1) if r["task"] == "OE")
    oe["case"]["petition_date"] = "the day after tomorrow"
    tasks_path = write(tmp_path / "tasks.jsonl", tasks)
    report = score(
        tasks_path, write(tmp_path / "p.jsonl", [{"id": r["id"], "answer": r["gold"]} for r in tasks])
    )
    assert any(e.line == oe_line and "does not solve" in e.message for e in report.errors)
    assert group(report, "OE").n == 3 and oe["id"] not in rows_by_id(report)


def test_bad_task_lines_are_counted(tmp_path, records):
    tasks: list[Any] = [
        records[0],
        "{broken",
        {"id": "x", "task": "ZZ", "gold": []},
        {**records[1], "gold": 7},
    ]
    report = score(
        write(tmp_path / "tasks.jsonl", tasks),
        write(tmp_path / "p.jsonl", [{"id": records[0]["id"], "answer": records[0]["gold"]}]),
    )
    assert report.tasks == 1 and [e.line for e in report.errors] == [2, 3, 4]


def test_workers_do_not_change_the_report(tmp_path, tasks_path, records):
    lines = [{"id": r["id"], "answer": r["gold"] if i % 3 else mutate(r, i)} for i, r in enumerate(records)]
    path = write(tmp_path / "p.jsonl", lines)
    assert score(tasks_path, path, workers=1) == score(tasks_path, path, workers=2)


# --- the command line ----------------------------------------------------------------------------------


def lexsym(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, timeout=120
    )


def test_cli_table_json_and_out(tmp_path, tasks_path, records):
    lines = [{"id": r["id"], "output": final(r["gold"])} for r in records[1:]] + ["garbage"]
    predictions = write(tmp_path / "p.jsonl", lines)
    out = tmp_path / "report" / "score.json"
    result = lexsym("score", str(tasks_path), str(predictions), "--json", "--out", str(out), "--seed", "3")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    printed = ScoreReport.model_validate_json(result.stdout)
    assert printed == ScoreReport.model_validate_json(out.read_text())
    assert printed.seed == 3 and printed.missing == [records[0]["id"]] and len(printed.errors) == 1
    table = lexsym("score", str(tasks_path), str(predictions), "--by", "suite")
    assert table.returncode == 0, table.stderr
    assert "F1 ± SE" in table.stdout and "tiny" in table.stdout and "OE" in table.stdout
    assert f"{predictions}:{len(lines)}: invalid JSON" in table.stdout


def test_cli_unreadable_input_is_one_line_and_exit_2(tmp_path, tasks_path):
    missing = lexsym("score", str(tasks_path), str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert missing.stderr.strip().splitlines() == [f"lexsym: error: {tmp_path / 'nope.jsonl'}: no such file"]
    junk = write(tmp_path / "junk.jsonl", ["\u0000garbage", "[]"])
    result = lexsym("score", str(tasks_path), str(junk))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"lexsym: error: {junk}:1: ")
