"""lexsym side by side with OpenExempt's own solver and an exact MILP (HiGHS) on held-out OpenExempt cases.

Why: issue 15 claims that the logic program is faster than OpenExempt's Python branch-and-bound at every
asset count, takes at most 10 ms per case for 1-4 assets when amortised over a batch, and stays within
2x of HiGHS on the same allocation contract from 8 assets up. This measures all three in one run,
interleaved case by case (the three solvers take turns going first), as median CPU seconds per case
(`time.process_time`).

Cases: with `--openexempt PATH` (a checkout of servantez/OpenExempt; or env OPENEXEMPT_SRC) they are made
by OpenExempt's own case generator (`source/case_generator.py`, its `config.json`: federal and the states
listed there), seeded, never part of its published tasks. Its config refuses more than 8 assets, so the
asset count is set on the config object after validation. Each case is read into lexsym by the reader of
native OpenExempt records (`lexsym.interop.openexempt_native`) and solved under OpenExempt's statute
parameters and readings (`--table openexempt`, as `lexsym import openexempt` re-golds), so both solvers see
the same figures. OpenExempt's code is imported from the checkout at run time; nothing of it is copied
here, and none of its requirements is needed (the solver and the generator use the standard library only).
Without a checkout, lexsym's own seeded cases (`lexsym.testing.random_federal_case`, domiciles rotating
over AZ, IL, OR, PA, WI) are solved under lexsym's statutes, and the OpenExempt column is skipped.

Columns: OpenExempt solves the jurisdictions its gold state allows (`Solver.solve_nonexempt_assets`),
stopped after `--oe-limit` CPU seconds per case (a SIGPROF timer, so POSIX and the main thread; counted as
">cap"). lexsym is the full `lexsym.solve` (tasks AE, EC, EV, NA, OE), warm. The batch column is
`lexsym.solve_many` over the size's cases in one process (workers=1), the batch's CPU divided by its
cases (they are grounded together, so a case has no time of its own). HiGHS is
`lexsym.oracles.milp.solve_milp` on the allocation contract of every jurisdiction lexsym solved (the
contract is read before timing), and the allocator column is lexsym's own optimiser
(`lexsym.law.allocator.allocate`, clingo-lpx) on the same contracts: the 2x-of-HiGHS target compares
these two, since the lexsym column also pays for pass 1 and the explanations. lexsym and HiGHS must
agree on every NA: a disagreement is a correctness bug (exit 1, the case is printed). Disagreements
with OpenExempt are counted, not failed on: its branch-and-bound can stop short.

    python3 benchmarks/solve_versus.py --openexempt /path/to/OpenExempt --cases 20
    OPENEXEMPT_SRC=/path/to/OpenExempt python3 benchmarks/solve_versus.py --cases 10 --cases-for 64=3
    python3 benchmarks/solve_versus.py --cases 5 --sizes 1 2 4  # no checkout: lexsym and HiGHS only
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import lexsym
from lexsym.interop.openexempt import OPENEXEMPT_READINGS, place_id, table_from_openexempt
from lexsym.interop.openexempt_native import case_from_native
from lexsym.law.allocation import AllocationProblem
from lexsym.law.allocator import allocate
from lexsym.law.allowable import allowable_from
from lexsym.law.case import Case
from lexsym.law.first_pass import first_pass
from lexsym.law.rules import rules_root
from lexsym.law.solver import allowable_jurisdictions
from lexsym.law.systems import system_constant
from lexsym.law.whatif import ExemptionTable
from lexsym.oracles.milp import solve_milp
from lexsym.testing import random_federal_case

SIZES = (1, 2, 4, 7, 8, 16, 64)
LEXSYM_STATES = ("AZ", "IL", "OR", "PA", "WI")  # domiciles of lexsym's own cases, rotating
TARGET_BATCH_MS = 10.0  # lexsym batch median per case, 1-4 assets
TARGET_HIGHS_RATIO = 2.0  # lexsym / HiGHS medians, from 8 assets up
TARGET_HIGHS_FROM = 8


class OverCap(Exception):
    """OpenExempt's solver ran past its CPU cap."""


def capped(run: Callable[[], Any], cap: float) -> Any:
    """`run()`, stopped with OverCap after `cap` CPU seconds of this process (SIGPROF counts CPU time)."""

    def stop(signum: int, frame: Any) -> None:
        raise OverCap

    previous = signal.signal(signal.SIGPROF, stop)
    signal.setitimer(signal.ITIMER_PROF, cap)
    try:
        return run()
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


