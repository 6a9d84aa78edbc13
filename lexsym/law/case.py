"""One bankruptcy case as data: the facts every task is computed from.

The JSON file form is the pydantic model dumped as JSON; `lexsym schema case` publishes its schema.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lexsym._util.errors import InputError
from lexsym._util.json_file import load_json
from lexsym.law.asset import MAX_DOLLARS, Asset, unset
from lexsym.law.readings import Readings
from lexsym.law.vocabulary import (
    FOREIGN,
    STATES,
    Filing,
    HomesteadCapGround,
    Owner,
)

BAPCPA_EFFECTIVE = dt.date(2005, 10, 17)
"""The 730-day rule of 11 U.S.C. § 522(b)(3)(A) governs petitions filed on or after this date (Pub. L. 109-8,
§ 1501); the rules encode that law and no earlier one."""

MAX_TOTAL_VALUE = 1_000_000_000
"""Clingo integers are 32-bit; keeping the estate under $1 billion leaves room for every sum."""

MAX_CASE_DOLLARS = 2_000_000_000
"""Every dollar figure of a case together (values, findings, rolled-over equity, contributions): what the
rules add up stays inside clingo's 32-bit integers ($2,147,483,647)."""


class DomicilePeriod(BaseModel):
    """Where the debtor was domiciled from `start` up to (not including) `end`."""

    model_config = ConfigDict(extra="forbid")

    state: str = Field(
        description="USPS code of the state (or DC), or FOREIGN for outside the United States."
    )
    start: dt.date = Field(description="First day of domicile there.")
    end: dt.date | None = Field(
        default=None,
        description="First day domiciled elsewhere (the next period's start). Omit, or give the petition "
        "date, for the domicile on the day of filing. A period may start on the petition date (a move on "
        "the petition day): it holds no day of either window, and the place before it keeps them.",
    )

    @field_validator("state")
    @classmethod
    def _known_place(cls, value: str) -> str:
        code = value.strip().upper()
        if code != FOREIGN and code not in STATES:
            raise ValueError(f"unknown state code {value!r} (use a USPS code such as 'OR', or 'FOREIGN')")
        return code


class Visit(BaseModel):
    """A stay somewhere that does not change the debtor's domicile (travel, work, caregiving)."""

    model_config = ConfigDict(extra="forbid")

    state: str = Field(description="USPS code or FOREIGN.")
    start: dt.date
    end: dt.date
    purpose: str = ""

    _known_place = field_validator("state")(DomicilePeriod._known_place.__func__)


class ThirdPartyItem(BaseModel):
    """Property the debtor uses or holds but does not own: not property of the estate."""

    model_config = ConfigDict(extra="forbid")

    description: str = Field(max_length=2000)
    value: int = Field(ge=0, le=MAX_DOLLARS)
    owner: str = Field(max_length=200, description="Who owns it, e.g. 'the debtor's sister'.")


