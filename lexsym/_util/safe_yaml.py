"""YAML read without anchors and aliases: a 303-byte file of nested aliases ("billion laughs") expanded to a
25 MB error message, and ten levels ran past 120 s and 1 GB (issue 19, item 10). No file lexsym reads needs
them, so an alias is refused at its line instead of expanded."""

from __future__ import annotations

from typing import Any

import yaml


class AliasRefused(yaml.YAMLError):
    """A YAML alias (`*name`), refused where it stands."""

    def __init__(self, line: int):
        super().__init__(f"aliases (*name) are not accepted (line {line})")
        self.problem = "aliases (*name) are not accepted"
        self.problem_mark = _Mark(line - 1)


class _Mark:
    def __init__(self, line: int):
        self.line = line


class _NoAliasLoader(yaml.SafeLoader):
    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise AliasRefused(self.peek_event().start_mark.line + 1)
        return super().compose_node(parent, index)


class TooDeep(yaml.YAMLError):
    """What PyYAML cannot read without a crash of its own: nesting past the recursion limit, an integer of
    more than 4,300 digits (Python's limit on converting one)."""

    def __init__(self, problem: str):
        super().__init__(problem)
        self.problem = problem


def load_yaml(text: str) -> Any:
    """The value of a YAML text, as yaml.safe_load gives it, but with aliases refused (AliasRefused) and
    PyYAML's own crashes on hostile nesting or numbers turned into YAMLError (TooDeep)."""
    try:
        return yaml.load(text, Loader=_NoAliasLoader)
    except RecursionError:
        raise TooDeep("nested too deeply") from None
    except ValueError as error:
        if isinstance(error, yaml.YAMLError):
            raise
        raise TooDeep("a number of more than 4,300 digits") from None
