"""inspect_ai models as lexsym judges: which models judge, and one model as the `ask` lexsym's judges call.

lexsym's judges (`lexsym.judges.reference`, `lexsym.judges.rubric`) talk to a judge through one async
function, messages and generation settings in, a `Completion` out. Here that function is an inspect
`Model.generate`, so inspect's providers, model roles, retries, caching and usage accounting serve the
judge, and the judge's own protocol (its template, the strict grade parsing, the retry turn that quotes
the unparseable reply) stays lexsym's, unchanged.

Who judges follows inspect's model-graded scorers: explicit `model` (one or a list) first, else the
models bound to `model_role` (default "grader", e.g. `--model-role grader=openai/gpt-4o`; a list there is
an ensemble too), else the model under evaluation. A failed call that inspect gives up on is an error of
the sample (inspect retries it with the sample), never a grade.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
    model_roles,
)

from lexsym.judges.attempts import Ask
from lexsym.models.base import Completion, GenerationParams, Message, PermanentModelError

JudgeModels = str | Model | Sequence[str | Model] | None


def judge_models(model: JudgeModels, role: str | None) -> list[Model]:
    """The judges of one sample, resolved at scoring time (roles are bound only once the eval runs)."""
    if model is not None:
        listed = [model] if isinstance(model, (str, Model)) else list(model)
        return [get_model(m) for m in listed]
    if role is not None:
        bound = model_roles().get(role)
        if isinstance(bound, list) and bound:
            return list(bound)
        return [get_model(role=role)]
    return [get_model()]


def judge_names(models: Sequence[Model]) -> list[str]:
    """A distinct name per judge ("provider/model", with "#2"… for a model listed twice), the key under
    which lexsym's ensemble keeps each judge's grade."""
    names: list[str] = []
    for model in models:
        name = str(model)
        count = sum(1 for n in names if n == name or n.startswith(name + "#"))
        names.append(name if count == 0 else f"{name}#{count + 1}")
    return names


def chat_messages(messages: list[Message]) -> list[ChatMessage]:
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[m["role"]](content=m["content"]) for m in messages]


def generate_config(params: GenerationParams) -> GenerateConfig:
    return GenerateConfig(
        temperature=params.temperature,
        max_tokens=params.max_tokens,
        seed=params.seed,
        top_p=params.top_p,
    )


def asker(model: Model) -> Ask:
    """lexsym's `ask` over an inspect model. An output that carries an error (a refusal by the provider's
    filter, say) is a permanent model error: lexsym's judges record it as the judgement's error."""

    async def ask(messages: list[Message], params: GenerationParams) -> Completion:
        output = await model.generate(chat_messages(messages), config=generate_config(params))
        if output.error:
            raise PermanentModelError(output.error)
        usage = output.usage
        return Completion(
            text=output.completion,
            tokens_in=usage.input_tokens if usage else 0,
            tokens_out=usage.output_tokens if usage else 0,
            latency=float(output.time or 0.0),
            finish_reason=None if output.empty else output.stop_reason,
            model=output.model or str(model),
        )

    return ask