class Case(BaseModel):
    """A bankruptcy case: when and how it was filed, where the debtor lived, and what the estate holds."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(default="case", min_length=1)
    petition_date: dt.date
    filing: Filing = Filing.SINGLE
    debtors: list[str] = Field(default_factory=list, description="Names, for narratives only.")
    domicile: list[DomicilePeriod] = Field(min_length=1)
    spouse_domicile: list[DomicilePeriod] | None = Field(
        default=None,
        description="Joint cases: the spouse's own domicile history when the spouses lived apart; omitted, "
        "the spouse shares the debtor's. 11 U.S.C. § 522(b)(3)(A) is applied to each spouse (§ 522(m)).",
    )
    filed_in: str | None = Field(
        default=None,
        description="USPS code of the state whose bankruptcy district the case is filed in; default: where "
        "the debtor is domiciled on the petition date. Read by opt-outs limited to filings in the state "
        "and by the § 522(b)(1) deemed election.",
    )
    spouses_cannot_agree: bool = Field(
        default=False,
        description="Joint cases: the spouses cannot agree on the system to elect (11 U.S.C. § 522(b)(1)).",
    )
    married: bool = Field(
        default=False,
        exclude_if=unset,
        description="The debtor is married on the petition date, whether or not the spouse joins the "
        "petition (a joint filing implies it).",
    )
    spousal_waiver: bool = Field(
        default=False,
        exclude_if=unset,
        description="A married debtor filing alone: the debtor and the spouse have both waived in writing, "
        "while the case is pending, California's exemptions other than Cal. Civ. Proc. Code § 703.140(b), "
        "as § 703.140(a)(2) requires before such a debtor may use § 703.140(b) (the waived ones are gone).",
    )
    dependents: int = Field(
        default=0,
        ge=0,
        exclude_if=unset,
        description="How many people the debtors support who live in their household.",
    )
    licensed_drivers: int | None = Field(
        default=None,
        ge=0,
        exclude_if=lambda value: value is None,
        description="Members of the debtors' household who hold a driver's license or rely on another "
        "person to drive them; absent, one per debtor.",
    )
    homestead_cap_grounds: list[HomesteadCapGround] = Field(
        default_factory=list,
        exclude_if=unset,
        description="11 U.S.C. § 522(q)(1) grounds that hold for the debtor: felony_abuse (the court has "
        "found, after notice and a hearing, a felony conviction showing the filing an abuse), or a debt owed "
        "from securities_violation, fiduciary_fraud, rico or injury_misconduct (serious injury or death in "
        "the 5 years before filing).",
    )
    spouse_homestead_cap_grounds: list[HomesteadCapGround] = Field(
        default_factory=list, exclude_if=unset, description="Joint cases: the same for the spouse."
    )
    readings: Readings = Field(
        default_factory=Readings,
        description="Contested readings of the law to solve under (lexsym.law.readings); omitted ones take "
        "their stated defaults.",
    )
    assets: list[Asset] = Field(default_factory=list)
    visits: list[Visit] = Field(
        default_factory=list, description="Stays that do not change domicile; the law ignores them."
    )
    third_party_property: list[ThirdPartyItem] = Field(
        default_factory=list, description="Property others own; not part of the estate."
    )

    @field_validator("filed_in")
    @classmethod
    def _filed_in_state(cls, value: str | None) -> str | None:
        if value is None:
            return None
        code = value.strip().upper()
        if code not in STATES:
            raise ValueError(f"unknown state code {value!r} (use a USPS code such as 'OR')")
        return code

    @model_validator(mode="after")
    def _consistent(self) -> Case:
        if self.petition_date < BAPCPA_EFFECTIVE:
            raise ValueError(
                f"petition_date: {self.petition_date} is before {BAPCPA_EFFECTIVE} (BAPCPA); the rules "
                "encode the 730-day rule of 11 U.S.C. § 522(b)(3)(A) and no earlier law"
            )
        self._check_domicile(self.domicile, "domicile")
        if self.spouse_domicile is not None:
            if self.filing is not Filing.JOINT:
                raise ValueError("spouse_domicile: only a joint filing has a spouse")
            if not self.spouse_domicile:
                raise ValueError("spouse_domicile: give at least one period, or omit it")
            self._check_domicile(self.spouse_domicile, "spouse_domicile")
        if self.spousal_waiver and (self.filing is Filing.JOINT or not self.married):
            raise ValueError("spousal_waiver: only for a married debtor filing alone (set married: true)")
        if self.spouses_cannot_agree and self.filing is not Filing.JOINT:
            raise ValueError("spouses_cannot_agree: only a joint filing has two debtors to disagree")
        self._check_assets()
        return self

    def _check_domicile(self, history: list[DomicilePeriod], field: str) -> None:
        periods = sorted(enumerate(history), key=lambda item: item[1].start)
        previous_end: dt.date | None = None
        previous_index = -1
        for index, period in periods:
            end = period.end or self.petition_date
            if period.start > self.petition_date:
                raise ValueError(f"{field}[{index}].start is after the petition date")
            if end > self.petition_date:
                raise ValueError(f"{field}[{index}].end is after the petition date")
            moved_on_petition_day = period.start == self.petition_date == end
            if end <= period.start and not moved_on_petition_day:
                raise ValueError(f"{field}[{index}] ends on or before it starts")
            if previous_end is not None and period.start < previous_end:
                raise ValueError(f"{field}[{index}] overlaps {field}[{previous_index}]")
            previous_end, previous_index = end, index

    def domicile_of(self, claimant: str) -> list[DomicilePeriod]:
        """The domicile history of `claimant` (debtor or spouse); a spouse without one shares the debtor's."""
        if claimant == "spouse" and self.spouse_domicile is not None:
            return self.spouse_domicile
        return self.domicile

    def place_on_petition_date(self, claimant: str = "debtor") -> str | None:
        """Where `claimant` is domiciled on the petition date (the period reaching it), or None."""
        reaching = [
            period
            for period in self.domicile_of(claimant)
            if (period.end or self.petition_date) == self.petition_date
        ]
        return max(reaching, key=lambda period: period.start).state if reaching else None

    def filing_state(self) -> str | None:
        """The state of the district the case is filed in: filed_in, else the debtor's domicile on filing."""
        if self.filed_in is not None:
            return self.filed_in
        place = self.place_on_petition_date("debtor")
        return place if place in STATES else None

    def _check_assets(self) -> None:
        seen: set[str] = set()
        described: dict[str, int] = {}
        for index, asset in enumerate(self.assets):
            if asset.id in seen:
                raise ValueError(f"assets[{index}].id {asset.id!r} is used twice")
            seen.add(asset.id)
            # Answers name assets by description (gold answers, the checker, fuzzy alignment): two alike would
            # make a right schedule unreadable.
            key = " ".join(asset.description.split()).casefold()
            if key in described:
                raise ValueError(
                    f"assets[{index}].description repeats assets[{described[key]}]'s; answers name assets by "
                    "description, so each must be distinct"
                )
            described[key] = index
            if self.filing is Filing.SINGLE and asset.owner not in (None, Owner.DEBTOR):
                raise ValueError(f"assets[{index}].owner: a single filing has only the debtor as owner")
            if asset.spouse_on_title and (self.filing is Filing.JOINT or not self.married):
                raise ValueError(
                    f"assets[{index}].spouse_on_title: only for a married debtor filing alone "
                    "(a joint filing says who holds it with owner)"
                )
            for name in ("sold_on", "acquired_on"):
                day = getattr(asset, name)
                if day is not None and day > self.petition_date:
                    raise ValueError(f"assets[{index}].{name} is after the petition date")
            for number, contribution in enumerate(asset.contributions):
                if contribution.date > self.petition_date:
                    raise ValueError(
                        f"assets[{index}].contributions[{number}].date is after the petition date"
                    )
            if asset.appreciation > asset.value:
                raise ValueError(f"assets[{index}].appreciation exceeds its value")
        if sum(asset.value for asset in self.assets) > MAX_TOTAL_VALUE:
            raise ValueError(f"assets: total value exceeds ${MAX_TOTAL_VALUE:,}")
        figures = sum(
            asset.value
            + (asset.reasonably_necessary or 0)
            + asset.prior_residence_equity
            + asset.appreciation
            + asset.fraud_conversion
            + (asset.county_median_price or 0)
            + sum(c.amount for c in asset.contributions)
            for asset in self.assets
        )
        if figures > MAX_CASE_DOLLARS:
            raise ValueError(
                f"assets: the dollar figures together (values, findings, equity, contributions) exceed "
                f"${MAX_CASE_DOLLARS:,}, more than the rules can add up"
            )

    def owner_of(self, asset: Asset) -> Owner:
        if asset.owner is not None:
            return asset.owner
        return Owner.JOINT if self.filing is Filing.JOINT else Owner.DEBTOR


def describe_validation_error(error: ValidationError) -> str:
    """The first problem pydantic found, as `field.path: message`."""
    first = error.errors()[0]
    location = ""
    for part in first["loc"]:
        if isinstance(part, int):
            location += f"[{part}]"
        else:
            location += ("." if location else "") + str(part)
    message = first["msg"].removeprefix("Value error, ")
    return f"{location}: {message}" if location else message


def parse_case(data: Any, *, source: str = "case") -> Case:
    try:
        return Case.model_validate(data)
    except ValidationError as error:
        raise InputError(f"{source}: {describe_validation_error(error)}") from None


def load_case(path: str | Path) -> Case:
    return parse_case(load_json(path), source=str(path))
