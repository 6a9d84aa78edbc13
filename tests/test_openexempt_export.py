"""The OpenExempt export: dataset folders OpenExempt's loaders accept, gold in its shapes, lexsym's prompts,
native cases, statute files holding lexsym's figures, and every loss on record.

OpenExempt's rules are restated here from its format (not imported: the tests run without its code).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from lexsym._util.errors import InputError
from lexsym.generate.pipeline import generate
from lexsym.generate.suites import suite_datasets
from lexsym.interop.openexempt import table_from_openexempt
from lexsym.interop.openexempt_export import export_openexempt
from lexsym.interop.openexempt_oe_check import replay_problem

OPENEXEMPT_VALUES = ("FEDERAL", "ARIZONA", "ILLINOIS", "OREGON", "PENNSYLVANIA", "WISCONSIN")
STATUTE_FILES = {value.lower() + ".json" for value in OPENEXEMPT_VALUES}
TASK_KEYS = {"uid", "jurisdiction", "facts", "solved_steps", "solution"}
SHARED_KEYS = {
    "start_task_id",
    "terminal_task_id",
    "instruction",
    "meta_instruction",
    "response_format",
    "statutes",
    "format_reminder",
}
FIELD_ORDER = (
    "instruction",
    "meta_instruction",
    "response_format",
    "facts",
    "solved_steps",
    "statutes",
    "format_reminder",
)
CASE_KEYS = ["debtor", "joint_debtor", "assets", "state_jurisdiction", "petition_date", "domicile_dates"]
TASK_NUMBERS = {"AE": 1, "EC": 2, "EV": 3, "NA": 4, "OE": 5}


def _generate(out: Path, name: str, base: dict, vary: dict) -> Path:
    generate(
        suite_datasets({"name": name, "base": base, "vary": vary}, source="test", seed=11), out, workers=1
    )
    return out


@pytest.fixture(scope="module")
def tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = {
        "asset_count_min": 2,
        "asset_count_max": 3,
        "married_ratio": 0.5,
        "domicile_count_min": 1,
        "domicile_count_max": 3,
        "state_jurisdictions": ["WI", "IL", "AZ"],
        "split": {"dev": 1, "test": 4},
    }
    vary = {"variant": ["AE", "EC", "EV", "NA", "OE", "EV-OE"]}
    return _generate(tmp_path_factory.mktemp("tasks"), "basic", base, vary)


@pytest.fixture(scope="module")
def export(tasks: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("export") / "oe"
    return out, export_openexempt(tasks, out)


def _lexsym_records(tasks: Path) -> dict[str, dict]:
    lines = (tasks / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    return {record["id"]: record for record in map(json.loads, lines)}


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _datasets(out: Path) -> list[Path]:
    return sorted(path.parent for path in out.glob("*/*/config.json"))


def test_every_dataset_has_openexempts_files_and_keys(export):
    out, summary = export
    folders = _datasets(out)
    assert [f"{f.parent.name}/{f.name}" for f in folders] == sorted(d["path"] for d in summary["datasets"])
    assert {f.parent.name for f in folders} == {"basic_competency"}  # a folder name TaskSuite reads
    for folder in folders:
        assert {
            "config.json",
            "shared.json",
            "test.jsonl",
            "cases.jsonl",
            "dev.jsonl",
            "dev_cases.jsonl",
        } <= {p.name for p in folder.iterdir()}
        shared = json.loads((folder / "shared.json").read_text(encoding="utf-8"))
        assert set(shared) == SHARED_KEYS
        for split, cases_file in (("test", "cases"), ("dev", "dev_cases")):
            lines = _jsonl(folder / f"{split}.jsonl")
            assert len(lines) == len(_jsonl(folder / f"{cases_file}.jsonl"))
            for number, line in enumerate(lines):
                assert set(line) == TASK_KEYS
                assert line["uid"] == f"{folder.name}_{split}_task_{number}"
                assert isinstance(line["facts"], str) and isinstance(line["solved_steps"], str)
        assert _jsonl(folder / "test.jsonl"), folder


def test_configs_pass_openexempts_validation(export):
    out, _summary = export
    for folder in _datasets(out):
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        assert config["dataset_directory"] == f"{folder.parent.name}/{folder.name}"
        assert config["dataset_id"] == folder.name and " " not in config["dataset_name"]
        states = config["state_jurisdictions"]
        assert states and "FEDERAL" not in states and set(states) <= set(OPENEXEMPT_VALUES)
        assert 1 <= config["domicile_count_min"] <= config["domicile_count_max"] <= 5
        assert 1 <= config["asset_count_min"] <= config["asset_count_max"] <= 8
        assert 0 <= config["married_ratio"] <= 1
        assert config["dataset_size"] == len(_jsonl(folder / "test.jsonl")) >= 1
        assert config["start_task_id"] <= config["terminal_task_id"]
        if config["terminal_task_id"] == 1:
            assert not config["irrelevant_asset_facts"] and not config["asset_opinions"]
        assert (out / config["statute_directory"]).is_dir()


def _gold_in_openexempt_shape(task: str, gold):
    if task == "AE":
        return ", ".join(gold)
    if task == "EC":
        return {asset: citations for asset, citations in gold.items() if citations}
    if task == "EV":
        return {asset: claims for asset, claims in gold.items() if claims}
    if task == "OE":
        return gold["schedule"]
    return gold


def _kept_and_dropped(out: Path) -> tuple[dict[str, tuple[Path, str]], dict[str, str]]:
    kept, dropped = {}, {}
    for folder in _datasets(out):
        mapping = json.loads((folder / "lexsym.json").read_text(encoding="utf-8"))
        kept |= {lexsym_id: (folder, uid) for uid, lexsym_id in mapping["tasks"].items()}
        dropped |= mapping["dropped"]
    return kept, dropped


def _line(folder: Path, uid: str) -> tuple[dict, dict]:
    split = "dev" if "_dev_task_" in uid else "test"
    lines = _jsonl(folder / f"{split}.jsonl")
    cases = _jsonl(folder / ("dev_cases.jsonl" if split == "dev" else "cases.jsonl"))
    number = int(uid.rsplit("_", 1)[1])
    return lines[number], cases[number]


def test_every_task_is_written_or_its_loss_recorded(tasks, export):
    out, summary = export
    kept, dropped = _kept_and_dropped(out)
    assert set(kept) | set(dropped) == set(_lexsym_records(tasks))
    assert not set(kept) & set(dropped)
    assert summary["tasks"]["dropped"] == len(dropped)
    assert summary["tasks"]["test"] + summary["tasks"]["dev"] == len(kept)
    losses = json.loads((out / "losses.json").read_text(encoding="utf-8"))
    recorded = {task: why for entry in losses["datasets"] for task, why in entry["dropped"].items()}
    assert recorded == dropped
    text = (out / "LOSSES.md").read_text(encoding="utf-8")
    assert all(task in text for task in dropped)


def test_solutions_are_lexsyms_gold_in_openexempts_shapes(tasks, export):
    out, _summary = export
    records = _lexsym_records(tasks)
    kept, _dropped = _kept_and_dropped(out)
    seen = set()
    for lexsym_id, (folder, uid) in kept.items():
        record = records[lexsym_id]
        line, _case = _line(folder, uid)
        assert line["solution"] == _gold_in_openexempt_shape(record["task"], record["gold"]), lexsym_id
        seen.add(record["task"])
    assert seen == set(TASK_NUMBERS)


def test_prompt_fields_join_to_lexsyms_prompt(tasks, export):
    out, _summary = export
    records = _lexsym_records(tasks)
    kept, _dropped = _kept_and_dropped(out)
    for lexsym_id, (folder, uid) in kept.items():
        record = records[lexsym_id]
        line, _case = _line(folder, uid)
        shared = json.loads((folder / "shared.json").read_text(encoding="utf-8"))
        assert shared["terminal_task_id"] == TASK_NUMBERS[record["task"]]
        assert shared["start_task_id"] == TASK_NUMBERS[record["variant"].split("-")[0]]
        fields = {**shared, **line}
        prompt = "\n\n".join(fields[name] for name in FIELD_ORDER if fields[name])
        expected = record["prompt"]["system"] + "\n\n" + record["prompt"]["user"]
        if record["task"] in ("AE", "OE"):  # the answer format asks for OpenExempt's shape
            cut = expected.rindex("## Response format")
            assert prompt[:cut] == expected[:cut]
            assert "FINAL ANSWER:" in prompt[cut:] and prompt[cut:] != expected[cut:]
            if record["task"] == "AE":
                assert "separated by commas" in prompt[cut:]
        else:
            assert prompt == expected, lexsym_id
        if record["variant"] == "EV-OE":
            assert "## Steps already solved" in line["solved_steps"]


def test_cases_are_native_records_of_lexsyms_cases(tasks, export):
    out, _summary = export
    records = _lexsym_records(tasks)
    kept, _dropped = _kept_and_dropped(out)
    for lexsym_id, (folder, uid) in kept.items():
        record, (line, case) = records[lexsym_id], _line(folder, uid)
        lexsym_case = record["case"]
        assert list(case) == CASE_KEYS
        names = [f"{p['first_name']} {p['last_name']}" for p in (case["debtor"], case["joint_debtor"]) if p]
        assert names == lexsym_case["debtors"]
        assert (case["joint_debtor"] is None) == (lexsym_case["filing"] == "single")
        assert case["petition_date"] == f"{lexsym_case['petition_date']}T00:00:00"
        assert [(a["description"], a["dollar_value"]) for a in case["assets"]] == [
            (a["description"], a["value"]) for a in lexsym_case["assets"]
        ]
        for asset in case["assets"]:
            assert set(asset) == {"description", "dollar_value", "applicable_exemptions", "category_hints"}
            assert set(record["reference"]["EC"].get(asset["description"], [])) <= set(
                asset["applicable_exemptions"]
            )
        assert (
            case["state_jurisdiction"] in OPENEXEMPT_VALUES
            and line["jurisdiction"] == case["state_jurisdiction"]
        )
        states = [name.upper() for name in record["reference"]["AE"] if name != "Federal"]
        assert case["state_jurisdiction"] in (states or ["FEDERAL"]) + ["FEDERAL"]
        for day, place in case["domicile_dates"].items():
            assert dt.datetime.fromisoformat(day).time() == dt.time(0) and place in OPENEXEMPT_VALUES[1:]


def _prompt_limits(statutes_text: str) -> dict[tuple[str, str], int]:
    """(jurisdiction, citation) -> the single limit the prompt states ("Limit: $X; ...")."""
    limits, jurisdiction, citation = {}, None, None
    for line in statutes_text.splitlines():
        header = re.match(r"^(Federal|[A-Z][a-z]+) exemptions", line)
        if header:
            jurisdiction = "FEDERAL" if header.group(1) == "Federal" else header.group(1).upper()
        entry = re.match(r"^- (.+?)(?: \(.*?\))?: ", line)
        if entry and jurisdiction:
            citation = entry.group(1)
        limit = re.match(r"^  \* Limit: \$([\d,]+);", line)
        if limit and citation:
            limits[(jurisdiction, citation)] = int(limit.group(1).replace(",", ""))
    return limits


def test_statute_files_hold_lexsyms_figures_in_openexempts_shape(tasks, export):
    out, _summary = export
    files = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in (out / "statutes").glob("*.json")}
    assert set(files) == STATUTE_FILES
    figures = {}
    for name, document in files.items():
        assert set(document) == {"jurisdiction", "authority", "has_opted_out", "statutes"}
        assert document["jurisdiction"].lower() + ".json" == name
        assert (document["has_opted_out"] is None) == (document["jurisdiction"] == "FEDERAL")
        citations = {entry["citation"] for entry in document["statutes"]}
        for entry in document["statutes"]:
            assert isinstance(entry["description"], str) and entry["description"]
            assert not re.search(r"§(?!\s)", entry["citation"])  # OpenExempt adds a space after § to match
            if "single_limit" not in entry:
                continue
            assert "married_limit" in entry
            if entry["single_limit"] is not None:
                assert entry["married_limit"] >= entry["single_limit"]
            if "fallback_relationship" in entry:
                assert entry["single_fallback_limit"] and entry["married_fallback_limit"]
                assert entry["fallback_relationship"] in citations
            if "mutual_exclusion" in entry:
                assert isinstance(entry["mutual_exclusion"], str) and entry["mutual_exclusion"] in citations
            figures[(document["jurisdiction"], entry["citation"])] = entry["single_limit"]
    assert files["arizona.json"]["has_opted_out"] and not files["wisconsin.json"]["has_opted_out"]
    # What the prompts tell a model is what the statute files hold.
    record = next(r for r in _lexsym_records(tasks).values() if r["task"] == "OE")
    stated = _prompt_limits(record["prompt"]["user"].split("## Statutes", 1)[1].split("\n## ", 1)[0])
    assert stated and all(figures[key] == limit for key, limit in stated.items())
    table = table_from_openexempt(out / "statutes")  # lexsym's own reader of OpenExempt statute files
    assert len(table.exemptions) == len(figures)


def test_losses_name_every_statute_rule_openexempt_cannot_state(export):
    out, summary = export
    losses = json.loads((out / "losses.json").read_text(encoding="utf-8"))
    assert len(losses["statutes"]) == summary["statute_losses"] > 0
    text = (out / "LOSSES.md").read_text(encoding="utf-8")
    for loss in losses["statutes"]:
        assert set(loss) == {"statutes", "jurisdiction", "citation", "rule", "written", "effect"}
        assert loss["citation"] in text
    cited = {loss["citation"] for loss in losses["statutes"]}
    assert {"11 U.S.C. § 522(d)(3)", "11 U.S.C. § 522(p)", "Or. Rev. Stat. § 18.345(1)(p)"} <= cited
    assert "response-format" in text and "blank line" in text


def test_exports_are_byte_for_byte_reproducible(tasks, export, tmp_path):
    out, _summary = export
    again = tmp_path / "again"
    export_openexempt(tasks / "tasks.jsonl", again)
    export_openexempt(tasks, again)  # over a previous export: replaced, not mixed

    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
        }

    assert files(again) == files(out)


def test_settings_outside_openexempts_ranges_are_written_near_and_reported(tmp_path):
    base = {
        "asset_count_min": 0,
        "asset_count_max": 1,
        "married_ratio": 0.0,
        "domicile_count_min": 6,
        "domicile_count_max": 6,
        "state_jurisdictions": ["WI"],
        "irrelevant_asset_facts": True,
        "split": {"dev": 0, "test": 2},
    }
    tasks = _generate(tmp_path / "tasks", "temporal", base, {"task": ["AE"]})
    summary = export_openexempt(tasks, tmp_path / "oe")
    (entry,) = summary["datasets"]
    config = json.loads((tmp_path / "oe" / entry["path"] / "config.json").read_text(encoding="utf-8"))
    assert (config["asset_count_min"], config["domicile_count_max"], config["irrelevant_asset_facts"]) == (
        1,
        5,
        False,
    )
    outside = entry["outside_openexempt_ranges"]
    assert outside["asset_count_min"]["lexsym"] == 0 and outside["domicile_count_min"]["lexsym"] == 6
    assert (
        outside["irrelevant_asset_facts"]
        == config["lexsym"]["outside_openexempt_ranges"]["irrelevant_asset_facts"]
    )
    assert "domicile_count_min" in (tmp_path / "oe" / "LOSSES.md").read_text(encoding="utf-8")
    assert entry["path"].startswith("temporal_reasoning/tr_allowable_exemptions_1")


def test_bad_input_is_one_line_naming_file_and_field(tasks, tmp_path):
    with pytest.raises(InputError, match=r"no tasks\.jsonl"):
        export_openexempt(tmp_path / "missing", tmp_path / "out")
    lines = (tasks / "tasks.jsonl").read_text(encoding="utf-8").splitlines()
    broken = json.loads(lines[0])
    del broken["gold"]
    (tmp_path / "tasks.jsonl").write_text(lines[1] + "\n" + json.dumps(broken) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"tasks\.jsonl:2: field 'gold' is missing"):
        export_openexempt(tmp_path / "tasks.jsonl", tmp_path / "out")
    wrong = json.loads(lines[0]) | {"gold": {"Federal": "lots"}, "task": "NA"}
    (tmp_path / "tasks.jsonl").write_text(json.dumps(wrong) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r":1: field gold\['Federal'\]: expected whole dollars"):
        export_openexempt(tmp_path / "tasks.jsonl", tmp_path / "out")
    (tmp_path / "tasks.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"tasks\.jsonl:1: invalid JSON"):
        export_openexempt(tmp_path / "tasks.jsonl", tmp_path / "out")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(InputError, match="not an OpenExempt export"):
        export_openexempt(tasks, tmp_path / "taken")
    assert (tmp_path / "taken" / "notes.txt").read_text(encoding="utf-8") == "mine"


def _document(*entries: dict) -> dict:
    return {"jurisdiction": "FEDERAL", "authority": "test", "has_opted_out": None, "statutes": list(entries)}


def _case(*assets: tuple[str, int, list[str]], married: bool = False) -> dict:
    return {
        "joint_debtor": {"first_name": "A", "last_name": "B"} if married else None,
        "state_jurisdiction": "FEDERAL",
        "assets": [{"description": d, "dollar_value": v, "applicable_exemptions": c} for d, v, c in assets],
    }


def test_oe_replay_follows_openexempts_pools():
    vehicle = {
        "citation": "V § 1",
        "description": "",
        "single_limit": 4000,
        "married_limit": 8000,
        "single_item_claim_count": 1,
        "married_item_claim_count": 2,
    }
    goods = {
        "citation": "G § 2",
        "description": "",
        "single_limit": 10000,
        "married_limit": 20000,
        "per_item_limit": 700,
    }
    home = {"citation": "H § 3", "description": "", "single_limit": 1000, "married_limit": 2000}
    wildcard = {
        "citation": "W § 4",
        "description": "",
        "single_limit": 100,
        "married_limit": 200,
        "fallback_relationship": "H § 3",
        "single_fallback_limit": 500,
        "married_fallback_limit": 1000,
    }
    documents = {"FEDERAL": _document(vehicle, goods, home, wildcard)}
    car = ("car", 9000, ["V § 1", "W § 4"])

    def problem(target, case):
        return replay_problem(target, case, documents, ["FEDERAL"])

    assert problem({"car": [{"citation": "V § 1", "claim_value": 8000}]}, _case(car, married=True)) is None
    assert "only 4000" in problem({"car": [{"citation": "V § 1", "claim_value": 8000}]}, _case(car))
    sofa = ("sofa", 1400, ["G § 2"])
    assert "only 700" in problem({"sofa": [{"citation": "G § 2", "claim_value": 1400}]}, _case(sofa))
    assert problem({"car": [{"citation": "W § 4", "claim_value": 600}]}, _case(car)) is None
    assert "only 600" in problem({"car": [{"citation": "W § 4", "claim_value": 700}]}, _case(car))
    assert "not listed" in problem({"car": [{"citation": "G § 2", "claim_value": 1}]}, _case(car))
    assert "reads as" in problem({"car": [{"citation": "X § 9", "claim_value": 1}]}, _case(car))


def test_round_trip_through_the_native_case_reader(tasks, export):
    native = pytest.importorskip("lexsym.interop.openexempt_native")
    out, _summary = export
    records = _lexsym_records(tasks)
    kept, _dropped = _kept_and_dropped(out)
    checked = 0
    for lexsym_id, (folder, uid) in kept.items():
        _task_line, case = _line(folder, uid)
        if not case["domicile_dates"]:  # every place outside OpenExempt's six: nothing to read back
            continue
        back = native.case_from_native(case, case_id=lexsym_id, source=uid)
        original = records[lexsym_id]["case"]
        assert back.petition_date.isoformat() == original["petition_date"]
        assert back.filing.value == original["filing"] and back.debtors == original["debtors"]
        assert [(a.description, a.value) for a in back.assets] == [
            (a["description"], a["value"]) for a in original["assets"]
        ]
        assert [a.applicable_exemptions for a in back.assets] == [
            a["applicable_exemptions"] for a in case["assets"]
        ]
        checked += 1
    assert checked
