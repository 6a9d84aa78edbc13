"""Typed errors that the CLI turns into one-line messages and exit codes.

Every error names where the problem is (a file, a line, a field) so that a script running
`lexsym` thousands of times can report it without a traceback.
"""

from __future__ import annotations


class LexsymError(Exception):
    """Base class; `exit_code` is what the CLI returns for it."""

    exit_code = 2


class InputError(LexsymError):
    """A case, answer or table file that cannot be read or does not validate."""


class RuleError(LexsymError):
    """A statute or encoding file that clingo refuses, located by file and line."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None):
        super().__init__(message)
        self.file = file
        self.line = line


class SolveError(LexsymError):
    """The logic program ran but could not give an answer (no model, no proof, missing amounts)."""