class OpenExempt:
    """OpenExempt's generator and solver, imported from a checkout (its modules live in `source/`)."""

    def __init__(self, checkout: Path) -> None:
        self.checkout = checkout.resolve()
        if not (self.checkout / "source" / "solver.py").is_file():
            raise SystemExit(f"--openexempt {checkout}: no source/solver.py (not an OpenExempt checkout)")
        sys.path.insert(0, str(self.checkout))
        from source.case_generator import CaseGenerator
        from source.config import Config
        from source.jurisdiction import Jurisdiction
        from source.solver import Solver
        from source.statute_factory import StatuteFactory
        from source.utils import set_random_seed

        self._generator, self._seed = CaseGenerator, set_random_seed
        settings = Config.load_config_file(str(self.checkout / "config.json"))
        for key in ("data_directory", "asset_directory", "statute_directory", "template_directory"):
            settings[key] = str(self.checkout / settings[key])
        self.settings = settings
        self.config = Config(settings, "solve_versus", verbose=False)
        places = [Jurisdiction("FEDERAL"), *(Jurisdiction(s) for s in self.config.state_jurisdictions)]
        statute_sets = StatuteFactory.load_statute_sets(self.config.statute_directory, places)
        self.statute_sets = {statute_set.jurisdiction: statute_set for statute_set in statute_sets}
        self.solver = Solver(self.statute_sets)
        self.jurisdictions = [place_id(place.value) for place in places]
        self.table = table_from_openexempt(Path(self.config.statute_directory))

    def cases(self, size: int, count: int, seed: int) -> list[Any]:
        """`count` cases of `size` assets from OpenExempt's generator, seeded (it draws from `random`)."""
        from source.config import Config

        self._seed(seed)
        config = Config({**self.settings, "dataset_size": max(count, 1)}, "solve_versus", verbose=False)
        config.asset_count_min = config.asset_count_max = size  # past its validated 1-8, on purpose
        generator = self._generator(config)
        return [generator.generate_case() for _ in range(count)]

    def allowable(self, case: Any) -> list[Any]:
        return self.statute_sets[case.state_jurisdiction].allowable_exemption_jurisdictions()

    def solve(self, case: Any, allowable: list[Any]) -> dict[str, float]:
        """NA per allowable jurisdiction, keyed by lexsym's ids (OpenExempt keys display names)."""
        answer = self.solver.solve_nonexempt_assets(case, allowable)
        return {place_id(name): value for name, value in answer.items()}


@dataclass
class Sample:
    """One case as each solver gets it, with lexsym's contracts read before timing."""

    case: Case
    contracts: dict[str, AllocationProblem]
    theirs: Any = None  # OpenExempt's Case
    their_allowable: list[Any] = field(default_factory=list)


def contracts(case: Case, tables: Sequence[ExemptionTable]) -> dict[str, AllocationProblem]:
    """The allocation contract of every jurisdiction `lexsym.solve(case)` allocates (its pass 1)."""
    root = rules_root()
    wanted = allowable_jurisdictions(case, root, tables)
    _, first = first_pass(case, root, tables, wanted)
    codes = sorted(set(wanted) | set(allowable_from(first).jurisdictions))  # as `solve` widens them
    return {code: AllocationProblem.from_rows(first.rows, system_constant(code)) for code in codes}


@dataclass
class Row:
    """One asset count: CPU seconds per case of each column, and the agreement counts."""

    size: int
    theirs: list[float] = field(default_factory=list)  # math.inf: stopped at the cap
    ours: list[float] = field(default_factory=list)
    batch: list[float] = field(default_factory=list)
    highs: list[float] = field(default_factory=list)
    allocator: list[float] = field(default_factory=list)  # lexsym's allocator alone, on HiGHS's contracts
    highs_agree: int = 0
    proven: bool = True
    oe_agree: int = 0
    oe_above: int = 0  # OpenExempt left more non-exempt than the optimum (stopped short)
    oe_below: int = 0  # OpenExempt left less non-exempt than lexsym: a difference of semantics
    oe_other_ae: int = 0  # OpenExempt's gold state differs from lexsym's allowable jurisdictions
    notes: list[str] = field(default_factory=list)

    @property
    def cases(self) -> int:
        return len(self.ours)

    @property
    def oe_capped(self) -> int:
        return sum(math.isinf(t) for t in self.theirs)


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def ms(seconds: float, cap: float) -> str:
    if math.isnan(seconds):
        return "-"
    if math.isinf(seconds):
        return f">{cap * 1000:.0f}"
    return f"{seconds * 1000:.2f}" if seconds < 0.01 else f"{seconds * 1000:.1f}"


