"""LiteLLMModel over real HTTP to a scripted OpenAI-compatible stub, and through litellm's mock_response.

Every call goes through litellm and the OpenAI SDK to a server on 127.0.0.1, so the tests see errors and
responses in the shapes a benchmark run meets. A guard refuses any connection that leaves the machine.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import pytest

from lexsym._util.errors import InputError
from lexsym.models import GenerationParams, PermanentModelError, TransientModelError, load_model
from lexsym.models.litellm_backend import LiteLLMModel
from lexsym.models.redaction import REDACTED, redact_secrets
from tests.stub_server import ANSWER, FAKE_KEY, REASONING, TRUNCATED, USAGE, StubServer

MODEL = "openai/stub-model"
T = TypeVar("T")

pytestmark = pytest.mark.usefixtures("offline")


# -- fixtures -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    """One event loop for the module: litellm caches its HTTP clients per loop, as a real run would."""
    event_loop = asyncio.new_event_loop()
    yield event_loop
    event_loop.run_until_complete(LiteLLMModel("openai/stub-model").aclose())  # litellm's logging worker
    event_loop.run_until_complete(event_loop.shutdown_asyncgens())
    event_loop.close()


def run(loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T]) -> T:
    return loop.run_until_complete(coro)


def ask(scenario: str | None = None) -> list[dict[str, str]]:
    marker = f" [[scenario:{scenario}]]" if scenario else ""
    return [
        {"role": "system", "content": "You are a bankruptcy exemption assistant."},
        {"role": "user", "content": f"Which exemption scheme applies?{marker}"},
    ]


def stub_model(stub: StubServer, **options: Any) -> LiteLLMModel:
    return LiteLLMModel(MODEL, api_base=stub.url, **options)


def raised(loop: asyncio.AbstractEventLoop, model: LiteLLMModel, scenario: str) -> BaseException:
    with pytest.raises((TransientModelError, PermanentModelError)) as info:
        run(loop, model.generate(ask(scenario), GenerationParams()))
    return info.value


# -- answers ---------------------------------------------------------------------------------------------


def test_normal_completion_fields_and_request(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    model = load_model(f"litellm:{MODEL}", api_base=stub.url)
    assert isinstance(model, LiteLLMModel) and model.id == f"litellm:{MODEL}"
    params = GenerationParams(temperature=0.0, max_tokens=64, seed=7, top_p=0.9)
    completion = run(loop, model.generate(ask(), params))
    assert completion.text == ANSWER
    assert completion.reasoning is None
    assert completion.tokens_in == USAGE["prompt_tokens"] == 11
    assert completion.tokens_out == USAGE["completion_tokens"] == 7
    assert completion.finish_reason == "stop"
    assert completion.latency > 0
    assert isinstance(completion.cost, float) and completion.cost == 0.0  # the stub model has no price
    assert completion.model == "stub-model"
    assert stub.counts == {"ok": 1}
    sent = stub.requests[0]
    assert (sent["temperature"], sent["max_tokens"], sent["seed"], sent["top_p"]) == (0.0, 64, 7, 0.9)
    assert sent["messages"] == ask()
    assert stub.headers[0]["authorization"] == f"Bearer {FAKE_KEY}"  # litellm read the key from the env


def test_unset_settings_are_not_sent(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    run(loop, stub_model(stub).generate(ask(), GenerationParams()))
    assert not {"seed", "top_p", "max_tokens"} & set(stub.requests[0])


def test_think_block_is_kept_apart_from_the_answer(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    completion = run(loop, stub_model(stub).generate(ask("think"), GenerationParams()))
    assert completion.text == ANSWER
    assert completion.reasoning == REASONING


def test_reasoning_content_field_is_kept_apart(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    completion = run(loop, stub_model(stub).generate(ask("reasoning"), GenerationParams()))
    assert completion.text == ANSWER
    assert completion.reasoning == REASONING
    assert stub.counts == {"reasoning": 1}


def test_cut_off_answer_reports_length(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    completion = run(loop, stub_model(stub).generate(ask("length"), GenerationParams(max_tokens=8)))
    assert completion.finish_reason == "length"
    assert completion.text == TRUNCATED


def test_queued_scenarios_override_the_marker(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    stub.enqueue("length", "ok")
    model = stub_model(stub)
    first = run(loop, model.generate(ask("think"), GenerationParams()))
    second = run(loop, model.generate(ask("think"), GenerationParams()))
    third = run(loop, model.generate(ask("think"), GenerationParams()))
    assert (first.finish_reason, second.reasoning, third.reasoning) == ("length", None, REASONING)
    assert stub.counts == {"length": 1, "ok": 1, "think": 1}


# -- errors ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "status"),
    [("429", 429), ("500", 500), ("503", 503), ("malformed", None)],
)
def test_transient_errors_carry_their_status(
    stub: StubServer, loop: asyncio.AbstractEventLoop, scenario: str, status: int | None
) -> None:
    """A body that is not JSON came with HTTP 200; litellm's "500" for it is not a status anyone sent."""
    error = raised(loop, stub_model(stub), scenario)
    assert isinstance(error, TransientModelError) and error.transient
    assert error.status == status
    assert str(error).startswith(f"litellm:{MODEL}: ")
    assert stub.counts == {scenario: 1}  # num_retries=0: no retry hidden inside litellm or the SDK


