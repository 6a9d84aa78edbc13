"""Model and engine options written as `key=value` (`-M` for the answering model, `-J` for judges).

Why YAML for the value: one flag then carries every type a backend takes without a per-option schema,
the way inspect_ai's `-M` and lm-eval's `--model_args` do: `tensor_parallel_size=2` is an int,
`drop_params=true` a bool, `timeout=30.5` a float, `dtype=bfloat16` a string and
`chat_template_kwargs={enable_thinking: false}` (or the same in JSON) a mapping. Only a value in braces
or brackets becomes a mapping or a list (`note=a: b` stays text), and a value YAML cannot read stays the
string it was written as.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from lexsym._util.errors import InputError

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Options whose values are names, never numbers: a git revision such as `1e100ab…` or `20240620` must
# stay the string it is.
STRING_KEYS = frozenset(
    {"revision", "tokenizer_revision", "code_revision", "api_base", "api_key_env", "dtype", "quantization"}
)


def parse_option(text: str, flag: str = "-M") -> tuple[str, Any]:
    """(key, value) for one `key=value`; InputError naming the flag for anything else."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not _KEY.fullmatch(key):
        raise InputError(f"{flag} {text!r}: write key=value, with a key such as max_model_len or timeout")
    return key, raw.strip() if key in STRING_KEYS else option_value(raw.strip())


def option_value(raw: str) -> Any:
    """The value of `key=<raw>` read as YAML (see the module docstring); the raw string if it is not YAML."""
    if raw == "":
        return ""
    import yaml

    from lexsym._util.safe_yaml import load_yaml

    try:
        value = load_yaml(raw)
    except yaml.YAMLError:
        return raw
    if isinstance(value, (dict, list)) and not raw.startswith(("{", "[")):
        return raw  # `note=a: b` is text; a mapping or a list is written in braces or brackets
    return raw if value is None and raw not in ("null", "~") else value


def parse_options(texts: Iterable[str] | None, flag: str = "-M") -> dict[str, Any]:
    """The options of repeated `flag key=value` arguments; a key given twice is an error, not a guess."""
    options: dict[str, Any] = {}
    for text in texts or ():
        key, value = parse_option(text, flag)
        if key in options:
            raise InputError(f"{flag} {key}= is given twice")
        options[key] = value
    return options


def parse_scoped(texts: Iterable[str] | None, flag: str) -> dict[str, str]:
    """`MODEL=VALUE` pairs (`--judge-api-base litellm:hosted_vllm/qwen=http://gpu:8000/v1`), split at the
    first `=`: a model id has none, a URL may have several."""
    scoped: dict[str, str] = {}
    for text in texts or ():
        model, sep, value = text.partition("=")
        if not sep or not model.strip() or not value.strip():
            raise InputError(f"{flag} {text!r}: write MODEL=VALUE")
        if model.strip() in scoped:
            raise InputError(f"{flag}: {model.strip()} is given twice")
        scoped[model.strip()] = value.strip()
    return scoped
