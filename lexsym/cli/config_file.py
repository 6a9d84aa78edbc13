"""`--config FILE`: a command's options in one YAML file, so that a run is reproducible from one file.

The keys are the command's long option names (`max_tokens` or `max-tokens`), with the values the flags
take; options that take `key=value` pairs are mappings (`model_options:` for `-M`, `judge_options:` for
`-J`). `lexsym judge RUN --config FILE` reads the file's `judge:` section, so one file can hold a run and
its judging:

    model: litellm:anthropic/claude-sonnet-4-5
    tasks: out/basic
    out: runs/claude
    max_tokens: 4096
    seed: 0
    model_options: {reasoning_effort: low, timeout: 120}
    judge:
      judge: [litellm:openai/gpt-4o, litellm:hosted_vllm/Qwen/Qwen3-32B]
      judge_api_base: {litellm:hosted_vllm/Qwen/Qwen3-32B: http://gpu:8000/v1}

A flag given on the command line wins over the file. Every value is checked with the flag's own type,
and a bad one is one line naming the file and the key. `lexsym run` writes the options it ran with to
`config.yaml` in the run directory, so `lexsym run --config RUN/config.yaml` repeats it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexsym._util.errors import InputError

#: Keys of the file that are mappings standing for repeated `key=value` flags, and those flags' names.
MAPPINGS = {
    "model_options": "model_option",
    "judge_options": "judge_option",
    "judge_api_base": "judge_api_base",
}
_NOT_IN_FILE = {"config", "json_output"}


def read_config(path: Path, section: str | None = None) -> dict[str, Any]:
    """The mapping in a YAML file (or its `section`), keys with `-` read as `_`; InputError naming the file
    for a file that is missing, not YAML, or not a mapping."""
    from lexsym._util.json_file import read_yaml

    data = read_yaml(path, "config file")
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(f"{path}: a config file is a mapping of option names to values")
    if section is not None:
        data = data.get(section) or {}
        if not isinstance(data, dict):
            raise InputError(f"{path}: {section}: must be a mapping of option names to values")
    return {str(key).replace("-", "_"): value for key, value in data.items()}


def _from_command_line(ctx: Any, name: str) -> bool:
    """Whether the user typed this option (by the source's name: Typer vendors its own click)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def apply_config(ctx: Any, path: Path | None, *, section: str | None = None) -> dict[str, Any]:
    """The command's option values with the file's filled in where the command line gave none.

    Returns every parameter of the command by name; the mappings of MAPPINGS come back as
    `{flag name: ["key=value", ...]}` with the file's pairs first, so a repeated flag's own check (and
    its "given twice" error) still applies, and a pair on the command line overrides the file's."""
    values = dict(ctx.params)
    if path is None:
        return values
    file_values = read_config(path, section)
    params = {param.name: param for param in ctx.command.params if param.name}
    where = f"{path}: {section}." if section else f"{path}: "
    for key, value in file_values.items():
        if key == "judge" and section is None:
            continue  # the judging section of a run's file: read by `lexsym judge --config`
        if key in MAPPINGS and MAPPINGS[key] in params:
            values[MAPPINGS[key]] = _pairs(value, f"{where}{key}") + _overriding(ctx, values, MAPPINGS[key])
            continue
        param = params.get(key)
        if param is None or key in _NOT_IN_FILE:
            in_file = {flag: key for key, flag in MAPPINGS.items()}
            known = sorted(in_file.get(name, name) for name in params if name not in _NOT_IN_FILE)
            raise InputError(f"{where}{key}: not an option of this command (options: {', '.join(known)})")
        if _from_command_line(ctx, key):
            continue
        if getattr(param, "multiple", False) and not isinstance(value, list):
            value = [value]
        try:
            values[key] = param.process_value(ctx, value)
        except Exception as error:  # the flag's own check (click's BadParameter): one line, not a traceback
            message = error.format_message() if hasattr(error, "format_message") else str(error)
            raise InputError(f"{where}{key}: {message}") from None
    return values


def _pairs(value: Any, where: str) -> list[str]:
    if not isinstance(value, dict):
        raise InputError(f"{where}: must be a mapping of names to values")
    import json

    return [f"{name}={item if isinstance(item, str) else json.dumps(item)}" for name, item in value.items()]


def _overriding(ctx: Any, values: dict[str, Any], name: str) -> list[str]:
    """The command line's own pairs for a mapping flag, or none when it gave none."""
    if not _from_command_line(ctx, name):
        return []
    return list(values.get(name) or [])


def merged_pairs(pairs: list[str] | None) -> list[str]:
    """Pairs with a later `key=` replacing an earlier one (the command line's over the file's)."""
    latest: dict[str, str] = {}
    for pair in pairs or []:
        latest[pair.partition("=")[0].strip()] = pair
    return list(latest.values())


def write_config(path: Path, values: dict[str, Any]) -> None:
    """The options a run ran with, as a config file (atomic), leaving out unset ones."""
    import yaml

    from lexsym._util.atomic import write_atomic

    kept = {
        key: str(value) if isinstance(value, Path) else list(value) if isinstance(value, tuple) else value
        for key, value in values.items()
        if value is not None
        and not (isinstance(value, (list, tuple, dict)) and not value)
        and key not in _NOT_IN_FILE
    }
    text = "# The options of this run: lexsym run --config this-file repeats it.\n"
    write_atomic(path, text + yaml.safe_dump(kept, sort_keys=False, allow_unicode=True))
