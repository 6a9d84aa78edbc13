"""One `lexsym run` over a pool of OpenAI-compatible servers (`--api-base` repeated), all on 127.0.0.1.

The pool alone (which endpoint it picks, the cool-off, the one log line per outage, threads), then the
backend and whole runs against three stub servers: every sample answered, every server given a share,
the samples the same as against one server, a dead server routed around, and a run with every server
dead failing with exit 1.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lexsym._util.errors import InputError
from lexsym.models import GenerationParams, PermanentModelError, load_model
from lexsym.models.base import EndpointUnreachableError, cache_identity
from lexsym.models.endpoint_pool import EndpointPool, endpoint_urls
from lexsym.models.litellm_backend import LiteLLMModel
from lexsym.runner import RetryPolicy, RunOptions, read_samples, run_tasks
from tests.stub_server import FAKE_KEY, StubServer
from tests.task_sets import ae_task_set
from tests.test_provider_runs import lexsym

MODEL = "litellm:openai/gpt-4o-mini"
TASKS = 9
FAST_RETRY = RetryPolicy(base=0.01, cap=0.02, max_attempts=2)
# Fields of a sample line that are clocks, not answers: they differ between any two runs.
CLOCKS = ("latency", "finished_at")


class PromptServer(StubServer):
    """A stub whose every answer is a function of the prompt alone, so that a sample cannot show which
    server answered it, and an answer sent back to the wrong caller would."""

    def _choose(self, body: dict[str, Any]) -> tuple[str, str]:
        digest = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()
        return "say", f'Prompt {digest[:12]}.\nFINAL ANSWER: ["Federal", "Wisconsin"]'


@pytest.fixture
def servers(offline: None) -> Iterator[list[PromptServer]]:
    started = [PromptServer() for _ in range(3)]
    for server in started:
        server.start()
    yield started
    for server in started:
        server.stop()


@pytest.fixture(scope="module")
def ae_tasks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return ae_task_set(tmp_path_factory.mktemp("ae"), TASKS, seed=7)


def dead_url() -> str:
    """A base URL on a port that was free a moment ago and has no listener now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def run(tasks: Path, out: Path, api_base: str | list[str], **changes: Any) -> Any:
    options = RunOptions(
        **{"concurrency": 4, "retry": FAST_RETRY, "progress": False, "seed": 1, "cache": False, **changes}
    )
    return run_tasks(MODEL, tasks, out, options=options, model_options={"api_base": api_base})


def answers(out: Path) -> list[dict[str, Any]]:
    samples = [{k: v for k, v in s.items() if k not in CLOCKS} for s in read_samples(out / "samples.jsonl")]
    return sorted(samples, key=lambda sample: sample["id"])


# --- the pool alone -------------------------------------------------------------------------------------


def test_endpoints_are_read_from_repeats_and_commas_and_none_twice() -> None:
    assert endpoint_urls(None) == [] and endpoint_urls("http://a/v1") == ["http://a/v1"]
    assert endpoint_urls(["http://a/v1, http://b/v1", "http://c/v1"]) == [
        "http://a/v1",
        "http://b/v1",
        "http://c/v1",
    ]
    with pytest.raises(InputError, match=r"--api-base: http://a/v1 is given twice"):
        endpoint_urls(["http://a/v1", "http://b/v1,http://a/v1"])


def test_the_least_busy_endpoint_is_chosen_and_ties_go_in_turn() -> None:
    pool = EndpointPool(["a", "b", "c"])
    first, second, third = (pool.acquire() for _ in range(3))
    assert [first.url, second.url, third.url] == ["a", "b", "c"]  # all idle: in turn
    pool.release(second, reached=True)
    assert pool.acquire().url == "b"  # the only one with nothing in flight
    assert pool.acquire().url == "c"  # all busy alike: the turn goes on after b
    assert [endpoint.in_flight for endpoint in pool.endpoints] == [1, 1, 2]


def test_an_unreachable_endpoint_sits_out_its_cool_off_and_is_logged_once_per_outage(caplog) -> None:
    now = [0.0]
    pool = EndpointPool(["a", "dead", "b"], label="m", cool_off=10, clock=lambda: now[0])
    down = {"dead"}

    async def request(url: str) -> str:
        if url in down:
            raise EndpointUnreachableError(f"refused by {url}")
        return url

    async def sends(count: int) -> list[str]:
        return [await pool.send(request) for _ in range(count)]

    caplog.set_level(logging.INFO, logger="lexsym.models")
    assert asyncio.run(sends(6)) == ["a", "b", "a", "b", "a", "b"]  # dead's turn went to b, then it sat out
    assert pool.summary()["dead"] == {"served": 0, "unreachable": 1}
    now[0] = 11.0  # the cool-off is over: the next request that reaches its turn tries it again
    asyncio.run(sends(3))
    assert pool.summary()["dead"]["unreachable"] == 2
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "m: endpoint dead is unreachable (refused by dead)" in warnings[0]
    down.clear()
    now[0] = 22.0
    assert "dead" in asyncio.run(sends(3))
    assert any("endpoint dead answers again" in r.getMessage() for r in caplog.records)


