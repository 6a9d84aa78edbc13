"""Test aids for the runner, not models to evaluate.

`lexsym:slow-oracle[:SECONDS]` (hidden: `lexsym run --model lexsym:slow-oracle:0.2`) is the oracle after an
asyncio sleep of SECONDS (default 0.1), so a run lasts long enough to be killed mid-way by a test of
resuming. When $LEXSYM_SLOW_ORACLE_LOG names a file, every call appends its task id to it as it starts,
which lets the test count the questions each process asked. It bypasses the response cache like the other
local models.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from lexsym.models.base import Completion, GenerationParams, Message
from lexsym.models.local import OracleModel

LOG_ENV = "LEXSYM_SLOW_ORACLE_LOG"


class SlowOracle:
    """The oracle, slowed down; see the module docstring."""

    cacheable = False

    def __init__(self, delay: float = 0.1, log: str | None = None):
        self.delay = delay
        self.id = f"lexsym:slow-oracle:{delay:g}"
        self.log = log if log is not None else os.environ.get(LOG_ENV)
        self._oracle = OracleModel()

    async def generate(
        self, messages: list[Message], params: GenerationParams, *, task: dict[str, Any] | None = None
    ) -> Completion:
        if self.log:
            line = f"{(task or {}).get('id', '?')}\n".encode()
            fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)  # one short O_APPEND write: lines from concurrent calls never interleave
            finally:
                os.close(fd)
        await asyncio.sleep(self.delay)
        completion = await self._oracle.generate(messages, params, task=task)
        completion.model = self.id
        return completion
