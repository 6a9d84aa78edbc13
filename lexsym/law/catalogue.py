"""The asset catalogue: property described once, in our words and in the vocabulary, for generators.

Each entry is a template for an asset: a description, the vocabulary facts the statutes test, and a
plausible value range. `data/assets/*.jsonl` holds the entries; `load_catalogue` validates every line and
reports the first bad one as `file:line: field: problem`.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lexsym._util.datafiles import data_dir
from lexsym._util.errors import InputError
from lexsym.law.asset import Asset
from lexsym.law.case import describe_validation_error
from lexsym.law.vocabulary import AssetKind, MunicipalService, Person, RetirementPlan, Use, VehicleType


def catalogue_dir() -> Path:
    """The catalogue shipped in the wheel (lexsym/_data/assets), else the source checkout's data/assets."""
    return data_dir("assets")


_CATALOGUE_ONLY_FIELDS = {
    "id",
    "value_min",
    "value_max",
    "sale_months_ago",
    "reasonably_necessary_share",
    "edition",
}
"""Fields that describe how to sample an entry, not the asset: a case asset never carries them."""


class CatalogueAsset(BaseModel):
    """One catalogue entry; `to_asset` turns it into a case asset with a sampled value."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$", description="Unique across the catalogue.")
    description: str = Field(min_length=3, description="Our own words, as a narrative would say it.")
    kind: AssetKind
    use: Use = Use.NONE
    user: Person = Person.DEBTOR
    value_min: int = Field(ge=0)
    value_max: int = Field(ge=0)
    vehicle_type: VehicleType | None = None
    prescribed: bool = False
    matured: bool = False
    credit_life: bool = False
    subject: Person | None = None
    plan: RetirementPlan | None = None
    rollover: bool = False
    luxury: bool = False
    closely_held: bool = False
    intends_new_homestead: bool = False
    reinvested: bool = False
    sale_months_ago: tuple[int, int] | None = Field(
        default=None, description="Homestead proceeds: the sale was this many months before the petition."
    )
    reasonably_necessary_share: float | None = Field(
        default=None, ge=0, le=1, description="Share of the value found reasonably necessary for support."
    )
    acres: float | None = Field(default=None, ge=0, description="Land: its area, as the description says.")
    in_municipality: bool = False
    within_city_limits: bool = False
    on_land_not_owned: bool = False
    services: list[MunicipalService] = Field(default_factory=list)
    county: str | None = Field(default=None, description="Land or a home: the county its description names.")
    equipped_for_disability: bool = False
    edition: int = Field(
        default=1, ge=1, description="The catalogue edition that added the entry; a config pins an edition."
    )

    @model_validator(mode="after")
    def _consistent(self) -> CatalogueAsset:
        if self.value_min > self.value_max:
            raise ValueError("value_min is above value_max")
        if self.vehicle_type is not None and self.kind is not AssetKind.MOTOR_VEHICLE:
            raise ValueError("vehicle_type is only for kind motor_vehicle")
        if self.plan is not None and self.kind not in (AssetKind.RETIREMENT_ACCOUNT, AssetKind.PLAN_PAYMENT):
            raise ValueError("plan is only for kinds retirement_account and plan_payment")
        land_facts = (self.acres is not None, self.in_municipality, self.within_city_limits, self.services)
        if any(land_facts) and self.kind is not AssetKind.REAL_PROPERTY:
            raise ValueError(
                "acres, in_municipality, within_city_limits and services are only for kind real_property"
            )
        if self.on_land_not_owned and self.kind not in (AssetKind.MOBILE_HOME, AssetKind.REAL_PROPERTY):
            raise ValueError("on_land_not_owned is only for kinds mobile_home and real_property")
        homes = (AssetKind.REAL_PROPERTY, AssetKind.MOBILE_HOME, AssetKind.COOPERATIVE_SHARE)
        if self.county is not None and self.kind not in homes:
            raise ValueError("county is only for kinds real_property, mobile_home and cooperative_share")
        if self.equipped_for_disability and self.kind is not AssetKind.MOTOR_VEHICLE:
            raise ValueError("equipped_for_disability is only for kind motor_vehicle")
        if (self.sale_months_ago is not None) != (self.kind is AssetKind.HOMESTEAD_PROCEEDS):
            raise ValueError("sale_months_ago goes with kind homestead_proceeds, and only with it")
        return self

    def to_asset(self, *, asset_id: str, value: int, **extra: Any) -> Asset:
        """A case asset built from this entry (extra: owner, sold_on, acquired_on, ...)."""
        fields = self.model_dump(
            exclude=_CATALOGUE_ONLY_FIELDS,
            exclude_defaults=True,
        )
        if self.reasonably_necessary_share is not None:
            fields["reasonably_necessary"] = int(value * self.reasonably_necessary_share)
        return Asset(id=asset_id, value=value, **{**fields, **extra})


def load_catalogue_file(path: Path) -> list[CatalogueAsset]:
    entries = []
    with path.open(encoding="utf-8") as stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                entries.append(CatalogueAsset.model_validate(json.loads(line)))
            except json.JSONDecodeError as error:
                raise InputError(f"{path}:{number}: invalid JSON ({error.msg})") from None
            except ValidationError as error:
                raise InputError(f"{path}:{number}: {describe_validation_error(error)}") from None
    return entries


@cache
def load_catalogue(directory: Path | None = None) -> tuple[CatalogueAsset, ...]:
    """Every entry of every `*.jsonl` file in `directory` (default: the catalogue), validated; ids unique."""
    directory = directory or catalogue_dir()
    entries: list[CatalogueAsset] = []
    seen: dict[str, Path] = {}
    for path in sorted(Path(directory).glob("*.jsonl")):
        for entry in load_catalogue_file(path):
            if entry.id in seen:
                raise InputError(f"{path}: asset id {entry.id!r} is also used in {seen[entry.id]}")
            seen[entry.id] = path
            entries.append(entry)
    if not entries:
        raise InputError(f"{directory}: no catalogue entries (*.jsonl)")
    return tuple(entries)


def latest_edition() -> int:
    """The newest catalogue edition: what a generator config without `catalogue_edition` samples from."""
    return max(entry.edition for entry in load_catalogue())
