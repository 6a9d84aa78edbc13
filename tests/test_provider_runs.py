"""Runs against provider behaviours a stub-only bench never met: a provider without `seed`, a changed
server behind the same model name, a run in which every sample fails, `-M` options reaching litellm,
`hosted_vllm` without an endpoint, and the backend's start-up kept out of the samples' latency."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from lexsym._util.errors import InputError
from lexsym.models import Completion, GenerationParams, load_model
from lexsym.models.litellm_backend import LiteLLMModel
from lexsym.runner import RetryPolicy, RunOptions, read_samples, run_tasks
from tests.stub_server import FAKE_KEY, StubServer
from tests.task_sets import ae_task_set

MODEL = "litellm:openai/gpt-4o-mini"
ANTHROPIC = "litellm:anthropic/claude-3-5-sonnet-20240620"
FAST_RETRY = RetryPolicy(base=0.01, cap=0.05, max_attempts=2)
AE_ANSWER = 'FINAL ANSWER: ["Federal", "Wisconsin"]'

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture(scope="module")
def ae_tasks(tmp_path_factory) -> Path:
    return ae_task_set(tmp_path_factory.mktemp("ae"), 4, seed=5)


def options(**changes: Any) -> RunOptions:
    return RunOptions(**{"concurrency": 1, "retry": FAST_RETRY, "progress": False, "seed": 1, **changes})


def lexsym(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "160", **(env or {})},
        timeout=300,
    )


# --- a provider without `seed` -------------------------------------------------------------------------


def test_a_seed_the_provider_lacks_is_not_sent_and_the_run_says_so(tmp_path, ae_tasks, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    out = tmp_path / "run"
    result = run_tasks(
        ANTHROPIC,
        ae_tasks,
        out,
        params=GenerationParams(seed=0, max_tokens=64),
        options=options(),
        model_options={"mock_response": AE_ANSWER},
    )
    header = json.loads((out / "run.json").read_text())
    assert result.header.totals.failed == 0 and result.header.totals.ok == 4
    assert header["params"]["seed"] == 0  # asked for: part of the run's identity
    assert "seed" not in header["params_sent"] and header["params_sent"]["max_tokens"] == 64
    assert header["params_dropped"] == {"seed": "anthropic does not take seed"}
    assert header["failed"] is None
    from rich.console import Console

    from lexsym.reports.compare import comparison, render_comparison

    table = comparison([out])
    assert table["runs"][0]["not_sent"] == ["seed"]
    console = Console(record=True, width=160)
    render_comparison(table, console)
    shown = console.export_text()
    assert "not sent" in shown and "seed" in shown


def test_drop_params_false_sends_the_seed_and_every_sample_fails_with_exit_1(tmp_path, ae_tasks):
    out = tmp_path / "run"
    done = lexsym(
        "run",
        "--model",
        ANTHROPIC,
        "--tasks",
        str(ae_tasks),
        "--out",
        str(out),
        "--seed",
        "0",
        "--concurrency",
        "1",
        "--max-attempts",
        "1",
        "-M",
        "drop_params=false",
        "-M",
        f"mock_response={AE_ANSWER}",
        env={"ANTHROPIC_API_KEY": FAKE_KEY},
    )
    assert done.returncode == 1, done.stderr
    assert "lexsym run: FAILED: every sample failed (4 of 4)" in done.stderr
    assert "4 × " in done.stderr and "UnsupportedParamsError" in done.stderr
    header = json.loads((out / "run.json").read_text())
    assert header["failed"].startswith("every sample failed")
    assert sum(header["failure_reasons"].values()) == 4


def test_the_sent_settings_follow_the_provider(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    params = GenerationParams(temperature=0.0, seed=3, top_p=0.9, max_tokens=10)
    sent, dropped = LiteLLMModel("openai/gpt-4o-mini").sent_params(params)
    assert sent == {"temperature": 0.0, "seed": 3, "top_p": 0.9, "max_tokens": 10} and dropped == {}
    sent, dropped = LiteLLMModel("anthropic/claude-3-5-sonnet-20240620").sent_params(params)
    assert "seed" not in sent and set(dropped) == {"seed"}
    # told to send everything, it does; an unknown provider is sent everything asked for
    assert LiteLLMModel("anthropic/x", drop_params=False).sent_params(params)[1] == {}
    assert LiteLLMModel("nosuchprovider/x").sent_params(params)[1] == {}
    kwargs = LiteLLMModel("anthropic/claude-3-5-sonnet-20240620").request([], params)
    assert "seed" not in kwargs and kwargs["top_p"] == 0.9


# --- the cache and the server behind a name -----------------------------------------------------------


def test_a_changed_server_behind_the_same_model_name_is_not_served_from_the_cache(tmp_path, stub, ae_tasks):
    other = StubServer()
    other.start()
    try:
        stub.say(*[AE_ANSWER] * 4)
        run_tasks(MODEL, ae_tasks, tmp_path / "a", options=options(), model_options={"api_base": stub.url})
        assert len(stub.requests) == 4
        other.say(*[AE_ANSWER] * 4)
        second = run_tasks(
            MODEL, ae_tasks, tmp_path / "b", options=options(), model_options={"api_base": other.url}
        )
        assert len(other.requests) == 4 and second.header.totals.cached == 0
        # the same server again: every answer from the cache
        third = run_tasks(
            MODEL, ae_tasks, tmp_path / "c", options=options(), model_options={"api_base": stub.url}
        )
        assert third.header.totals.cached == 4 and len(stub.requests) == 4
    finally:
        other.stop()


@pytest.mark.parametrize(
    ("name", "value"),
    [("user", "lexsym-test"), ("reasoning_effort", "low"), ("extra_headers", {"X-Tenant": "a"})],
)
def test_every_output_changing_litellm_option_is_part_of_the_cache_key(tmp_path, stub, ae_tasks, name, value):
    stub.say(*[AE_ANSWER] * 8)
    base = {"api_base": stub.url, "drop_params": True}
    run_tasks(MODEL, ae_tasks, tmp_path / "plain", options=options(), model_options=base)
    changed = run_tasks(
        MODEL, ae_tasks, tmp_path / "changed", options=options(), model_options={**base, name: value}
    )
    assert changed.header.totals.cached == 0 and len(stub.requests) == 8
    # options that change nothing in the answer keep the key
    same = run_tasks(
        MODEL, ae_tasks, tmp_path / "same", options=options(), model_options={**base, "timeout": 9}
    )
    assert same.header.totals.cached == 4


def test_model_options_from_the_command_line_reach_litellm(tmp_path, stub, ae_tasks):
    stub.say(*[AE_ANSWER] * 4)
    out = tmp_path / "run"
    done = lexsym(
        "run",
        "--model",
        MODEL,
        "--tasks",
        str(ae_tasks),
        "--out",
        str(out),
        "--api-base",
        stub.url,
        "--concurrency",
        "1",
        "-M",
        "user=lexsym-test",
        "-M",
        f"extra_headers={{X-Tenant: lexsym, Authorization: Bearer {FAKE_KEY}}}",
        "-M",
        "timeout=30",
        "--cache-dir",
        str(tmp_path / "cache"),
        env={"OPENAI_API_KEY": FAKE_KEY},
    )
    assert done.returncode == 0, done.stderr
    assert all(body["user"] == "lexsym-test" for body in stub.requests) and len(stub.requests) == 4
    assert all(headers.get("x-tenant") == "lexsym" for headers in stub.headers)
    header = json.loads((out / "run.json").read_text())
    assert header["model_settings"]["timeout"] == 30.0
    assert header["model_settings"]["extra_headers"] == {"X-Tenant": "lexsym", "Authorization": "[redacted]"}
    assert header["model_options"]["extra_headers"]["Authorization"] == "[redacted]"
    assert all(headers.get("authorization") == f"Bearer {FAKE_KEY}" for headers in stub.headers)
    for written in ("run.json", "config.yaml", "samples.jsonl"):
        assert FAKE_KEY not in (out / written).read_text(), written


def test_a_malformed_model_option_is_one_line(tmp_path, ae_tasks):
    done = lexsym(
        "run", "--model", MODEL, "--tasks", str(ae_tasks), "--out", str(tmp_path / "r"), "-M", "oops"
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "-M 'oops': write key=value" in done.stderr


# --- hosted_vllm needs an endpoint --------------------------------------------------------------------


def test_hosted_vllm_without_an_endpoint_is_refused(monkeypatch):
    monkeypatch.delenv("HOSTED_VLLM_API_BASE", raising=False)
    with pytest.raises(InputError, match="needs its server: give --api-base"):
        load_model("litellm:hosted_vllm/Qwen/Qwen3-8B")


def test_hosted_vllm_takes_its_endpoint_from_the_environment_and_says_so(monkeypatch, caplog):
    monkeypatch.setenv("HOSTED_VLLM_API_BASE", "http://127.0.0.1:8000/v1")
    model = load_model("litellm:hosted_vllm/Qwen/Qwen3-8B")
    assert model.api_base == "http://127.0.0.1:8000/v1"
    assert "HOSTED_VLLM_API_BASE=http://127.0.0.1:8000/v1" in caplog.text


# --- failing runs, fail-fast ---------------------------------------------------------------------------


def test_a_run_in_which_every_call_fails_exits_1_with_the_reasons(tmp_path, stub, ae_tasks):
    stub.enqueue(*["401"] * 4)
    out = tmp_path / "run"
    done = lexsym(
        "run",
        "--model",
        MODEL,
        "--tasks",
        str(ae_tasks),
        "--out",
        str(out),
        "--api-base",
        stub.url,
        "--concurrency",
        "1",
        "--cache-dir",
        str(tmp_path / "cache"),
        env={"OPENAI_API_KEY": FAKE_KEY},
    )
    assert done.returncode == 1, done.stderr
    assert "FAILED: every sample failed (4 of 4)" in done.stderr and "complete" not in done.stderr
    assert "4 × PermanentModelError (401): litellm:openai/gpt-4o-mini: AuthenticationError" in done.stderr
    assert FAKE_KEY not in done.stderr


def test_fail_fast_stops_the_run_and_a_failure_rate_can_fail_it(tmp_path, stub, ae_tasks):
    stub.enqueue("400", "400")
    stopped = run_tasks(
        MODEL, ae_tasks, tmp_path / "ff", options=options(fail_fast=2), model_options={"api_base": stub.url}
    )
    assert stopped.header.stop_reason == "fail-fast: 2 failed" and stopped.header.status == "stopped"
    assert stopped.header.failed == "stopped by --fail-fast after 2 failure(s)"
    assert len(list(read_samples(tmp_path / "ff" / "samples.jsonl"))) == 2
    stub.reset()
    stub.enqueue("400")
    stub.say(*[AE_ANSWER] * 3)
    tolerated = run_tasks(
        MODEL, ae_tasks, tmp_path / "one", options=options(), model_options={"api_base": stub.url}
    )
    assert tolerated.header.totals.failed == 1 and tolerated.header.failed is None
    stub.reset()
    stub.enqueue("400")
    stub.say(*[AE_ANSWER] * 3)
    strict = run_tasks(
        MODEL,
        ae_tasks,
        tmp_path / "strict",
        options=options(max_failure_rate=0.2),
        model_options={"api_base": stub.url},
    )
    assert strict.header.failed == "1 of 4 samples failed (25% > --max-failure-rate 0.2)"


# --- start-up is not latency --------------------------------------------------------------------------


class SlowStart:
    """A backend whose start-up takes 0.5 s (litellm's import, vLLM's weights) and whose calls are quick."""

    id = "test:slow-start"
    cacheable = False

    def __init__(self) -> None:
        self.prepared_at: float | None = None

    async def prepare(self) -> None:
        await asyncio.sleep(0.5)
        self.prepared_at = time.monotonic()

    async def generate(self, messages, params, *, task=None) -> Completion:
        assert self.prepared_at is not None, "generate before prepare"
        return Completion(text=AE_ANSWER, finish_reason="stop")


def test_the_backend_starts_up_before_the_first_sample_clock(tmp_path, ae_tasks):
    out = tmp_path / "run"
    run_tasks(SlowStart(), ae_tasks, out, options=options(concurrency=4))
    latencies = [sample["latency"] for sample in read_samples(out / "samples.jsonl")]
    assert len(latencies) == 4 and max(latencies) < 0.25


def test_litellm_is_imported_in_prepare(monkeypatch):
    from lexsym.models import litellm_backend

    calls: list[str] = []
    monkeypatch.setattr(
        litellm_backend, "_import_litellm", lambda: calls.append("import") or __import__("litellm")
    )
    monkeypatch.setattr(litellm_backend, "_litellm", None)
    model = LiteLLMModel("openai/gpt-4o-mini")
    asyncio.run(model.prepare())
    assert calls and model.supported_params() and "seed" in model.supported_params()
