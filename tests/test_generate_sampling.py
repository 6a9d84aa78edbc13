"""Generator configuration, suites and case sampling: ranges, ratios, rule paths, determinism, inertness."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from lexsym import solve
from lexsym._util.errors import InputError
from lexsym.generate.config import GeneratorConfig, load_config, parse_config
from lexsym.generate.sampling import feasible_paths, sample_scenario
from lexsym.generate.suites import SUITE_NAMES, all_variants, load_suite, suite_datasets
from lexsym.law.gold import gold_answers
from lexsym.law.tasks import Task

EXPECTED_PATH = {
    "730": "730",
    "180_whole": "180_whole",
    "180_longer": "180_longer",
    "tie": "hanging_paragraph",
    "foreign": "hanging_paragraph",
}


def test_config_errors_name_the_field(tmp_path):
    with pytest.raises(InputError, match="state_jurisdictions"):
        parse_config({"state_jurisdictions": ["Atlantis"]})
    with pytest.raises(InputError, match="start_task comes after terminal_task"):
        parse_config({"start_task": "OE", "terminal_task": "EC", "asset_count_max": 2})
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nseed: [1,\n")
    with pytest.raises(InputError, match=r"bad.yaml:\d+: invalid YAML"):
        load_config(bad)


def test_config_accepts_openexempt_style_values():
    config = parse_config(
        {
            "start_task": 2,
            "terminal_task": "oe",
            "state_jurisdictions": ["ARIZONA", "or"],
            "asset_count_min": 1,
            "asset_count_max": 3,
        }
    )
    assert config.start_task is Task.EC and config.terminal_task is Task.OE
    assert config.state_jurisdictions == ("AZ", "OR")
    assert config.variant == "EC-OE"


def test_the_nine_suites_have_openexempts_shape():
    datasets = {name: load_suite(name) for name in SUITE_NAMES}
    assert {name: len(d) for name, d in datasets.items()} == {
        "basic": 5,
        "intermediate": 5,
        "advanced": 5,
        "temporal": 5,
        "decomposition": 15,
        "distractor": 10,
        "sycophancy": 10,
        "obfuscation": 10,
        "asset-scaling": 28,
    }
    assert sum(d.config.split.size for ds in datasets.values() for d in ds) == 9765
    assert sorted({d.config.variant for d in datasets["decomposition"]}) == sorted(all_variants())
    assert len(all_variants()) == 15


def test_a_suite_is_a_short_yaml_document():
    datasets = suite_datasets(
        {
            "name": "mine",
            "base": {"asset_count_min": 2, "asset_count_max": 2},
            "vary": {"task": ["EC", "OE"], "obfuscation": ["none", "sycophancy"]},
        },
        source="inline",
    )
    assert [d.name for d in datasets] == [
        "task=EC,obfuscation=none",
        "task=EC,obfuscation=sycophancy",
        "task=OE,obfuscation=none",
        "task=OE,obfuscation=sycophancy",
    ]
    assert datasets[1].config.asset_opinions and not datasets[0].config.asset_opinions
    # Datasets that differ only in task or obfuscation share their cases.
    assert len({d.config.case_shape() for d in datasets}) == 1


def _config(**fields) -> GeneratorConfig:
    base = {
        "name": "t",
        "seed": 7,
        "terminal_task": "OE",
        "asset_count_min": 1,
        "asset_count_max": 6,
        "domicile_count_min": 1,
        "domicile_count_max": 5,
        "married_ratio": 0.5,
        "split": {"dev": 0, "test": 200},
    }
    return parse_config({**base, **fields})


def test_sampled_counts_respect_the_ranges_and_ratios():
    config = _config(petition_date_min="2021-03-01", petition_date_max="2022-02-28")
    scenarios = [sample_scenario(config, i) for i in range(200)]
    assert {len(s.case.assets) for s in scenarios} <= set(range(1, 7))
    assert {len(s.residences) for s in scenarios} == set(range(1, 6))
    married = sum(s.married for s in scenarios) / len(scenarios)
    assert 0.38 < married < 0.62
    assert all(dt.date(2021, 3, 1) <= s.case.petition_date <= dt.date(2022, 2, 28) for s in scenarios)
    assert all(sum(a.asset.use.value == "residence" for a in s.assets) <= 1 for s in scenarios)
    governing = Counter(s.target_state for s in scenarios if s.target_state)
    assert set(governing) == {"AZ", "IL", "OR", "PA", "WI"}


def test_every_rule_path_is_reached_and_is_what_the_rules_say():
    datasets = load_suite("temporal")
    seen = Counter()
    for dataset in datasets:
        for index in range(40):
            scenario = sample_scenario(dataset.config, index)
            assert scenario.rule_path in feasible_paths(len(scenario.residences))
            allowable = solve(scenario.case).allowable
            assert allowable.rule_path == EXPECTED_PATH[scenario.rule_path], scenario.residences
            if scenario.target_state:
                assert allowable.applicable_state == scenario.target_state
            seen[scenario.rule_path] += 1
    assert set(seen) == {"730", "180_whole", "180_longer", "tie", "foreign"}, seen


def test_same_seed_same_cases_other_seed_other_cases():
    config = _config()
    assert sample_scenario(config, 3).case == sample_scenario(config, 3).case
    other = config.model_copy(update={"seed": 8})
    assert sample_scenario(other, 3).case != sample_scenario(config, 3).case


def test_include_and_exclude_kinds_filter_the_catalogue():
    only_vehicles = _config(include_kinds=["motor_vehicle"], asset_count_min=2, asset_count_max=2)
    for index in range(20):
        assert {a.asset.kind.value for a in sample_scenario(only_vehicles, index).assets} == {"motor_vehicle"}
    no_jewelry = _config(exclude_kinds=["jewelry"], asset_count_min=5, asset_count_max=5)
    for index in range(20):
        kinds = {a.asset.kind.value for a in sample_scenario(no_jewelry, index).assets}
        assert not kinds & {"jewelry", "watch", "wedding_ring"}


def test_no_third_party_item_repeats_the_description_of_a_debtors_asset():
    config = _config(asset_count_min=6, asset_count_max=8, irrelevant_asset_facts=True)
    for index in range(300):
        scenario = sample_scenario(config, index)
        owned = [story.asset.description for story in scenario.assets]
        others = [item.description for item in scenario.third_party]
        assert not set(owned) & set(others) and len(set(others)) == len(others), index


def test_a_pinned_catalogue_edition_never_samples_later_entries():
    from lexsym.generate.config import shape_id
    from lexsym.law.catalogue import latest_edition, load_catalogue

    later = {e.description for e in load_catalogue() if e.edition > 1}
    assert later and latest_edition() > 1
    kinds = {"include_kinds": ["plan_payment", "wrongful_death_payment", "life_insurance_payment"]}
    pinned = _config(**kinds, asset_count_min=3, asset_count_max=3, catalogue_edition=1)
    latest = pinned.model_copy(update={"catalogue_edition": None})
    drawn_pinned = {a.asset.description for i in range(30) for a in sample_scenario(pinned, i).assets}
    drawn_latest = {a.asset.description for i in range(30) for a in sample_scenario(latest, i).assets}
    assert not drawn_pinned & later
    assert drawn_latest & later
    # edition 1 adds nothing to the case shape, so configs written before editions keep their case ids
    assert ("catalogue_edition", 1) not in pinned.case_shape()
    assert ("catalogue_edition", latest_edition()) in latest.case_shape()
    assert shape_id(pinned) != shape_id(latest)
    with pytest.raises(InputError, match=r"catalogue_edition .* newer than the catalogue"):
        parse_config({"catalogue_edition": latest_edition() + 1})


@pytest.mark.parametrize("index", range(25))
def test_obfuscations_are_legally_inert(index):
    config = _config(
        irrelevant_asset_facts=True,
        irrelevant_domicile_facts=True,
        asset_opinions=True,
        domicile_opinions=True,
    )
    scenario = sample_scenario(config, index)
    assert scenario.third_party and scenario.visits and scenario.asset_opinions and scenario.domicile_opinions
    base = gold_answers(scenario.case, solve(scenario.case))
    assert gold_answers(scenario.case, solve(scenario.obfuscated_case())) == base
