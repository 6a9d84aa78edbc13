"""VLLMModel without a GPU: the missing-extra error, and batching against a stand-in `vllm` module.

The stand-in has the two names the backend uses (`LLM`, `SamplingParams`) and answers each conversation
with its own last message, so a test can tell whether every caller got its own completion back.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
import types
from collections.abc import Iterator
from pathlib import Path
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
    load_seconds: ClassVar[float] = 0.0
    template_opens_think: ClassVar[bool] = False  # a Qwen3-thinking template: the output starts inside it

    def __init__(self, model: str, **options: Any):
        if FakeLLM.fail_to_load:
            raise RuntimeError("CUDA out of memory")
        time.sleep(FakeLLM.load_seconds)
        self.built_on = threading.current_thread().name
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
        opening = "" if FakeLLM.template_opens_think else "<think> "
        words = f"{opening}thinking </think> echo: {conversation[-1]['content']}".split()
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
    FakeLLM.load_seconds = 0.0
    FakeLLM.template_opens_think = False


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


# -- through the runner: options, the whole queue, start-up ----------------------------------------------


@pytest.fixture(scope="module")
def ae_tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.task_sets import ae_task_set

    return ae_task_set(tmp_path_factory.mktemp("ae"), 6, seed=3)


def run_vllm(tasks: Path, out: Path, *flags: str) -> Any:
    from lexsym.models.options import parse_options
    from lexsym.runner import RunOptions, run_tasks

    options = RunOptions(progress=False, cache_dir=out.parent / "cache")
    return run_tasks("vllm:org/model", tasks, out, options=options, model_options=parse_options(flags))


def test_model_options_reach_the_engine_and_every_chat_call(
    fake_vllm: types.ModuleType, ae_tasks: Path, tmp_path: Path
) -> None:
    flags = (
        "tensor_parallel_size=2",
        "max_model_len=4096",
        "gpu_memory_utilization=0.85",
        "dtype=bfloat16",
        "revision=1e100",  # stays a string, as a revision must
        "chat_template_kwargs={enable_thinking: false}",
    )
    result = run_vllm(ae_tasks, tmp_path / "run", *flags)
    (engine,) = FakeLLM.instances
    assert engine.options == {
        "tensor_parallel_size": 2,
        "max_model_len": 4096,
        "gpu_memory_utilization": 0.85,
        "dtype": "bfloat16",
        "revision": "1e100",
    }
    assert all(
        options == {"chat_template_kwargs": {"enable_thinking": False}} for _, _, options in engine.calls
    )
    settings = result.header.model_settings
    assert settings["engine_options"]["revision"] == "1e100"
    assert settings["chat_options"] == {"chat_template_kwargs": {"enable_thinking": False}}


def test_vllm_sees_the_whole_queue_in_one_batch(
    fake_vllm: types.ModuleType, ae_tasks: Path, tmp_path: Path
) -> None:
    result = run_vllm(ae_tasks, tmp_path / "run")
    (engine,) = FakeLLM.instances
    assert [len(messages) for messages, _, _ in engine.calls] == [6]  # not capped at --concurrency 8 / 1
    assert result.header.concurrency == 6


def test_the_engine_is_built_on_the_main_thread_before_any_sample_clock(
    fake_vllm: types.ModuleType, ae_tasks: Path, tmp_path: Path
) -> None:
    from lexsym.runner import read_samples

    FakeLLM.load_seconds = 0.5
    run_vllm(ae_tasks, tmp_path / "run")
    (engine,) = FakeLLM.instances
    assert engine.built_on == threading.main_thread().name
    latencies = [sample["latency"] for sample in read_samples(tmp_path / "run" / "samples.jsonl")]
    assert len(latencies) == 6 and max(latencies) < 0.4


def test_a_lazily_built_engine_restarts_the_callers_clocks(fake_vllm: types.ModuleType) -> None:
    FakeLLM.load_seconds = 0.5
    model = VLLMModel("org/model", batch_window=0.01)
    results = asyncio.run(gather(model, [("a", GenerationParams()), ("b", GenerationParams())]))
    assert FakeLLM.instances[0].built_on == threading.main_thread().name
    assert all(isinstance(r, Completion) and r.latency < 0.4 for r in results)


def test_a_bare_closing_think_tag_splits_the_reasoning(fake_vllm: types.ModuleType) -> None:
    FakeLLM.template_opens_think = True
    model = VLLMModel("org/model", batch_window=0)
    (result,) = asyncio.run(gather(model, [("question", GenerationParams())]))
    assert result.reasoning == "thinking" and result.text == "echo: question"


def test_engine_and_chat_options_that_change_the_text_are_in_the_cache_key(
    fake_vllm: types.ModuleType,
) -> None:
    from lexsym.models.base import cache_identity
    from lexsym.runner.cache import cache_key

    messages = conversation("q")

    def key(**options: Any) -> str:
        model = VLLMModel("org/model", **options)
        return cache_key(model.id, messages, GenerationParams(), 0, cache_identity(model))

    plain = key()
    assert plain == cache_key("vllm:org/model", messages, GenerationParams())  # no options: the old key
    for options in (
        {"revision": "abc"},
        {"dtype": "float16"},
        {"max_model_len": 2048},
        {"quantization": "awq"},
        {"chat_template_kwargs": {"enable_thinking": False}},
    ):
        assert key(**options) != plain, options
    assert key(gpu_memory_utilization=0.5) == plain  # memory, not text


# -- parallelism: tensor and pipeline in the engine, data parallelism refused ------------------------------


def test_tensor_and_pipeline_parallel_sizes_reach_the_engine_as_whole_numbers(
    fake_vllm: types.ModuleType, ae_tasks: Path, tmp_path: Path
) -> None:
    flags = ("tensor_parallel_size=4", "pipeline_parallel_size=2", "data_parallel_size=1")
    result = run_vllm(ae_tasks, tmp_path / "run", *flags)
    (engine,) = FakeLLM.instances
    # data_parallel_size=1 is vLLM's own default: dropped, so it keys the cache as no option does
    assert engine.options == {"tensor_parallel_size": 4, "pipeline_parallel_size": 2}
    assert all(type(engine.options[name]) is int for name in engine.options)
    assert result.header.model_settings["engine_options"] == engine.options
    assert result.header.totals.ok == 6
    built = VLLMModel("org/model", tensor_parallel_size="2")  # a string of digits, from Python, is read
    assert built.engine_options == {"tensor_parallel_size": 2}


@pytest.mark.parametrize("value", [0, -1, "two", True, 1.5, None])
@pytest.mark.parametrize("name", ["tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"])
def test_a_parallel_size_that_is_not_a_whole_number_is_one_line_naming_it(
    fake_vllm: types.ModuleType, name: str, value: Any
) -> None:
    with pytest.raises(InputError) as info:
        VLLMModel("org/model", **{name: value})
    message = str(info.value)
    assert message == f"vllm:org/model: -M {name} must be a whole number of at least 1, not {value!r}"
    assert FakeLLM.instances == []


def test_data_parallelism_points_to_vllm_serve_and_the_endpoint_pool(fake_vllm: types.ModuleType) -> None:
    with pytest.raises(InputError) as info:
        VLLMModel("org/model", data_parallel_size=2, tensor_parallel_size=2)
    message = str(info.value)
    assert "\n" not in message and message.startswith("vllm:org/model: -M data_parallel_size=2:")
    assert "`vllm serve org/model --data-parallel-size 2`" in message
    assert "litellm:hosted_vllm/org/model with --api-base" in message and "docs/serving.md" in message
    assert FakeLLM.instances == []  # refused before any weights load


def test_data_parallelism_on_the_command_line_exits_2_without_vllm(ae_tasks: Path, tmp_path: Path) -> None:
    import os
    import subprocess

    command = ("run", "--model", "vllm:org/model", "--tasks", str(ae_tasks), "--out", str(tmp_path / "run"))
    done = subprocess.run(
        [sys.executable, "-m", "lexsym", *command, "-M", "data_parallel_size=4"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160"},
        timeout=300,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "--data-parallel-size 4" in done.stderr


def test_the_parallel_sizes_are_part_of_the_cache_key(fake_vllm: types.ModuleType) -> None:
    from lexsym.models.base import cache_identity

    plain = cache_identity(VLLMModel("org/model"))
    assert cache_identity(VLLMModel("org/model", data_parallel_size=1)) == plain
    assert cache_identity(VLLMModel("org/model", tensor_parallel_size=2)) != plain
    assert cache_identity(VLLMModel("org/model", pipeline_parallel_size=2)) != plain
