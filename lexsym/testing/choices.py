"""The few kinds of choice a generator makes, behind one interface, so each generator is written once
and backs both a hypothesis strategy (shrinkable, for tests) and a seeded `random.Random` function
(repeatable, for benchmarks)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


class Choices(Protocol):
    """The few kinds of choice a generator makes. Hypothesis shrinks each towards its simplest answer:
    the low end of a range, False, the first option."""

    def integer(self, low: int, high: int) -> int: ...

    def chance(self, percent: int) -> bool: ...

    def pick(self, options: Sequence[T]) -> T: ...


class DrawnChoices:
    """Choices drawn by hypothesis, so failing examples shrink."""

    def __init__(self, draw: Any) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        return self._draw(st.integers(low, high))

    def chance(self, percent: int) -> bool:
        # Shrinks to 0, which is False: a minimal example keeps only the features it needs.
        return self._draw(st.integers(0, 99)) >= 100 - percent

    def pick(self, options: Sequence[T]) -> T:
        return self._draw(st.sampled_from(options))


class SeededChoices:
    """Choices from a seeded `random.Random`, so a benchmark sees the same problems on every run."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def integer(self, low: int, high: int) -> int:
        return self._rng.randint(low, high)

    def chance(self, percent: int) -> bool:
        return self._rng.randrange(100) < percent

    def pick(self, options: Sequence[T]) -> T:
        return self._rng.choice(list(options))
