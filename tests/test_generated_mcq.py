"""Generated MCQs: every statement's truth re-checked against a fresh solve, and the LEXam construction.

The re-check reads only a statement's machine-readable `fact` and the record's `case`: it re-solves the
case and, for schedules, re-runs the checker, so a statement whose truth was mislabelled by the generator
cannot pass.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from lexsym.check.checker import ClaimedSchedule, check_schedules
from lexsym.exams.generated import (
    KINDS,
    MCQConfig,
    case_records,
    case_statements,
    generate_mcq,
    prompt_jurisdictions,
    write_task_set,
)
from lexsym.generate.config import GeneratorConfig
from lexsym.generate.render import render_fact_pattern
from lexsym.generate.sampling import case_rng, sample_scenario
from lexsym.law.case import Case
from lexsym.law.solution import Solution
from lexsym.law.solver import solve
from lexsym.law.statute_sheet import sheet_for
from lexsym.scoring.mcq_samples import mcq_task_problem, score_sample

CONFIG = GeneratorConfig(
    name="mcq-test",
    seed=5,
    terminal_task="OE",
    asset_count_min=1,
    asset_count_max=4,
    domicile_count_min=1,
    domicile_count_max=4,
    split={"dev": 2, "test": 10},
    catalogue_edition=1,  # the twelve cases the mix-of-sizes assertions below were written against
)
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


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return generate_mcq(CONFIG)


@pytest.fixture(scope="module")
def records(lines) -> list[dict]:
    return [json.loads(line) for line in lines]


_solved: dict[str, tuple[Case, Solution]] = {}


def resolved(record: dict) -> tuple[Case, Solution]:
    """The record's case, solved afresh (once per case)."""
    key = json.dumps(record["case"], sort_keys=True)
    if key not in _solved:
        case = Case.model_validate(record["case"])
        _solved[key] = (case, solve(case))
    return _solved[key]


def entailed(statement: dict, case: Case, solution: Solution) -> bool:
    """Whether the logic program makes the statement's fact true, decided from the fact alone."""
    fact = statement["fact"]
    code = fact["jurisdiction"]
    allowable = solution.allowable.jurisdictions
    kind = statement["kind"]
    if kind == "AE":
        return code in allowable
    if code not in allowable:
        return False
    result = solution.result(code)
    if kind == "EC":
        return fact["citation"] in {m.citation for m in result.classification.get(fact["asset_id"], [])}
    if kind == "EV":
        values = {v.citation: v.max_claim for v in result.valuation.get(fact["asset_id"], [])}
        return values.get(fact["citation"]) == fact["value"]
    if kind == "NA":
        return result.non_exempt_total == fact["value"]
    if kind == "OE":
        claims = [(asset, citation, amount) for asset, citation, amount in fact["claims"]]
        (verdict,) = check_schedules(case, [ClaimedSchedule(code, claims)])
        return verdict.valid
    raise AssertionError(f"unknown kind {kind}")


def assert_question(record: dict) -> None:
    meta = record["metadata"]
    statements, options, k = meta["statements"], meta["options"], meta["k"]
    asked = [s["number"] for s in statements if s["truth"] != meta["negated"]]
    assert meta["gold_statements"] == asked
    assert len(options) == k == int(record["variant"].split("-")[1])
    subsets = [tuple(o["statements"]) for o in options]
    assert len(set(subsets)) == k, "options must be distinct subsets"
    assert len({o["label"] for o in options}) == k
    gold = [o for o in options if o["label"] == record["gold"]]
    assert len(gold) == 1 and gold[0]["statements"] == asked
    assert [o for o in options if o["statements"] == asked] == gold
    numbers = {s["number"] for s in statements}
    assert all(set(subset) <= numbers for subset in subsets)
    for option in options:
        assert (option["text"] == "none of the statements") == (option["statements"] == [])


