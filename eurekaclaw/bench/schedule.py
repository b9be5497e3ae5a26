"""The order runs start in: longest expected first, every repetition and configuration of a
problem together, so the slowest sessions start at once and the short ones fill in around them.

No number of workers finishes a bench before its longest session does; started last, that
session is the whole tail. The expected cost of a run is, in order of preference: the mean wall
time of earlier runs of the same configuration and problem, of the same problem in any
configuration, or — for a problem never run — its statement length scaled by the seconds per
character of the problems that were run (just its length when none was).

Pure functions: the bench passes the earlier records in.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from statistics import median

from eurekaclaw.bench.models import RunRecord, RunSpec


def _means(pairs: Iterable[tuple[tuple[str, ...], float]]) -> dict[tuple[str, ...], float]:
    sums: dict[tuple[str, ...], list[float]] = defaultdict(list)
    for key, value in pairs:
        sums[key].append(value)
    return {k: sum(v) / len(v) for k, v in sums.items()}


def expected_costs(specs: list[RunSpec], history: list[RunRecord]) -> dict[str, float]:
    """run_id → expected wall seconds (or a length-based score when nothing was measured).

    Timed-out runs count with the time they were allowed: they took at least that long."""
    timed = [r for r in history if r.wall_s > 0]
    by_pair = _means(((r.config, r.problem_id), r.wall_s) for r in timed)
    by_problem = _means(((r.problem_id,), r.wall_s) for r in timed)
    lengths = {s.problem.id: len(s.problem.statement) for s in specs}
    rates = [by_problem[(pid,)] / max(1, n) for pid, n in lengths.items() if (pid,) in by_problem]
    per_char = median(rates) if rates else 1.0
    costs: dict[str, float] = {}
    for spec in specs:
        pid = spec.problem.id
        if (spec.config.label, pid) in by_pair:
            costs[spec.run_id] = by_pair[(spec.config.label, pid)]
        elif (pid,) in by_problem:
            costs[spec.run_id] = by_problem[(pid,)]
        else:
            costs[spec.run_id] = lengths[pid] * per_char
    return costs


def order(specs: list[RunSpec], costs: dict[str, float]) -> list[RunSpec]:
    """Longest first; equal costs keep the plan's problem order, and within one problem the
    repetitions and configurations alternate (r1 of every configuration, then r2, ...)."""
    config_rank = {label: i for i, label in enumerate(dict.fromkeys(s.config.label for s in specs))}
    problem_rank = {pid: i for i, pid in enumerate(dict.fromkeys(s.problem.id for s in specs))}
    return sorted(
        specs,
        key=lambda s: (
            -round(costs.get(s.run_id, 0.0), 6),
            problem_rank[s.problem.id],
            s.repetition,
            config_rank[s.config.label],
        ),
    )


def schedule(specs: list[RunSpec], history: list[RunRecord]) -> list[RunSpec]:
    """The specs in the order to start them, each with its expected cost recorded."""
    costs = expected_costs(specs, history)
    return [s.model_copy(update={"expected_s": round(costs[s.run_id], 3)}) for s in order(specs, costs)]
