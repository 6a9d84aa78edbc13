"""Generator configuration: every OpenExempt knob, plus the ones its users asked for next.

Loadable from YAML or JSON; every error names the file and the field.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_yaml_or_json
from lexsym.law.case import describe_validation_error
from lexsym.law.catalogue import latest_edition
from lexsym.law.readings import DEFAULT_READINGS, Readings
from lexsym.law.tasks import Task
from lexsym.law.vocabulary import STATES, AssetKind

RULE_PATHS = ("730", "180_whole", "180_longer", "tie", "foreign")
"""How the 730-day rule resolves: one state for 730 days; one state for the earlier 180 days; the longer
portion of them; a tie (hanging paragraph, federal); a foreign domicile (hanging paragraph, federal)."""


def feasible_paths(domicile_count: int) -> list[str]:
    """Paths a history of this many domiciles can reach. A path other than 730 needs a move inside the
    730-day window; the longer-portion and tie paths also need a move inside the 180-day window."""
    if domicile_count == 1:
        return ["730"]
    if domicile_count == 2:
        return ["730", "180_whole", "foreign"]
    return list(RULE_PATHS)


_NAMES_TO_CODES = {name.upper(): code for code, name in STATES.items()}


MAX_SPLIT_CASES = 100_000
"""Cases of one split of one dataset: the whole benchmark has under 10,000 tasks, and a size of 2^32 ran
for ever instead of being refused (issue 19)."""

MAX_ASSETS = 200
"""Assets of one generated case: the suites use at most 8, and the solve-scaling benchmark 64."""


class Split(BaseModel):
    model_config = ConfigDict(extra="forbid")

    dev: int = Field(default=5, ge=0, le=MAX_SPLIT_CASES)
    test: int = Field(default=100, ge=0, le=MAX_SPLIT_CASES)

    @property
    def size(self) -> int:
        return self.dev + self.test


class GeneratorConfig(BaseModel):
    """One dataset: which task variant, how many cases, and how they are shaped and obfuscated."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = "dataset"
    seed: int = Field(default=0, ge=-(2**63), lt=2**63)
    start_task: Task = Task.AE
    terminal_task: Task = Task.AE
    split: Split = Field(default_factory=Split)
    asset_count_min: int = Field(default=1, ge=0, le=MAX_ASSETS)
    asset_count_max: int = Field(default=1, ge=0, le=MAX_ASSETS)
    married_ratio: float = Field(default=0.5, ge=0.0, le=1.0)
    domicile_count_min: int = Field(default=1, ge=1, le=8)
    domicile_count_max: int = Field(default=1, ge=1, le=8)
    state_jurisdictions: tuple[str, ...] = ("AZ", "IL", "OR", "PA", "WI")
    irrelevant_asset_facts: bool = False
    irrelevant_domicile_facts: bool = False
    asset_opinions: bool = False
    domicile_opinions: bool = False
    petition_date_min: dt.date = dt.date(2024, 1, 1)
    petition_date_max: dt.date = dt.date(2024, 12, 31)
    include_kinds: tuple[AssetKind, ...] = Field(
        default=(), description="Only these kinds (and their subkinds)."
    )
    exclude_kinds: tuple[AssetKind, ...] = ()
    statutes_in_prompt: str = Field(
        default="listed",
        pattern="^(listed|all|none)$",
        description="Statute texts in the prompt: of the listed states (and federal), of every encoded "
        "state, or none (the 'vanilla' setting: the model must know the law; the listed states are named).",
    )
    rule_path_weights: dict[str, float] = Field(
        default_factory=lambda: {"730": 2.0, "180_whole": 2.0, "180_longer": 2.0, "tie": 1.0, "foreign": 1.0},
        description="Relative frequency of each 730-day-rule path (unreachable paths for a count drop out).",
    )
    sole_ownership_ratio: float = Field(
        default=0.15, ge=0.0, le=1.0, description="Joint cases: share of assets owned by one spouse alone."
    )
    catalogue_edition: int | None = Field(
        default=None,
        ge=1,
        description="Sample only catalogue entries of this edition or older (default: the latest), so a "
        "config keeps its cases when entries are added; recorded in the manifest.",
    )
    readings: Readings = Field(
        default_factory=Readings,
        description="Contested readings every case is solved under (lexsym.law.readings); omitted ones take "
        "their "
        "stated defaults. Recorded in each task's metadata and in the manifest.",
    )

    @field_validator("start_task", "terminal_task", mode="before")
    @classmethod
    def _task(cls, value: Any) -> Task:
        return Task.parse(value)

    @field_validator("state_jurisdictions", mode="before")
    @classmethod
    def _states(cls, value: Any) -> tuple[str, ...]:
        if not isinstance(value, (list, tuple)):
            raise ValueError("must be a list of state codes or names")
        codes = []
        for item in value:
            text = str(item).strip().upper()
            code = _NAMES_TO_CODES.get(text, text)
            if code not in STATES:
                raise ValueError(f"unknown state {item!r}")
            codes.append(code)
        if not codes:
            raise ValueError("at least one state is needed")
        return tuple(codes)

    @field_validator("rule_path_weights")
    @classmethod
    def _paths(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = set(value) - set(RULE_PATHS)
        if unknown:
            raise ValueError(f"unknown rule paths {sorted(unknown)} (known: {', '.join(RULE_PATHS)})")
        if not all(isinstance(w, (int, float)) and 0 <= w <= 1e9 for w in value.values()) or not any(
            value.values()
        ):
            raise ValueError("weights must be numbers from 0 to 1e9, not all zero")
        return value

    @model_validator(mode="after")
    def _ranges(self) -> GeneratorConfig:
        if self.start_task.number > self.terminal_task.number:
            raise ValueError("start_task comes after terminal_task")
        if self.asset_count_min > self.asset_count_max:
            raise ValueError("asset_count_min is above asset_count_max")
        if self.domicile_count_min > self.domicile_count_max:
            raise ValueError("domicile_count_min is above domicile_count_max")
        for count in range(self.domicile_count_min, self.domicile_count_max + 1):
            reachable = feasible_paths(count)
            if not any(self.rule_path_weights.get(path, 0) > 0 for path in reachable):
                raise ValueError(
                    f"rule_path_weights: no path with a weight is reachable with {count} domicile(s) "
                    f"(reachable: {', '.join(reachable)})"
                )
        if self.petition_date_min > self.petition_date_max:
            raise ValueError("petition_date_min is after petition_date_max")
        if self.terminal_task is not Task.AE and self.asset_count_max == 0:
            raise ValueError("tasks after AE need assets (asset_count_max > 0)")
        if self.catalogue_edition is not None and self.catalogue_edition > latest_edition():
            raise ValueError(
                f"catalogue_edition {self.catalogue_edition} is newer than the catalogue "
                f"(latest edition {latest_edition()})"
            )
        return self

    @property
    def edition(self) -> int:
        """The catalogue edition this config samples from."""
        return self.catalogue_edition or latest_edition()

    @property
    def variant(self) -> str:
        """The task variant: the contiguous interval of the pipeline the model solves, e.g. "EC-OE"."""
        if self.start_task is self.terminal_task:
            return self.terminal_task.value
        return f"{self.start_task.value}-{self.terminal_task.value}"

    def case_shape(self) -> tuple:
        """Everything that shapes the sampled cases (not the task or obfuscation): datasets that share it
        share their cases, so suites compare variants and perturbations on the very same cases."""
        return (
            self.seed,
            self.split.size,
            self.asset_count_min,
            self.asset_count_max,
            self.married_ratio,
            self.domicile_count_min,
            self.domicile_count_max,
            self.state_jurisdictions,
            self.petition_date_min.isoformat(),
            self.petition_date_max.isoformat(),
            tuple(k.value for k in self.include_kinds),
            tuple(k.value for k in self.exclude_kinds),
            tuple(sorted(self.rule_path_weights.items())),
            self.sole_ownership_ratio,
            *self._reading_choices(),
            *((("catalogue_edition", self.edition),) if self.edition > 1 else ()),
        )

    def _reading_choices(self) -> tuple:
        """Readings that differ from the defaults (so default configs keep their case ids)."""
        defaults = DEFAULT_READINGS.as_dict()
        return tuple(sorted((k, v) for k, v in self.readings.as_dict().items() if v != defaults[k]))

    @property
    def obfuscated(self) -> bool:
        """Whether a case of this dataset is told with distractors or opinions (the obfuscated case)."""
        return any(
            (
                self.irrelevant_asset_facts,
                self.irrelevant_domicile_facts,
                self.asset_opinions,
                self.domicile_opinions,
            )
        )


def shape_id(config: GeneratorConfig) -> str:
    """A short name for a case shape: datasets that share it share their cases (and case ids)."""
    import hashlib

    return hashlib.sha256(repr(config.case_shape()).encode()).hexdigest()[:10]


def parse_config(data: Any, *, source: str = "config") -> GeneratorConfig:
    try:
        return GeneratorConfig.model_validate(data)
    except ValidationError as error:
        raise InputError(f"{source}: {describe_validation_error(error)}") from None


def load_config(path: str | Path) -> GeneratorConfig:
    return parse_config(read_yaml_or_json(path), source=str(path))
