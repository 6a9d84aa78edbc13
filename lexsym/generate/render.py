"""Rendering sampled cases as prompts: the narrative fact pattern and the task prompt around it.

The words live in Jinja templates under `data/templates` (several phrasings per kind of fact); this module
only decides which phrasing tells which fact, in what order. Choices come from the case's own random
streams: `phrasing` for the base narrative, `obfuscation-phrasing` for the distracting statements. So one
case reads the same in every dataset of its case shape, whatever the task variant or the obfuscation
switches; switching obfuscation on only inserts sentences, next to the residence or asset they concern.

Every template renders with StrictUndefined: a missing variable is an error, never an empty string.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import jinja2

from lexsym.datafiles import data_dir
from lexsym.generate.config import GeneratorConfig, Task
from lexsym.generate.sampling import Scenario, case_rng
from lexsym.statute_sheet import StatuteSheet
from lexsym.vocabulary import FOREIGN, JURISDICTION_NAMES, STATES

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)

DATE_STYLES = ("month_day_year", "day_month_year", "iso", "ordinal")
"""How a narrative writes dates: "March 5, 2023", "5 March 2023", "2023-03-05", "March 5th, 2023". Never a
numeric month/day order such as 03/05/2023, which readers resolve differently."""

# Groups of interchangeable phrasings: a template belongs to the group whose prefix its name starts with.
INTRO = "narrative/intro/"
FIRST_RESIDENCE = "narrative/residence/first_"
MOVE = "narrative/residence/move_"
ASSET = "narrative/asset/item_"
ACQUIRED = "narrative/asset/acquired_"
SOLD = "narrative/asset/sold_"
SUPPORT = "narrative/asset/support_"
THIRD_PARTY = "narrative/third_party/"
VISIT = "narrative/visit/"
ASSET_OPINION = "narrative/asset_opinion/"
DOMICILE_OPINION = "narrative/domicile_opinion/"
NARRATIVE_GROUPS = (
    INTRO,
    FIRST_RESIDENCE,
    MOVE,
    ASSET,
    ACQUIRED,
    SOLD,
    SUPPORT,
    THIRD_PARTY,
    VISIT,
    ASSET_OPINION,
    DOMICILE_OPINION,
)


@dataclass(frozen=True)
class Prompt:
    """A rendered task prompt: the system message and the user message."""

    system: str
    user: str


# -- formatting ------------------------------------------------------------------------------------------


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def format_date(day: dt.date, style: str) -> str:
    """`day` in one of DATE_STYLES."""
    month = MONTHS[day.month - 1]
    if style == "month_day_year":
        return f"{month} {day.day}, {day.year}"
    if style == "day_month_year":
        return f"{day.day} {month} {day.year}"
    if style == "iso":
        return day.isoformat()
    if style == "ordinal":
        return f"{month} {_ordinal(day.day)}, {day.year}"
    raise ValueError(f"unknown date style {style!r}")


def format_money(value: int) -> str:
    """Whole dollars with thousands separators: 12500 -> "$12,500"."""
    return f"${value:,}"


def _upfirst(text: str) -> str:
    """Capitalise the first letter only ("the debtors'" -> "The debtors'"); Jinja's capitalize would also
    lower-case the rest, names included."""
    return text[:1].upper() + text[1:]


def _json(value: Any) -> str:
    # Jinja's own tojson escapes quotes and apostrophes for HTML; prompts need plain JSON.
    return json.dumps(value, ensure_ascii=False)


@jinja2.pass_context
def _date(context: jinja2.runtime.Context, day: dt.date) -> str:
    return format_date(day, context["date_style"])


@jinja2.pass_context
def _agree(context: jinja2.runtime.Context, singular: str, plural: str) -> str:
    """The verb form that agrees with the case's subject: one debtor or two."""
    return plural if context["plural"] else singular


def _fail(message: str) -> str:
    raise jinja2.TemplateRuntimeError(message)


def jurisdiction_name(code: str) -> str:
    return JURISDICTION_NAMES.get(code, code)


