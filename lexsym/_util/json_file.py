"""Reading one whole JSON file (a run.json, a scores.json): a file that cannot be read or parsed is one
line naming it and the line, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError


def read_json(path: str | Path) -> Any:
    """The JSON value in `path`; InputError (exit 2) naming the file for a missing or unreadable one."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InputError(f"{path}: cannot read ({error.strerror or error})") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}:{error.lineno}: invalid JSON ({error.msg})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


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
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not YAML"
        raise InputError(f"{path}: not a YAML {what}{where}: {problem}") from None
