"""claim_flags: claims too trivial to earn a mechanical level, and real lemmas that are not."""

from __future__ import annotations

import pytest
from toolreq import require_module

from eurekaclaw.types.artifacts import Claim, ClaimVariable
from eurekaclaw.verify import trivial
from eurekaclaw.verify.trivial import claim_flags


def V(name: str, domain: str = "real", **kw: object) -> ClaimVariable:
    return ClaimVariable(name=name, domain=domain, **kw)  # type: ignore[arg-type]


def claim(conclusion: str, *assumptions: str, variables: list[ClaimVariable] | None = None) -> Claim:
    return Claim(
        variables=variables if variables is not None else [V("x")], assumptions=list(assumptions), conclusion=conclusion
    )


def only(flags: list[str], word: str) -> str:
    hits = [f for f in flags if word in f]
    assert len(hits) == 1, flags
    return hits[0]


UCB = Claim(
    variables=[V("T", "natural", low=1), V("D", "interval", low=0, high=1, open_low=True)],
    conclusion="8*log(T)/D^2 + 1 >= 1",
)


# --- (a) no free variable ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "c",
    [
        Claim(conclusion="0 <= 1"),
        claim("x - x + 1 >= 0"),
        claim("sin(x)^2 + cos(x)^2 <= 1"),
        claim("x <= x"),
    ],
    ids=lambda c: c.conclusion,
)
def test_conclusion_without_variables(c: Claim) -> None:
    assert "involves no variable" in only(claim_flags(c), "no variable")


def test_a_sum_identity_still_involves_its_variable() -> None:
    # sympy replaces the sum by its closed form, which makes the two sides equal; as written
    # the conclusion is about n
    c = claim("Sum(k^2, (k, 1, n)) == n*(n + 1)*(2*n + 1)/6", variables=[V("n", "natural")])
    assert not any("no variable" in f for f in claim_flags(c))


# --- (b) restated assumption ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("c", "word"),
    [
        (claim("b >= a", "a <= b", variables=[V("a"), V("b")]), "restates assumption 1"),
        (claim("a - b <= 0", "a <= b", variables=[V("a"), V("b")]), "restates assumption 1"),
        (claim("y == 1 - x", "x + y == 1", variables=[V("x"), V("y")]), "restates assumption 1"),
        (claim("x >= 0", "x > 1"), "follows directly from assumption 1"),
        (claim("2*x >= 2", "x >= 1"), "follows directly from assumption 1"),
        (claim("x + y >= 0", "y > 3", "x + y > 1", variables=[V("x"), V("y")]), "follows directly from assumption 2"),
        (claim("n >= 1", variables=[V("n", "natural", low=1)]), "restates the domain of n"),
        (claim("x > -1", variables=[V("x", "positive")]), "follows directly from the domain of x"),
    ],
    ids=lambda v: v.conclusion if isinstance(v, Claim) else v,
)
def test_conclusion_restating_an_assumption(c: Claim, word: str) -> None:
    assert word in only(claim_flags(c), "adds nothing")


@pytest.mark.parametrize(
    "c",
    [
        claim("x^2 >= 1", "x >= 1"),
        claim("x > 1", "x >= 1"),  # strictness matters: x = 1
        claim("b >= a + 1", "a <= b", variables=[V("a"), V("b")]),
        claim("x + y >= 0", "x + y > -1", variables=[V("x"), V("y")]),
    ],
)
def test_not_a_restatement(c: Claim) -> None:
    assert not any("adds nothing" in f for f in claim_flags(c))


# --- (c) vacuous or pinned ------------------------------------------------------------------------


def test_contradictory_bounds_are_vacuous_without_a_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trivial, "_solver_facts", lambda claim, timeout_s: {})
    assert "vacuously true" in only(claim_flags(claim("x > 100", "x > 2", "x < 1")), "vacuous")
    pinned = claim_flags(claim("x^2 >= 4", variables=[V("x", "interval", low=2, high=2)]))
    assert "x = 2" in only(pinned, "single value")


def test_solver_finds_vacuous_and_pinned_claims() -> None:
    require_module("z3")
    # the definedness condition x > 0 contradicts the assumption
    assert "vacuously true" in only(claim_flags(claim("log(x) > 5", "x < 0")), "vacuous")
    assert "vacuously true" in only(
        claim_flags(claim("x*y > 7", "x^2 + y^2 < 0", variables=[V("x"), V("y")])), "vacuous"
    )
    flags = claim_flags(claim("x^2 + y >= 3", "x == 3", "y*y == 2*y - 1", variables=[V("x"), V("y")]))
    message = only(flags, "single value")
    assert "x = 3" in message and "y = 1" in message
    assert not any(
        "single value" in f for f in claim_flags(claim("x^2 + y >= 3", "x == 3", variables=[V("x"), V("y")]))
    )


# --- (d) narrower than the main theorem -----------------------------------------------------------


def test_assumption_narrowing_a_variable_is_flagged_with_both_ranges() -> None:
    lemma = Claim(variables=UCB.variables, assumptions=["T <= 10"], conclusion=UCB.conclusion)
    message = only(claim_flags(lemma, UCB), "main theorem")
    assert "T ranges over integers in [1, 10]" in message and "integers in [1, ∞)" in message


@pytest.mark.parametrize(
    "variables",
    [
        [V("T", "natural", low=1), V("D", "interval", low=0.5, high=1)],  # D: [1/2, 1] vs (0, 1]
        [V("T", "natural", low=2), V("D", "interval", low=0, high=1, open_low=True)],  # T >= 2
        [V("T", "natural", low=1), V("D", "interval", low=0, high=1, open_low=True, open_high=True)],  # D < 1
    ],
)
def test_domain_narrowing_is_flagged(variables: list[ClaimVariable]) -> None:
    lemma = Claim(variables=variables, conclusion=UCB.conclusion)
    assert len([f for f in claim_flags(lemma, UCB) if "main theorem" in f]) == 1