def test_a_request_fails_only_when_every_endpoint_is_unreachable() -> None:
    pool = EndpointPool(["a", "b", "c"], label="m")
    tried: list[str] = []

    async def request(url: str) -> str:
        tried.append(url)
        raise EndpointUnreachableError(f"refused by {url}")

    with pytest.raises(EndpointUnreachableError) as info:
        asyncio.run(pool.send(request))
    assert sorted(tried) == ["a", "b", "c"]  # each once
    assert str(info.value) == "m: no endpoint of the pool could be reached (3 tried); last: refused by c"
    tried.clear()
    with pytest.raises(EndpointUnreachableError):  # all cooling off: still asked, not refused unasked
        asyncio.run(pool.send(request))
    assert sorted(tried) == ["a", "b", "c"]


def test_an_answer_that_is_an_error_is_not_sent_elsewhere() -> None:
    pool = EndpointPool(["a", "b"])
    tried: list[str] = []

    async def request(url: str) -> str:
        tried.append(url)
        raise PermanentModelError("400: bad request", status=400)

    with pytest.raises(PermanentModelError):
        asyncio.run(pool.send(request))
    assert tried == ["a"] and pool.endpoints[0].down_until == 0.0


def test_the_pool_keeps_count_across_threads() -> None:
    pool = EndpointPool(["a", "b", "c"])

    async def request(url: str) -> str:
        await asyncio.sleep(0)
        return url

    async def many() -> None:
        await asyncio.gather(*(pool.send(request) for _ in range(50)))

    threads = [threading.Thread(target=asyncio.run, args=(many(),)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [endpoint.in_flight for endpoint in pool.endpoints] == [0, 0, 0]
    served = [counts["served"] for counts in pool.summary().values()]
    assert sum(served) == 400 and min(served) > 0


# --- the backend ----------------------------------------------------------------------------------------


def test_a_pool_keys_the_cache_as_one_whichever_urls_it_has() -> None:
    pool = load_model(MODEL, api_base="http://a:8000/v1,http://b:8001/v1")
    assert isinstance(pool, LiteLLMModel) and pool.pool is not None and pool.api_base is None
    other = LiteLLMModel("openai/gpt-4o-mini", api_base=["http://c:8002/v1", "http://a:8000/v1"])
    single = LiteLLMModel("openai/gpt-4o-mini", api_base="http://a:8000/v1")
    provider = LiteLLMModel("openai/gpt-4o-mini")
    assert cache_identity(pool) == cache_identity(other) == {"endpoints": "pool"}
    assert cache_identity(single) == {"api_base": "http://a:8000/v1"}  # one server keys as it always did
    assert cache_identity(provider) == {}  # and a pool is never the provider's own API
    assert pool.settings()["api_base"] == ["http://a:8000/v1", "http://b:8001/v1"]
    assert "api_base" not in pool.request([], GenerationParams())  # chosen per request


def test_the_backend_records_which_endpoint_served(servers: list[PromptServer]) -> None:
    model = LiteLLMModel("openai/gpt-4o-mini", api_base=[server.url for server in servers])
    messages = [{"role": "user", "content": "Which law applies?"}]

    async def three() -> list[Any]:
        return [await model.generate(messages, GenerationParams()) for _ in range(3)]

    completions = asyncio.run(three())
    assert [c.extra["served_by"] for c in completions] == [server.url for server in servers]
    assert len({c.text for c in completions}) == 1


# --- whole runs -----------------------------------------------------------------------------------------


def test_a_pool_run_spreads_the_requests_and_answers_as_one_server_does(
    tmp_path: Path, servers: list[PromptServer], ae_tasks: Path
) -> None:
    pooled = run(ae_tasks, tmp_path / "pool", [server.url for server in servers])
    shares = [len(server.requests) for server in servers]
    assert sum(shares) == TASKS and min(shares) > 0, shares  # each server got a share
    assert pooled.header.totals.ok == TASKS and pooled.header.status == "complete"
    before = len(servers[0].requests)
    single = run(ae_tasks, tmp_path / "single", servers[0].url)
    assert len(servers[0].requests) - before == TASKS and single.header.totals.ok == TASKS
    pool_samples, single_samples = answers(tmp_path / "pool"), answers(tmp_path / "single")
    assert len(pool_samples) == TASKS and all(s["completion"] and s["error"] is None for s in pool_samples)
    assert pool_samples == single_samples
    pool_dir, single_dir = tmp_path / "pool", tmp_path / "single"
    assert (pool_dir / "predictions.jsonl").read_bytes() == (single_dir / "predictions.jsonl").read_bytes()
    # scores.json names its own directory; everything else in it is the same bytes
    scores = (pool_dir / "scores.json").read_text().replace(str(pool_dir), str(single_dir))
    assert scores == (single_dir / "scores.json").read_text()
    assert pooled.header.model_settings["api_base"] == [server.url for server in servers]


def test_a_pool_run_is_answered_from_the_cache_by_any_other_pool(
    tmp_path: Path, servers: list[PromptServer], ae_tasks: Path
) -> None:
    first, second, third = servers
    run(ae_tasks, tmp_path / "a", [first.url, second.url], cache=True)
    asked = sum(len(server.requests) for server in servers)
    again = run(ae_tasks, tmp_path / "b", [third.url, first.url], cache=True)
    assert again.header.totals.cached == TASKS
    assert sum(len(server.requests) for server in servers) == asked == TASKS  # not one new request
    paid = ("cached", "attempts", "cost")  # what a cache hit records differently, by design

    def kept(out: Path) -> list[dict[str, Any]]:
        return [{k: v for k, v in sample.items() if k not in paid} for sample in answers(out)]

    assert kept(tmp_path / "a") == kept(tmp_path / "b")


def test_a_dead_endpoint_is_routed_around_and_logged_once(
    tmp_path: Path, servers: list[PromptServer], ae_tasks: Path, caplog
) -> None:
    dead = dead_url()
    caplog.set_level(logging.WARNING, logger="lexsym.models")
    result = run(ae_tasks, tmp_path / "run", [servers[0].url, dead, servers[1].url])
    samples = answers(tmp_path / "run")
    assert len(samples) == TASKS and all(s["error"] is None and s["completion"] for s in samples)
    assert all(s["attempts"] == 1 for s in samples)  # moved to another server, not retried with backoff
    assert result.header.status == "complete" and result.header.failed is None
    assert len(servers[0].requests) + len(servers[1].requests) == TASKS
    down = [r.getMessage() for r in caplog.records if "is unreachable" in r.getMessage()]
    assert len(down) == 1 and dead in down[0], down


def test_the_command_line_takes_a_repeated_api_base(
    tmp_path: Path, servers: list[PromptServer], ae_tasks: Path
) -> None:
    out = tmp_path / "run"
    done = lexsym(
        *("run", "--model", MODEL, "--tasks", str(ae_tasks), "--out", str(out)),
        *("--api-base", servers[0].url, "--api-base", f"{servers[1].url},{servers[2].url}"),
        *("--concurrency", "3", "--cache-dir", str(tmp_path / "cache")),
        env={"OPENAI_API_KEY": FAKE_KEY},
    )
    assert done.returncode == 0, done.stderr
    assert all(server.requests for server in servers)
    header = json.loads((out / "run.json").read_text())
    assert header["model_options"]["api_base"] == [servers[0].url, f"{servers[1].url},{servers[2].url}"]
    assert header["model_settings"]["api_base"] == [server.url for server in servers]
    assert header["totals"]["ok"] == TASKS


def test_a_run_with_every_endpoint_dead_fails_visibly(tmp_path: Path, ae_tasks: Path, offline: None) -> None:
    first, second = dead_url(), dead_url()
    done = lexsym(
        *("run", "--model", MODEL, "--tasks", str(ae_tasks), "--out", str(tmp_path / "run")),
        *("--api-base", first, "--api-base", second, "--no-cache"),
        *("--retry-base", "0.01", "--retry-cap", "0.02", "--max-attempts", "2"),
        env={"OPENAI_API_KEY": FAKE_KEY},
    )
    assert done.returncode == 1, done.stderr
    assert f"FAILED: every sample failed ({TASKS} of {TASKS})" in done.stderr
    assert "no endpoint of the pool could be reached (2 tried)" in done.stderr
    assert done.stderr.count("is unreachable") == 2  # each endpoint's outage once, not once per request
