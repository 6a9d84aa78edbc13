"""How the generated questions of a task set are shaped, and the version stamps their records carry."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from lexsym.exams.statements import K_CHOICES

TASK = "MCQ"


KINDS = ("AE", "EC", "EV", "NA", "OE")


TEMPLATE_VERSION = "mcq/1"
"""Version of the question and prompt wording below; bump it whenever a phrasing changes."""


MANIFEST_VERSION = 1


class MCQConfig(BaseModel):
    """How the questions of a task set are shaped (the cases come from a GeneratorConfig)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    choices: tuple[int, ...] = Field(default=K_CHOICES, description="k: options per question.")
    statement_count: int = Field(default=5, ge=1, le=8, description="n: numbered statements per question.")
    negated_ratio: float = Field(default=0.3, ge=0.0, le=1.0, description="Share of negated stems.")
    true_ratio: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Chance that each statement slot asks for a true statement."
    )
    kinds: tuple[str, ...] = Field(default=KINDS, description="Which kinds of statement to draw.")
    allow_none: bool = Field(default=True, description='Offer "none of the statements" as a distractor.')
    nested: bool = Field(default=False, description="Each k's distractors contain the smaller k's ones.")

    @field_validator("kinds")
    @classmethod
    def _kinds(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [kind for kind in value if kind not in KINDS]
        if unknown or not value:
            raise ValueError(f"kinds must be a non-empty subset of {', '.join(KINDS)} (got {list(value)})")
        return tuple(kind for kind in KINDS if kind in value)

    @model_validator(mode="after")
    def _fits(self) -> MCQConfig:
        if not self.choices or len(set(self.choices)) != len(self.choices):
            raise ValueError(f"choices must be distinct and at least one (got {list(self.choices)})")
        # Without "none of the statements" among the distractors, one subset fewer is sure to exist.
        most = 2**self.statement_count - (0 if self.allow_none else 1)
        for k in self.choices:
            if not 2 <= k <= most:
                raise ValueError(
                    f"k = {k} options need 2 <= k <= {most} (n = {self.statement_count} statements"
                    + ("" if self.allow_none else ', without "none of the statements"')
                    + ")"
                )
        return self