def assert_entailment(record: dict) -> None:
    case, solution = resolved(record)
    for statement in record["metadata"]["statements"]:
        truth = entailed(statement, case, solution)
        assert truth == statement["truth"], f"{record['id']} {statement['label']}: {statement}"
        assert statement["reason"]


# -- statements ------------------------------------------------------------------------------------------


def test_true_statements_are_entailed_and_false_ones_are_not(records):
    for record in records:
        assert_entailment(record)


def test_every_candidate_statement_is_labelled_right():
    # Not only the drawn statements: the whole pool of a few cases, so every kind and truth is exercised.
    seen = set()
    for index in range(6):
        scenario = sample_scenario(CONFIG, index)
        solution = solve(scenario.case)
        sheet = sheet_for(
            scenario.case.petition_date, prompt_jurisdictions(CONFIG, solution.allowable.jurisdictions)
        )
        pool = case_statements(scenario, solution, sheet, rng=case_rng(CONFIG, index, "mcq-statements"))
        assert len({s.text for s in pool}) == len(pool), "statement texts are unique"
        for statement in pool:
            as_json = statement.to_json(1)
            assert entailed(as_json, scenario.case, solution) == statement.truth, as_json
            seen.add((statement.kind, statement.truth))
    assert seen == {(kind, truth) for kind in KINDS for truth in (True, False)}


def test_statements_cover_kinds_and_mix_truths(records):
    statements = [s for r in records for s in r["metadata"]["statements"]]
    assert {s["kind"] for s in statements} == set(KINDS)
    sizes = {len(r["metadata"]["gold_statements"]) for r in records}
    assert len(sizes) >= 3, "gold options of several sizes"


# -- questions -------------------------------------------------------------------------------------------


def test_gold_option_is_the_set_asked_for(records):
    for record in records:
        assert_question(record)


def test_every_k_has_the_same_statements_and_gold(records):
    by_case: dict[str, list[dict]] = {}
    for record in records:
        by_case.setdefault(record["metadata"]["case_id"], []).append(record)
    assert len(by_case) == CONFIG.split.size
    for versions in by_case.values():
        assert sorted(r["metadata"]["k"] for r in versions) == [4, 8, 16, 32]
        assert len({json.dumps(r["metadata"]["statements"]) for r in versions}) == 1
        assert len({tuple(r["metadata"]["gold_statements"]) for r in versions}) == 1
        assert len({r["metadata"]["negated"] for r in versions}) == 1


def test_negated_stem_asks_for_the_false_statements():
    mcq = MCQConfig(negated_ratio=1.0, choices=(4, 16))
    for record in case_records(CONFIG, mcq, 3):
        meta = record["metadata"]
        assert meta["negated"] and "incorrect" in meta["stem"]
        assert meta["gold_statements"] == [s["number"] for s in meta["statements"] if not s["truth"]]
        assert_question(record)
    plain = case_records(CONFIG, MCQConfig(negated_ratio=0.0, choices=(4,)), 3)[0]["metadata"]
    assert "incorrect" not in plain["stem"]
    assert plain["gold_statements"] == [s["number"] for s in plain["statements"] if s["truth"]]


def test_config_refuses_impossible_questions():
    with pytest.raises(ValidationError, match="k = 8"):
        MCQConfig(statement_count=2, choices=(4, 8))
    with pytest.raises(ValidationError, match="distinct"):
        MCQConfig(choices=(4, 4))
    with pytest.raises(ValidationError, match="kinds"):
        MCQConfig(kinds=("XX",))
    with pytest.raises(ValidationError, match='without "none of the statements"'):
        MCQConfig(statement_count=2, choices=(4,), allow_none=False)


def test_kinds_can_be_restricted():
    for record in case_records(CONFIG, MCQConfig(kinds=("AE", "NA"), statement_count=3, choices=(8,)), 4):
        assert {s["kind"] for s in record["metadata"]["statements"]} <= {"AE", "NA"}
        assert_entailment(record)


