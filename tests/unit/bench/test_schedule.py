"""The bench's start order: longest expected first, repetitions and configurations of a problem
together, the estimate from earlier runs or else from the statement's length."""

from __future__ import annotations

import pytest

from eurekaclaw.bench.models import BenchConfig, RunRecord, RunSpec
from eurekaclaw.bench.problems import Problem
from eurekaclaw.bench.schedule import expected_costs, order, schedule

STATEMENTS = {"short": "x >= 0 holds.", "medium": "For all real x, x^2 >= 0 holds.", "long": "L" * 120}


def _specs(configs: tuple[str, ...] = ("a",), reps: int = 1, problems: tuple[str, ...] = ("short", "medium", "long")):
    out = []
    for label in configs:
        for rep in range(1, reps + 1):
            for pid in problems:
                problem = Problem(id=pid, statement=STATEMENTS[pid], truth="true", source="test")
                out.append(
                    RunSpec(
                        run_id=f"{label}/{pid}/{rep}",
                        config=BenchConfig(label=label),
                        problem=problem,
                        repetition=rep,
                        seed=0,
                        home="/h",
                    )
                )
    return out


def _ran(config: str, pid: str, wall: float) -> RunRecord:
    return RunRecord(
        run_id=f"{config}/{pid}/9", config=config, problem_id=pid, problem_set="t", truth="true", repetition=9, seed=0,
        wall_s=wall,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        # nothing measured: the statement's length is the estimate
        ([], {"a/short/1": 13, "a/medium/1": 31, "a/long/1": 120}),
        # the same configuration and problem measured: its mean
        ([_ran("a", "short", 10.0), _ran("a", "short", 20.0)], {"a/short/1": 15.0}),
        # only another configuration measured: the problem's mean over all
        ([_ran("b", "medium", 8.0)], {"a/medium/1": 8.0}),
        # an unmeasured problem: its length times the median seconds per character of the measured
        ([_ran("a", "short", 1.3), _ran("a", "medium", 31.0)], {"a/long/1": 120 * (0.1 + 1.0) / 2}),
    ],
)
def test_expected_cost_prefers_measurements_then_length(history: list[RunRecord], expected: dict[str, float]) -> None:
    costs = expected_costs(_specs(), history)
    for run_id, value in expected.items():
        assert costs[run_id] == pytest.approx(value)


@pytest.mark.parametrize(
    ("costs", "first"),
    [
        ({"a/short/1": 1, "a/medium/1": 2, "a/long/1": 3}, ["a/long/1", "a/medium/1", "a/short/1"]),
        ({"a/short/1": 50, "a/medium/1": 2, "a/long/1": 3}, ["a/short/1", "a/long/1", "a/medium/1"]),
        # a tie keeps the plan's problem order
        ({"a/short/1": 5, "a/medium/1": 5, "a/long/1": 1}, ["a/short/1", "a/medium/1", "a/long/1"]),
    ],
)
def test_longest_first(costs: dict[str, float], first: list[str]) -> None:
    assert [s.run_id for s in order(_specs(), costs)] == first


def test_repetitions_and_configurations_of_the_slowest_problem_start_first_interleaved() -> None:
    specs = _specs(configs=("a", "b"), reps=2)
    history = [_ran("a", "long", 90.0), _ran("a", "medium", 1.0), _ran("a", "short", 2.0)]
    ordered = [s.run_id for s in schedule(specs, history)]
    assert ordered[:4] == ["a/long/1", "b/long/1", "a/long/2", "b/long/2"]
    assert ordered[4:8] == ["a/short/1", "b/short/1", "a/short/2", "b/short/2"]
    assert sorted(ordered) == sorted(s.run_id for s in specs)  # a reordering: nothing added or dropped


def test_schedule_records_each_runs_estimate() -> None:
    ordered = schedule(_specs(), [_ran("a", "medium", 4.25)])
    assert {s.run_id: s.expected_s for s in ordered}["a/medium/1"] == 4.25
