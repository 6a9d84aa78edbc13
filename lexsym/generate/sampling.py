"""Sampling cases for generated tasks: parties, domicile histories that reach a chosen path of the 730-day
rule, assets from the catalogue, and the distracting facts and opinions obfuscation adds.

Every draw comes from a `random.Random` seeded by text (seed, case shape, index), which Python seeds
through SHA-512: the same configuration and seed give the same cases on any machine and in any process.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass, field
from functools import cache

from lexsym._util.datafiles import read_data_yaml
from lexsym.generate.config import GeneratorConfig, feasible_paths, shape_id
from lexsym.law.asset import Asset
from lexsym.law.case import Case, DomicilePeriod, ThirdPartyItem, Visit
from lexsym.law.catalogue import CatalogueAsset, load_catalogue
from lexsym.law.vocabulary import FOREIGN, KIND_PARENTS, STATES, AssetKind, Filing, Owner, Use

WINDOW_730 = 730
WINDOW_180 = 180


@dataclass(frozen=True)
class Residence:
    """One domicile period as the narrative tells it."""

    state: str  # USPS code or FOREIGN
    place: str  # "Tucson, Arizona" or "Lisbon, Portugal"
    start: dt.date
    end: dt.date | None  # None: still there on the petition date


@dataclass(frozen=True)
class AssetStory:
    """A case asset with what the narrative needs to state about it."""

    asset: Asset
    entry_id: str
    owner_name: str | None  # joint cases: the one spouse who owns it alone, if any


@dataclass(frozen=True)
class Opinion:
    """A statement with no legal force: who says it, about what, and what they claim."""

    speaker: str
    about: str  # an asset's description, or a place
    claim: str  # a claim key the templates phrase (e.g. "fully_exempt", "state_law")
    place: str | None = None


@dataclass
class Scenario:
    """A sampled case plus everything its narrative says; `case` holds only what the law reads."""

    index: int
    case: Case
    debtors: list[str]
    residences: list[Residence]
    assets: list[AssetStory]
    rule_path: str
    target_state: str | None
    third_party: list[ThirdPartyItem] = field(default_factory=list)
    visits: list[Visit] = field(default_factory=list)
    asset_opinions: list[Opinion] = field(default_factory=list)
    domicile_opinions: list[Opinion] = field(default_factory=list)

    @property
    def married(self) -> bool:
        return self.case.filing is Filing.JOINT

    def obfuscated_case(self) -> Case:
        """The case with its distracting stays and other people's property: the law must ignore them."""
        return self.case.model_copy(
            update={"visits": list(self.visits), "third_party_property": list(self.third_party)}
        )


@cache
def _people() -> dict:
    return read_data_yaml("people", "names.yaml")


@cache
def _third_party_items() -> list[dict]:
    return read_data_yaml("people", "third_party.yaml")["items"]


@cache
def _places() -> dict:
    return read_data_yaml("people", "places.yaml")


def case_rng(config: GeneratorConfig, index: int, purpose: str) -> random.Random:
    """The random stream for one purpose of one case: independent of worker count and of order."""
    return random.Random(f"lexsym:{config.case_shape()!r}:{index}:{purpose}")


def _kind_ancestry(kind: AssetKind) -> set[AssetKind]:
    chain = {kind}
    while kind in KIND_PARENTS:
        kind = KIND_PARENTS[kind]
        chain.add(kind)
    return chain


@cache
def _candidates(
    include: tuple[AssetKind, ...], exclude: tuple[AssetKind, ...], edition: int
) -> tuple[CatalogueAsset, ...]:
    entries = load_catalogue()
    chosen = []
    for entry in entries:
        if entry.edition > edition:
            continue
        ancestry = _kind_ancestry(entry.kind)
        if include and not ancestry & set(include):
            continue
        if ancestry & set(exclude):
            continue
        chosen.append(entry)
    return tuple(chosen)


def _nice(value: int) -> int:
    """Round to a figure a narrative would state: $1,234 -> $1,230; $48,713 -> $48,700."""
    if value < 100:
        return value
    step = 10 if value < 10_000 else 100 if value < 100_000 else 500
    return max(step, round(value / step) * step)


def _other_state(rng: random.Random, avoid: set[str]) -> str:
    return rng.choice([code for code in STATES if code not in avoid])


def _place(rng: random.Random, state: str) -> str:
    if state == FOREIGN:
        return rng.choice(_places()["abroad"])
    return f"{rng.choice(_places()['cities'][state])}, {STATES[state]}"


