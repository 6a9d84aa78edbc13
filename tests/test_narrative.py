"""The Jinja layer of the generator: templates lint, every fact of a sampled case is told and told
unambiguously, obfuscation only adds sentences (next to what they concern), every template is exercised,
and prompts assemble facts, statutes, solved steps, task and answer format deterministically.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field
from functools import cache

import jinja2
import pytest

from lexsym.generate.config import GeneratorConfig
from lexsym.generate.render import (
    ASSET_OPINION,
    DOMICILE_OPINION,
    INTRO,
    NARRATIVE_GROUPS,
    SOLD,
    render_fact_pattern,
    render_prompt,
)
from lexsym.generate.sampling import Scenario, sample_scenario
from lexsym.generate.templates import (
    DATE_STYLES,
    MONTHS,
    environment,
    format_money,
    phrasings,
    template_names,
)
from lexsym.law.gold import gold_answers
from lexsym.law.solver import solve
from lexsym.law.statute_sheet import sheet_for
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import FOREIGN, STATES, AssetKind

SWITCHES = ("irrelevant_asset_facts", "irrelevant_domicile_facts", "asset_opinions", "domicile_opinions")
CASES_PER_CONFIG = 40

CONFIGS = [
    GeneratorConfig(name="single-small", married_ratio=0.0, petition_date_min=dt.date(2020, 1, 1)),
    GeneratorConfig(
        name="married-wide",
        married_ratio=1.0,
        sole_ownership_ratio=0.4,
        asset_count_min=1,
        asset_count_max=8,
        domicile_count_min=1,
        domicile_count_max=5,
        petition_date_min=dt.date(2020, 1, 1),
        petition_date_max=dt.date(2026, 12, 31),
    ),
    GeneratorConfig(
        name="mixed",
        seed=7,
        asset_count_min=2,
        asset_count_max=6,
        domicile_count_min=2,
        domicile_count_max=5,
        petition_date_min=dt.date(2022, 6, 1),
        petition_date_max=dt.date(2025, 6, 30),
    ),
    GeneratorConfig(
        name="foreign",
        seed=3,
        domicile_count_min=2,
        domicile_count_max=4,
        asset_count_max=3,
        rule_path_weights={"foreign": 1.0},
        petition_date_min=dt.date(2021, 1, 1),
        petition_date_max=dt.date(2026, 6, 30),
    ),
    GeneratorConfig(
        name="homes-and-support",
        seed=11,
        married_ratio=0.6,
        sole_ownership_ratio=0.5,
        asset_count_min=3,
        asset_count_max=8,
        domicile_count_max=3,
        include_kinds=(
            AssetKind.HOMESTEAD_PROCEEDS,
            AssetKind.REAL_PROPERTY,
            AssetKind.MOBILE_HOME,
            AssetKind.COOPERATIVE_SHARE,
            AssetKind.ALIMONY,
            AssetKind.SUPPORT,
            AssetKind.PLAN_PAYMENT,
            AssetKind.WRONGFUL_DEATH_PAYMENT,
        ),
        petition_date_min=dt.date(2020, 1, 1),
        petition_date_max=dt.date(2026, 12, 31),
    ),
    GeneratorConfig(
        name="no-assets",
        seed=5,
        asset_count_min=0,
        asset_count_max=0,
        domicile_count_min=1,
        domicile_count_max=5,
        petition_date_min=dt.date(2023, 1, 1),
        petition_date_max=dt.date(2026, 12, 31),
    ),
]


def with_switches(config: GeneratorConfig, **switches: bool) -> GeneratorConfig:
    return config.model_copy(update={name: switches.get(name, False) for name in SWITCHES})


# -- reading the text back ---------------------------------------------------------------------------------

_MONTH = "|".join(MONTHS)
_DATE = re.compile(
    rf"\b(?P<iso>\d{{4}})-(?P<iso_m>\d{{2}})-(?P<iso_d>\d{{2}})\b"
    rf"|\b(?P<m1>{_MONTH}) (?P<d1>\d{{1,2}})(?:st|nd|rd|th)?, (?P<y1>\d{{4}})\b"
    rf"|\b(?P<d2>\d{{1,2}}) (?P<m2>{_MONTH}) (?P<y2>\d{{4}})\b"
)
_NUMERIC_DATE = re.compile(r"\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b")


def parse_dates(text: str) -> list[tuple[dt.date, int, int]]:
    """Every date the text states, with its span; a month name outside a full date fails the test."""
    found = []
    for match in _DATE.finditer(text):
        if match["iso"]:
            day = dt.date(int(match["iso"]), int(match["iso_m"]), int(match["iso_d"]))
        elif match["m1"]:
            day = dt.date(int(match["y1"]), MONTHS.index(match["m1"]) + 1, int(match["d1"]))
        else:
            day = dt.date(int(match["y2"]), MONTHS.index(match["m2"]) + 1, int(match["d2"]))
        found.append((day, match.start(), match.end()))
    for month in re.finditer(rf"\b(?:{_MONTH})\b", text):
        assert any(start <= month.start() < end for _, start, end in found), (
            f"a month name outside a full date: {text[month.start() - 20 : month.end() + 20]!r}"
        )
    return found


def dates_in(text: str) -> set[dt.date]:
    return {day for day, _, _ in parse_dates(text)}


_SENTENCE_END = re.compile(r"(?<!\bSt)[.!?](?=\s|$)")  # "St. Louis" ends no sentence


def sentence_at(text: str, start: int, end: int) -> str:
    """The sentence holding text[start:end] (which may itself hold full stops, as in "St. Louis")."""
    left = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        left = match.end()
    after = _SENTENCE_END.search(text, end)
    return text[left : after.end() if after else len(text)].strip()


def sentences_with(text: str, phrase: str) -> list[str]:
    return [sentence_at(text, m.start(), m.end()) for m in re.finditer(re.escape(phrase), text)]


def pieces(text: str) -> list[str]:
    return [piece for piece in re.split(r"(?<=[.!?])\s+", text) if piece]


def is_subsequence(short: list[str], long: list[str]) -> bool:
    items = iter(long)
    return all(any(piece == other for other in items) for piece in short)


# -- the renders every test reads ------------------------------------------------------------------------


@dataclass
class Rendered:
    config: GeneratorConfig
    scenario: Scenario
    base: str
    full: str
    single: dict[str, str]


@dataclass
class Renders:
    narratives: list[Rendered] = field(default_factory=list)
    used: set[str] = field(default_factory=set)


PROMPT_CONFIG = GeneratorConfig(
    name="prompts",
    seed=2,
    asset_count_min=1,
    asset_count_max=4,
    domicile_count_min=1,
    domicile_count_max=4,
    married_ratio=0.5,
)
PROMPT_CASES = 3


@cache
def prompt_gold(index: int) -> tuple[Scenario, dict]:
    scenario = sample_scenario(PROMPT_CONFIG, index)
    return scenario, gold_answers(scenario.case, solve(scenario.case))


def prompt_variants() -> list[GeneratorConfig]:
    variants = []
    for terminal in Task:
        for start in dict.fromkeys((Task.AE, terminal)):
            variants.append(PROMPT_CONFIG.model_copy(update={"start_task": start, "terminal_task": terminal}))
    return variants


@pytest.fixture(scope="module")
def renders() -> Renders:
    """Every narrative and prompt of the module, rendered once while recording the templates loaded."""
    env = environment()
    result = Renders()
    original = env.get_template

    def recording(name, *args, **kwargs):
        template = original(name, *args, **kwargs)
        result.used.add(template.name)
        return template

    env.get_template = recording
    try:
        for config in CONFIGS:
            for index in range(CASES_PER_CONFIG):
                scenario = sample_scenario(config, index)
                result.narratives.append(
                    Rendered(
                        config=config,
                        scenario=scenario,
                        base=render_fact_pattern(scenario, with_switches(config)),
                        full=render_fact_pattern(
                            scenario, with_switches(config, **dict.fromkeys(SWITCHES, True))
                        ),
                        single={
                            name: render_fact_pattern(scenario, with_switches(config, **{name: True}))
                            for name in SWITCHES
                        },
                    )
                )
        for config in prompt_variants():
            for index in range(PROMPT_CASES):
                scenario, gold = prompt_gold(index)
                sheet = sheet_for(scenario.case.petition_date, ("US", *config.state_jurisdictions))
                render_prompt(scenario, config, sheet, gold)
    finally:
        del env.get_template  # the instance attribute hid the class's method
    return result


# -- templates lint --------------------------------------------------------------------------------------


def test_every_template_parses():
    env = environment()
    names = template_names()
    assert names, "no templates found"
    for name in names:
        source, _, _ = env.loader.get_source(env, name)
        env.parse(source, name=name)
        assert env.get_template(name).name == name


def test_undefined_variables_raise():
    env = environment()
    assert env.undefined is jinja2.StrictUndefined
    with pytest.raises(jinja2.UndefinedError):
        env.from_string("{{ nowhere }}").render()
    with pytest.raises(jinja2.UndefinedError):
        env.get_template(phrasings(INTRO)[0]).render(married=True)
    with pytest.raises(jinja2.UndefinedError):
        env.get_template("prompt/user.j2").render()


def test_unknown_opinion_claims_raise():
    env = environment()
    base = {"speaker": "a neighbor", "who": "the debtor", "whose": "the debtor's", "plural": False}
    for name in phrasings(ASSET_OPINION):
        with pytest.raises(jinja2.UndefinedError):
            env.get_template(name).render(base, desc="a sofa", claim="surely_exempt")
    for name in phrasings(DOMICILE_OPINION):
        with pytest.raises(jinja2.TemplateRuntimeError):
            env.get_template(name).render(base, state="Ohio", claim="fully_exempt")


def test_several_phrasings_per_fact_type():
    for group in NARRATIVE_GROUPS:
        assert len(phrasings(group)) >= 4, group
    for task in Task:
        assert f"prompt/task/{task.value}.j2" in template_names()
        assert f"prompt/format/{task.value}.j2" in template_names()


def test_sold_phrasings_state_the_intention_both_ways():
    env = environment()
    context = {
        "who": "the debtors",
        "whose": "the debtors'",
        "plural": True,
        "date_style": "iso",
        "sold_on": dt.date(2023, 4, 1),
    }
    for name in phrasings(SOLD):
        yes = env.get_template(name).render(context, intends=True)
        no = env.get_template(name).render(context, intends=False)
        assert "2023-04-01" in yes and "2023-04-01" in no, name
        assert re.search(r"\b(another|new|replacement) home\b", yes), name
        assert re.search(r"\b(another|new|replacement) home\b", no), name
        assert not re.search(r"\b(no|not)\b", yes), name
        assert re.search(r"\b(no|not)\b", no), name


def test_every_template_is_exercised(renders):
    assert set(template_names()) - renders.used == set()


# -- the narrative tells every fact, unambiguously -------------------------------------------------------


def expected_dates(scenario: Scenario, *, visits: bool) -> set[dt.date]:
    days = {scenario.case.petition_date} | {r.start for r in scenario.residences}
    for story in scenario.assets:
        days |= {d for d in (story.asset.acquired_on, story.asset.sold_on) if d is not None}
    if visits:
        days |= {d for visit in scenario.visits for d in (visit.start, visit.end)}
    return days


def date_style(text: str) -> str:
    match = _DATE.search(text)
    if match["iso"]:
        return "iso"
    if match["m1"]:
        return "ordinal" if re.search(r"\d(st|nd|rd|th),", match[0]) else "month_day_year"
    return "day_month_year"


def test_dates_parse_back_and_none_is_ambiguous(renders):
    styles = set()
    for item in renders.narratives:
        for text, visits in ((item.base, False), (item.full, True)):
            assert not _NUMERIC_DATE.search(text), text
            assert dates_in(text) == expected_dates(item.scenario, visits=visits), text
            styles.add(date_style(text))
    assert styles == set(DATE_STYLES), "every date style should occur"


def test_petition_date_and_filing_status(renders):
    for item in renders.narratives:
        scenario = item.scenario
        intro = item.full.split("\n\n")[0]
        assert scenario.case.petition_date in dates_in(intro), intro
        if scenario.married:
            assert "joint" in intro, intro
            for name in scenario.debtors:
                assert name in intro, intro
        else:
            assert len(scenario.debtors) == 1
            assert scenario.debtors[0] in intro, intro
            assert re.search(r"\b(alone|individual|individually|sole debtor|only debtor)\b", intro), intro
            assert not re.search(r"\bjoint (petition|case)\b|\bjointly\b(?<!not jointly)", intro), intro


def test_a_lone_debtor_of_a_family_state_is_told_to_be_single_without_dependents():
    """Texas's figures turn on whether the debtor is a family (Tex. Prop. Code § 42.001(a)); the case's
    defaults say unmarried, no dependents, so the narrative says it wherever the dataset samples Texas, and
    nowhere else (the nine suites pass through Texas without sampling it, and keep their bytes)."""
    base = {"state_jurisdictions": ["TX"], "domicile_count_min": 1, "domicile_count_max": 1}
    single = GeneratorConfig(name="tx-single", married_ratio=0.0, **base)
    joint = GeneratorConfig(name="tx-joint", married_ratio=1.0, **base)
    elsewhere = GeneratorConfig(name="pa-single", married_ratio=0.0, state_jurisdictions=["PA", "OR"])
    sentence = "is not married and supports no dependents."
    for index in range(6):
        scenario = sample_scenario(single, index)
        text = render_fact_pattern(scenario, single)
        assert f"{scenario.debtors[0]} {sentence}" in text.split("\n\n")[0], text
        assert not scenario.case.married and scenario.case.dependents == 0
        assert sentence not in render_fact_pattern(sample_scenario(joint, index), joint)
        assert sentence not in render_fact_pattern(sample_scenario(elsewhere, index), elsewhere)


def residence_sentence(text: str, place: str, start: dt.date) -> str | None:
    for sentence in sentences_with(text, place):
        if start in dates_in(sentence):
            return sentence
    return None


def test_every_domicile_is_told_with_its_start(renders):
    foreign_seen = 0
    for item in renders.narratives:
        for text in (item.base, item.full):
            residences = item.scenario.residences
            for position, residence in enumerate(residences):
                sentence = residence_sentence(text, residence.place, residence.start)
                assert sentence is not None, (residence, text)
                if residence.state == FOREIGN:
                    foreign_seen += 1
                    assert "outside the United States" in sentence, sentence
                if position == len(residences) - 1:
                    assert re.search(r"petition|filing|case began", sentence), sentence
            for match in re.finditer("|".join(re.escape(r.place) for r in residences), text):
                assert not text[match.end() : match.end() + 1].isalpha(), text
    assert foreign_seen > 0


def asset_region(text: str, scenario: Scenario, position: int) -> str:
    """From the asset's description to the next asset's description (or the end of the paragraph)."""
    description = scenario.assets[position].asset.description
    start = text.index(description)
    ends = [text.find("\n\n", start)]
    for story in scenario.assets[position + 1 :]:
        ends.append(text.find(story.asset.description, start + len(description)))
    end = min([e for e in ends if e >= 0], default=len(text))
    return text[start:end]


def test_every_asset_is_told_verbatim_with_its_value_and_owner(renders):
    sole = joint = 0
    for item in renders.narratives:
        scenario = item.scenario
        for text in (item.base, item.full):
            for position, story in enumerate(scenario.assets):
                asset = story.asset
                sentences = sentences_with(text, asset.description)
                assert sentences, (asset.description, text)
                sentence = sentences[0]
                assert format_money(asset.value) in sentence, sentence
                index = text.index(asset.description) + len(asset.description)
                assert not text[index : index + 1].isalpha(), sentence
                if story.owner_name is not None:
                    sole += 1
                    assert story.owner_name in sentence, sentence
                    assert re.search(r"\b(alone|solely|sole)\b", sentence), sentence
                elif scenario.married:
                    joint += 1
                    assert re.search(r"\bjoint|\bboth spouses\b", sentence), sentence
                region = asset_region(text, scenario, position)
                if asset.acquired_on is not None:
                    assert asset.acquired_on in dates_in(region), region
                if asset.sold_on is not None:
                    assert asset.sold_on in dates_in(region), region
                    assert re.search(r"\b(another|new|replacement) home\b", region), region
                if asset.reasonably_necessary is not None:
                    finding = sentences_with(region, format_money(asset.reasonably_necessary))
                    assert any("reasonably necessary" in s for s in finding), region
    assert sole and joint


def test_story_features_occur(renders):
    """The configurations reach every kind of fact the templates phrase."""
    assets = [story.asset for item in renders.narratives for story in item.scenario.assets]
    assert any(a.acquired_on for a in assets)
    assert any(a.sold_on and a.intends_new_homestead for a in assets)
    assert any(a.sold_on and not a.intends_new_homestead for a in assets)
    assert any(a.reasonably_necessary is not None for a in assets)
    assert {len(item.scenario.residences) for item in renders.narratives} >= {1, 2, 3, 4, 5}
    years = {item.scenario.case.petition_date.year for item in renders.narratives}
    assert min(years) == 2020 and max(years) >= 2026


def test_text_is_tidy(renders):
    for item in renders.narratives:
        for text in (item.base, item.full):
            assert not re.search(r"\s[,;:]|\s\.(?!\d)|[,;:][A-Za-z]|  |\{|\}", text), text
            assert "None" not in text, text


# -- obfuscation -----------------------------------------------------------------------------------------


def added_pieces(base: str, text: str) -> list[str]:
    """The sentences `text` adds to `base` (which must survive, in order)."""
    ours, theirs = pieces(base), pieces(text)
    assert is_subsequence(ours, theirs), (base, text)
    remaining = list(ours)
    added = []
    for piece in theirs:
        if remaining and piece == remaining[0]:
            remaining.pop(0)
        else:
            added.append(piece)
    return added


def test_base_narrative_is_the_same_in_every_variant(renders):
    for item in renders.narratives[::5]:
        for start, terminal in ((Task.AE, Task.AE), (Task.EC, Task.EV), (Task.NA, Task.OE)):
            other = item.config.model_copy(
                update={"start_task": start, "terminal_task": terminal, "name": "x"}
            )
            again = sample_scenario(other, item.scenario.index)
            assert render_fact_pattern(again, with_switches(other)) == item.base


def test_obfuscation_only_when_switched_on(renders):
    for item in renders.narratives:
        scenario = item.scenario
        assert item.full != item.base
        for name, text in item.single.items():
            added = " ".join(added_pieces(item.base, text))
            if name == "irrelevant_asset_facts":
                for thing in scenario.third_party:
                    assert thing.description in added and thing.owner in added.lower(), added
                    assert format_money(thing.value) in added, added
            elif name == "irrelevant_domicile_facts":
                for visit in scenario.visits:
                    assert STATES[visit.state] in added and visit.purpose in added, added
            elif name == "asset_opinions":
                for opinion in scenario.asset_opinions:
                    assert opinion.speaker in added.lower(), added
            else:
                for opinion in scenario.domicile_opinions:
                    assert opinion.about in added and opinion.speaker in added.lower(), added
            told = scenario.asset_opinions if name == "asset_opinions" else True
            assert bool(added) == bool(told), (name, text)
        # Each switch adds its own sentences, and all of them together add exactly those.
        together = added_pieces(item.base, item.full)
        separately = [p for name in SWITCHES for p in added_pieces(item.base, item.single[name])]
        assert sorted(together) == sorted(separately)


def test_distractions_sit_next_to_what_they_concern(renders):
    for item in renders.narratives:
        scenario, text = item.scenario, item.full
        starts = []
        for residence in scenario.residences:
            sentence = residence_sentence(text, residence.place, residence.start)
            starts.append(text.index(sentence))
        added = added_pieces(item.base, text)
        for visit in scenario.visits:
            piece = next(p for p in added if visit.start in dates_in(p) and STATES[visit.state] in p)
            where = text.index(piece)
            home = max(i for i, start in enumerate(starts) if start < where)
            assert scenario.residences[home].start <= visit.start, (visit, text)
            if home + 1 < len(scenario.residences):
                assert visit.start < scenario.residences[home + 1].start, (visit, text)
        descriptions = [story.asset.description for story in scenario.assets]
        for opinion in scenario.asset_opinions:
            position = descriptions.index(opinion.about)
            region = asset_region(text, scenario, position)
            assert any(opinion.speaker in p.lower() and p in region for p in added), (opinion, region)


# -- prompts ---------------------------------------------------------------------------------------------


def _shape_ok(task: Task, answer) -> bool:
    def claims(value) -> bool:
        return isinstance(value, list) and all(
            isinstance(c, dict)
            and isinstance(c.get("citation"), str)
            and isinstance(c.get("claim_value"), int)
            for c in value
        )

    if task is Task.AE:
        return isinstance(answer, list) and all(isinstance(x, str) for x in answer)
    if task is Task.EC:
        return isinstance(answer, dict) and all(
            isinstance(v, list) and all(isinstance(c, str) for c in v) for v in answer.values()
        )
    if task is Task.EV:
        return isinstance(answer, dict) and all(claims(v) for v in answer.values())
    if task is Task.NA:
        return isinstance(answer, dict) and all(isinstance(v, int) for v in answer.values())
    return (
        isinstance(answer, dict)
        and isinstance(answer.get("jurisdiction"), str)
        and isinstance(answer.get("schedule"), dict)
        and all(claims(v) for v in answer["schedule"].values())
    )


def test_format_examples_are_valid_json_of_the_gold_shape():
    _, gold = prompt_gold(0)
    for task in Task:
        text = environment().get_template(f"prompt/format/{task.value}.j2").render()
        example = text.rsplit("FINAL ANSWER:", 1)[1].strip()
        assert _shape_ok(task, json.loads(example)), task
        assert _shape_ok(task, gold[task.value]), task


@pytest.mark.parametrize("config", prompt_variants(), ids=lambda c: c.variant)
def test_prompt_assembles_its_parts(renders, config):
    env = environment()
    for index in range(PROMPT_CASES):
        scenario, gold = prompt_gold(index)
        sheet = sheet_for(scenario.case.petition_date, ("US", *config.state_jurisdictions))
        prompt = render_prompt(scenario, config, sheet, gold)
        again = render_prompt(sample_scenario(config, index), config, sheet, gold)
        assert prompt == again, "rendering must be deterministic"
        user = prompt.user
        assert render_fact_pattern(scenario, config) in user
        for entry in sheet.exemptions:
            assert entry.citation in user, entry.citation
        for code, _, citation, _scope in sheet.opt_out:
            assert STATES[code] in user and (citation is None or citation in user)
        assert ("## Steps already solved" in user) == (config.start_task is not Task.AE)
        for task in Task:
            heading = f"Step {task.value} ("
            assert (heading in user) == (task.number < config.start_task.number), (task, config.variant)
        context = {"married": scenario.married, "debtor": "the debtors" if scenario.married else "the debtor"}
        terminal = config.terminal_task.value
        instruction = env.get_template(f"prompt/task/{terminal}.j2").render(context)
        answer_format = env.get_template(f"prompt/format/{terminal}.j2").render(context)
        assert instruction in user and answer_format in user
        assert user.rstrip().endswith(answer_format.rstrip())
        assert "FINAL ANSWER:" in answer_format
        assert user.index("FINAL ANSWER:") > user.index("## Response format")
        for other in Task:
            if other.value != terminal:
                assert env.get_template(f"prompt/task/{other.value}.j2").render(context) not in user
        if scenario.case.assets:
            assert "equal halves" in prompt.system and "alone" in prompt.system
        assert "FINAL ANSWER" not in prompt.system


def test_solved_steps_show_the_gold(renders):
    config = PROMPT_CONFIG.model_copy(update={"start_task": Task.OE, "terminal_task": Task.OE})
    scenario, gold = prompt_gold(1)
    sheet = sheet_for(scenario.case.petition_date, ("US", *config.state_jurisdictions))
    user = render_prompt(scenario, config, sheet, gold).user
    solved = user.split("## Steps already solved", 1)[1].split("## Task", 1)[0]
    steps = dict(re.findall(r"^Step (\w\w) \((.*?)(?=^Step |\Z)", solved, flags=re.M | re.S))
    assert list(steps) == ["AE", "EC", "EV", "NA"]
    assert all(name in steps["AE"] for name in gold["AE"])
    for description, citations in gold["EC"].items():
        (line,) = [line for line in steps["EC"].splitlines() if line.startswith(f"- {description}: ")]
        assert all(citation in line for citation in citations) and (citations or "no exemption" in line)
    for description, values in gold["EV"].items():
        (line,) = [line for line in steps["EV"].splitlines() if line.startswith(f"- {description}: ")]
        for value in values:
            assert f"{value['citation']} up to {format_money(value['claim_value'])}" in line, line
    for name, total in gold["NA"].items():
        assert f"- {name}: {format_money(total)}" in steps["NA"]
