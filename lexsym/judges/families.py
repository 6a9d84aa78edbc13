"""Model families, for judge bias: a judge grading its own answers (self-bias), or those of a model from its
own family (family bias), as LEXam reports for its judges.

A family is read from the model id's name, not from the route it is served by: `litellm:openrouter/
anthropic/claude-3.5-sonnet` is anthropic and `vllm:Qwen/Qwen3-8B` qwen, because routers and inference
servers (openrouter, together, hosted_vllm, vllm:, bedrock, ...) hold other vendors' models. Only a name
that matches no known pattern falls back to the vendor the id names (`vllm:allenai/OLMo-2` is allenai,
`litellm:cohere/command-r` cohere). The local models (`lexsym:*`) are one family, lexsym.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

#: Patterns on the model's name (lower case, routers and backend stripped), tried in order: the first
#: that matches names the family. The OpenAI ones are anchored to the start of the name's last part, so
#: that "o3" is not found inside another word.
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("anthropic", re.compile(r"claude")),
    ("deepseek", re.compile(r"deepseek")),  # before llama and qwen: its distills name their base model
    ("google", re.compile(r"gemini|gemma")),
    ("meta", re.compile(r"llama")),
    ("qwen", re.compile(r"qwen|qwq")),
    ("mistral", re.compile(r"mistral|mixtral|codestral|ministral|magistral|pixtral")),
    ("xai", re.compile(r"grok")),
    ("openai", re.compile(r"(?:^|/)(?:chat)?gpt|(?:^|/)o[134](?:$|[-.])")),
)

#: litellm route prefixes that serve other vendors' models: never a family on their own when a vendor
#: follows them (`openrouter/anthropic/...`, `bedrock/anthropic.claude-...`).
ROUTERS = frozenset(
    {
        "openrouter",
        "together",
        "together_ai",
        "hosted_vllm",
        "vllm",
        "ollama",
        "ollama_chat",
        "groq",
        "fireworks_ai",
        "deepinfra",
        "bedrock",
        "bedrock_converse",
        "vertex_ai",
        "azure",
        "azure_ai",
        "sagemaker",
        "huggingface",
        "nvidia_nim",
        "lm_studio",
        "openai_like",
    }
)

_BACKENDS = ("litellm:", "vllm:")


def _route(model_id: str) -> list[str]:
    """The id's parts after its backend (`litellm:`, `vllm:`), lower case, split at "/"."""
    name = model_id.strip().lower()
    for backend in _BACKENDS:
        if name.startswith(backend):
            name = name.removeprefix(backend)
            break
    return [part for part in name.split("/") if part]


def model_name(model_id: str) -> str:
    """The model's name with its backend and router prefixes left out, lower case: the same model served
    two ways (`vllm:Qwen/Qwen3-8B`, `litellm:hosted_vllm/Qwen/Qwen3-8B`) has one name."""
    parts = _route(model_id)
    while len(parts) > 1 and parts[0] in ROUTERS:
        parts = parts[1:]
    return "/".join(parts)


def model_family(model_id: str) -> str:
    """The family of a model id (see the module docstring); the id itself, lower case, when it names no
    vendor at all."""
    if model_id.startswith("lexsym:"):
        return "lexsym"
    name = model_name(model_id)
    for family, pattern in PATTERNS:
        if pattern.search(name):
            return family
    parts = name.split("/")
    if len(parts) > 1:
        return parts[0]  # the vendor or organisation the id names
    route = _route(model_id)
    if len(route) > 1:
        return route[0]  # only a router names it: the best guess there is
    backend, sep, _ = model_id.partition(":")
    return backend.lower() if sep and backend else name or model_id.lower()


class JudgeBias(BaseModel):
    """One judge against the answering model of the run it grades."""

    family: str = Field(description="The judge's model family (lexsym.judges.families.model_family).")
    same_family_as_answering: bool = Field(
        description="The answering model (run.json `model`) is of the judge's family: family bias."
    )
    self: bool = Field(description="The judge is the answering model itself (same name): self-bias.")

    @property
    def flag(self) -> str:
        """ "self", "same family" or "" (no bias to flag)."""
        return "self" if self.self else "same family" if self.same_family_as_answering else ""


def judge_bias(judges: list[str], answering_model: str | None) -> dict[str, JudgeBias]:
    """Each judge's family and whether it shares the answering model's family or is the model itself;
    empty when the answering model is not known."""
    if not answering_model:
        return {}
    family = model_family(answering_model)
    name = model_name(answering_model)
    return {
        judge: JudgeBias(
            family=model_family(judge),
            same_family_as_answering=model_family(judge) == family,
            self=judge == answering_model or model_name(judge) == name,
        )
        for judge in judges
    }
