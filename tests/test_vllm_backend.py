"""VLLMModel without a GPU: the missing-extra error, and batching against a stand-in `vllm` module.

The stand-in has the two names the backend uses (`LLM`, `SamplingParams`) and answers each conversation
with its own last message, so a test can tell whether every caller got its own completion back.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest

from lexsym._util.errors import InputError
from lexsym.models import Completion, GenerationParams, PermanentModelError, load_model
from lexsym.models.vllm_backend import VLLMModel

TOO_LONG = "[[too-long]]"


class FakeSamplingParams:
    def __init__(self, **options: Any):
        self.options = options
        self.max_tokens = options.get("max_tokens", 16)  # vLLM's own default


class FakeLLM:
    """Records every construction and `chat` call; fails like vLLM does for a prompt that is too long."""

    instances: ClassVar[list[FakeLLM]] = []
    fail_to_load: ClassVar[bool] = False

    def __init__(self, model: str, **options: Any):
        if FakeLLM.fail_to_load:
            raise RuntimeError("CUDA out of memory")
        self.model = model
        self.options = options
        self.calls: list[tuple[list[list[dict[str, str]]], list[FakeSamplingParams], dict[str, Any]]] = []
        self.threads: list[str] = []
        FakeLLM.instances.append(self)

    def chat(
        self,
        messages: list[list[dict[str, str]]],
        sampling_params: list[FakeSamplingParams] | None = None,
        use_tqdm: bool = True,
        **options: Any,
    ) -> list[Any]:
        assert sampling_params is not None and len(sampling_params) == len(messages)
        assert use_tqdm is False
        self.calls.append((messages, sampling_params, options))
        self.threads.append(threading.current_thread().name)
        if any(TOO_LONG in conversation[-1]["content"] for conversation in messages):
            raise ValueError("The decoder prompt (length 9000) is longer than the maximum model length")
        return [self._output(c, p) for c, p in zip(messages, sampling_params, strict=True)]

    @staticmethod
    def _output(conversation: list[dict[str, str]], params: FakeSamplingParams) -> Any:
        prompt = " ".join(message["content"] for message in conversation).split()
        words = f"<think> thinking </think> echo: {conversation[-1]['content']}".split()
        limit = params.max_tokens
        cut = limit is not None and len(words) > limit
        words = words[:limit] if cut else words
        sample = types.SimpleNamespace(
            text=" ".join(words), token_ids=list(range(len(words))), finish_reason="length" if cut else "stop"
        )
        return types.SimpleNamespace(prompt_token_ids=list(range(len(prompt))), outputs=[sample])


@pytest.fixture
def fake_vllm(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    module = types.ModuleType("vllm")
    module.LLM = FakeLLM  # type: ignore[attr-defined]
    module.SamplingParams = FakeSamplingParams  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "vllm", module)
    FakeLLM.instances = []
    FakeLLM.fail_to_load = False
    yield module
    FakeLLM.instances = []
    FakeLLM.fail_to_load = False


def conversation(text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": "Answer briefly."}, {"role": "user", "content": text}]


async def gather(model: VLLMModel, requests: list[tuple[str, GenerationParams]]) -> list[Any]:
    calls = [model.generate(conversation(text), params) for text, params in requests]
    return await asyncio.gather(*calls, return_exceptions=True)


# -- without vllm ------------------------------------------------------------------------------------------


def test_missing_vllm_is_a_one_line_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "vllm", None)  # makes `import vllm` fail even where it is installed
    expected = "vllm:org/model needs the vllm extra: pip install 'lexsym[vllm]' (and a GPU)"
    with pytest.raises(InputError) as info:
        VLLMModel("org/model")
    assert str(info.value) == expected
    assert info.value.__cause__ is None and info.value.__suppress_context__  # no ImportError traceback
    with pytest.raises(InputError, match="needs the vllm extra"):
        load_model("vllm:org/model")


def test_a_server_endpoint_points_to_litellm(fake_vllm: types.ModuleType) -> None:
    with pytest.raises(InputError, match=r"litellm:hosted_vllm/org/model with --api-base"):
        VLLMModel("org/model", api_base="http://127.0.0.1:8000/v1")


# -- batching ----------------------------------------------------------------------------------------------


def test_concurrent_calls_run_as_one_batch(fake_vllm: types.ModuleType) -> None:
    model = load_model("vllm:org/model", tensor_parallel_size=1, batch_window=0.05)
    assert isinstance(model, VLLMModel) and model.id == "vllm:org/model"
    assert FakeLLM.instances == []  # the engine loads on the first batch, not at construction
    requests = [
        ("first question", GenerationParams(temperature=0.0, seed=1)),
        ("second question", GenerationParams(temperature=0.7, top_p=0.9, seed=2)),
        ("third question", GenerationParams(max_tokens=2)),
        ("fourth question", GenerationParams(max_tokens=500)),
    ]
    results = asyncio.run(gather(model, requests))

    (engine,) = FakeLLM.instances
    assert engine.model == "org/model" and engine.options == {"tensor_parallel_size": 1}
    assert len(engine.calls) == 1 and model.batches == [4]
    assert engine.threads[0] != threading.main_thread().name  # the event loop was not blocked
    sent, sampling, _ = engine.calls[0]
    assert [c[-1]["content"] for c in sent] == [text for text, _ in requests]
    assert sampling[0].options == {"temperature": 0.0, "max_tokens": None, "seed": 1}
    assert sampling[1].options == {"temperature": 0.7, "max_tokens": None, "seed": 2, "top_p": 0.9}

    for (text, _), completion in zip(requests, results, strict=True):
        assert isinstance(completion, Completion)
        assert completion.model == "org/model" and completion.cost == 0.0
        assert completion.tokens_in == len(f"Answer briefly. {text}".split())
        assert completion.latency > 0
    first, second, third, fourth = results
    assert (first.text, first.reasoning, first.finish_reason) == ("echo: first question", "thinking", "stop")
    assert second.text == "echo: second question" and second.tokens_out == 6
    assert (third.finish_reason, third.tokens_out) == ("length", 2)
    assert third.reasoning == "thinking"  # cut off inside an unclosed <think>: no answer at all
    assert third.text == ""
    assert fourth.finish_reason == "stop"


def test_batches_are_capped_and_later_calls_form_new_batches(fake_vllm: types.ModuleType) -> None:
    model = VLLMModel("org/model", batch_window=0.05, max_batch_size=2)
    requests = [(f"question {i}", GenerationParams()) for i in range(5)]

    async def two_waves() -> tuple[list[Any], list[Any]]:
        first = await gather(model, requests)
        second = await gather(model, requests[:1])
        return first, second

    first, second = asyncio.run(two_waves())
    assert model.batches == [2, 2, 1, 1]
    assert [c.text for c in first] == [f"echo: question {i}" for i in range(5)]
    assert second[0].text == "echo: question 0"
    assert len(FakeLLM.instances) == 1  # one engine for all batches


def test_a_bad_request_fails_alone(fake_vllm: types.ModuleType) -> None:
    model = VLLMModel("org/model", batch_window=0.05)
    requests = [
        ("fine", GenerationParams()),
        (f"huge {TOO_LONG}", GenerationParams()),
        ("also fine", GenerationParams()),
    ]
    good, bad, also_good = asyncio.run(gather(model, requests))
    assert isinstance(good, Completion) and good.text == "echo: fine"
    assert isinstance(also_good, Completion) and also_good.text == "echo: also fine"
    assert isinstance(bad, PermanentModelError)
    assert str(bad).startswith("vllm:org/model: ValueError: The decoder prompt") and "\n" not in str(bad)
    assert model.batches == [1, 1]  # the failed batch of 3 was rerun one by one; two succeeded


def test_an_engine_that_fails_to_load_fails_every_call_once(fake_vllm: types.ModuleType) -> None:
    FakeLLM.fail_to_load = True
    model = VLLMModel("org/model", batch_window=0.01)
    results = asyncio.run(gather(model, [("a", GenerationParams()), ("b", GenerationParams())]))
    assert all(isinstance(r, PermanentModelError) for r in results)
    assert "the engine did not load: RuntimeError: CUDA out of memory" in str(results[0])
    FakeLLM.fail_to_load = False  # a later call must not try to load again (minutes of weights each time)
    (again,) = asyncio.run(gather(model, [("c", GenerationParams())]))
    assert isinstance(again, PermanentModelError) and FakeLLM.instances == []


def test_chat_options_reach_every_call(fake_vllm: types.ModuleType) -> None:
    options = {"chat_template_kwargs": {"enable_thinking": False}}
    model = VLLMModel("org/model", batch_window=0, chat_options=options)
    asyncio.run(gather(model, [("a", GenerationParams())]))
    assert FakeLLM.instances[0].calls[0][2] == options
    assert FakeLLM.instances[0].options == {}  # chat options are not engine options
