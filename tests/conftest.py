"""Shared fixtures: where third-party reference data lives, and hypothesis profiles.

The default run uses the `ci` hypothesis profile (derandomized: the same examples every run) and draws a
tenth of each long property run (tests/long_runs.py). The full runs: `LEXSYM_LONG_RUNS=full
HYPOTHESIS_PROFILE=dated pytest`, new examples each day, reproducible within it (seed YYYYMMDD).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.oracles import oracle_missing
from tests.stub_server import FAKE_KEY, StubServer

REPO = Path(__file__).resolve().parents[1]

settings.register_profile(
    "ci", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True, print_blob=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "dated", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=False, print_blob=True
)
"""For the full long runs (tests/long_runs.py): new examples each day, the same all day (seed YYYYMMDD)."""
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("HYPOTHESIS_PROFILE") == "dated" and config.getoption("hypothesis_seed") is None:
        import datetime as dt

        config.option.hypothesis_seed = dt.date.today().strftime("%Y%m%d")


def shared_dir() -> Path | None:
    """`../shared` beside the checkout, or $LEXSYM_SHARED; None when neither exists."""
    candidate = Path(os.environ.get("LEXSYM_SHARED", REPO.parent / "shared"))
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def shared() -> Path:
    path = shared_dir()
    if path is None:
        pytest.skip("third-party reference data (../shared or $LEXSYM_SHARED) is not present")
    return path


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    """The scripted OpenAI-compatible server on 127.0.0.1, one per test module."""
    server = StubServer(slow_seconds=3.0, retry_after=7)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch, stub: StubServer, tmp_path: Path) -> None:
    """For tests that call models: a fake key in the environment, a private response cache, a fresh
    script on the stub, and no connection beyond 127.0.0.1 (a test that tries one fails)."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("LEXSYM_CACHE_DIR", str(tmp_path / "cache"))
    stub.reset()
    connect, connect_ex = socket.socket.connect, socket.socket.connect_ex

    def local_only(address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else None
        if host is not None and host not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"a test tried to reach {address!r}: tests must stay offline")

    def guarded_connect(self: socket.socket, address: Any) -> None:
        local_only(address)
        return connect(self, address)

    def guarded_connect_ex(self: socket.socket, address: Any) -> int:
        local_only(address)
        return connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded_connect)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")


@pytest.fixture
def browser() -> Iterator[Any]:
    """Debian's headless Chromium driven by Selenium (no browser download), 1500x950."""
    if not (CHROMIUM.exists() and CHROMEDRIVER.exists()):
        oracle_missing(
            "needs Debian's chromium and chromedriver in /usr/bin (apt-get install chromium chromium-driver)"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1500,950")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def wheel(tmp_path_factory) -> Path:
    """lexsym built as a wheel from this checkout (no dependencies, no build isolation: offline)."""
    out = tmp_path_factory.mktemp("wheel")
    command = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(out),
    ]
    subprocess.run([*command, str(REPO)], check=True, capture_output=True)
    return next(out.glob("lexsym-*.whl"))
