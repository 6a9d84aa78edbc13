"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for testing model backends offline.

Why a real HTTP server rather than a mocked client: the failures a benchmark run meets (429 with
Retry-After, 5xx, a malformed body, a slow answer, a cut-off answer) only show their true shape after
litellm and the OpenAI SDK have turned them into exceptions and response objects. Going over real HTTP
tests that whole path, and nothing here reaches the internet.

A request's scenario is the next entry of the per-test queue (`server.enqueue(...)`) when there is one,
else a `[[scenario:NAME]]` marker in the last user message, else "ok". Every request is counted per
scenario and its JSON body kept, so tests can assert how many calls reached the server and what they sent.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections import Counter, deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAKE_KEY = "sk-lexsym-fake-0123456789abcdef"  # the key tests put in the environment: never to be echoed
MARKER = re.compile(r"\[\[scenario:([\w-]+)\]\]")

ANSWER = 'FINAL ANSWER: {"jurisdiction": "federal"}'
TRUNCATED = 'FINAL ANSWER: {"jurisdic'
REASONING = "The debtor lived in Ohio for 730 days, so Ohio law applies."
USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}

# Error scenarios: HTTP status, OpenAI error type and code, message. The 401 echoes the key it was sent,
# as some providers do ("Incorrect API key provided: sk-..."), so tests can check that it is redacted.
ERRORS: dict[str, tuple[int, str, str | None, str]] = {
    "400": (400, "invalid_request_error", None, "Invalid value for 'messages'."),
    "context": (
        400,
        "invalid_request_error",
        "context_length_exceeded",
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 "
        "tokens. Please reduce the length of the messages.",
    ),
    "401": (401, "invalid_request_error", "invalid_api_key", "Incorrect API key provided: {key}."),
    "404": (404, "invalid_request_error", "model_not_found", "The model `stub-model` does not exist."),
    "429": (429, "requests", "rate_limit_exceeded", "Rate limit reached for requests. Try again in 7s."),
    "quota": (
        429,
        "insufficient_quota",
        "insufficient_quota",
        "You exceeded your current quota, please check your plan and billing details.",
    ),
    "500": (500, "server_error", None, "The server had an error while processing your request."),
    "503": (503, "server_error", None, "The engine is currently overloaded, please try again later."),
}
SCENARIOS = ("ok", "malformed", "slow", "length", "think", "reasoning", *ERRORS)


class StubServer:
    """The server and its script. `start()` returns the base URL to pass to a client as api_base."""

    def __init__(self, *, slow_seconds: float = 5.0, retry_after: int = 7):
        self.slow_seconds = slow_seconds
        self.retry_after = retry_after
        self.counts: Counter[str] = Counter()
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []  # names in lower case: clients differ in case
        self._queue: deque[str | tuple[str, str]] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control --------------------------------------------------------------------------------------

    def start(self) -> str:
        """Listen on a free port (port 0: the OS picks one) in a daemon thread."""
        handler = type("Handler", (_Handler,), {"stub": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="stub-openai", daemon=True)
        self._thread.start()
        return self.url

    def stop(self) -> None:
        """Stop serving; a handler still sleeping in the slow scenario wakes and gives up at once."""
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        assert self._httpd is not None, "the stub server is not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def enqueue(self, *scenarios: str) -> None:
        """Script the next requests' answers, whatever their messages say."""
        unknown = [name for name in scenarios if name not in SCENARIOS]
        if unknown:
            raise ValueError(f"unknown stub scenarios {unknown}; known: {SCENARIOS}")
        with self._lock:
            self._queue.extend(scenarios)

    def say(self, *replies: str) -> None:
        """Script the next requests' answers as these texts (a judge's replies, say), in order."""
        with self._lock:
            self._queue.extend(("say", reply) for reply in replies)

    def reset(self) -> None:
        """Forget counts, recorded requests and queued scenarios (between tests sharing one server)."""
        with self._lock:
            self.counts.clear()
            self.requests.clear()
            self.headers.clear()
            self._queue.clear()

    # -- serving --------------------------------------------------------------------------------------

    def _choose(self, body: dict[str, Any]) -> str | tuple[str, str]:
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        users = [m for m in body.get("messages", []) if isinstance(m, dict) and m.get("role") == "user"]
        content = users[-1].get("content", "") if users else ""
        if isinstance(content, list):  # OpenAI content parts
            content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
        found = MARKER.search(str(content))
        return found.group(1) if found and found.group(1) in SCENARIOS else "ok"

    def _record(self, scenario: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.counts[scenario] += 1
            self.requests.append(body)
            self.headers.append(headers)

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server stops first; True when it slept the whole time."""
        return not self._stopping.wait(seconds)


def _completion(body: dict[str, Any], message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "stub-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": USAGE,
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real APIs do; every answer has a Content-Length
    stub: StubServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request access log; tests read `counts` instead."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {}
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        scenario = self.stub._choose(body)
        if isinstance(scenario, tuple):  # a scripted text reply
            scenario, text = scenario
            body = {**body, "_say": text}
        self.stub._record(scenario, body, {k.lower(): v for k, v in self.headers.items()})
        # A client that gave up (its timeout) has closed the connection: there is no one to answer.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._answer(scenario, body)

    def _answer(self, scenario: str, body: dict[str, Any]) -> None:
        if scenario in ERRORS:
            status, kind, code, message = ERRORS[scenario]
            key = self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
            error = {"message": message.format(key=key), "type": kind, "param": None, "code": code}
            extra = {"Retry-After": str(self.stub.retry_after)} if status == 429 else {}
            self._json(status, {"error": error}, extra)
        elif scenario == "say":
            message = {"role": "assistant", "content": body["_say"]}
            self._json(200, _completion(body, message, "stop"))
        elif scenario == "malformed":
            self._send(200, b'{"id": "chatcmpl-stub", "choices": [{"message": ', "application/json")
        elif scenario == "slow":
            if self.stub._sleep(self.stub.slow_seconds):
                self._json(200, _completion(body, {"role": "assistant", "content": ANSWER}, "stop"))
        elif scenario == "length":
            self._json(200, _completion(body, {"role": "assistant", "content": TRUNCATED}, "length"))
        elif scenario == "think":
            content = f"<think>{REASONING}</think>\n{ANSWER}"
            self._json(200, _completion(body, {"role": "assistant", "content": content}, "stop"))
        elif scenario == "reasoning":
            message = {"role": "assistant", "content": ANSWER, "reasoning_content": REASONING}
            self._json(200, _completion(body, message, "stop"))
        else:
            self._json(200, _completion(body, {"role": "assistant", "content": ANSWER}, "stop"))

    def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json", headers)

    def _send(self, status: int, data: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
