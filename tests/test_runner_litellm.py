"""`lexsym run` through litellm over real HTTP to the stub server: the failures a real run meets (429 with
Retry-After, 500, a malformed body, a slow answer past the timeout, a cut-off answer, `<think>` blocks, a
permanent 400) each end up as the sample record they should, and the run carries on."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexsym.generate.pipeline import generate
from lexsym.generate.suites import suite_datasets
from lexsym.runner import RetryPolicy, RunOptions, read_samples, run_tasks
from tests.stub_server import StubServer

FAKE_KEY = "sk-test-runner-0123456789abcdef"
MODEL = "litellm:openai/gpt-4o-mini"  # priced by litellm, so cost is counted
FAST_RETRY = RetryPolicy(base=0.01, cap=0.05, max_attempts=4)
AE_ANSWER = 'Reasoning first.\nFINAL ANSWER: ["Federal", "Wisconsin"]'


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    server = StubServer(slow_seconds=3.0, retry_after=7)
    server.start()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch, stub: StubServer, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("LEXSYM_CACHE_DIR", str(tmp_path / "cache"))
    stub.reset()
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else None
        if host is not None and host not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"a test tried to reach {address!r}: tests must stay offline")
        return connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="module")
def ae_tasks(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ae")
    datasets = suite_datasets(
        {
            "name": "ae",
            "base": {
                "asset_count_min": 1,
                "asset_count_max": 2,
                "state_jurisdictions": ["WI"],
                "split": {"dev": 0, "test": 7},
            },
            "vary": {"task": ["AE"]},
        },
        source="test",
        seed=11,
    )
    generate(datasets, out, workers=1)
    return out


def test_every_failure_shape_becomes_the_right_sample_record(tmp_path, stub, ae_tasks):
    # concurrency 1: requests reach the stub in task order, so the script lines up with the tasks
    stub.enqueue("429")
    stub.say(AE_ANSWER)  # task 1: rate limited once, then answered
    stub.enqueue("500")
    stub.say(AE_ANSWER)  # task 2: server error once
    stub.enqueue("malformed")
    stub.say(AE_ANSWER)  # task 3: a body that is not JSON
    stub.enqueue("slow")
    stub.say(AE_ANSWER)  # task 4: past the client's timeout
    stub.enqueue("length")  # task 5: cut off at the token limit
    stub.enqueue("think")  # task 6: reasoning in <think>
    stub.enqueue("400")  # task 7: a permanent error
    out = tmp_path / "run"
    result = run_tasks(
        MODEL,
        ae_tasks,
        out,
        options=RunOptions(concurrency=1, retry=FAST_RETRY, progress=False, seed=1),
        model_options={"api_base": stub.url, "timeout": 1.0},
    )
    samples = sorted(read_samples(out / "samples.jsonl"), key=lambda s: s["task_id"])
    assert len(samples) == 7
    retried = samples[:4]
    assert [s["attempts"] for s in retried] == [2, 2, 2, 2]
    assert all(s["error"] is None and s["parsed"] for s in retried)
    cut = samples[4]
    assert cut["finish_reason"] == "length" and cut["parsed"] is False and cut["error"] is None
    thought = samples[5]
    assert thought["reasoning"] and "730 days" in thought["reasoning"]
    assert "<think>" not in thought["completion"]
    failed = samples[6]
    assert failed["error_kind"] == "permanent" and "400" in failed["error"] and failed["completion"] is None
    assert FAKE_KEY not in json.dumps(samples)
    assert result.header.totals.failed == 1 and result.header.totals.cost > 0
    assert stub.counts["429"] == stub.counts["500"] == stub.counts["malformed"] == stub.counts["slow"] == 1


def test_a_second_run_is_answered_from_the_cache(tmp_path, stub, ae_tasks):
    stub.say(*[AE_ANSWER] * 7)
    first = tmp_path / "first"
    options = RunOptions(concurrency=4, retry=FAST_RETRY, progress=False)
    run_tasks(MODEL, ae_tasks, first, options=options, model_options={"api_base": stub.url})
    assert len(stub.requests) == 7
    second = tmp_path / "second"
    result = run_tasks(MODEL, ae_tasks, second, options=options, model_options={"api_base": stub.url})
    assert len(stub.requests) == 7  # no new call
    assert result.header.totals.cached == 7 and result.header.totals.cost == 0
    # Another model with the same prompts never shares an entry.
    stub.say(*[AE_ANSWER] * 7)
    run_tasks(
        "litellm:openai/other-model",
        ae_tasks,
        tmp_path / "third",
        options=options,
        model_options={"api_base": stub.url},
    )
    assert len(stub.requests) == 14