def ratio(ours: float, theirs: float, cap: float) -> str:
    if math.isnan(theirs):
        return "-"
    return f"<{ours / cap:.3f}" if math.isinf(theirs) else f"{ours / theirs:.3f}"


def compare_openexempt(row: Row, sample: Sample, solution: lexsym.Solution, na: dict[str, float]) -> None:
    ours = {r.jurisdiction: r.non_exempt_total for r in solution.jurisdictions if r.allowable}
    common = sorted(set(ours) & set(na))
    same_places = set(ours) == set(na)
    row.oe_other_ae += not same_places
    above = any(na[code] > ours[code] + 0.5 for code in common)
    below = any(na[code] < ours[code] - 0.5 for code in common)
    row.oe_above += above
    row.oe_below += below
    row.oe_agree += same_places and not above and not below
    if below or not same_places:
        theirs_text = ", ".join(f"{code} {value:g}" for code, value in sorted(na.items()))
        ours_text = ", ".join(f"{code} {value}" for code, value in sorted(ours.items()))
        row.notes.append(f"{sample.case.id}: OpenExempt NA {theirs_text}; lexsym NA {ours_text}")


@dataclass
class Turns:
    """One sample's turn with each solver: the answers, and the CPU seconds appended to the row."""

    row: Row
    sample: Sample
    oe: OpenExempt | None
    tables: Sequence[ExemptionTable]
    cap: float
    solution: lexsym.Solution | None = None
    oracle: dict[str, int] = field(default_factory=dict)
    theirs: dict[str, float] | None = None  # None: OpenExempt not run, or stopped at the cap

    def ours(self) -> None:
        started = time.process_time()
        self.solution = lexsym.solve(self.sample.case, tables=self.tables)
        self.row.ours.append(time.process_time() - started)

    def highs(self) -> None:
        started = time.process_time()
        for code, problem in self.sample.contracts.items():
            self.oracle[code] = solve_milp(problem).non_exempt
        self.row.highs.append(time.process_time() - started)

    def allocator(self) -> None:
        started = time.process_time()
        for problem in self.sample.contracts.values():
            allocate(problem)
        self.row.allocator.append(time.process_time() - started)

    def openexempt(self) -> None:
        oe, sample = self.oe, self.sample
        assert oe is not None
        started = time.process_time()
        try:
            self.theirs = capped(lambda: oe.solve(sample.theirs, sample.their_allowable), self.cap)
            self.row.theirs.append(time.process_time() - started)
        except (OverCap, RecursionError):
            self.row.theirs.append(math.inf)

    def run(self, shift: int) -> None:
        """All solvers on the sample, the one at `shift` (mod their number) first."""
        runs = [self.ours, self.highs, self.allocator]
        if self.oe is not None:
            runs.insert(0, self.openexempt)
        shift %= len(runs)
        for run in runs[shift:] + runs[:shift]:
            run()


def measure(
    size: int, samples: Sequence[Sample], oe: OpenExempt | None, tables: Sequence[ExemptionTable], cap: float
) -> Row:
    """Time every sample with each solver in turn (rotating who goes first), then the batch."""
    row = Row(size)
    for index, sample in enumerate(samples):
        turns = Turns(row, sample, oe, tables, cap)
        turns.run(index)
        solution = turns.solution
        assert solution is not None
        row.proven &= all(result.optimal for result in solution.jurisdictions)
        if set(turns.oracle) != {r.jurisdiction for r in solution.jurisdictions}:
            raise SystemExit(f"{sample.case.id}: contracts {sorted(turns.oracle)} but lexsym solved others")
        wrong = {
            code: (solution.result(code).non_exempt_total, value)
            for code, value in turns.oracle.items()
            if solution.result(code).non_exempt_total != value
        }
        if wrong:
            row.notes.append(f"DISAGREE {sample.case.id}: (lexsym, HiGHS) NA {wrong}")
            print(f"lexsym and HiGHS disagree on {sample.case.id}: (lexsym, HiGHS) NA {wrong}")
            print(sample.case.model_dump_json(indent=2))
        else:
            row.highs_agree += 1
        if turns.theirs is not None:
            compare_openexempt(row, sample, solution, turns.theirs)

    started = time.process_time()
    outcomes = list(lexsym.solve_many([sample.case for sample in samples], tables=tables, workers=1))
    seconds = time.process_time() - started
    row.batch.extend([seconds / len(outcomes)] * len(outcomes))  # grounded together: no time of its own
    for outcome in outcomes:
        if not outcome.ok:
            raise SystemExit(f"solve_many: case {outcome.case_id}: {outcome.error}")
    return row


