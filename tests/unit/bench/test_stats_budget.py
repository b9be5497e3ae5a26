"""Wilson intervals, McNemar's exact test and the bench budget: the numbers a report rests on."""

from __future__ import annotations

import math

import pytest

from eurekaclaw.bench.budget import BenchBudget
from eurekaclaw.bench.stats import mcnemar_exact, wilson


def test_wilson_matches_the_closed_form_at_the_edges_and_in_the_middle() -> None:
    none = wilson(0, 10)
    assert none.low == 0.0 and math.isclose(none.high, 0.2775, abs_tol=1e-4)
    half = wilson(5, 10)
    assert math.isclose(half.low, 0.2366, abs_tol=1e-4) and math.isclose(half.high, 0.7634, abs_tol=1e-4)
    full = wilson(4, 4)
    assert full.high == 1.0 and math.isclose(full.low, 0.5101, abs_tol=1e-4)
    assert wilson(0, 0).value is None and wilson(0, 0).text() == "n/a"
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_mcnemar_exact_is_a_two_sided_binomial_test_on_the_discordant_pairs() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    assert math.isclose(mcnemar_exact(0, 6), 2 / 64)
    assert math.isclose(mcnemar_exact(6, 0), 2 / 64)
    assert math.isclose(mcnemar_exact(1, 5), 2 * (1 + 6) / 64)
    assert mcnemar_exact(3, 3) == 1.0


def test_a_total_budget_gives_fair_shares_and_rolls_the_rest_over() -> None:
    budget = BenchBudget(total_usd=1.0)
    first = budget.allot("a", to_start=4)
    assert first is not None and math.isclose(first.usd, 0.25)
    budget.settle("a", 0.05, 100)
    second = budget.allot("b", to_start=3)
    assert second is not None and math.isclose(second.usd, 0.95 / 3, rel_tol=1e-5)


def test_runs_in_flight_hold_their_caps_so_the_total_is_never_overcommitted() -> None:
    budget = BenchBudget(total_tokens=1000, run_tokens=400)
    held = [budget.allot(f"r{i}", to_start=10) for i in range(3)]
    assert [a.tokens for a in held if a] == [100, 90, 81]  # each a fair share of what is not held
    budget = BenchBudget(total_tokens=1000, run_tokens=400)
    caps = [budget.allot(f"r{i}", to_start=1) for i in range(4)]
    assert [c.tokens if c else None for c in caps] == [400, 400, 200, None]


def test_per_session_cap_without_a_total() -> None:
    budget = BenchBudget(run_usd=0.5, run_tokens=2000)
    allot = budget.allot("a", to_start=100)
    assert allot is not None and allot.usd == 0.5 and allot.tokens == 2000
    budget.settle("a", None, 10)
    assert budget.allot("b", to_start=99) is not None  # no dollar total: an unknown cost stops nothing


def test_an_unknown_cost_exhausts_a_dollar_total() -> None:
    budget = BenchBudget(total_usd=10.0)
    assert budget.allot("a", to_start=2) is not None
    budget.settle("a", None, 500)
    assert budget.allot("b", to_start=1) is None
    assert "unknown" in budget.exhausted_reason()


def test_a_spent_total_stops_the_bench() -> None:
    budget = BenchBudget(total_usd=0.1)
    budget.spend(0.1, 0)
    assert budget.allot("a", to_start=1) is None
    assert "$0.1000 of $0.1000" in budget.exhausted_reason()