# -- records, prompts, determinism -----------------------------------------------------------------------


def test_records_follow_the_task_schema(records):
    assert len({r["id"] for r in records}) == len(records) == CONFIG.split.size * 4
    for record in records:
        assert set(record) == RECORD_KEYS
        assert record["task"] == "MCQ" and record["variant"].startswith("MCQ-")
        meta = record["metadata"]
        index = int(record["id"].rsplit("-", 1)[1])
        assert record["split"] == ("dev" if index < CONFIG.split.dev else "test")
        assert meta["case_id"] == record["case"]["id"] and meta["seed"] == CONFIG.seed
        assert set(record["reference"]["case_gold"]) == set(KINDS)
        assert mcq_task_problem(record) is None, "the exam scorer accepts the record"
        assert record["reference"]["labels"] == [o["label"] for o in meta["options"]]
        assert record["reference"]["options"] == [o["text"] for o in meta["options"]]
        right = score_sample(record, f"Reasoning...\nANSWER: {record['gold']}")
        assert right.correct and right.n_choices == meta["k"]
        wrong = next(label for label in record["reference"]["labels"] if label != record["gold"])
        assert not score_sample(record, f"ANSWER: {wrong}").correct


def test_prompt_holds_facts_statutes_statements_and_options(records):
    for record in records[:8]:
        index = int(record["id"].rsplit("-", 1)[1])
        user = record["prompt"]["user"]
        assert render_fact_pattern(sample_scenario(CONFIG, index), CONFIG) in user
        assert "## Statutes" in user and "11 U.S.C. § 522(d)(1)" in user
        for statement in record["metadata"]["statements"]:
            assert f"{statement['label']}. {statement['text']}" in user
        for option in record["metadata"]["options"]:
            assert f"\n{option['label']}. {option['text']}\n" in user
        assert record["reference"]["question"] in user
        assert user.endswith(
            f"'ANSWER: X', where X is the label of that option (A–{record['reference']['labels'][-1]})."
        )
        assert "bankruptcy" in record["prompt"]["system"]


def test_generation_is_deterministic(lines):
    small = CONFIG.model_copy(update={"split": CONFIG.split.model_copy(update={"dev": 1, "test": 3})})
    first = generate_mcq(small)
    assert first == generate_mcq(small)
    assert first == generate_mcq(small, workers=2)
    other = generate_mcq(small.model_copy(update={"seed": 6}))
    assert other != first


def test_write_task_set(tmp_path):
    small = CONFIG.model_copy(update={"split": CONFIG.split.model_copy(update={"dev": 1, "test": 1})})
    manifest = write_task_set(tmp_path, small, MCQConfig(choices=(4, 32)))
    written = (tmp_path / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    assert written == generate_mcq(small, MCQConfig(choices=(4, 32)))
    on_disk = json.loads((tmp_path / "manifest.json").read_text(encoding="utf-8"))
    assert on_disk == manifest
    assert manifest["task"] == "MCQ" and manifest["tasks"] == 4
    assert manifest["splits"] == {"dev": 2, "test": 2}
    assert manifest["mcq"]["choices"] == [4, 32]


def test_obfuscated_cases_keep_their_truths():
    config = CONFIG.model_copy(
        update={"irrelevant_asset_facts": True, "irrelevant_domicile_facts": True, "asset_opinions": True}
    )
    record = case_records(config, MCQConfig(choices=(16,)), 1)[0]
    assert record["case"]["visits"] and record["case"]["third_party_property"]
    assert_entailment(record)
    assert_question(record)


@settings(max_examples=8)
@given(seed=st.integers(min_value=0, max_value=10**6), index=st.integers(min_value=0, max_value=3))
def test_property_over_seeds(seed, index):
    config = CONFIG.model_copy(update={"seed": seed})
    for record in case_records(config, MCQConfig(choices=(4, 32)), index):
        assert_question(record)
        assert_entailment(record)
