"""Keys out of messages bound for logs: providers echo keys back ("Incorrect API key provided: sk-…"),
and these messages end up in run logs. Importing this does not import litellm."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

REDACTED = "[redacted]"

# Shapes of keys that may be echoed in an error without being in our environment (a key typed into a
# config file, a proxy's key): OpenAI/Anthropic `sk-…`, Google `AIza…`, Hugging Face `hf_…`, Groq `gsk_…`,
# AWS access key ids, and whatever follows "Bearer".
_KEY_SHAPES = re.compile(
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_*\-]{8,}"
    r"|\bAIza[0-9A-Za-z_\-]{20,}"
    r"|\b(?:hf|gsk|xai)_[A-Za-z0-9]{16,}"
    r"|\bA(?:KIA|SIA)[0-9A-Z]{16}\b"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/\-]{8,}=*"
)
# Environment variables whose values are secrets, by the naming convention providers follow.
_SECRET_NAMES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_MIN_SECRET = 8  # shorter values ("1", "true") would redact ordinary words, and are not real keys


def redact_secrets(text: str, *, extra: Iterable[str | None] = ()) -> str:
    """`text` with every key-like string replaced by "[redacted]".

    Redacted are: the current values of environment variables whose names end in _KEY, _TOKEN, _SECRET or
    _PASSWORD (read now, so keys set after start-up are covered), the `extra` values given, and anything
    shaped like a known provider key. Longer secrets go first so a key containing another is fully hidden.
    Importing this helper does not import litellm; the runner may use it on any text bound for a log.
    """
    secrets = {
        value
        for name, value in os.environ.items()
        if name.upper().endswith(_SECRET_NAMES) and len(value) >= _MIN_SECRET
    }
    secrets.update(value for value in extra if value and len(value) >= _MIN_SECRET)
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)


_CREDENTIAL_HEADER = re.compile(r"auth|key|token|secret|cookie|password", re.I)


def redact_options(options: dict) -> dict:
    """Backend options as they may be written to run.json, judge.json or config.yaml: key-like strings
    redacted, and the values of headers whose names say they carry credentials (Authorization, X-Api-Key,
    Cookie, …) replaced by "[redacted]"."""
    shown: dict = {}
    for name, value in options.items():
        if name == "extra_headers" and isinstance(value, dict):
            value = {
                header: REDACTED if _CREDENTIAL_HEADER.search(str(header)) else redact_secrets(str(content))
                for header, content in value.items()
            }
        elif isinstance(value, str):
            value = redact_secrets(value)
        shown[name] = value
    return shown
