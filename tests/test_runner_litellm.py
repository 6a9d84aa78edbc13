"""`lexsym run` through litellm over real HTTP to the stub server: the failures a real run meets (429 with
Retry-After, 500, a malformed body, a slow answer past the timeout, a cut-off answer, `<think>` blocks, a
permanent 400) each end up as the sample record they should, and the run carries on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lexsym.runner import RetryPolicy, RunOptions, read_samples, run_tasks
from tests.stub_server import FAKE_KEY
from tests.task_sets import ae_task_set

MODEL = "litellm:openai/gpt-4o-mini"  # priced by litellm, so cost is counted
FAST_RETRY = RetryPolicy(base=0.01, cap=0.05, max_attempts=4)
AE_ANSWER = 'Reasoning first.\nFINAL ANSWER: ["Federal", "Wisconsin"]'

pytestmark = pytest.mark.usefixtures("offline")


@pytest.fixture(scope="module")
def ae_tasks(tmp_path_factory) -> Path:
    return ae_task_set(tmp_path_factory.mktemp("ae"), 7, seed=11)


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