def test_integers_only_narrow_a_real_variable() -> None:
    ref = claim("x^2 >= 0 - x^2", variables=[V("x", low=0)])
    lemma = claim("x^3 >= 0", variables=[V("x", "natural")])
    assert "integers in [0, ∞)" in only(claim_flags(lemma, ref), "main theorem")


def test_wider_or_unrelated_ranges_are_fine() -> None:
    wider = Claim(
        variables=[V("T", low=0.5), V("D", "positive"), V("z")], conclusion="8*log(T)/D^2 + z^2 + 1 >= 1 + 8*log(T)/D^2"
    )
    assert not any("main theorem" in f for f in claim_flags(wider, UCB))
    assert not any("main theorem" in f for f in claim_flags(UCB, UCB))
    assert not any("main theorem" in f for f in claim_flags(UCB, Claim(conclusion="y > 0")))  # unparseable reference


# --- theorems true on their whole domain are not trivial ----------------------------------------


@pytest.mark.parametrize(
    "c",
    [
        claim("x^2 - 2*x + 1 >= 0"),
        claim("exp(x) > 0"),
        claim("(a*x + b*y)^2 <= (a^2 + b^2)*(x^2 + y^2)", variables=[V("a"), V("b"), V("x"), V("y")]),
        claim("Sum(k, (k, 1, n)) == n*(n + 1)/2", variables=[V("n", "natural")]),
    ],
    ids=["square", "exp", "cauchy_schwarz", "gauss_sum"],
)
def test_a_statement_true_everywhere_is_a_theorem_not_a_trivial_claim(c: Claim) -> None:
    require_module("z3")
    assert claim_flags(c) == []


# --- real lemmas ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("c", "ref"),
    [
        (claim("(a + b)/2 >= sqrt(a*b)", variables=[V("a", "nonnegative"), V("b", "nonnegative")]), None),
        (claim("exp(-2*n*t^2) <= 2 - n*t^2", variables=[V("n", "natural"), V("t")]), None),
        (UCB, None),
        (Claim(variables=UCB.variables, assumptions=["T >= 1"], conclusion=UCB.conclusion), UCB),
        (claim("(1 + x)^n >= 1 + n*x", variables=[V("n", "natural", low=1), V("x", low=-1)]), None),
        (claim("x*y <= 1/4", "x + y == 1", variables=[V("x"), V("y")]), None),
        (claim("log(1 + x) <= x", variables=[V("x", low=-1, open_low=True)]), None),
    ],
    ids=["amgm", "exp_tangent", "ucb", "ucb_same_range", "bernoulli", "product_quarter", "log1p"],
)
def test_real_lemmas_are_not_flagged(c: Claim, ref: Claim | None) -> None:
    assert claim_flags(c, ref) == []


# --- (e) read off the ranges by interval arithmetic ---------------------------------------------


@pytest.mark.parametrize(
    "c",
    [
        claim("t*x <= t", variables=[V("x", "interval", low=0, high=1), V("t", "nonnegative")]),
        claim("t*x <= t", "0 <= x", "x <= 1", "t >= 0", variables=[V("x"), V("t")]),
        claim("x^2 <= 4", "abs(x) <= 2"),
        claim("abs(x) <= 1", "-1 <= x <= 1"),
        claim("abs(x) <= 1", variables=[V("x", "interval", low=-1, high=1)]),
        # true only because n >= 0, and read off that range: exponent <= 0, so exp(...) <= 1
        claim("exp(-2*n*t^2) <= 1", variables=[V("n", "natural"), V("t")]),
        claim("sqrt(x) <= 2", variables=[V("x", "interval", low=0, high=4)]),
        claim("x*y >= 0", variables=[V("x", "nonnegative"), V("y", "nonnegative")]),
        claim("log(x) <= 1", variables=[V("x", "interval", low=1, high=2)]),
    ],
    ids=lambda c: f"{c.conclusion} | {'; '.join(c.assumptions)}",
)
def test_conclusion_read_off_the_ranges_is_trivial(c: Claim) -> None:
    assert "interval arithmetic" in only(claim_flags(c, timeout_s=2), "interval arithmetic")


@pytest.mark.parametrize(
    "c",
    [
        claim("x^2 - 2*x + 1 >= 0"),  # needs the square completed: real work, not a range
        claim("x^2 >= 0"),  # true for every real: a theorem, not a restatement
        claim("t*x <= t", variables=[V("x", "interval", low=0, high=2), V("t", "nonnegative")]),  # false
        claim("log(T) <= T", variables=[V("T", low=1)]),  # interval arithmetic cannot decide it
        claim("x^2 <= 4", "abs(x) <= 3"),  # false
    ],
    ids=lambda c: f"{c.conclusion} | {'; '.join(c.assumptions)}",
)
def test_interval_arithmetic_does_not_decide_these(c: Claim) -> None:
    assert not any("interval arithmetic" in f for f in claim_flags(c, timeout_s=2))


# --- failing closed -----------------------------------------------------------------------------


def test_unparseable_claim_is_flagged() -> None:
    assert only(claim_flags(claim("y > 0")), "does not parse")


def test_internal_error_is_a_flag_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(parsed: object) -> list[str]:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(trivial, "_restated", boom)
    flags = claim_flags(claim("x^2 >= x - 1"))
    assert flags == ["the claim could not be analysed: RuntimeError: kaboom"]