def sample_domicile(
    rng: random.Random, petition: dt.date, count: int, path: str, target: str
) -> tuple[list[tuple[str, dt.date]], str | None]:
    """(state, start) segments, oldest first, each ending where the next starts (the last on the petition
    date), reaching `path` of the 730-day rule with `target` as the governing state where one governs."""
    p = petition.toordinal()
    w730, w180 = p - WINDOW_730, p - WINDOW_730 - WINDOW_180
    starts: list[tuple[str, int]] = []
    if path == "730":
        start = w730 - (0 if rng.random() < 0.08 else rng.randint(1, 3650))
        core = [(target, start)]
        after_moves = 0
    else:
        if path in ("180_whole", "foreign"):
            first = FOREIGN if path == "foreign" else target
            core = [(first, w180 - rng.randint(0, 2500))]
        elif path == "180_longer":
            longer = rng.randint(91, 179)
            other = _other_state(rng, {target})
            if rng.random() < 0.5:
                core = [(target, w180 - rng.randint(0, 2500)), (other, w180 + longer)]
            else:
                core = [(other, w180 - rng.randint(0, 2500)), (target, w180 + WINDOW_180 - longer)]
        else:  # tie: two (or, with room, three) places share the 180 days equally
            ways = 3 if count >= 4 and rng.random() < 0.3 else 2
            places: list[str] = []
            for _ in range(ways):
                places.append(_other_state(rng, set(places)))
            core = [(places[0], w180 - rng.randint(0, 2500))]
            core += [(places[i], w180 + i * (WINDOW_180 // ways)) for i in range(1, ways)]
        after_moves = rng.randint(1, count - len(core))
        # The place held on day P-730 must be left inside the 730-day window, or it would hold all 730 days.
        moves = sorted(rng.sample(range(w730 + 1, p), after_moves))
        previous = core[-1][0]
        for day in moves:
            state = _other_state(rng, {previous, target} if path != "730" else {previous})
            core.append((state, day))
            previous = state
    before = count - len(core) if path != "730" else count - 1
    history: list[tuple[str, int]] = []
    earliest = core[0][1]
    following = core[0][0]
    for _ in range(before):
        earliest -= rng.randint(200, 2500)
        state = _other_state(rng, {following, FOREIGN} | ({target} if path != "730" else set()))
        history.insert(0, (state, earliest))
        following = state
    starts = history + core
    segments = [(state, dt.date.fromordinal(day)) for state, day in starts]
    governing = None if path in ("tie", "foreign") else target
    return segments, governing


def _asset_story(
    rng: random.Random,
    config: GeneratorConfig,
    entry: CatalogueAsset,
    number: int,
    petition: dt.date,
    married: bool,
    debtors: list[str],
    moved_in: dt.date,
) -> AssetStory:
    value = _nice(rng.randint(entry.value_min, entry.value_max))
    extra: dict = {}
    owner_name = None
    if married:
        if rng.random() < config.sole_ownership_ratio:
            owner = rng.choice([Owner.DEBTOR, Owner.SPOUSE])
            extra["owner"] = owner
            owner_name = debtors[0] if owner is Owner.DEBTOR else debtors[1]
        else:
            extra["owner"] = Owner.JOINT
    if entry.sale_months_ago is not None:
        months = rng.randint(*entry.sale_months_ago)
        year, month = divmod(petition.year * 12 + petition.month - 1 - months, 12)
        day = min(petition.day, 28)
        extra["sold_on"] = min(dt.date(year, month + 1, day), petition)
    if entry.use is Use.RESIDENCE and entry.kind is not AssetKind.BURIAL_PLOT:
        # The home was bought after the move to the current state; a quarter of homes fall inside
        # § 522(p)'s 1,215 days, where the cap can bite.
        earliest = max((petition - moved_in).days, 61)
        recent = rng.random() < 0.25 or earliest < 1300
        days_before = (
            rng.randint(60, min(1200, earliest - 1)) if recent else rng.randint(1300, min(9000, earliest))
        )
        extra["acquired_on"] = petition - dt.timedelta(days=days_before)
    asset = entry.to_asset(asset_id=f"a{number}", value=value, **extra)
    return AssetStory(asset=asset, entry_id=entry.id, owner_name=owner_name)


def _sample_assets(rng, config, petition, married, debtors, moved_in) -> list[AssetStory]:
    count = rng.randint(config.asset_count_min, config.asset_count_max)
    pool = list(_candidates(config.include_kinds, config.exclude_kinds, config.edition))
    chosen: list[CatalogueAsset] = []
    homes = 0
    while len(chosen) < count and pool:
        entry = pool.pop(rng.randrange(len(pool)))
        if entry.use is Use.RESIDENCE or entry.kind is AssetKind.HOMESTEAD_PROCEEDS:
            if homes:
                continue  # one home (or the proceeds of one) per case, as in OpenExempt
            homes += 1
        chosen.append(entry)
    return [
        _asset_story(rng, config, entry, number, petition, married, debtors, moved_in)
        for number, entry in enumerate(chosen, start=1)
    ]


def _names(rng: random.Random, married: bool) -> list[str]:
    people = _people()
    last = rng.choice(people["last_names"])
    firsts = rng.sample(people["first_names"], 2 if married else 1)
    return [f"{first} {last}" for first in firsts]


def sample_scenario(config: GeneratorConfig, index: int) -> Scenario:
    """The case with index `index` of a dataset of this shape (obfuscations included but not applied)."""
    rng = case_rng(config, index, "case")
    span = (config.petition_date_max - config.petition_date_min).days
    petition = config.petition_date_min + dt.timedelta(days=rng.randint(0, span))
    married = rng.random() < config.married_ratio
    debtors = _names(rng, married)
    count = rng.randint(config.domicile_count_min, config.domicile_count_max)
    paths = [p for p in feasible_paths(count) if config.rule_path_weights.get(p, 0) > 0]
    path = rng.choices(paths, weights=[config.rule_path_weights.get(p, 0) for p in paths])[0]
    target = rng.choice(config.state_jurisdictions)
    segments, governing = sample_domicile(rng, petition, count, path, target)
    residences = [
        Residence(state, _place(rng, state), start, segments[i + 1][1] if i + 1 < len(segments) else None)
        for i, (state, start) in enumerate(segments)
    ]
    assets = _sample_assets(rng, config, petition, married, debtors, residences[-1].start)
    case = Case(
        id=f"case-{shape_id(config)}-{index:04d}",
        petition_date=petition,
        filing=Filing.JOINT if married else Filing.SINGLE,
        debtors=debtors,
        domicile=[DomicilePeriod(state=r.state, start=r.start, end=r.end) for r in residences],
        assets=[story.asset for story in assets],
        readings=config.readings,
    )
    scenario = Scenario(
        index=index,
        case=case,
        debtors=debtors,
        residences=residences,
        assets=assets,
        rule_path=path,
        target_state=governing,
    )
    _add_obfuscations(case_rng(config, index, "obfuscation"), scenario, config.edition)
    return scenario


_PURPOSES = (
    "a work assignment",
    "caring for a relative after surgery",
    "a training course",
    "a family visit",
    "a medical treatment",
    "a volunteer deployment",
    "a summer job",
)
_ASSET_CLAIMS = ("fully_exempt", "not_exempt", "not_estate_property", "half_exempt")
_SPEAKERS = (
    "a friend",
    "a coworker",
    "an online forum",
    "a family member",
    "a creditor",
    "a neighbor",
    "a legal chatbot",
    "the debtor's accountant",
)


def _add_obfuscations(rng: random.Random, scenario: Scenario, edition: int) -> None:
    """Draw every kind of distraction once per case; a dataset's switches decide which are told."""
    people = _people()
    petition = scenario.case.petition_date
    entries = [e for e in load_catalogue() if e.use is not Use.RESIDENCE and e.edition <= edition]
    told = {story.asset.description for story in scenario.assets}
    for _ in range(rng.randint(1, 2)):
        entry = rng.choice(entries)
        if entry.description in told:
            # A third party's item must not read as one of the debtor's. The replacement comes from its own
            # generator, so the case's other draws (and every case without a clash) stay as they were.
            again = random.Random(f"lexsym:{scenario.case.id}:distractor:{entry.id}")
            while entry.description in told:
                entry = again.choice(entries)
        told.add(entry.description)
        owner = f"the debtor's {rng.choice(people['relations'])}"
        scenario.third_party.append(
            ThirdPartyItem(
                description=entry.description,
                value=_nice(rng.randint(entry.value_min, entry.value_max)),
                owner=owner,
            )
        )
    for residence in scenario.residences:
        if residence.state == FOREIGN or rng.random() < 0.4:
            continue
        end = residence.end or petition
        length = (end - residence.start).days
        if length < 30:
            continue
        stay = rng.randint(5, min(60, length - 1))
        start = residence.start + dt.timedelta(days=rng.randint(0, length - stay))
        state = _other_state(rng, {residence.state, FOREIGN})
        scenario.visits.append(
            Visit(
                state=state, start=start, end=start + dt.timedelta(days=stay), purpose=rng.choice(_PURPOSES)
            )
        )
    if not scenario.visits and scenario.residences:
        residence = scenario.residences[-1]
        start = max(residence.start, petition - dt.timedelta(days=400))
        state = _other_state(rng, {residence.state, FOREIGN})
        scenario.visits.append(
            Visit(state=state, start=start, end=start + dt.timedelta(days=10), purpose=rng.choice(_PURPOSES))
        )
    for story in scenario.assets:
        if rng.random() < 0.6 or len(scenario.asset_opinions) == 0:
            scenario.asset_opinions.append(
                Opinion(
                    speaker=rng.choice(_SPEAKERS),
                    about=story.asset.description,
                    claim=rng.choice(_ASSET_CLAIMS),
                )
            )
    lived = {r.state for r in scenario.residences}
    visited = [v.state for v in scenario.visits if v.state not in lived]
    place = rng.choice(visited) if visited else _other_state(rng, lived | {FOREIGN})
    scenario.domicile_opinions.append(
        Opinion(speaker=rng.choice(_SPEAKERS), about=STATES[place], claim="state_law", place=place)
    )
