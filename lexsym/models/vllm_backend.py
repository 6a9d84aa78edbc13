"""`vllm:<model>`: local weights through vLLM's offline engine (`vllm.LLM`), batched behind `generate()`.

Why batch: the offline engine is synchronous and gets its throughput from batches, and it schedules a
batch itself (continuous batching, memory permitting). The runner calls `generate()` once per sample and,
for this backend, puts the whole queue in flight at once (`batches_whole_queue`), so this backend collects
the calls that arrive within a short window (`batch_window` seconds; `max_batch_size` caps a batch only
when given), runs them as one `LLM.chat` call in a worker thread (the event loop stays free), and
resolves each caller's future with its own completion. Calls that arrive while a batch runs form the next
batch. Only one engine call runs at a time; `vllm.LLM` is not thread-safe.

The engine is built on the event loop's thread, which is the main thread under `asyncio.run`: recent vLLM
refuses, or falls back to its old engine, when built off the main thread. The runner builds it in
`prepare()`, before any sample's clock starts, so loading the weights (minutes) is not counted as the
first samples' latency; built lazily instead, the waiting callers' clocks restart once it has loaded.

An OpenAI-compatible vLLM *server* (`vllm serve <model>`) is not this backend: reach it through litellm,
`litellm:hosted_vllm/<model>` with `api_base="http://host:8000/v1"` (`--api-base` on the command line).

Parallelism: `tensor_parallel_size` and `pipeline_parallel_size` (`-M tensor_parallel_size=2`) split one
engine over several GPUs and go to `vllm.LLM` as whole numbers. Data parallelism is not this backend's:
vLLM's offline engine runs one data-parallel rank per process, started by a launcher of its own, so
`data_parallel_size` above 1 is refused with a pointer to `vllm serve --data-parallel-size N` (or one
`vllm serve` per GPU) behind `litellm:hosted_vllm/<model>`, which spreads the requests (docs/serving.md).

vllm is an optional extra (`pip install 'lexsym[vllm]'`, and a GPU); it is imported only when a
`vllm:` model is built, so the rest of lexsym runs without it. The extra pins the range whose API this
module uses (`LLM(model, **engine_options)`, `LLM.chat(conversations, sampling_params=[...],
use_tqdm=..., chat_template_kwargs=...)`, `SamplingParams`, `RequestOutput.outputs[0]`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from lexsym._util.errors import InputError
from lexsym.models.base import (
    Completion,
    GenerationParams,
    Message,
    ModelError,
    PermanentModelError,
    split_reasoning,
)

_MAX_MESSAGE = 1000
#: Options of `LLM.chat`, not of the engine: given with the others (`-M chat_template_kwargs=...`), they
#: are sent with every chat call.
CHAT_OPTIONS = frozenset(
    {"chat_template", "chat_template_kwargs", "add_generation_prompt", "continue_final_message", "tools"}
)
# Engine options that change speed or memory but not the text generated: left out of the cache identity.
# The parallel sizes stay in it: splitting the matrices over GPUs changes the order of floating-point sums,
# which can change a greedy token.
_NOT_OUTPUT = frozenset({"gpu_memory_utilization", "swap_space", "cpu_offload_gb", "disable_log_stats"})
#: Engine options that count GPUs or replicas: whole numbers, at least 1.
PARALLEL_SIZES = ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size")


@dataclass
class _Request:
    messages: list[Message]
    params: GenerationParams
    future: asyncio.Future[Completion]
    queued: float


class VLLMModel:
    """A model served in-process by vLLM: `VLLMModel("Qwen/Qwen3-8B")` is the model id `vllm:Qwen/Qwen3-8B`.

    `batch_window` (seconds) and `max_batch_size` (None: no cap) shape the batches; `chat_options`, and
    the keyword options named in CHAT_OPTIONS, go to every `LLM.chat` call (e.g.
    `chat_template_kwargs={"enable_thinking": False}`); all other keyword options go to
    `vllm.LLM(model, ...)` as engine options (`tensor_parallel_size`, `pipeline_parallel_size`,
    `max_model_len`, `gpu_memory_utilization`, `dtype`, `revision`, …).
    """

    batches_whole_queue = True  # the runner puts every sample in flight: vLLM schedules them itself

    def __init__(
        self,
        model: str,
        *,
        batch_window: float = 0.05,
        max_batch_size: int | None = None,
        chat_options: dict[str, Any] | None = None,
        **engine_options: Any,
    ):
        if not model:
            raise InputError("vllm: needs a model, as vllm:<model> (a Hugging Face id or a local path)")
        served = [name for name in ("api_base", "api_key_env") if name in engine_options]
        if served:
            # An endpoint means a vLLM server: the offline engine cannot use one, litellm can.
            raise InputError(
                f"vllm:{model} runs the weights in-process and takes no {', '.join(served)}; for a vLLM "
                f"server use litellm:hosted_vllm/{model} with --api-base"
            )
        engine_options = parallel_options(model, engine_options)
        try:
            import vllm
        except ImportError:
            raise InputError(
                f"vllm:{model} needs the vllm extra: pip install 'lexsym[vllm]' (and a GPU)"
            ) from None
        if (max_batch_size is not None and max_batch_size < 1) or batch_window < 0:
            raise InputError(f"vllm:{model}: max_batch_size must be >= 1 and batch_window >= 0")
        self.model = model
        self.id = f"vllm:{model}"
        self.batch_window = float(batch_window)
        self.max_batch_size = int(max_batch_size) if max_batch_size is not None else None
        self.chat_options = dict(chat_options or {})
        for name in CHAT_OPTIONS & set(engine_options):
            self.chat_options[name] = engine_options.pop(name)
        self.engine_options = engine_options
        self.batches: list[int] = []  # the size of every engine call, for tests and run statistics
        self._vllm: ModuleType = vllm
        self._llm: Any = None
        self._load_error: str | None = None
        self._engine_lock = threading.Lock()
        self._pending: list[_Request] = []
        self._worker: asyncio.Task[None] | None = None
        self._full: asyncio.Event | None = None

    def __repr__(self) -> str:
        return f"VLLMModel({self.model!r}, max_batch_size={self.max_batch_size})"

    def prepare(self) -> None:
        """Build the engine now, on the calling thread (the main thread under `asyncio.run`). A failed
        load is remembered, and every call then fails with its message."""
        with self._engine_lock, contextlib.suppress(ModelError):
            self._engine()

    def cache_identity(self) -> dict[str, Any]:
        """Engine and chat options that change the text generated (revision, dtype, max_model_len,
        quantization, the chat template's options, …)."""
        engine = {k: v for k, v in sorted(self.engine_options.items()) if k not in _NOT_OUTPUT}
        chat = dict(sorted(self.chat_options.items()))
        return {name: part for name, part in (("engine", engine), ("chat", chat)) if part}

    def settings(self) -> dict[str, Any]:
        """What run.json records of this backend's set-up."""
        return {
            "engine_options": dict(self.engine_options),
            "chat_options": dict(self.chat_options),
            "batch_window": self.batch_window,
            "max_batch_size": self.max_batch_size,
        }

    def _cap(self) -> int:
        return self.max_batch_size if self.max_batch_size is not None else len(self._pending) or 1

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion:
        """Queue one conversation for the next batch and wait for its completion."""
        loop = asyncio.get_running_loop()
        request = _Request(messages, params, loop.create_future(), time.perf_counter())
        self._pending.append(request)
        if self._worker is None or self._worker.done() or self._worker.get_loop() is not loop:
            self._full = asyncio.Event()
            self._worker = loop.create_task(self._drain())
        elif self._full is not None and len(self._pending) >= (self.max_batch_size or len(self._pending) + 1):
            self._full.set()
        return await request.future

    async def _drain(self) -> None:
        """Run batches until no caller is waiting. Each batch waits `batch_window` for company first,
        unless a full batch is already waiting."""
        while self._pending:
            full = self.max_batch_size is not None and len(self._pending) >= self.max_batch_size
            if self.batch_window > 0 and not full:
                assert self._full is not None
                self._full.clear()
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._full.wait(), self.batch_window)
            if self._llm is None and self._load_error is None:
                self._load_here()
            cap = self._cap()
            batch = [r for r in self._pending[:cap] if not r.future.done()]
            del self._pending[:cap]
            if not batch:  # every caller in it gave up (cancelled)
                continue
            try:
                results = await asyncio.to_thread(self._run, batch)
            except BaseException as exc:  # the worker itself was cancelled or broke: fail its callers
                for request in batch:
                    if not request.future.done():
                        request.future.set_exception(self._error(exc))
                if isinstance(exc, asyncio.CancelledError):
                    raise
                continue
            for request, result in zip(batch, results, strict=True):
                if request.future.done():
                    continue
                if isinstance(result, Completion):
                    request.future.set_result(result)
                else:
                    request.future.set_exception(result)

    def _load_here(self) -> None:
        """Build the engine on the loop's thread (see the module docstring), then restart the waiting
        callers' clocks: the load is not their latency."""
        self.prepare()
        now = time.perf_counter()
        for request in self._pending:
            request.queued = now

    # -- in the worker thread -------------------------------------------------------------------------

    def _engine(self) -> Any:
        """The engine, built on first use. A failed load is remembered: every later call fails at once
        with the same message instead of loading the weights again."""
        if self._load_error is not None:
            raise PermanentModelError(self._load_error)
        if self._llm is None:
            try:
                self._llm = self._vllm.LLM(model=self.model, **self.engine_options)
            except Exception as exc:
                reason = f"{type(exc).__name__}: {exc}"
                self._load_error = _one_line(f"{self.id}: the engine did not load: {reason}")
                raise PermanentModelError(self._load_error) from None
        return self._llm

    def _run(self, batch: list[_Request]) -> list[Completion | ModelError]:
        """One `LLM.chat` call for the batch. If it fails and the batch has several requests, each is run
        alone, so that one bad request (a prompt longer than the context) fails only its own caller."""
        with self._engine_lock:
            try:
                llm = self._engine()
            except ModelError as error:
                return [PermanentModelError(str(error)) for _ in batch]
            try:
                return self._chat(llm, batch)
            except Exception as exc:
                if len(batch) == 1:
                    return [self._error(exc)]
            results: list[Completion | ModelError] = []
            for request in batch:
                try:
                    results.extend(self._chat(llm, [request]))
                except Exception as exc:
                    results.append(self._error(exc))
            return results

    def _chat(self, llm: Any, batch: list[_Request]) -> list[Completion | ModelError]:
        started = time.perf_counter()
        outputs = llm.chat(
            [request.messages for request in batch],
            sampling_params=[self._sampling(request.params) for request in batch],
            use_tqdm=False,
            **self.chat_options,
        )
        finished = time.perf_counter()
        if len(outputs) != len(batch):
            raise RuntimeError(f"vLLM returned {len(outputs)} outputs for {len(batch)} conversations")
        self.batches.append(len(batch))
        return [
            self._completion(output, latency=finished - request.queued, batch_seconds=finished - started)
            for request, output in zip(batch, outputs, strict=True)
        ]

    def _sampling(self, params: GenerationParams) -> Any:
        """vLLM's SamplingParams for our settings. `max_tokens` is always passed: vLLM's own default is
        16 tokens, while None lets it generate up to the context length, as the API backends do."""
        options: dict[str, Any] = {"temperature": params.temperature, "max_tokens": params.max_tokens}
        if params.seed is not None:
            options["seed"] = params.seed
        if params.top_p is not None:
            options["top_p"] = params.top_p
        options.update(dict(params.extra))
        return self._vllm.SamplingParams(**options)

    def _completion(self, output: Any, *, latency: float, batch_seconds: float) -> Completion:
        sample = output.outputs[0]
        text, reasoning = split_reasoning(sample.text or "")
        return Completion(
            text=text,
            reasoning=reasoning,
            tokens_in=len(output.prompt_token_ids or ()),
            tokens_out=len(sample.token_ids or ()),
            cost=0.0,  # local weights: the GPU's time is the cost, and it is not ours to price
            latency=latency,  # queueing included: what the caller waited
            finish_reason=sample.finish_reason,
            model=self.model,
            extra={"batch_seconds": batch_seconds},
        )

    def _error(self, exc: BaseException) -> ModelError:
        """Engine failures are permanent: a retry of the same prompt on the same local engine fails the
        same way (too long for the context, a bad template), unlike a remote API's passing trouble."""
        if isinstance(exc, ModelError):
            return type(exc)(str(exc), status=exc.status)
        return PermanentModelError(_one_line(f"{self.id}: {type(exc).__name__}: {exc}"))


def parallel_options(model: str, engine_options: dict[str, Any]) -> dict[str, Any]:
    """`engine_options` with the parallel sizes as ints; InputError naming the option for anything that
    is not a whole number of at least 1, and for data parallelism (see the module docstring).
    `data_parallel_size=1` is vLLM's default and is dropped, so that it keys the cache as no option does."""
    options = dict(engine_options)
    for name in PARALLEL_SIZES:
        if name not in options:
            continue
        value = options[name]
        if isinstance(value, str) and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"vllm:{model}: -M {name} must be a whole number of at least 1, not {value!r}")
        options[name] = value
    dp = options.pop("data_parallel_size", 1)
    if dp > 1:
        raise InputError(
            f"vllm:{model}: -M data_parallel_size={dp}: the offline engine runs one data-parallel rank per "
            f"process; serve {dp} replicas with `vllm serve {model} --data-parallel-size {dp}` (or one "
            f"`vllm serve` per GPU) and run litellm:hosted_vllm/{model} with --api-base (see docs/serving.md)"
        )
    return options


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"
