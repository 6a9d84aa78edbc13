"""Reading one whole JSON file (a run.json, a scores.json): a file that cannot be read or parsed is one
line naming it and the line, never a traceback."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def parse_json(text: str, where: str, *, line_numbers: bool = True, allow_nan: bool = False) -> Any:
    """The JSON value of `text` from a user's file, or InputError `where[:line]: why`. Besides a syntax
    error this refuses what Python's json module lets through and something later would crash on: nesting
    past the recursion limit, a number of more than 4,300 digits, NaN and Infinity (not JSON; a score or a
    figure of NaN poisons every mean), and a lone surrogate (not text: writing it raises). `line_numbers`:
    add the line of a syntax error to `where` (a whole file; a JSONL line's `where` has its own).
    `allow_nan`: read NaN and Infinity (lexsym's own result files from before they were written as null)."""
    try:
        if allow_nan:
            value = json.loads(text)
        else:
            value = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as error:
        at = f"{where}:{error.lineno}" if line_numbers else where
        raise InputError(f"{at}: invalid JSON ({error.msg})") from None
    except RecursionError:
        limit = sys.getrecursionlimit()
        raise InputError(f"{where}: invalid JSON (nested more than about {limit} levels deep)") from None
    except ValueError as error:  # _refuse_constant, _finite_float, or an integer past the digit limit
        why = str(error) if isinstance(error, _NotFinite) else "a number of more than 4,300 digits"
        raise InputError(f"{where}: invalid JSON ({why})") from None
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(value, where)
    return value


class _NotFinite(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotFinite(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NotFinite(f"{text[:40]} is too large for a number")
    return value


def _refuse_lone_surrogates(value: Any, where: str) -> None:
    """InputError naming the first field whose text (or key) holds half of a surrogate pair."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        path, item = pending.pop()
        texts = [item] if isinstance(item, str) else list(item) if isinstance(item, dict) else []
        for text in texts:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                code = ord(text[_bad(text)])
                field = path or "the document"
                raise InputError(f"{where}: {field}: a lone surrogate (U+{code:04X}) is not text") from None
        if isinstance(item, dict):
            pending.extend((f"{path}.{key}" if path else str(key), inner) for key, inner in item.items())
        elif isinstance(item, list):
            pending.extend((f"{path}[{index}]", inner) for index, inner in enumerate(item))


def _bad(text: str) -> int:
    return next(i for i, char in enumerate(text) if 0xD800 <= ord(char) <= 0xDFFF)


def read_json(path: str | Path) -> Any:
    """The JSON value in `path`; InputError (exit 2) naming the file for a missing or unreadable one."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    return parse_json(text, str(path), allow_nan=True)


def load_json(path: str | Path) -> Any:
    """Read a JSON file, turning every failure into a one-line InputError naming file and line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: a directory, not a JSON file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error.__class__.__name__})") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    return parse_json(text, str(path))


def read_yaml_or_json(path: str | Path) -> Any:
    """A YAML (.yaml, .yml) or else JSON file's data (a generator config, a suite, a what-if table); errors
    name the file and the line."""
    path = Path(path)
    if path.suffix.lower() not in (".yaml", ".yml"):
        return load_json(path)
    import yaml

    from lexsym._util.safe_yaml import load_yaml

    try:
        return load_yaml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        problem = getattr(error, "problem", None)
        raise InputError(f"{path}{where}: invalid YAML" + (f" ({problem})" if problem else "")) from None


def read_yaml(path: str | Path, what: str = "YAML file") -> Any:
    """The YAML value in `path` (a config, an eval set); InputError naming the file and, for a syntax
    error, the line. `what` names the file's role in the message ("config file", "eval-set file")."""
    import yaml

    from lexsym._util.safe_yaml import load_yaml

    path = Path(path)
    try:
        return load_yaml(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"{path}: cannot read the {what} ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not YAML"
        raise InputError(f"{path}: not a YAML {what}{where}: {problem}") from None
