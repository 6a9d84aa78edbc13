"""The response cache: what makes two requests the same entry, stats and clear (library and CLI), and
one-line errors for a damaged or locked database."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from lexsym.models.base import Completion, GenerationParams
from lexsym.runner.cache import (
    CacheError,
    ResponseCache,
    cache_key,
    cache_path,
    cache_stats,
    clear_cache,
    default_cache_dir,
    is_cacheable,
)

REPO = Path(__file__).resolve().parents[1]
MESSAGES = [{"role": "system", "content": "You are a bankruptcy lawyer."}, {"role": "user", "content": "Q?"}]


def lexsym(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lexsym", *args], capture_output=True, text=True, timeout=60, cwd=REPO
    )


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lexsym: error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.fixture
def cache(tmp_path):
    with ResponseCache(cache_path(tmp_path)) as opened:
        yield opened


# --- keys -------------------------------------------------------------------------------------------------


def test_two_models_with_the_same_prompt_never_share_an_entry(cache):
    params = GenerationParams()
    a, b = cache_key("litellm:openai/gpt-4o", MESSAGES, params), cache_key("vllm:qwen", MESSAGES, params)
    assert a != b
    cache.put(a, "litellm:openai/gpt-4o", Completion(text="A"))
    assert cache.get(b) is None and cache.get(a).text == "A"


def test_every_setting_that_changes_output_changes_the_key():
    base = cache_key("m", MESSAGES, GenerationParams())
    assert base == cache_key("m", [dict(m) for m in MESSAGES], GenerationParams())  # same request, same key
    variants = [
        GenerationParams(temperature=0.5),
        GenerationParams(seed=1),
        GenerationParams(max_tokens=100),
        GenerationParams(top_p=0.9),
        GenerationParams(extra=(("reasoning_effort", "high"),)),
    ]
    keys = {cache_key("m", MESSAGES, p) for p in variants}
    assert base not in keys and len(keys) == len(variants)
    assert cache_key("m", MESSAGES, GenerationParams(seed=1)) != cache_key(
        "m", MESSAGES, GenerationParams(seed=2)
    )
    changed = [MESSAGES[0], {"role": "user", "content": "Q!"}]
    assert cache_key("m", changed, GenerationParams()) != base
    assert cache_key("m", MESSAGES[1:], GenerationParams()) != base  # no system prompt


def test_the_repeat_index_matters_only_when_sampling():
    greedy = GenerationParams(temperature=0.0)
    assert cache_key("m", MESSAGES, greedy, 0) == cache_key("m", MESSAGES, greedy, 3)
    sampling = GenerationParams(temperature=0.7)
    keys = {cache_key("m", MESSAGES, sampling, k) for k in range(4)}
    assert len(keys) == 4


def test_local_models_bypass_the_cache():
    from lexsym.models.local import BaselineModel, OracleModel

    assert not is_cacheable(OracleModel()) and not is_cacheable(BaselineModel())

    class Remote:
        id = "litellm:openai/gpt-4o"

    assert is_cacheable(Remote())
    Remote.cacheable = False
    assert not is_cacheable(Remote())


# --- storage ----------------------------------------------------------------------------------------------


def test_a_completion_comes_back_whole(cache):
    stored = Completion(
        text="FINAL ANSWER: []",
        reasoning="thinking",
        tokens_in=1200,
        tokens_out=34,
        cost=0.0123,
        latency=2.5,
        finish_reason="length",
        model="gpt-4o-2024-08-06",
        extra={"system_fingerprint": "fp_1", "nested": [1, 2]},
    )
    cache.put("k", "litellm:openai/gpt-4o", stored)
    assert cache.get("k") == stored
    cache.put("k", "litellm:openai/gpt-4o", Completion(text="newer"))
    assert cache.get("k").text == "newer" and cache.stats().entries == 1


def test_wal_mode_lets_readers_read_while_a_writer_holds_the_lock(tmp_path, cache):
    cache.put("k", "m", Completion(text="x"))
    assert cache._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    writer = sqlite3.connect(cache.path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO responses VALUES ('other', 'm', 0, '{\"text\": \"y\"}')")
    try:
        with ResponseCache(cache.path, timeout=0.05) as reader:
            assert reader.get("k").text == "x" and reader.get("other") is None  # uncommitted: not seen
    finally:
        writer.execute("COMMIT")
        writer.close()
    assert cache.get("other").text == "y"


def test_stats_and_clear(tmp_path):
    with ResponseCache(cache_path(tmp_path)) as cache:
        for number in range(3):
            cache.put(f"a{number}", "model-a", Completion(text="a" * 1000))
        cache.put("b0", "model-b", Completion(text="b"))
    stats = cache_stats(tmp_path)
    assert stats.exists and stats.entries == 4 and stats.by_model == {"model-a": 3, "model-b": 1}
    assert stats.size_bytes > 3000 and stats.oldest <= stats.newest
    assert clear_cache(tmp_path, model="model-a") == 3
    assert cache_stats(tmp_path).by_model == {"model-b": 1}
    assert clear_cache(tmp_path, model="model-x") == 0
    assert clear_cache(tmp_path) == 1
    assert cache_stats(tmp_path).entries == 0


def test_stats_of_a_missing_cache_do_not_create_it(tmp_path):
    stats = cache_stats(tmp_path / "none")
    assert not stats.exists and stats.entries == 0
    assert not (tmp_path / "none").exists()
    assert clear_cache(tmp_path / "none") == 0


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("LEXSYM_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("LEXSYM_CACHE_DIR")
    assert default_cache_dir() == tmp_path / "xdg" / "lexsym"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "lexsym"


# --- errors -----------------------------------------------------------------------------------------------


def damaged(directory: Path) -> Path:
    path = cache_path(directory)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not an SQLite database, just bytes " * 200)
    return path


def test_a_damaged_database_is_a_one_line_error(tmp_path):
    path = damaged(tmp_path)
    with pytest.raises(CacheError) as raised:
        ResponseCache(path)
    message = str(raised.value)
    assert "\n" not in message and str(path) in message and "lexsym cache clear" in message
    assert_one_line_error(lexsym("cache", "stats", "--cache-dir", str(tmp_path)), str(path), "not a database")
    result = lexsym("cache", "clear", "--model", "m", "--cache-dir", str(tmp_path))
    assert_one_line_error(result, "not a database")  # one model's entries cannot be picked out of it
    result = lexsym("cache", "clear", "--cache-dir", str(tmp_path))  # the way out: clear it all
    assert result.returncode == 0, result.stderr
    assert not path.exists()


def test_a_damaged_cache_stops_a_run_before_it_starts(tmp_path):
    from lexsym.runner import RunOptions, run_tasks

    class Remote:
        id = "test:remote"
        cacheable = True

        async def generate(self, messages, params, *, task=None):  # pragma: no cover - never reached
            raise AssertionError("called")

    damaged(tmp_path / "cache")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t1", "task": "AE", "prompt": {"user": "Q?"}, "gold": []}) + "\n")
    options = RunOptions(cache_dir=tmp_path / "cache", progress=False)
    with pytest.raises(CacheError, match="not a database"):
        run_tasks(Remote(), tasks, tmp_path / "run", options=options)
    assert not (tmp_path / "run" / "samples.jsonl").exists()


def test_a_locked_database_is_a_one_line_error(tmp_path):
    path = cache_path(tmp_path)
    ResponseCache(path).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with ResponseCache(path, timeout=0.05) as cache:
            assert cache.get("k") is None  # reading still works (WAL)
            with pytest.raises(CacheError) as raised:
                cache.put("k", "m", Completion(text="x"))
            assert "locked by another process" in str(raised.value) and "\n" not in str(raised.value)
        with pytest.raises(CacheError, match="locked"):
            clear_cache(tmp_path, model="m", timeout=0.05)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_newer_schema_is_refused(tmp_path):
    path = cache_path(tmp_path)
    ResponseCache(path).close()
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")
    with pytest.raises(CacheError, match="newer lexsym"):
        ResponseCache(path)


# --- the command line -------------------------------------------------------------------------------------


def test_cli_stats_and_clear(tmp_path):
    with ResponseCache(cache_path(tmp_path)) as cache:
        cache.put("a", "litellm:openai/gpt-4o", Completion(text="a"))
        cache.put("b", "litellm:openai/gpt-4o", Completion(text="b"))
        cache.put("c", "vllm:qwen", Completion(text="c"))
    result = lexsym("cache", "stats", "--cache-dir", str(tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert stats["entries"] == 3 and stats["by_model"] == {"litellm:openai/gpt-4o": 2, "vllm:qwen": 1}
    table = lexsym("cache", "stats", "--cache-dir", str(tmp_path))
    assert table.returncode == 0 and "litellm:openai/gpt-4o" in table.stdout and "3 entries" in table.stdout
    result = lexsym("cache", "clear", "--model", "vllm:qwen", "--cache-dir", str(tmp_path))
    assert result.returncode == 0 and "removed 1 entries of vllm:qwen" in result.stdout
    result = lexsym("cache", "clear", "--cache-dir", str(tmp_path))
    assert result.returncode == 0 and "removed 2 entries" in result.stdout
    empty = lexsym("cache", "stats", "--cache-dir", str(tmp_path / "nowhere"))
    assert empty.returncode == 0 and "no cache at" in empty.stdout


def test_cli_uses_the_environment_cache_dir(tmp_path):
    env = {**os.environ, "LEXSYM_CACHE_DIR": str(tmp_path)}
    with ResponseCache(cache_path(tmp_path)) as cache:
        cache.put("a", "m", Completion(text="a"))
    result = subprocess.run(
        [sys.executable, "-m", "lexsym", "cache", "stats", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=REPO,
    )
    assert json.loads(result.stdout)["entries"] == 1
