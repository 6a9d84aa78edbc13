"""Typed errors that the CLI turns into one-line messages and exit codes.

Every error names where the problem is (a file, a line, a field) so that a script running
`lexsym` thousands of times can report it without a traceback.
"""

from __future__ import annotations

import errno


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


class OutputError(LexsymError):
    """A result file that cannot be written (a full disk, a read-only folder), named with the reason."""


_OS_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EFBIG: "the file is too large for the file system",
    errno.EACCES: "permission denied",
    errno.EPERM: "not permitted",
}


def os_problem(error: OSError, path: object = None) -> str:
    """`path: reason` for an OSError, in words a person acts on ("the disk is full"), naming the file."""
    where = path if path is not None else error.filename
    reason = _OS_REASONS.get(error.errno or 0) or error.strerror or error.__class__.__name__
    return f"{where}: {reason}" if where else reason
