"""What-if exemption tables: exemption parameters given as data, replacing the statutes' own.

A table lists, per citation, the single and joint figures (limit, item count, per-item cap, fallback)
and the relations (fallback base, mutual exclusions), in the vocabulary OpenExempt's statute files use.
Researchers use tables to ask "what if the 2022 figures still applied?" and to replay cases labelled
by other tools exactly; an entry for a citation we also encode replaces our parameters for it, while
classification still comes from the rules (or the case's explicit list).

Table semantics follow OpenExempt: each exemption has one pool for the case whose limit is the single
or the joint figure, and an item-counted exemption allows `item_count` claims of limit/item_count each,
several of which may go to the same item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from lexsym._util.errors import InputError
from lexsym._util.json_file import read_yaml_or_json
from lexsym.law.asset import MAX_DOLLARS
from lexsym.law.case import describe_validation_error
from lexsym.law.citations import clean_citation, exemption_id
from lexsym.law.facts import asp_string
from lexsym.law.vocabulary import FEDERAL, STATES, state_of


class TableFigures(BaseModel):
    model_config = ConfigDict(extra="forbid")

    limit: int | None = Field(default=None, ge=0, le=MAX_DOLLARS, description="Aggregate cap; null for none.")
    item_count: int | None = Field(
        default=None, ge=1, le=10_000, description="At most this many item claims."
    )
    per_item: int | None = Field(default=None, ge=0, le=MAX_DOLLARS, description="Cap on one item.")
    fallback: int | None = Field(
        default=None,
        ge=0,
        le=MAX_DOLLARS,
        description="Most that may be taken from the base's unused amount.",
    )


class TableExemption(BaseModel):
    model_config = ConfigDict(extra="forbid")

    citation: str
    jurisdiction: str = Field(description="US, or the USPS code of a state.")
    single: TableFigures = Field(default_factory=TableFigures)
    joint: TableFigures = Field(default_factory=TableFigures)
    fallback_of: str | None = Field(default=None, description="Citation whose unused amount this may use.")
    excludes: list[str] = Field(default_factory=list, description="Citations that cannot be claimed with it.")

    @field_validator("jurisdiction")
    @classmethod
    def _known_jurisdiction(cls, value: str) -> str:
        code = value.strip().upper()
        if code != FEDERAL and code not in STATES and state_of(code) == code:  # CA_703: one of California's
            raise ValueError(f"unknown jurisdiction {value[:40]!r}")
        return code

    @field_validator("citation", "fallback_of")
    @classmethod
    def _clean(cls, value: str | None) -> str | None:
        return None if value is None else clean_citation(value)


class ExemptionTable(BaseModel):
    """A named set of exemption parameters that replaces the statutes' for the citations it lists."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    opt_out: dict[str, bool] = Field(default_factory=dict, description="State code -> opted out of § 522(d).")
    exemptions: list[TableExemption] = Field(default_factory=list)

    @field_validator("opt_out")
    @classmethod
    def _states(cls, value: dict[str, bool]) -> dict[str, bool]:
        """Keys are written into the program as constants: only the 50 states' and D.C.'s codes pass."""
        codes = {}
        for key, opted_out in value.items():
            code = key.strip().upper() if isinstance(key, str) else ""
            if code not in STATES:
                raise ValueError(f"unknown state code {str(key)[:40]!r} (use a USPS code such as 'OR')")
            codes[code] = opted_out
        return codes

    def citations(self) -> list[str]:
        return [entry.citation for entry in self.exemptions]

    def to_facts(self) -> list[str]:
        facts: list[str] = []
        for state, opted_out in sorted(self.opt_out.items()):
            facts.append(f"table_opt_out({state.lower()},{'true' if opted_out else 'false'}).")
        for entry in self.exemptions:
            e = exemption_id(entry.citation)
            facts.append(f"table_exemption({e},{entry.jurisdiction.lower()},{asp_string(entry.citation)}).")
            for filing, figures in (("single", entry.single), ("joint", entry.joint)):
                for kind in ("limit", "per_item", "fallback"):
                    value = getattr(figures, kind)
                    if value is not None:
                        facts.append(f"table_amount({e},{filing},{kind},{value}).")
                if figures.item_count is not None:
                    facts.append(f"table_item_count({e},{filing},{figures.item_count}).")
            if entry.fallback_of:
                facts.append(f"table_fallback_of({e},{exemption_id(entry.fallback_of)}).")
            for other in entry.excludes:
                facts.append(f"table_excludes({e},{exemption_id(clean_citation(other))}).")
        return facts


def parse_table(data: Any, *, source: str = "table") -> ExemptionTable:
    try:
        return ExemptionTable.model_validate(data)
    except ValidationError as error:
        raise InputError(f"{source}: {describe_validation_error(error)}") from None


def load_table(path: str | Path) -> ExemptionTable:
    """Read a table from JSON or YAML."""
    path = Path(path)
    data = read_yaml_or_json(path)
    return parse_table(data, source=str(path))
