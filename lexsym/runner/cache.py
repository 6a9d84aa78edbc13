"""The response cache: completions already paid for, in SQLite, keyed by everything that changes output.

Why this design:

- **The key** is the sha256 of the model id, the backend's other output-changing settings
  (`lexsym.models.base.cache_identity`: the endpoint `--api-base`, litellm options such as
  `reasoning_effort`, vLLM engine options such as `revision`, `dtype`, `max_model_len` and the chat
  template's options), the messages (through their own sha256, the prompt hash a sample line records),
  `GenerationParams.key_fields()` and, only when sampling is on (temperature > 0), the repeat index. A
  backend with no such settings keys as it always did, so plain entries stay valid. A server whose
  weights change behind the same URL and model name cannot be told apart from here: name the weights
  (`-M revision=...`) or run with `--no-cache`. Two models never share an entry; a different
  temperature, seed or token limit is a different entry; at temperature 0 every repeat of a prompt is the
  same request (a deterministic model gives the same answer, so asking again only costs money), while at
  temperature > 0 each repeat is its own draw and is cached as one.
- **SQLite** (as lm-evaluation-harness does): one file, no server, atomic writes, and readers in other
  processes (a second run, `lexsym cache stats`) are safe. WAL mode lets them read while a run writes;
  synchronous=NORMAL skips the fsync per commit, which in WAL mode can lose the last few entries on power
  loss but never corrupts the file (a lost entry is only a cache miss).
- **One connection, used from the asyncio loop's thread only** (sqlite3's default same-thread check
  enforces it): a lookup or a write takes tens of microseconds, far less than handing it to a thread.
- **Errors are one line** (`CacheError`, exit code 2): a file that is not a database names itself and the
  way out (`lexsym cache clear` deletes it; `--no-cache` runs without it); a database another process
  keeps locked past the timeout says so.

Local models (`lexsym:oracle`, `lexsym:baseline` and the test aids) bypass the cache: they are
deterministic, free and instant, so caching them would only fill the file. A model object can decide for
itself with a `cacheable` attribute.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from lexsym._util.errors import InputError
from lexsym.models.base import Completion, GenerationParams, Message
from lexsym.runner.tasksets import prompt_sha256

#: Bump when the key recipe changes: old entries then simply stop matching.
KEY_VERSION = 1
SCHEMA_VERSION = 1
DB_NAME = "responses.sqlite"
_COMPLETION_FIELDS = {f.name for f in dataclasses.fields(Completion)}


class CacheError(InputError):
    """The cache database cannot be used: not a database, locked, or unwritable."""


def default_cache_dir() -> Path:
    """$LEXSYM_CACHE_DIR, else $XDG_CACHE_HOME/lexsym, else ~/.cache/lexsym (the XDG convention, so the
    cache lives with other tools' caches and survives a fresh checkout)."""
    explicit = os.environ.get("LEXSYM_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "lexsym"


def cache_path(cache_dir: str | Path | None = None) -> Path:
    """The database file under `cache_dir` (default: `default_cache_dir()`)."""
    return Path(cache_dir).expanduser() / DB_NAME if cache_dir is not None else default_cache_dir() / DB_NAME


def cache_key(
    model: str,
    messages: list[Message],
    params: GenerationParams,
    repeat: int = 0,
    identity: dict[str, Any] | None = None,
) -> str:
    """The cache key of one request (see the module docstring for what goes in and why)."""
    return cache_key_from_digest(model, prompt_sha256(messages), params, repeat, identity)


def cache_key_from_digest(
    model: str,
    messages_sha256: str,
    params: GenerationParams,
    repeat: int = 0,
    identity: dict[str, Any] | None = None,
) -> str:
    """`cache_key` from the messages' sha256 (`prompt_sha256`), which a run computes once per task anyway:
    hashing a 16 kB prompt again for every repeat would be most of the key's cost. `identity` is the
    backend's `cache_identity()`."""
    material: dict[str, Any] = {
        "v": KEY_VERSION,
        "model": model,
        "messages": messages_sha256,
        "params": params.key_fields(),
    }
    if identity:
        material["backend"] = identity
    if params.temperature and params.temperature > 0:
        material["repeat"] = repeat
    text = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_cacheable(model: Any) -> bool:
    """Whether a model's answers go through the cache: its `cacheable` attribute, else every model except
    the local `lexsym:` ones."""
    flag = getattr(model, "cacheable", None)
    if flag is not None:
        return bool(flag)
    return not str(getattr(model, "id", "")).startswith("lexsym:")


class CacheStats(BaseModel):
    """What `lexsym cache stats` shows."""

    path: str
    exists: bool
    entries: int
    size_bytes: int
    by_model: dict[str, int]
    oldest: float | None = None
    newest: float | None = None


def _describe(error: sqlite3.Error) -> str:
    return " ".join(str(error).split()) or error.__class__.__name__


class ResponseCache:
    """A handle on the cache database. Create it in the thread that will use it (the asyncio loop's)."""

    def __init__(self, path: str | Path, *, timeout: float = 5.0, create: bool = True):
        self.path = Path(path)
        self.timeout = timeout
        if create:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise CacheError(
                    f"cache {self.path}: cannot create its directory: {error.strerror}"
                ) from None
        try:
            self._db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None)
        except sqlite3.Error as error:
            raise CacheError(f"cache {self.path}: cannot open: {_describe(error)}") from None
        try:
            self._setup()
        except BaseException:
            self._db.close()
            raise

    def _fail(self, error: sqlite3.Error, doing: str) -> CacheError:
        message = _describe(error)
        if isinstance(error, sqlite3.OperationalError) and "locked" in message:
            return CacheError(
                f"cache {self.path}: {doing}: the database is locked by another process "
                f"(waited {self.timeout:g} s); try again, or use --no-cache or another --cache-dir"
            )
        damaged = (
            type(error) is sqlite3.DatabaseError or "malformed" in message or "not a database" in message
        )
        if damaged:
            return CacheError(
                f"cache {self.path}: {doing}: {message}: the file is damaged or not a lexsym cache; "
                "delete it with `lexsym cache clear`, or use --no-cache or another --cache-dir"
            )
        return CacheError(f"cache {self.path}: {doing}: {message}")

    def _setup(self) -> None:
        try:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise CacheError(
                    f"cache {self.path}: written by a newer lexsym (schema {version}); use another "
                    "--cache-dir"
                )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            if version < SCHEMA_VERSION:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(
                    "CREATE TABLE IF NOT EXISTS responses ("
                    " key TEXT PRIMARY KEY, model TEXT NOT NULL, created REAL NOT NULL,"
                    " completion TEXT NOT NULL)"
                )
                self._db.execute("CREATE INDEX IF NOT EXISTS responses_model ON responses(model)")
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                self._db.execute("COMMIT")
        except sqlite3.Error as error:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise self._fail(error, "cannot open") from None

    def get(self, key: str) -> Completion | None:
        """The cached completion for `key`, or None."""
        try:
            row = self._db.execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as error:
            raise self._fail(error, "cannot read") from None
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            return Completion(**{k: v for k, v in data.items() if k in _COMPLETION_FIELDS})
        except (ValueError, TypeError):
            return None  # an entry we cannot read is a miss; the fresh answer will replace it

    def put(self, key: str, model: str, completion: Completion) -> None:
        """Store `completion` under `key` (replacing any entry there)."""
        data = json.dumps(dataclasses.asdict(completion), ensure_ascii=False, default=str)
        try:
            self._db.execute(
                "INSERT OR REPLACE INTO responses (key, model, created, completion) VALUES (?, ?, ?, ?)",
                (key, model, time.time(), data),
            )
        except sqlite3.Error as error:
            raise self._fail(error, "cannot write") from None

    def stats(self) -> CacheStats:
        try:
            rows = self._db.execute(
                "SELECT model, COUNT(*), MIN(created), MAX(created) FROM responses"
                " GROUP BY model ORDER BY model"
            ).fetchall()
        except sqlite3.Error as error:
            raise self._fail(error, "cannot read") from None
        return CacheStats(
            path=str(self.path),
            exists=True,
            entries=sum(r[1] for r in rows),
            size_bytes=_size(self.path),
            by_model={r[0]: r[1] for r in rows},
            oldest=min((r[2] for r in rows), default=None),
            newest=max((r[3] for r in rows), default=None),
        )

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or `model`'s; the number deleted. The file is then compacted (VACUUM)."""
        try:
            if model is None:
                removed = self._db.execute("DELETE FROM responses").rowcount
            else:
                removed = self._db.execute("DELETE FROM responses WHERE model = ?", (model,)).rowcount
            self._db.execute("VACUUM")
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as error:
            raise self._fail(error, "cannot clear") from None
        return removed

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _files(path: Path) -> list[Path]:
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in _files(path) if p.exists())


def cache_stats(cache_dir: str | Path | None = None, *, timeout: float = 5.0) -> CacheStats:
    """Stats of the cache under `cache_dir`; a cache that does not exist yet is reported empty (and is not
    created by asking)."""
    path = cache_path(cache_dir)
    if not path.exists():
        return CacheStats(path=str(path), exists=False, entries=0, size_bytes=0, by_model={})
    with ResponseCache(path, timeout=timeout, create=False) as cache:
        return cache.stats()


def clear_cache(
    cache_dir: str | Path | None = None, *, model: str | None = None, timeout: float = 5.0
) -> int:
    """Delete every entry (or one model's); the number deleted. Clearing everything from a file that is not
    a readable database deletes the file: that is the way out the corruption error points to."""
    path = cache_path(cache_dir)
    if not path.exists():
        return 0
    try:
        cache = ResponseCache(path, timeout=timeout, create=False)
    except CacheError as error:
        if model is not None or "damaged" not in str(error):
            raise
        for file in _files(path):
            file.unlink(missing_ok=True)
        return 0
    with cache:
        return cache.clear(model)