def test_rate_limit_passes_retry_after(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    error = raised(loop, stub_model(stub), "429")
    assert getattr(error, "retry_after", None) == 7.0


@pytest.mark.parametrize(
    ("scenario", "status"),
    [("400", 400), ("context", 400), ("401", 401), ("404", 404), ("quota", 429)],
)
def test_permanent_errors_carry_their_status(
    stub: StubServer, loop: asyncio.AbstractEventLoop, scenario: str, status: int
) -> None:
    error = raised(loop, stub_model(stub), scenario)
    assert isinstance(error, PermanentModelError) and not error.transient
    assert error.status == status
    assert stub.counts == {scenario: 1}


def test_context_window_error_is_named(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    assert "ContextWindowExceededError" in str(raised(loop, stub_model(stub), "context"))


def test_timeout_is_transient(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    started = time.perf_counter()
    error = raised(loop, stub_model(stub, timeout=0.5), "slow")
    assert time.perf_counter() - started < stub.slow_seconds  # gave up at the timeout, not the answer
    assert isinstance(error, TransientModelError) and error.status == 408
    assert stub.counts == {"slow": 1}


def test_refused_connection_is_transient_without_status(loop: asyncio.AbstractEventLoop) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago and has no listener now
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = LiteLLMModel(MODEL, api_base=f"http://127.0.0.1:{port}/v1", timeout=5)
    with pytest.raises(TransientModelError) as info:
        run(loop, model.generate(ask(), GenerationParams()))
    assert info.value.status is None


def test_missing_key_is_permanent(
    stub: StubServer, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK refuses before sending; litellm calls that a 500, but retrying cannot conjure a key."""
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(PermanentModelError, match="Missing credentials") as info:
        run(loop, stub_model(stub).generate(ask(), GenerationParams()))
    assert info.value.status is None
    assert stub.counts == {}


# -- keys ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ["401", "400", "429", "500", "503", "malformed", "slow", "quota"])
def test_the_key_never_appears_in_an_error(
    stub: StubServer, loop: asyncio.AbstractEventLoop, scenario: str
) -> None:
    error = raised(loop, stub_model(stub, timeout=0.5), scenario)
    for text in (str(error), repr(error), *map(str, error.args)):
        assert FAKE_KEY not in text
    # Not chained either: a traceback of this error must not print the original, unredacted one.
    assert error.__cause__ is None and error.__context__ is None


def test_echoed_key_is_redacted(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    error = raised(loop, stub_model(stub), "401")  # the stub echoes the key it was sent
    assert f"Incorrect API key provided: {REDACTED}" in str(error)
    assert FAKE_KEY not in str(error)


def test_key_from_api_key_env_is_sent_and_redacted(
    stub: StubServer, loop: asyncio.AbstractEventLoop, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A variable whose name does not look secret, holding a key that does not look like one: only
    # api_key_env tells the backend to hide it.
    monkeypatch.setenv("LEXSYM_STUB_CREDENTIAL", "stub-credential-0123456789")
    model = stub_model(stub, api_key_env="LEXSYM_STUB_CREDENTIAL")
    run(loop, model.generate(ask(), GenerationParams()))
    assert stub.headers[0]["authorization"] == "Bearer stub-credential-0123456789"
    assert "stub-credential" not in repr(model) and "stub-credential" not in str(vars(model))
    error = raised(loop, model, "401")
    assert "stub-credential-0123456789" not in str(error)
    assert REDACTED in str(error)


def test_redact_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "tok-9f8e7d6c5b4a")
    monkeypatch.setenv("TINY_KEY", "1")  # too short to be a key: must not eat every "1"
    text = (
        "key sk-proj-abcDEF123456789 and Bearer abc.def-ghi_123456 "
        "and tok-9f8e7d6c5b4a and AIzaSyA1234567890abcdefghijklmnop, 1 item"
    )
    redacted = redact_secrets(text, extra=["custom-secret-value"])
    for secret in ("sk-proj-abcDEF123456789", "abc.def-ghi_123456", "tok-9f8e7d6c5b4a", "AIzaSyA1234"):
        assert secret not in redacted
    assert redacted.endswith(", 1 item")
    assert redact_secrets("a custom-secret-value b", extra=["custom-secret-value"]) == f"a {REDACTED} b"
    assert redact_secrets("nothing secret here") == "nothing secret here"


# -- no server: litellm's own mock_response -----------------------------------------------------------


def test_mock_response_needs_no_server(stub: StubServer, loop: asyncio.AbstractEventLoop) -> None:
    model = LiteLLMModel("openai/gpt-4o-mini", mock_response="<think>short</think>FINAL ANSWER: 1")
    completion = run(loop, model.generate(ask(), GenerationParams(max_tokens=16)))
    assert completion.text == "FINAL ANSWER: 1"
    assert completion.reasoning == "short"
    assert completion.finish_reason == "stop"
    assert isinstance(completion.cost, float) and completion.cost >= 0.0
    assert stub.counts == {}


@pytest.mark.parametrize(
    ("mock", "kind", "status"),
    [
        ("litellm.RateLimitError", TransientModelError, 429),
        ("litellm.InternalServerError", TransientModelError, 500),
        ("litellm.ContextWindowExceededError", PermanentModelError, 400),
    ],
)
def test_mock_response_errors_are_typed(
    loop: asyncio.AbstractEventLoop, mock: str, kind: type[Exception], status: int
) -> None:
    model = LiteLLMModel("openai/gpt-4o-mini", mock_response=mock)
    with pytest.raises(kind) as info:
        run(loop, model.generate(ask(), GenerationParams()))
    assert info.value.status == status  # type: ignore[attr-defined]


# -- construction and imports ----------------------------------------------------------------------------


def test_keys_are_not_options(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InputError, match="environment"):
        LiteLLMModel(MODEL, api_key="sk-should-not-be-here-123")
    monkeypatch.delenv("LEXSYM_NOT_SET_KEY", raising=False)
    with pytest.raises(InputError, match="LEXSYM_NOT_SET_KEY is not set"):
        LiteLLMModel(MODEL, api_key_env="LEXSYM_NOT_SET_KEY")


def test_request_never_retries_and_passes_options() -> None:
    model = LiteLLMModel(MODEL, api_base="http://127.0.0.1:1/v1", timeout=30, drop_params=True)
    request = model.request(ask(), GenerationParams(seed=3, extra=(("reasoning_effort", "low"),)))
    assert request["num_retries"] == 0
    assert request["timeout"] == 30.0 and request["api_base"] == "http://127.0.0.1:1/v1"
    assert request["drop_params"] is True and request["reasoning_effort"] == "low" and request["seed"] == 3
    assert "api_key" not in request


def test_lexsym_does_not_import_litellm() -> None:
    code = (
        "import sys\n"
        "import lexsym, lexsym.cli\n"
        "from lexsym.models import load_model\n"
        "load_model('litellm:openai/gpt-4o')\n"
        "sys.argv = ['lexsym', '--help']\n"
        "try:\n"
        "    lexsym.cli.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "sys.stderr.write('LITELLM-IMPORTED' if 'litellm' in sys.modules else 'LITELLM-ABSENT')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert "LITELLM-ABSENT" in result.stderr, result.stderr[-2000:]
    assert "Usage" in result.stdout  # --help ran