@cache
def environment() -> jinja2.Environment:
    """The shared Jinja environment over data/templates (strict about undefined variables)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(data_dir("templates"))),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )
    env.filters.update(date=_date, money=format_money, upfirst=_upfirst, json=_json)
    env.globals.update(
        agree=_agree,
        fail=_fail,
        jurisdiction_name=jurisdiction_name,
        opt_out_reach=_opt_out_reach,
        readings_in_force=_readings_in_force,
    )
    return env


_WHOM = {
    "residents": "its residents",
    "domiciliaries": "debtors domiciled there",
    "citizens": "its citizens",
    "residents_180": "its residents and those who left it fewer than 180 days before filing",
    "longer_180": "debtors domiciled there for the longer portion of the 180 days before filing",
    "filed_in_state": "cases filed there",
}


def _opt_out_reach(name: str, scope: str, readings: dict[str, str]) -> str:
    """What a state's opt-out means for a debtor its law governs, under the task's reading."""
    only = f"A debtor whose exemptions are governed by {name} law may claim only {name}'s own exemptions"
    if scope == "all" or readings.get("nonresident_opt_out") != "camp":
        return only + "."
    return (
        f"Its opt-out names {_WHOM.get(scope, 'certain debtors')}. A debtor whose exemptions are governed by "
        f"{name} law and who is one of them on the petition date may claim only {name}'s own exemptions; any "
        "other such debtor may also choose the federal exemptions of 11 U.S.C. § 522(d)."
    )


def _readings_in_force(readings: dict[str, str]) -> list[str]:
    from lexsym.readings import BY_NAME

    return [BY_NAME[name].rules[option] for name, option in readings.items() if name in BY_NAME]


def template_names() -> list[str]:
    """Every template, by name relative to data/templates (sorted)."""
    return sorted(name for name in environment().list_templates() if name.endswith(".j2"))


@cache
def phrasings(group: str) -> tuple[str, ...]:
    """The templates of one group of interchangeable phrasings (a prefix such as INTRO), sorted."""
    names = tuple(name for name in template_names() if name.startswith(group))
    if not names:
        raise jinja2.TemplateNotFound(f"{group}*.j2")
    return names


def _say(rng: random.Random, group: str, context: dict[str, Any]) -> str:
    """One phrasing of `group`, drawn from `rng`, rendered as a single line of prose."""
    name = rng.choice(phrasings(group))
    return " ".join(environment().get_template(name).render(context).split())


# -- the narrative ---------------------------------------------------------------------------------------


def _plural_family(name: str) -> str:
    return name + ("es" if name.endswith(("s", "x", "z", "ch", "sh")) else "s")


def _party(rng: random.Random, debtors: Sequence[str], married: bool) -> dict[str, Any]:
    """How the narrative names the debtors after the introduction: `who` and its possessive `whose`."""
    firsts = [name.rsplit(" ", 1)[0] for name in debtors]
    families = {name.rsplit(" ", 1)[-1] for name in debtors}
    if married:
        choices = [("the debtors", "the debtors'"), ("the couple", "the couple's")]
        choices.append((f"{firsts[0]} and {firsts[1]}", f"{firsts[0]} and {firsts[1]}'s"))
        if len(families) == 1:
            family = _plural_family(families.pop())
            choices.append((f"the {family}", f"the {family}'"))
    else:
        choices = [("the debtor", "the debtor's"), (firsts[0], f"{firsts[0]}'s")]
    who, whose = rng.choice(choices)
    # `their` refers back to a `who` earlier in its sentence; a debtor of unknown gender is named again.
    their = "their" if married else whose
    return {
        "names": list(debtors),
        "married": married,
        "plural": married,
        "who": who,
        "whose": whose,
        "their": their,
    }


def _place_name(code: str) -> str:
    return STATES.get(code, "a place outside the United States" if code == FOREIGN else code)


@dataclass
class _Block:
    """Sentences told together (a residence or an asset), and the distractions that follow them."""

    sentences: list[str]
    extras: list[str]

    def text(self) -> list[str]:
        return self.sentences + self.extras


def _residence_blocks(rng: random.Random, scenario: Scenario, party: dict[str, Any]) -> list[_Block]:
    blocks = []
    count = len(scenario.residences)
    for position, residence in enumerate(scenario.residences):
        context = {
            **party,
            "place": residence.place,
            "start": residence.start,
            "foreign": residence.state == FOREIGN,
            "only": count == 1,
            "last": position == count - 1,
            "previous": scenario.residences[position - 1].place if position else None,
        }
        group = FIRST_RESIDENCE if position == 0 else MOVE
        blocks.append(_Block([_say(rng, group, context)], []))
    return blocks


def _asset_blocks(rng: random.Random, scenario: Scenario, party: dict[str, Any]) -> list[_Block]:
    blocks = []
    names = scenario.debtors
    for story in scenario.assets:
        asset = story.asset
        other = None
        if story.owner_name is not None:
            other = next(name for name in names if name != story.owner_name)
        context = {
            **party,
            "desc": asset.description,
            "value": asset.value,
            "owner": story.owner_name,
            "other": other,
        }
        sentences = [_say(rng, ASSET, context)]
        if asset.acquired_on is not None:
            sentences.append(_say(rng, ACQUIRED, {**context, "acquired_on": asset.acquired_on}))
        if asset.sold_on is not None:
            sold = {**context, "sold_on": asset.sold_on, "intends": asset.intends_new_homestead}
            sentences.append(_say(rng, SOLD, sold))
        if asset.reasonably_necessary is not None:
            sentences.append(_say(rng, SUPPORT, {**context, "amount": asset.reasonably_necessary}))
        blocks.append(_Block(sentences, []))
    return blocks


def _residence_at(scenario: Scenario, day: dt.date) -> int:
    """The index of the residence that was home on `day` (the last one if none was)."""
    petition = scenario.case.petition_date
    for index, residence in enumerate(scenario.residences):
        if residence.start <= day < (residence.end or petition + dt.timedelta(days=1)):
            return index
    return len(scenario.residences) - 1


def render_fact_pattern(scenario: Scenario, config: GeneratorConfig) -> str:
    """The case as a narrative: who filed and when, where they lived, what they own, plus the
    distracting statements that `config` switches on."""
    rng = case_rng(config, scenario.index, "phrasing")
    style = rng.choice(DATE_STYLES)
    party = {"date_style": style, **_party(rng, scenario.debtors, scenario.married)}
    intro = _say(rng, INTRO, {**party, "petition_date": scenario.case.petition_date})
    residences = _residence_blocks(rng, scenario, party)
    assets = _asset_blocks(rng, scenario, party)

    # Every distraction is phrased (and placed) whether or not it is told, so that each one reads the
    # same whichever of the other switches are on.
    noise = case_rng(config, scenario.index, "obfuscation-phrasing")
    third_party = []
    for item in scenario.third_party:
        context = {**party, "desc": item.description, "value": item.value, "owner": item.owner}
        third_party.append((noise.randint(0, len(assets)), _say(noise, THIRD_PARTY, context)))
    visits = []
    for visit in scenario.visits:
        home = _residence_at(scenario, visit.start)
        context = {
            **party,
            "state": _place_name(visit.state),
            "start": visit.start,
            "end": visit.end,
            "days": (visit.end - visit.start).days,
            "purpose": visit.purpose,
            "home": scenario.residences[home].place,
        }
        visits.append((home, _say(noise, VISIT, context)))
    descriptions = [story.asset.description for story in scenario.assets]
    asset_opinions = []
    for opinion in scenario.asset_opinions:
        context = {**party, "speaker": opinion.speaker, "desc": opinion.about, "claim": opinion.claim}
        where = descriptions.index(opinion.about) if opinion.about in descriptions else None
        asset_opinions.append((where, _say(noise, ASSET_OPINION, context)))
    domicile_opinions = []
    for opinion in scenario.domicile_opinions:
        context = {**party, "speaker": opinion.speaker, "state": opinion.about, "claim": opinion.claim}
        domicile_opinions.append(_say(noise, DOMICILE_OPINION, context))

    closing_residence: list[str] = []
    closing_asset: list[str] = []
    if config.irrelevant_domicile_facts:
        for home, sentence in visits:
            residences[home].extras.append(sentence)
    if config.domicile_opinions:
        closing_residence.extend(domicile_opinions)
    if config.asset_opinions:
        for where, sentence in asset_opinions:
            (assets[where].extras if where is not None else closing_asset).append(sentence)
    asset_sentences: list[str] = []
    for position in range(len(assets) + 1):
        if config.irrelevant_asset_facts:
            asset_sentences.extend(sentence for at, sentence in third_party if at == position)
        if position < len(assets):
            asset_sentences.extend(assets[position].text())
    asset_sentences.extend(closing_asset)

    paragraphs = [
        [intro],
        [sentence for block in residences for sentence in block.text()] + closing_residence,
        asset_sentences,
    ]
    return "\n\n".join(" ".join(paragraph) for paragraph in paragraphs if paragraph)


# -- the prompt ------------------------------------------------------------------------------------------


def _tidy(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.strip().splitlines())
    return re.sub(r"\n{3,}", "\n\n", text)


def render_prompt(
    scenario: Scenario, config: GeneratorConfig, sheet: StatuteSheet, gold: dict[str, Any]
) -> Prompt:
    """The task prompt for `scenario` in the dataset `config`: the system message, and a user message with
    the facts, the statutes of `sheet`, the solved steps before `config.start_task` (from `gold`, keyed by
    task id), and the instruction and answer format of `config.terminal_task`."""
    env = environment()
    married = scenario.married
    context = {
        "married": married,
        "plural": married,
        "debtor": "the debtors" if married else "the debtor",
        "has_assets": bool(scenario.case.assets),
    }
    solved = [
        {"task": task.value, "gold": gold[task.value]}
        for task in Task
        if task.number < config.start_task.number
    ]
    system = env.get_template("prompt/system.j2").render(context)
    user = env.get_template("prompt/user.j2").render(
        context,
        facts=render_fact_pattern(scenario, config),
        sheet=sheet,
        readings=scenario.case.readings.as_dict(),
        show_statutes=config.statutes_in_prompt != "none",
        solved=solved,
        task=config.terminal_task.value,
    )
    return Prompt(system=_tidy(system), user=_tidy(user))