def agreement(row: Row, with_oe: bool) -> str:
    text = f"HiGHS {row.highs_agree}/{row.cases}"
    if with_oe:
        text += f", OE {row.oe_agree}/{row.cases}"
        parts = [
            f"{count} {what}"
            for count, what in (
                (row.oe_capped, ">cap"),
                (row.oe_above, "OE higher"),
                (row.oe_below, "OE lower"),
                (row.oe_other_ae, "other AE"),
            )
            if count
        ]
        if parts:
            text += f" ({', '.join(parts)})"
    return text


def print_table(rows: Sequence[Row], with_oe: bool, cap: float) -> None:
    head = (
        f"{'assets':>6} | {'cases':>5} | {'OpenExempt ms med (max)':>24} | {'lexsym ms':>9} | "
        f"{'batch ms':>8} | {'HiGHS ms':>8} | {'allocator ms':>12} | {'lexsym/OE':>9} | "
        f"{'allocator/HiGHS':>15} | NA agreement"
    )
    print(head)
    print("-" * len(head))
    for row in rows:
        theirs = median(row.theirs)
        oe_text = f"{ms(theirs, cap)} ({ms(max(row.theirs), cap)})" if row.theirs else "skipped"
        ours = median(row.ours)
        highs = median(row.highs)
        allocator = median(row.allocator)
        print(
            f"{row.size:>6} | {row.cases:>5} | {oe_text:>24} | {ms(ours, cap):>9} | "
            f"{ms(median(row.batch), cap):>8} | {ms(highs, cap):>8} | {ms(allocator, cap):>12} | "
            f"{ratio(ours, theirs, cap):>9} | {ratio(allocator, highs, cap):>15} | {agreement(row, with_oe)}"
        )
    print()


def verdicts(rows: Sequence[Row], with_oe: bool) -> list[tuple[str, bool | None]]:
    """Each target with PASS (True), MISS (False) or not measured in this run (None)."""
    checks: list[tuple[str, bool | None]] = []
    small = [row for row in rows if row.size <= 4]
    if small:
        worst = max(small, key=lambda row: median(row.batch))
        worst_ms = median(worst.batch) * 1000
        text = f"lexsym batch median <= 10 ms per case at 1-4 assets: worst {worst_ms:.1f} ms at {worst.size}"
        checks.append((text, worst_ms <= TARGET_BATCH_MS))
    else:
        checks.append(("lexsym batch median <= 10 ms per case at 1-4 assets: no such size run", None))
    if with_oe:
        worst = max(rows, key=lambda row: median(row.ours) / median(row.theirs))
        share = median(worst.ours) / median(worst.theirs)
        text = f"lexsym faster than OpenExempt at every asset count: worst {share:.3f}x at {worst.size}"
        checks.append((text, all(median(row.ours) < median(row.theirs) for row in rows)))
    else:
        checks.append(("lexsym faster than OpenExempt at every asset count: OpenExempt skipped", None))
    large = [row for row in rows if row.size >= TARGET_HIGHS_FROM]
    if large:
        worst = max(large, key=lambda row: median(row.allocator) / median(row.highs))
        share = median(worst.allocator) / median(worst.highs)
        text = (
            "lexsym's allocator within 2x of HiGHS on the same contracts from 8 assets up: "
            f"worst {share:.2f}x at {worst.size}"
        )
        checks.append((text, share <= TARGET_HIGHS_RATIO))
    else:
        checks.append(("lexsym within 2x of HiGHS from 8 assets up: no such size run", None))
    disagreeing = sum(row.cases - row.highs_agree for row in rows)
    checks.append((f"lexsym and HiGHS agree on every NA: {disagreeing} cases disagree", disagreeing == 0))
    checks.append(("every lexsym allocation proven optimal", all(row.proven for row in rows)))
    return checks


