"""Model backends behind one interface; `load_model("litellm:openai/gpt-4o")` picks one by its id prefix."""

from __future__ import annotations

from typing import Any

from lexsym._util.errors import InputError
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Model,
    ModelError,
    PermanentModelError,
    TransientModelError,
    split_reasoning,
)

PREFIXES = ("litellm:", "vllm:", "lexsym:")


def load_model(spec: str, **options: Any) -> Model:
    """The backend for a model id: litellm:<provider>/<model>, vllm:<model>, lexsym:oracle or :baseline."""
    if spec.startswith("litellm:"):
        from lexsym.models.litellm_backend import LiteLLMModel

        return LiteLLMModel(spec.removeprefix("litellm:"), **options)
    if spec.startswith("vllm:"):
        from lexsym.models.vllm_backend import VLLMModel

        return VLLMModel(spec.removeprefix("vllm:"), **options)
    if spec in ("lexsym:oracle", "lexsym:baseline"):
        from lexsym.models.local import BaselineModel, OracleModel

        given = sorted(name for name, value in options.items() if value is not None)
        if given:
            raise InputError(f"{spec} is a local model and takes no options (given: {', '.join(given)})")

        return OracleModel() if spec == "lexsym:oracle" else BaselineModel()
    raise InputError(
        f"unknown model {spec!r}: use litellm:<provider>/<model>, vllm:<model>, lexsym:oracle or "
        "lexsym:baseline"
    )


__all__ = [
    "Completion",
    "GenerationParams",
    "Model",
    "ModelError",
    "PermanentModelError",
    "TransientModelError",
    "load_model",
    "split_reasoning",
]
