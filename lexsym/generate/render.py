"""Rendering sampled cases as prompts: the narrative fact pattern and the task prompt around it.

The words live in Jinja templates under `data/templates` (several phrasings per kind of fact); this module
only decides which phrasing tells which fact, in what order. Choices come from the case's own random
streams: `phrasing` for the base narrative, `obfuscation-phrasing` for the distracting statements. So one
case reads the same in every dataset of its case shape, whatever the task variant or the obfuscation
switches; switching obfuscation on only inserts sentences, next to the residence or asset they concern.
The Jinja environment and its filters are `lexsym.generate.templates`.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lexsym.generate.config import GeneratorConfig
from lexsym.generate.sampling import Scenario, case_rng
from lexsym.generate.templates import (
    DATE_STYLES,
    environment,
    phrasings,
)
from lexsym.law.statute_sheet import StatuteSheet
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import FOREIGN, STATES

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


def _say(rng: random.Random, group: str, context: dict[str, Any]) -> str:
    """One phrasing of `group`, drawn from `rng`, rendered as a single line of prose."""
    name = rng.choice(phrasings(group))
    return " ".join(environment().get_template(name).render(context).split())


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


FAMILY_STATES = frozenset({"TX", "CA"})
"""States whose law turns on the household, not the filing (Tex. Prop. Code § 42.001(a): a family or "a
single adult, who is not a member of a family"; Cal. Civ. Proc. Code § 703.140(a)(2): a married debtor
filing alone elects § 703.140(b) only with the spouse's waiver, and § 704.100(b) gives a married debtor two
loan-value figures). Where a dataset samples such a state, every lone debtor is
told to be unmarried with no dependents (the case's defaults), whether or not that state's law governs, so
the sentence gives nothing away; elsewhere it would be noise."""


def _household_sentence(scenario: Scenario, config: GeneratorConfig) -> str | None:
    if scenario.married or not set(config.state_jurisdictions) & FAMILY_STATES:
        return None
    return f"{scenario.debtors[0]} is not married and supports no dependents."


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

    household = _household_sentence(scenario, config)
    paragraphs = [
        [intro, household] if household else [intro],
        [sentence for block in residences for sentence in block.text()] + closing_residence,
        asset_sentences,
    ]
    return "\n\n".join(" ".join(paragraph) for paragraph in paragraphs if paragraph)


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