def size_counts(text: str) -> tuple[int, int]:
    size, _, count = text.partition("=")
    try:
        return int(size), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected SIZE=CASES, e.g. 64=3") from None


def samples_for(
    size: int, count: int, seed: int, oe: OpenExempt | None, tables: Sequence[ExemptionTable]
) -> list[Sample]:
    """The cases of one size, read and with their contracts, before anything is timed."""
    if oe is None:
        rng = random.Random(seed)
        cases = [
            random_federal_case(
                rng, min_assets=size, max_assets=size, joint=i % 2 == 1, state=LEXSYM_STATES[i % 5]
            ).model_copy(update={"id": f"lexsym-{size}-{i}"})
            for i in range(count)
        ]
        return [Sample(case, contracts(case, tables)) for case in cases]
    samples = []
    for number, theirs in enumerate(oe.cases(size, count, seed)):
        case_id = f"openexempt-{size}-{number}"
        record = json.loads(json.dumps(theirs.serialize()))
        case = case_from_native(record, case_id=case_id, source=case_id, readings=OPENEXEMPT_READINGS)
        samples.append(Sample(case, contracts(case, tables), theirs, oe.allowable(theirs)))
    return samples


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--openexempt",
        type=Path,
        default=os.environ.get("OPENEXEMPT_SRC") or None,
        help="a checkout of servantez/OpenExempt (default: env OPENEXEMPT_SRC; none: its column is skipped)",
    )
    parser.add_argument("--cases", type=int, default=10, help="cases per size (default 10)")
    parser.add_argument(
        "--cases-for", type=size_counts, nargs="*", default=[], metavar="SIZE=N", help="other counts by size"
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES), help="numbers of assets")
    parser.add_argument("--seed", type=int, default=20261215, help="random seed (default 20261215)")
    parser.add_argument("--oe-limit", type=float, default=30.0, help="OpenExempt CPU seconds per case cap")
    args = parser.parse_args(argv)
    counts = {size: args.cases for size in args.sizes} | dict(args.cases_for)

    oe = OpenExempt(Path(args.openexempt)) if args.openexempt else None
    tables = [oe.table] if oe is not None else []
    print(f"lexsym {lexsym.__version__}; seed {args.seed}; CPU seconds by time.process_time, interleaved")
    if oe is None:
        print("OpenExempt column skipped (no --openexempt / OPENEXEMPT_SRC): lexsym's own seeded cases,")
        print(f"domiciles rotating over {', '.join(LEXSYM_STATES)}, under lexsym's statutes")
    else:
        print(f"OpenExempt: {oe.checkout}; cases from its generator; cap {args.oe_limit:g} CPU s per case")
        print(f"jurisdictions: {', '.join(oe.jurisdictions)}; lexsym under OpenExempt's parameters")

    samples = {size: samples_for(size, counts[size], args.seed + size, oe, tables) for size in args.sizes}
    places = Counter("+".join(sorted(sample.contracts)) for group in samples.values() for sample in group)
    print(
        "lexsym's allowable jurisdictions over the cases:",
        ", ".join(f"{k} {n}" for k, n in sorted(places.items())),
    )
    if oe is not None:
        states = Counter(place_id(s.theirs.state_jurisdiction.value) for g in samples.values() for s in g)
        print("OpenExempt's gold states:", ", ".join(f"{k} {n}" for k, n in sorted(states.items())))
    print()
    warm = samples_for(1, 1, args.seed - 1, oe, tables)[0]  # first solve loads the rules, first HiGHS its lib
    lexsym.solve(warm.case, tables=tables)
    list(lexsym.solve_many([warm.case, warm.case], tables=tables))  # and the first batch rewrites them
    for problem in warm.contracts.values():
        solve_milp(problem)
    if oe is not None:
        oe.solve(warm.theirs, warm.their_allowable)

    rows = []
    for size in args.sizes:
        rows.append(measure(size, samples[size], oe, tables, args.oe_limit))
        print(f"measured {size} assets ({len(samples[size])} cases)", file=sys.stderr, flush=True)
    print_table(rows, oe is not None, args.oe_limit)
    for row in rows:
        for note in row.notes:
            print(f"  {row.size} assets: {note}")
    print()
    for text, met in verdicts(rows, oe is not None):
        print(f"{'SKIP' if met is None else 'PASS' if met else 'MISS'} {text}")
    return 1 if any(row.cases != row.highs_agree for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
